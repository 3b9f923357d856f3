// Capture mistakes particular to Nsight Systems (`nsys profile`), on exports only (TraceFacts
// format kNsysSqlite), so PyTorch traces never see them:
//   nsys.empty_capture      the capture holds no GPU work: the cudaProfilerApi range never opened
//                           (or closed before the steps), or only the launcher's own activity ran
//   nsys.from_process_start context creation, the first allocations and cuDNN autotuning
//                           (cudnnFind*) inside the window: profiling started with the process
//   nsys.long_capture       many steps or a long window: slow to load, and nothing more to learn
//   nsys.emit_nvtx          an NVTX range for every op (torch.autograd.profiler.emit_nvtx): its
//                           overhead inflates the step times
//   nsys.metrics_sampling   GPU metrics sampling (--gpu-metrics-devices) was on while steps were
//                           timed: sampling adds overhead, so quote step times from a capture
//                           without it
//   nsys.graph_trace        CUDA graphs traced whole (--cuda-graph-trace=graph):
//                           their GPU time counts, their kernels are not listed one by one
//   nsys.profiler_warnings  Nsight Systems itself warned during the capture (lost events, a
//                           driver it does not support): the trace may miss activity
//   nsys.profiler_overhead  Nsight Systems' own work (PROFILER_OVERHEAD) held the threads that
//                           launch GPU work for 2% of the step time or more: the step times
//                           include the profiler's cost
// Each says what to pass to nsys instead.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "analysis/intervals.h"
#include "analysis/name_cache.h"
#include "analysis/nvtx_context.h"
#include "findings/rules.h"
#include "util/safe_text.h"
#include "util/text_match.h"

