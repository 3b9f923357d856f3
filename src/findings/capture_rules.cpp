// Capture mistakes that make the rest of the report moot: nothing recorded, or a GPU run
// recorded without its GPU side, or without its CPU side.
#include <algorithm>

#include "findings/rules.h"

namespace ks {

namespace {
// The profiler's two sides, as a capture missing either should have asked for them.
constexpr const char* kBothActivities =
    "torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,\n"
    "                                   torch.profiler.ProfilerActivity.CUDA])";
}  // namespace

void rule_empty_trace(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  if (has_timed_events(t)) return;
  Finding f;
  f.id = "capture.empty";
  f.severity = Severity::kCritical;
  // Events left out for a timestamp that is missing or not a number are not metadata.
  const uint64_t untimed = t.diagnostics.count(Diag::kMissingTimestamp);
  // Event objects skipped whole (not JSON, too large, not objects): a damaged file, not an
  // empty capture; "call prof.step()" would send the user the wrong way.
  uint64_t unreadable = 0, first_at = UINT64_MAX;
  for (Diag d : {Diag::kMalformedEvent, Diag::kEventTooLarge, Diag::kNonObjectEvent,
                 Diag::kTruncatedEvent}) {
    const DiagEntry& e = t.diagnostics.get(d);
    if (e.count == 0) continue;
    unreadable += e.count;
    first_at = std::min(first_at, e.first_offset);
  }
  if (t.facts.events_total == 0 && unreadable > 0) {
    f.title = strf(
        "No event could be read: %llu event %s skipped as unreadable, the first at "
        "byte %llu (see Diagnostics)",
        static_cast<unsigned long long>(unreadable),
        unreadable == 1 ? "object was" : "objects were", static_cast<unsigned long long>(first_at));
    f.meaning =
        "The file holds event objects, but none is valid JSON a trace event can be read from: "
        "the file was damaged (cut short, edited, or written by a process that crashed), not "
        "an empty capture.";
    f.fix =
        "Open the profiler's own output again (export_chrome_trace or the "
        "tensorboard_trace_handler file as written); the Diagnostics below give each "
        "problem's byte offset.";
    f.number("events", 0);
    f.number("unreadable_events", static_cast<double>(unreadable));
    out->push_back(std::move(f));
    return;
  }
  f.title = t.facts.events_total == 0 ? "The trace has no events"
            : untimed > 0
                ? strf(
                      "The trace has no usable timed events: %llu left out for a missing or "
                      "unusable timestamp (see Diagnostics)",
                      static_cast<unsigned long long>(untimed))
                : "The trace has no timed events (metadata only)";
  f.meaning =
      "Nothing was recorded while the profiler was active, so there is nothing to "
      "analyze: usually the schedule never reached an active step, or the profiler was "
      "stopped before prof.step() was called.";
  f.fix =
      "Call prof.step() once per iteration and run at least wait+warmup+active steps; or "
      "profile without a schedule around the code of interest.";
  f.fix_code =
      "with torch.profiler.profile(schedule=torch.profiler.schedule(wait=1, warmup=1, "
      "active=3)) as prof:\n    for batch in loader:\n        train_step(batch)\n"
      "        prof.step()";
  f.number("events", static_cast<double>(t.facts.events_total));
  out->push_back(std::move(f));
}

// Where a file cut off while it was written ends (its gzip stream, traceEvents array or last
// event unclosed): the first such diagnostic's byte offset, or UINT64_MAX for a whole file.
namespace {
uint64_t cut_off_at(const Trace& t) {
  uint64_t at = UINT64_MAX;
  for (Diag d : {Diag::kGzipTruncated, Diag::kTruncatedEvent, Diag::kMissingArrayClose}) {
    const DiagEntry& e = t.diagnostics.get(d);
    if (e.count > 0) at = std::min(at, e.first_offset);
  }
  return at;
}
}  // namespace

void rule_no_gpu_activity(const RuleInput& in, std::vector<Finding>* out) {
  const Analyses& a = in.analyses;
  if (!a.gpu_expected || a.gpu_idle.has_gpu_ops) return;
  if (in.trace.slices.size() == 0) return;  // the empty-trace finding says it already
  // An Nsight Systems export: nsys.empty_capture says it, with nsys's flags.
  if (in.trace.facts.format == TraceFormat::kNsysSqlite) return;
  Finding f;
  f.id = "capture.no_gpu_activity";
  f.severity = Severity::kCritical;
  f.title = "GPU run, but no GPU activity was recorded";
  f.meaning =
      "The CPU launched work on a GPU (or the trace names one), yet no kernel, memcpy "
      "or memset appears: the GPU side of the run is missing, so GPU time, idle gaps "
      "and kernel rankings cannot be computed.";
  f.fix = "Profile with the CUDA activity enabled (CUPTI must be available to the process).";
  f.fix_code = kBothActivities;
  // CUPTI metrics (profiler_metrics): Kineto's range profiler will not run with the CUDA
  // activity, so its capture has metric ranges in place of kernels. Turning the CUDA activity
  // on is not the fix: a second capture without the metrics is.
  const auto ranges = in.trace.facts.categories.find(kCuptiRangeCategory);
  if (ranges != in.trace.facts.categories.end()) {
    f.severity = Severity::kWarning;
    f.title = strf(
        "No GPU timeline: the kernels were measured with CUPTI metrics (%llu %s "
        "ranges), not traced",
        static_cast<unsigned long long>(ranges->second), kCuptiRangeCategory);
    f.meaning =
        "experimental_config profiler_metrics runs Kineto's CUPTI range profiler, which "
        "replaces the CUDA activity: the trace holds each kernel's counters over a made-up "
        "time split, not when kernels ran, so GPU time, idle gaps and kernel rankings cannot "
        "be computed.";
    f.fix =
        "Read the counters from this capture; take a second one without profiler_metrics for "
        "the GPU timeline.";
    f.fix_code =
        "torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])  "
        "# no experimental_config";
  }
  // A file cut off while it was written (its gzip stream or traceEvents array never closed, its
  // last event cut mid-object; as rule_gpu_events_lost reads it): torch.profiler writes the CPU ops
  // first and the GPU's kernels, copies and memsets after them (in the shared Kineto traces the
  // first GPU event sits 55-65% into the file), so a cut loses the GPU side first. Turning the CUDA
  // activity on is not the fix there.
  const bool cut_off = cut_off_at(in.trace) != UINT64_MAX;
  if (cut_off && ranges == in.trace.facts.categories.end()) {
    f.title = "The file is cut off: its GPU activity is in the part that is missing";
    f.meaning =
        "The file ends before its events do (see Diagnostics: the cut's byte offset), "
        "and torch.profiler writes the GPU's kernels, copies and memsets after the CPU ops: "
        "the CPU side was read, the GPU side was in the lost part. GPU time, idle gaps and "
        "kernel rankings cannot be computed from this file.";
    f.fix =
        "Open the whole file: copy or download it again, or let the profiler finish writing "
        "(leave the profiler's context, or call prof.stop(), before the process ends; a job "
        "killed while it exports leaves a cut file).";
    f.fix_code = "";
  }
  f.number("launch_calls", static_cast<double>(a.launch_calls));
  f.number("devices_named", static_cast<double>(in.trace.devices.size()));
  if (cut_off) f.text("cause", "file_cut_off");
  out->push_back(std::move(f));
}

// A file cut off (gzip stream, traceEvents array or last event unclosed) with no GPU op and no
// sign of a GPU (no launch, no device named): it reads as a CPU-only run, and may be one cut
// short, or a GPU run whose GPU side was written after the cut (torch.profiler writes the
// kernels, copies and memsets after the CPU ops, and deviceProperties at the end). Either way the
// report covers only what came before the cut, which the Diagnostics alone do not make plain.
void rule_file_cut_off(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  const Analyses& a = in.analyses;
  if (a.gpu_expected || a.gpu_idle.has_gpu_ops || t.slices.size() == 0) return;
  const uint64_t at = cut_off_at(t);
  if (at == UINT64_MAX) return;
  Finding f;
  f.id = "capture.file_cut_off";
  f.severity = Severity::kWarning;
  f.title = strf("The file is cut off at byte %llu: this report covers only the events before it",
                 static_cast<unsigned long long>(at));
  f.meaning =
      "The file ends inside its events (see Diagnostics), so whatever came after the cut is "
      "missing: later steps, and in a GPU run its GPU side, which torch.profiler writes after "
      "the CPU ops (kernels, copies, memsets and the devices' names): a GPU run cut like this "
      "reads as a CPU-only one.";
  f.fix =
      "Open the whole file: copy or download it again, or let the profiler finish writing "
      "(leave the profiler's context, or call prof.stop(), before the process ends).";
  f.number("cut_at_byte", static_cast<double>(at));
  f.text("cause", "file_cut_off");
  out->push_back(std::move(f));
}

// The GPU's ops were recorded but nothing timed on a CPU thread: no operator, launch call,
// annotation or Python frame (torch.profiler with activities=[CUDA] only; a device-side tracer).
// The GPU's busy and idle time stand, but an idle gap cannot be put down to what the CPU did, and
// steps, launch delays, syncs and the CPU/GPU relationship are unknown: said once, here, rather
// than left for the reader to infer from "other" in every breakdown.
void rule_no_cpu_activity(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  if (!in.analyses.gpu_idle.has_gpu_ops) return;
  // Anything timed on a CPU thread is the CPU side, whatever it calls itself.
  for (TrackId track : t.slices.track)
    if (t.tracks[track].kind == TrackKind::kCpuThread) return;
  Finding f;
  f.id = "capture.no_cpu_activity";
  f.severity = Severity::kWarning;
  f.title = "GPU activity without its CPU side: no operator, launch or annotation was recorded";
  f.meaning =
      "The GPU's ops are here but nothing the CPU did: GPU busy and idle time are measured, but "
      "an idle gap cannot be put down to what the CPU was doing, and steps, launch delays, "
      "synchronizations and the CPU/GPU relationship cannot be computed.";
  f.fix = "Profile with the CPU activity enabled as well, and call prof.step() each iteration.";
  f.fix_code = kBothActivities;
  f.number("gpu_ops", static_cast<double>(in.analyses.join.gpu_ops_by_ts.size()));
  out->push_back(std::move(f));
}

// The GPU's events stop while the CPU goes on launching: the file was cut off (Kineto writes the
// GPU's events after the CPU's, so a cut loses them first) or CUPTI's buffers filled. Every GPU
// measure after that point reads as idle: said first, and the GPU findings are tempered
// (temper_after_lost_gpu_events).
void rule_gpu_events_lost(const RuleInput& in, std::vector<Finding>* out) {
  const Analyses& a = in.analyses;
  const Trace& t = in.trace;
  if (!a.gpu_idle.has_gpu_ops) return;
  const bool cut = cut_off_at(t) != UINT64_MAX;
  // Launches with no GPU op after the last one read; or, in a file cut off, GPU events that end
  // in the first 90% of the trace (older Kineto writes the runtime calls with the GPU's events,
  // after the CPU ops: a cut loses both, and the CPU ops go on).
  constexpr uint64_t kMinLaunches = 20;
  const uint64_t after = a.launches_after_gpu_events;
  const bool launches_unmatched = after >= kMinLaunches && after * 10 >= a.launch_calls;
  const int64_t span = t.span_ns();
  const bool ends_early =
      cut && span > 0 && a.last_gpu_op_end_ns - t.facts.start_ns < span / 10 * 9;
  if (!launches_unmatched && !ends_early) return;
  const int64_t t0 = t.facts.origin_ns();
  Finding f;
  f.id = "capture.gpu_events_lost";
  f.severity = Severity::kWarning;
  const std::string stop = format_duration(a.last_gpu_op_end_ns - t0);
  f.title =
      launches_unmatched
          ? strf("The GPU's events stop at %s, yet the CPU launched %llu more ops until %s: %s",
                 stop.c_str(), static_cast<unsigned long long>(after),
                 format_duration(a.last_unmatched_launch_ns - t0).c_str(),
                 cut ? "the file is cut off" : "the profiler lost them")
          : strf("The file is cut off: the GPU's events stop at %s of a %s trace", stop.c_str(),
                 format_duration(span).c_str());
  f.meaning =
      cut ? "The file ends early, and the profiler writes the GPU's events after the CPU's, so "
            "the cut took the GPU's first: after that point GPU idle time, kernel times and "
            "step bounds are not measured. The findings about the GPU are tempered below."
          : "Launches after that point have no kernel, copy or memset in the trace: the "
            "profiler's activity buffers filled, or the capture stopped collecting GPU "
            "events early. After that point GPU idle time, kernel times and step bounds are "
            "not measured. The findings about the GPU are tempered below.";
  f.fix = cut ? "Read the whole file (copy it again; check the writer finished and the disk was "
                "not full); or profile fewer steps, so the trace is smaller."
              : "Profile fewer steps (a schedule with active=3), so the GPU's events fit the "
                "profiler's buffers.";
  f.fix_code = "schedule=torch.profiler.schedule(wait=1, warmup=1, active=3)";
  f.number("launches_after", static_cast<double>(after));
  f.number("launch_calls", static_cast<double>(a.launch_calls));
  f.number("gpu_events_end_us", us_of(a.last_gpu_op_end_ns - t0), 3, "us");
  f.text("cause", cut ? "file_cut_off" : "events_lost");
  f.range(a.last_gpu_op_end_ns, launches_unmatched ? a.last_unmatched_launch_ns : t.facts.end_ns,
          "no GPU event");
  out->push_back(std::move(f));
}

void temper_after_lost_gpu_events(std::vector<Finding>* out) {
  const bool lost = std::any_of(out->begin(), out->end(),
                                [](const Finding& f) { return f.id == "capture.gpu_events_lost"; });
  if (!lost) return;
  // Measures of the GPU's time (idle, its causes, what bounds the step) read the lost events as
  // idle time; the CPU's own measures (DataLoader, syncs, ops) stand.
  static const char* const kGpuMeasures[] = {"gpu.", "critical_path.", "kernels.launch_bound"};
  for (Finding& f : *out) {
    bool gpu = false;
    for (const char* p : kGpuMeasures) gpu = gpu || f.id.rfind(p, 0) == 0;
    if (!gpu || f.severity == Severity::kInfo) continue;
    f.severity = Severity::kInfo;
    f.meaning +=
        " (The GPU's events stop early in this trace: this reads the missing ones as "
        "idle time.)";
  }
}

}  // namespace ks