namespace ks {

namespace {

bool is_nsys(const Trace& t) {
  return t.facts.format == TraceFormat::kNsysSqlite;
}

// The capture's span: first to last timed event.
int64_t capture_span(const Trace& t) {
  return t.facts.end_ns - t.facts.start_ns;
}

constexpr const char* kProfilerApiFix =
    "nsys profile --trace=cuda,nvtx,osrt --capture-range=cudaProfilerApi "
    "--capture-range-end=stop python train.py";
constexpr const char* kProfilerApiCode =
    "for i, batch in enumerate(loader):\n"
    "    if i == 10: torch.cuda.profiler.start()   # after warm-up\n"
    "    with torch.cuda.nvtx.range(\"train_step\"):\n"
    "        train_step(batch)\n"
    "    if i == 15: torch.cuda.profiler.stop()";

}  // namespace

void rule_nsys_empty_capture(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  if (!is_nsys(t) || in.analyses.gpu_idle.has_gpu_ops) return;
  uint64_t api = 0;
  for (SliceKind k : t.slices.kind) api += k == SliceKind::kRuntime || k == SliceKind::kDriver;
  Finding f;
  f.id = "nsys.empty_capture";
  f.severity = Severity::kCritical;
  f.title = api == 0 ? "The Nsight Systems capture holds no CUDA activity"
                     : strf(
                           "The Nsight Systems capture holds no GPU work (%llu CUDA API calls, "
                           "no kernel or copy)",
                           static_cast<unsigned long long>(api));
  f.meaning =
      "Nothing ran on the GPU inside the capture window: with --capture-range=cudaProfilerApi "
      "the range never opened (torch.cuda.profiler.start() not reached) or closed before the "
      "steps, or the profiled process was only the launcher (torchrun, a shell) and the "
      "workers were not followed.";
  f.fix =
      "Open the range around the steps with torch.cuda.profiler.start()/stop() and capture "
      "with --capture-range=cudaProfilerApi; profile the worker processes (nsys follows child "
      "processes by default; check --trace-fork-before-exec for launchers that fork).";
  f.fix_code = std::string(kProfilerApiFix) + "\n\n" + kProfilerApiCode;
  f.number("cuda_api_calls", static_cast<double>(api));
  f.number("slices", static_cast<double>(t.slices.size()));
  out->push_back(std::move(f));
}

void rule_nsys_from_process_start(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  if (!is_nsys(t)) return;
  const SliceTable& s = t.slices;
  // 1: context creation (driver calls), 2: allocator, 3: cuDNN autotuning.
  auto group_of = make_name_cache(t, [](std::string_view n) {
    if (starts_with(n, "cuInit") || starts_with(n, "cuCtxCreate") ||
        starts_with(n, "cuDevicePrimaryCtxRetain"))
      return 1;
    if (starts_with(n, "cudaMalloc") || starts_with(n, "cudaFree") ||
        starts_with(n, "cuMemAlloc") || starts_with(n, "cuMemFree"))
      return 2;
    // cudnnFind* times every algorithm (benchmark=True's first call per shape); the
    // cudnnGetConvolution* queries (heuristics, workspace sizes) come with ordinary calls too.
    if (starts_with(n, "cudnnFind")) return 3;
    return 0;
  });
  int64_t ctx_ns = 0, alloc_ns = 0, first_call_ns = 0;
  uint64_t allocs = 0, finds = 0;
  uint32_t longest_alloc = 0, first_find = 0;
  std::vector<uint32_t> api;  // CUDA runtime/driver calls, for the first few below
  for (uint32_t i = 0; i < s.size(); ++i) {
    const SliceKind k = s.kind[i];
    if (k != SliceKind::kRuntime && k != SliceKind::kDriver && k != SliceKind::kCpuOp &&
        k != SliceKind::kUserAnnotation && k != SliceKind::kOther)
      continue;
    if (k == SliceKind::kRuntime || k == SliceKind::kDriver) api.push_back(i);
    switch (group_of(s.name[i])) {
      case 1:
        ctx_ns += s.dur[i];
        break;
      case 2:
        ++allocs;
        alloc_ns += s.dur[i];
        if (allocs == 1 || s.dur[i] > s.dur[longest_alloc]) longest_alloc = i;
        break;
      case 3:
        if (!finds++ || s.ts[i] < s.ts[first_find]) first_find = i;
        break;
      default:
        break;
    }
  }
  // The CUDA context is created lazily inside the first CUDA call that needs it (cudaFree(0),
  // the first cudaMalloc; queries such as cuModuleGetLoadingMode come before): one of the
  // process's first few calls taking 50 ms or more is that creation.
  constexpr size_t kFirstCalls = 5;
  std::sort(api.begin(), api.end(), [&s](uint32_t a, uint32_t b) { return s.ts[a] < s.ts[b]; });
  bool have_first = false;
  uint32_t first = 0;
  for (size_t j = 0; j < api.size() && j < kFirstCalls; ++j) {
    if (!have_first || s.dur[api[j]] > s.dur[first]) first = api[j];
    have_first = true;
  }
  if (have_first) first_call_ns = s.dur[first];
  const bool context = ctx_ns >= 10'000'000 || first_call_ns >= 50'000'000;
  if (!context && finds == 0) return;
  const int64_t span = capture_span(t);
  const int64_t startup = context ? std::max(ctx_ns, first_call_ns) : 0;
  Finding f;
  f.id = "nsys.from_process_start";
  f.severity = Severity::kWarning;
  std::string what;
  // Created lazily, the context's time is inside one of the first calls: named, so that the
  // allocation total after it (which may hold that same call) reads as what it is.
  const bool lazy = have_first && first_call_ns > ctx_ns;
  if (context)
    what = "CUDA context creation (" + format_duration(startup) +
           (lazy ? ", inside the first " + std::string(t.str(s.name[first])) : std::string()) + ")";
  if (allocs > 0)
    what += (what.empty() ? "" : ", ") + std::to_string(allocs) + " cudaMalloc/cudaFree (" +
            format_duration(alloc_ns) + ")";
  if (finds > 0)
    what += (what.empty() ? "" : ", ") + std::to_string(finds) + " cuDNN autotuning call" +
            (finds == 1 ? "" : "s");
  // Without steps, capture.warmup_ops (run before this rule) counted the same allocator calls
  // and autotuning over the same window: two cards for one fact. This one says it, with the
  // module loads that finding also counted.
  double module_loads = 0;
  if (in.analyses.steps.steps.empty()) {
    auto warmup = std::find_if(out->begin(), out->end(),
                               [](const Finding& g) { return g.id == "capture.warmup_ops"; });
    if (warmup != out->end()) {
      for (const Evidence& e : warmup->evidence)
        if (e.key == "module loading / JIT") module_loads = e.number;
      out->erase(warmup);
    }
  }
  if (module_loads > 0)
    what += (what.empty() ? "" : ", ") +
            strf("%.0f module load%s", module_loads, module_loads == 1 ? "" : "s");
  f.title = "The capture starts with the process: " + what;
  f.meaning =
      "Profiling began at process start, so the window holds one-time start-up work "
      "(context creation, the allocator's first growth, cuDNN autotuning) that a "
      "steady-state step never does: totals and shares over the capture overstate it.";
  f.fix =
      "Start the capture after warm-up: --capture-range=cudaProfilerApi with "
      "torch.cuda.profiler.start() after a few steps, or --delay SECONDS; leave the first "
      "steps out when quoting times.";
  f.fix_code = std::string(kProfilerApiFix) + "\n\n" + kProfilerApiCode;
  f.number("longest_early_cuda_call_us", us_of(first_call_ns), 3, "us");
  f.number("context_creation_us", us_of(startup), 3, "us");
  f.number("alloc_calls", static_cast<double>(allocs));
  f.number("alloc_us", us_of(alloc_ns), 3, "us");
  f.number("cudnn_find_calls", static_cast<double>(finds));
  if (module_loads > 0) f.number("module_loads", module_loads);
  f.number("share_of_capture_pct",
           span > 0 ? 100.0 * static_cast<double>(startup) / static_cast<double>(span) : 0, 1, "%");
  // The start-up call when the context was created in the window, else the first autotuning.
  if (context && have_first) {
    f.range(s.ts[first], s.end(first), std::string(t.str(s.name[first])));
    f.events.push_back(first);
  } else if (finds > 0) {
    f.range(s.ts[first_find], s.end(first_find), std::string(t.str(s.name[first_find])));
    f.events.push_back(first_find);
  }
  out->push_back(std::move(f));
}

void rule_nsys_long_capture(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  if (!is_nsys(t)) return;
  constexpr uint64_t kManySteps = 20;
  constexpr int64_t kLongNs = 60'000'000'000;  // a minute
  const uint64_t steps = in.analyses.steps.found;
  const int64_t span = capture_span(t);
  if (steps <= kManySteps && span <= kLongNs) return;
  Finding f;
  f.id = "nsys.long_capture";
  f.severity = Severity::kInfo;
  f.title = steps > kManySteps
                ? strf("The capture holds %llu steps: a few are enough",
                       static_cast<unsigned long long>(steps))
                : "The capture lasts " + format_duration(span) + ": a few steps are enough";
  f.meaning =
      "A long Nsight Systems capture makes a large report, slow to export and load, and its "
      "overhead grows with it; 3-5 steady steps tell as much.";
  f.fix =
      "Limit the window: --capture-range=cudaProfilerApi with torch.cuda.profiler.start()/stop() "
      "around a few steps, or -d SECONDS (--duration) after --delay.";
  f.fix_code = std::string(kProfilerApiFix) + "\n\n" + kProfilerApiCode;
  f.number("steps", static_cast<double>(steps));
  f.number("span_us", us_of(span), 3, "us");
  out->push_back(std::move(f));
}

void rule_nsys_emit_nvtx(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  if (!is_nsys(t)) return;
  constexpr uint64_t kManyRanges = 1000;
  const SliceTable& s = t.slices;
  // emit_nvtx names each op's range after the op: "aten::add", "aten::mm, seq = 12", ...
  auto per_op = make_name_cache(t, [](std::string_view n) { return starts_with(n, "aten::"); });
  uint64_t ranges = 0, annotations = 0;
  uint32_t first = 0;
  for (uint32_t i = 0; i < s.size(); ++i) {
    if (s.kind[i] != SliceKind::kUserAnnotation) continue;
    ++annotations;
    if (!per_op(s.name[i])) continue;
    if (ranges == 0) first = i;
    ++ranges;
  }
  if (ranges < kManyRanges) return;
  Finding f;
  f.id = "nsys.emit_nvtx";
  f.severity = Severity::kWarning;
  f.title = strf("%llu NVTX ranges are PyTorch ops (aten::...): NVTX was emitted for every op",
                 static_cast<unsigned long long>(ranges));
  f.meaning =
      "torch.autograd.profiler.emit_nvtx() pushes a range around every op; with thousands of "
      "them the CPU side slows down and step times in this capture are inflated.";
  f.fix =
      "Use emit_nvtx only to map kernels to ops; time steps in a capture with your own ranges "
      "only (torch.cuda.nvtx.range(\"train_step\")).";
  f.fix_code = "with torch.cuda.nvtx.range(\"train_step\"):\n    train_step(batch)";
  f.number("aten_ranges", static_cast<double>(ranges));
  f.number("nvtx_ranges", static_cast<double>(annotations));
  f.range(s.ts[first], s.end(first), std::string(t.str(s.name[first])));
  f.events.push_back(first);
  out->push_back(std::move(f));
}

void rule_nsys_metrics_sampling(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  if (!is_nsys(t) || in.analyses.steps.steps.empty()) return;
  // GPU metrics land as counters named after the metric ("SM Active", "Tensor Active", ...).
  // The series named in the evidence: the one with the most samples, then the first by name, so
  // that it does not depend on the order the export's rows come in.
  uint64_t samples = 0;
  std::map<std::string_view, uint64_t> per_series;
  for (size_t i = 0; i < t.counters.size(); ++i) {
    std::string_view n = t.str(t.counters.series[i]);
    if (n.find("Active") == std::string_view::npos &&
        n.find("Throughput") == std::string_view::npos)
      continue;
    ++per_series[n];
    ++samples;
  }
  if (samples == 0) return;
  std::string_view most;
  uint64_t most_n = 0;
  for (const auto& [name, n] : per_series)
    if (n > most_n) most = name, most_n = n;
  const std::string series(most);
  Finding f;
  f.id = "nsys.metrics_sampling";
  f.severity = Severity::kInfo;
  f.title = strf("GPU metrics were sampled (%llu samples) while the steps were timed",
                 static_cast<unsigned long long>(samples));
  f.meaning =
      "--gpu-metrics-devices samples the GPU's counters throughout the capture; the sampling "
      "has a cost, so step times measured here can be slower than the run's own.";
  f.fix =
      "Use this capture for the metrics (SM Active, Tensor Active); quote step times from a "
      "capture without --gpu-metrics-devices.";
  f.number("samples", static_cast<double>(samples));
  f.text("series", series);
  out->push_back(std::move(f));
}

int64_t graph_trace_ns(const Trace& t) {
  auto it = t.facts.categories.find("cuda_graph");  // the nsys importer's graph-trace rows
  if (it == t.facts.categories.end() || it->second == 0) return 0;
  const StringId graph_cat = t.strings.find("cuda_graph");
  int64_t ns = 0;
  for (size_t i = 0; i < t.slices.size(); ++i)
    if (t.slices.cat[i] == graph_cat && t.slices.kind[i] == SliceKind::kKernel)
      ns += t.slices.dur[i];
  return ns;
}

void rule_nsys_graph_trace(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  if (!is_nsys(t)) return;
  auto it = t.facts.categories.find("cuda_graph");  // the importer's graph-trace rows
  if (it == t.facts.categories.end() || it->second == 0) return;
  const SliceTable& s = t.slices;
  const StringId graph_cat = t.strings.find("cuda_graph");
  int64_t graph_ns = 0, kernel_ns = 0;
  size_t first = s.size();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.kind[i] != SliceKind::kKernel) continue;
    kernel_ns += s.dur[i];
    if (s.cat[i] != graph_cat) continue;
    graph_ns += s.dur[i];
    if (first == s.size()) first = i;
  }
  Finding f;
  f.id = "nsys.graph_trace";
  f.severity = Severity::kInfo;
  f.title = strf(
      "%llu CUDA graph replays were traced whole: their kernels (%s of kernel time) are not "
      "listed",
      static_cast<unsigned long long>(it->second),
      format_pct(kernel_ns > 0
                     ? 100.0 * static_cast<double>(graph_ns) / static_cast<double>(kernel_ns)
                     : 0.0)
          .c_str());
  f.meaning =
      "nsys traced each cudaGraphLaunch as one span on the GPU (--cuda-graph-trace=graph). "
      "Their time counts as GPU busy here, but the kernels inside are not listed: the "
      "top-kernels table shows them as \"CUDA graph exec N\" rows, and idle gaps inside a replay "
      "are not seen.";
  f.fix = "To see the kernels of each replay, capture again with --cuda-graph-trace=node.";
  f.fix_code = "nsys profile --trace=cuda,nvtx,osrt --cuda-graph-trace=node python train.py";
  f.number("graph_replays", static_cast<double>(it->second));
  f.number("graph_time_us", us_of(graph_ns), 3, "us");
  if (first < s.size()) {
    f.range(s.ts[first], s.end(first), std::string(t.str(s.name[first])));
    f.events.push_back(first);
  }
  out->push_back(std::move(f));
}

// Words of Nsight Systems' messages that say the trace may miss activity.
bool says_data_lost(std::string_view text) {
  for (const char* w :
       {"lost", "drop", "overflow", "not all", "discard", "incomplete", "truncat", "corrupt"})
    if (icontains(text, w)) return true;
  return false;
}

void rule_nsys_profiler_warnings(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  const auto& msgs = t.facts.profiler_warnings;
  if (!is_nsys(t) || msgs.empty()) return;
  size_t errors = 0, lost = 0;
  const TraceFacts::ProfilerMessage* first = nullptr;  // the first that says data may be lost
  for (const auto& m : msgs) {
    errors += m.error;
    if (says_data_lost(m.text) && !lost++) first = &m;
  }
  if (!first) first = &msgs.front();
  Finding f;
  f.id = "nsys.profiler_warnings";
  f.severity = lost > 0 || errors > 0 ? Severity::kWarning : Severity::kInfo;
  f.title = "Nsight Systems reported " +
            (msgs.size() == 1 ? std::string("during the capture")
                              : std::to_string(msgs.size()) + " warnings during the capture") +
            ": " + display_safe(first->text, 160);
  f.meaning =
      "The profiler's own diagnostics (the export's DIAGNOSTIC_EVENT table, the GUI's "
      "Diagnostics Summary). Lost or dropped events mean the trace misses activity: busy "
      "time, idle gaps and counts read from it can be off.";
  f.fix =
      "Read the messages: for lost events, capture a shorter window (--capture-range, "
      "--duration) so the buffers hold it; for an unsupported driver, profile with a newer "
      "Nsight Systems.";
  f.number("messages", static_cast<double>(msgs.size()));
  f.number("errors", static_cast<double>(errors));
  f.number("lost_data_messages", static_cast<double>(lost));
  size_t shown = 0;
  for (const auto& m : msgs) {
    if (shown++ == 3) break;
    const int64_t at = std::min(std::max(m.ts, t.facts.start_ns), t.facts.end_ns);
    f.range(at, at, display_safe(m.text, 200));
  }
  out->push_back(std::move(f));
}

// The share of step time Nsight Systems' own rows took on the threads that launch GPU work (those
// with a CUDA API row): a flush of CUPTI's buffers on the main thread stops the loop as surely as
// the program's own work would, and its time is in every step duration measured. 2% is where it
// starts to move step-time comparisons (ours); 10% is a capture whose step times mislead.
void rule_nsys_profiler_overhead(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  const std::vector<Step>& steps = in.analyses.steps.steps;
  const StringId overhead_cat = t.strings.find("profiler_overhead");
  if (!is_nsys(t) || steps.empty() || overhead_cat == StringPool::kMissing) return;
  // The steps' host time, merged: [begin, end) in time order, no overlaps.
  std::vector<Interval> window;
  for (const Step& st : steps) window.push_back({st.host_begin, st.host_end});
  const std::vector<Interval> merged = merge_intervals(std::move(window));
  const int64_t steps_ns = total_length(merged);
  if (steps_ns <= 0) return;
  std::set<std::pair<uint32_t, std::string_view>> launching;  // (process, thread)
  for (const Track& tr : t.tracks) {
    const std::string_view thread = export_thread_of_row(t.str(tr.tid_text), "CUDA API");
    if (!thread.empty()) launching.insert({tr.process, thread});
  }
  const SliceTable& s = t.slices;
  int64_t in_steps = 0;
  std::map<std::string_view, int64_t> by_name;
  std::vector<std::pair<int64_t, uint32_t>> longest;  // (time in the steps, slice)
  for (uint32_t i = 0; i < s.size(); ++i) {
    if (s.cat[i] != overhead_cat) continue;
    const Track& tr = t.tracks[s.track[i]];
    if (!launching.count({tr.process, export_thread_of(t.str(tr.tid_text))})) continue;
    const int64_t ns = length_within(merged, s.ts[i], s.end(i));  // its time inside the steps
    if (ns <= 0) continue;
    in_steps += ns;
    by_name[t.str(s.name[i])] += ns;
    longest.push_back({ns, i});
  }
  constexpr double kInfoPct = 2, kWarnPct = 10;
  const double pct = 100.0 * static_cast<double>(in_steps) / static_cast<double>(steps_ns);
  if (pct < kInfoPct) return;
  std::vector<std::pair<int64_t, std::string_view>> names;
  for (const auto& [name, ns] : by_name) names.push_back({ns, name});
  std::stable_sort(names.begin(), names.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string what;
  for (size_t k = 0; k < names.size() && k < 3; ++k)
    what +=
        (k ? ", " : "") + display_safe(names[k].second, 80) + " " + format_duration(names[k].first);
  Finding f;
  f.id = "nsys.profiler_overhead";
  f.severity = pct >= kWarnPct ? Severity::kWarning : Severity::kInfo;
  f.title = strf(
                "Nsight Systems' own work took %s of the step time on the threads that launch "
                "GPU work (",
                format_pct(pct).c_str()) +
            format_duration(in_steps) + "): the step times include the profiler's cost";
  f.meaning =
      "The export's PROFILER_OVERHEAD rows (the GUI's \"Profiler overhead\" row under a thread) "
      "are the profiler's work done on the program's threads: flushing CUPTI's buffers, "
      "instrumenting CUDA calls. While they run the loop does not, so the steps here are slower "
      "than the same steps run without the profiler.";
  f.fix =
      "Compare step times with an unprofiled run, or capture a few steady steps "
      "(--capture-range=cudaProfilerApi) tracing only what is needed (--trace=cuda,nvtx): a "
      "shorter capture has fewer buffers to flush.";
  f.fix_code = std::string(kProfilerApiFix) + "\n\n" + kProfilerApiCode;
  f.number("overhead_pct", pct, 1, "%");
  f.number("overhead_us", us_of(in_steps), 3, "us");
  f.number("steps_us", us_of(steps_ns), 3, "us");
  f.text("by_activity", what);
  std::stable_sort(longest.begin(), longest.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t k = 0; k < longest.size() && k < 5; ++k) {
    const uint32_t i = longest[k].second;
    f.range(s.ts[i], s.end(i), display_safe(t.str(s.name[i]), 120) + " (profiler overhead)");
    f.events.push_back(i);
  }
  out->push_back(std::move(f));
}

}  // namespace ks
