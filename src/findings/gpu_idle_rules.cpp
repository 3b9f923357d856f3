// GPU idle gaps: the GPU waiting is time the run pays for and does not use. Each gap has a
// cause (idle_causes.h): the step waited for its batch, the CPU stopped at a synchronization,
// the CPU launched too late, or something else.
#include <algorithm>

#include "analysis/intervals.h"
#include "findings/compile_advice.h"
#include "findings/rules.h"
#include "util/format.h"

namespace ks {

namespace {

struct CauseAdvice {
  const char* phrase;  // "waiting for the DataLoader"
  const char* fix;
  const char* code;
};

// Host waits made of long gaps: the CPU was away (Python work, data preparation, setup), not
// slow at launching.
const CauseAdvice kCpuAway = {
    "waiting for the CPU, which was busy elsewhere (long host waits)",
    "Look at what the CPU did during the largest gaps (Python, data preparation, logging, "
    "setup) and move that work off the training loop's critical path, or overlap it with GPU "
    "work.",
    ""};

const CauseAdvice& advice(GapCause c) {
  static const CauseAdvice kAdvice[kGapCauses] = {
      {"waiting for the DataLoader",
       "Load batches in the background: more DataLoader workers, pinned memory, prefetching.",
       "DataLoader(dataset, batch_size=..., num_workers=8, pin_memory=True, "
       "persistent_workers=True)"},
      {"after a CPU/GPU synchronization",
       "Remove the synchronization from the loop (.item(), .cpu(), printing a tensor, "
       "torch.cuda.synchronize(), copies from pageable memory) so the CPU can run ahead.",
       "running_loss += loss.detach()  # instead of loss.item() every step"},
      {"waiting for the CPU to launch work (host wait, short gaps)",
       "The CPU cannot launch kernels fast enough: fewer, larger kernels (torch.compile, fused "
       "optimizers, CUDA graphs) or less Python work per step.",
       "model = torch.compile(model)  # or capture the step in a CUDA graph"},
      {"for no cause seen in the trace",
       "Look at the largest gaps on the timeline: waits on events or other streams, or work "
       "the profiler did not record.",
       ""},
  };
  return kAdvice[static_cast<int>(c)];
}

// What to do about long host waits, by what the launching thread was doing in them
// (gap_activity.h): `what` names the activity.
std::string cpu_away_fix(HostActivityKind kind, const std::string& what) {
  // torch.compile's phases (record_function "<phase> (dynamo_timed)"): the CPU was compiling.
  if (what.find("(dynamo_timed)") != std::string::npos && !icontains(what, "cudagraph"))
    return "The thread that launches the GPU work was compiling with torch.compile (" + what +
           "): one-time work on the first call of each input shape, or recompilation when it "
           "repeats (capture.torch_compile says which). Profile after a few compiled steps.";
  switch (kind) {
    case HostActivityKind::kSleep:
      return "The thread that launches the GPU work was sleeping (" + what +
             ") while the GPU waited: remove time.sleep and polling waits from the training "
             "loop, or move them to another thread.";
    case HostActivityKind::kBlocked:
      return "The thread that launches the GPU work was blocked in " + what +
             ", waiting on another thread or process: with DataLoader workers this is the main "
             "process waiting for batches (more workers, prefetch_factor, pin_memory); otherwise "
             "find the lock, queue or socket it waits on.";
    case HostActivityKind::kFileIo:
      return "The thread that launches the GPU work was reading or writing files (" + what +
             ") in the loop: load and decode data in DataLoader workers, and write logs and "
             "checkpoints from a background thread.";
    case HostActivityKind::kLaunch:
      return "The launch calls themselves were slow (" + what +
             "): a kernel's first launches load its code (lazy loading, JIT), and a driver lock "
             "held by another thread slows every launch. Leave warm-up steps out of the capture; "
             "check for other threads calling into CUDA.";
    case HostActivityKind::kCudaCall:
      return "The thread that launches the GPU work was inside " + what +
             ", a CUDA call that launches nothing (an allocation, a free, a query): PyTorch's "
             "caching allocator calls cudaMalloc/cudaFree when it grows or after "
             "torch.cuda.empty_cache(); keep shapes steady and empty_cache() out of the loop.";
    case HostActivityKind::kNothingRecorded:
      return std::string(kCpuAway.fix) +
             " The profiler recorded nothing on that thread then (Python without operators, "
             "time.sleep, file reads): profile with with_stack=True, or capture Nsight Systems "
             "with --trace=osrt --python-sampling=true, to see it.";
    case HostActivityKind::kOffCpu:
      return "The thread that launches the GPU work was switched out of the CPU with no call "
             "traced (" +
             what +
             "): waiting on a lock (the Python GIL held by another thread: a "
             "logging or data thread, DataLoader with num_workers=0), on page faults, or in a "
             "system call nsys does not trace. Capture with --trace=cuda,nvtx,osrt and "
             "--backtrace=dwarf, or --sample=process-tree, to see where it waited.";
    case HostActivityKind::kOnCpu:
      return "The thread that launches the GPU work was running code nothing traced (" + what +
             "): Python between operators, data preparation or the program's own work in the "
             "loop. Capture with --python-sampling=true (or --sample=process-tree) to see which "
             "functions; move that work out of the loop or into DataLoader workers.";
    case HostActivityKind::kProfiler:
      return "The thread that launches the GPU work was inside Nsight Systems' own work (" + what +
             ", on its Profiler overhead row): the profiler held the loop, not the program, so "
             "this idle time is the capture's and the step times are inflated by it. Capture a "
             "few steady steps (--capture-range=cudaProfilerApi) with only the traces needed "
             "(--trace=cuda,nvtx): a shorter capture has fewer buffers to flush.";
    case HostActivityKind::kMpi:
      // A blocking MPI call returns when its peers have joined: the time in it is mostly the
      // wait for the slowest rank, not the transfer.
      return "The thread that launches the GPU work was blocked in MPI (" + what +
             ") while the GPU waited: a blocking MPI call returns only when the other ranks "
             "join, so this is mostly waiting for a slower rank (load imbalance) or for the "
             "transfer. Compare the ranks (ks report rank0.sqlite rank1.sqlite ...) to find "
             "the one the others wait for and balance its work; overlap communication with GPU "
             "work (MPI_Iallreduce / MPI_Isend with MPI_Wait after the next kernels are "
             "launched, CUDA-aware MPI on device buffers, or NCCL).";
    case HostActivityKind::kCpuWork:
      // cuDNN's autotuning (--trace=cudnn names it): it runs for every new input shape.
      if (what.find("cudnnFind") != std::string::npos)
        return "The thread that launches the GPU work was in cuDNN's autotuning (" + what +
               "): torch.backends.cudnn.benchmark=True times every convolution algorithm for "
               "each new input shape. Keep input shapes steady (pad or bucket them), or leave "
               "the first steps of each shape out of the capture.";
      break;
  }
  return std::string(kCpuAway.fix) + " Most of that time it was in " + what + ".";
}

// "nanosleep (OS runtime) 92.0%, nothing recorded 5.1%": the launching thread's activities in
// the long host waits, as shares of their time.
std::string activity_text(const GapActivity& a) {
  std::string out;
  for (const HostActivity& h : a.top) {
    if (!out.empty()) out += ", ";
    out += h.label + " " + format_pct(a.pct(h));
  }
  return out;
}

// On a GPU shared with other processes (ranks under MPS, several ranks on one GPU; an Nsight
// Systems export read one rank at a time): how much of this process's idle time, inside the
// window the idle share is taken over, the others' GPU work filled. 0 when no other process ran.
int64_t others_in_idle(const RuleInput& in) {
  const auto& spans = in.trace.facts.other_processes_gpu_work;
  if (spans.empty()) return 0;
  std::vector<Interval> others;
  others.reserve(spans.size());
  for (const TraceFacts::Span& s : spans) others.push_back({s.begin, s.end});
  const GpuIdleResult& g = in.analyses.gpu_idle;
  std::vector<Interval> windows;
  if (g.window_is_steps)
    for (const Step& st : in.analyses.steps.steps) windows.push_back({st.begin, st.end});
  else
    windows.push_back({g.busy.front().begin, g.busy.back().end});
  int64_t filled = 0;
  for (const Interval& w : windows)
    for (const Interval& gap : gaps_within(g.busy, w.begin, w.end))
      filled += length_within(others, gap.begin, gap.end);
  return filled;
}

}  // namespace

void rule_gpu_idle(const RuleInput& in, std::vector<Finding>* out) {
  const GpuIdleResult& g = in.analyses.gpu_idle;
  const IdleCauses& c = in.analyses.idle_causes;
  if (!g.has_gpu_ops || g.window_ns <= 0) return;
  constexpr double kInfoPct = 10, kWarnPct = 25, kCriticalPct = 50;
  if (g.idle_pct < kInfoPct) return;
  int top = 0;
  for (int k = 1; k < kGapCauses; ++k)
    if (c.idle_ns[k] > c.idle_ns[top]) top = k;
  const int64_t idle = c.idle_total_ns();
  const double top_share =
      idle > 0 ? 100.0 * static_cast<double>(c.idle_ns[top]) / static_cast<double>(idle) : 0;
  // Host waits that are mostly long gaps are not launch overhead.
  const bool cpu_away = top == static_cast<int>(GapCause::kHostWait) &&
                        2 * c.short_host_wait_ns < c.idle_ns[static_cast<int>(GapCause::kHostWait)];
  const CauseAdvice& a = cpu_away ? kCpuAway : advice(static_cast<GapCause>(top));
  Finding f;
  f.id = "gpu.idle";
  f.severity = g.idle_pct >= kCriticalPct ? Severity::kCritical
               : g.idle_pct >= kWarnPct   ? Severity::kWarning
                                          : Severity::kInfo;
  // CPU away: what the launching thread was doing, when one activity holds most of the wait.
  const GapActivity& act = c.host_wait_activity;
  const HostActivity* lead = cpu_away ? act.lead() : nullptr;
  // Naming the activity says more than "busy elsewhere (long host waits)".
  const std::string doing = cpu_away ? act.lead_phrase() : "";
  f.title = strf("GPU idle %s of %s", format_pct(g.idle_pct).c_str(),
                 g.window_is_steps ? "step time" : "the GPU span");
  if (!doing.empty())
    f.title += strf(
                   ", mostly waiting for the CPU (%s of the idle time): the launching "
                   "thread was ",
                   format_pct(top_share).c_str()) +
               doing;
  else if (top != static_cast<int>(GapCause::kOther))
    f.title += strf(", mostly %s (%s of the idle time)", a.phrase, format_pct(top_share).c_str());
  f.meaning =
      "For that share of the time no kernel, copy or memset ran on any GPU stream; each "
      "gap is attributed to what the CPU was doing when the GPU ran dry.";
  f.fix =
      lead ? cpu_away_fix(lead->kind, lead->kind == HostActivityKind::kCpuWork || lead->call.empty()
                                          ? lead->label
                                          : lead->call)
           : a.fix;
  f.fix_code = a.code;
  if (!cpu_away && top == static_cast<int>(GapCause::kHostWait))
    fit_launch_overhead_fix(compile_use(in.trace, in.analyses), &f.fix, &f.fix_code);
  // Idle mostly while CUDA graphs were captured: their launches were recorded, not run, so the
  // idle time is the capture's; the severity is that of the idle time outside it.
  const double in_capture = graph_capture_idle_share(in.analyses);
  if (in_capture >= 0.5) {
    f.title = strf(
        "GPU idle %s of %s, mostly while CUDA graphs were being captured (%s of the "
        "idle time: launches recorded, not run)",
        format_pct(g.idle_pct).c_str(), g.window_is_steps ? "step time" : "the GPU span",
        format_pct(100.0 * in_capture).c_str());
    f.fix = kGraphCaptureIdleFix;
    f.fix_code.clear();
    const double rest_pct = g.idle_pct * (1.0 - in_capture);
    f.severity = rest_pct >= kCriticalPct ? Severity::kCritical
                 : rest_pct >= kWarnPct   ? Severity::kWarning
                                          : Severity::kInfo;
  }

  // A warm-up step captured (steps.warmup_in_window: allocations, autotuning, first launches):
  // its idle time is the warm-up's, not the loop's. The steady steps' idle sets the severity,
  // and the title says both (a CRITICAL 68.6% came from one warm-up step; the others idled 0.2%).
  const StepsResult& steps = in.analyses.steps;
  const size_t warmups = warmup_step_count(steps, nullptr);
  if (g.window_is_steps && warmups > 0 && g.idle_pct_per_step.size() == steps.steps.size()) {
    double idle_ns = 0, window_ns = 0;
    for (size_t i = warmups; i < steps.steps.size(); ++i) {
      const double dur = static_cast<double>(steps.steps[i].dur());
      idle_ns += dur * g.idle_pct_per_step[i] / 100.0;
      window_ns += dur;
    }
    const double steady_pct = window_ns > 0 ? 100.0 * idle_ns / window_ns : 0;
    const Severity steady = steady_pct >= kCriticalPct ? Severity::kCritical
                            : steady_pct >= kWarnPct   ? Severity::kWarning
                                                       : Severity::kInfo;
    if (static_cast<int>(steady) > static_cast<int>(f.severity)) {
      f.severity = steady;
      f.title += strf("; %s in the steps after the warm-up step%s %s",
                      format_pct(steady_pct).c_str(), warmups > 1 ? "s up to" : "",
                      std::string(step_name(in.trace, steps.steps[warmups - 1])).c_str());
    }
    f.number("steady_idle_pct", steady_pct, 1, "%");
  }

  // A shared GPU: this process's idle time is not the device's. The title says both, and when
  // the others' work filled most of it, the severity is the device's and the fix is the sharing.
  const int64_t own_idle = g.window_ns - g.busy_ns;
  const int64_t filled = own_idle > 0 ? std::min(others_in_idle(in), own_idle) : 0;
  if (filled > 0) {
    const double filled_pct = 100.0 * static_cast<double>(filled) / static_cast<double>(own_idle);
    const double device_idle_pct =
        100.0 * static_cast<double>(own_idle - filled) / static_cast<double>(g.window_ns);
    f.title = strf(
        "This process's work left its GPU idle %s of %s, but other processes' work ran on "
        "the shared GPU for %s of that: the device was idle %s",
        format_pct(g.idle_pct).c_str(), g.window_is_steps ? "step time" : "the GPU span",
        format_pct(filled_pct).c_str(), format_pct(device_idle_pct).c_str());
    f.meaning =
        "For that share of the time none of this process's kernels, copies or memsets ran. The "
        "GPU is shared with other processes (several ranks on one GPU, or MPS), whose kernels "
        "ran in part of that time; the device itself was idle only when neither ran. Each gap "
        "is attributed to what this process's CPU was doing.";
    if (2 * filled >= own_idle) {
      f.severity = device_idle_pct >= kCriticalPct ? Severity::kCritical
                   : device_idle_pct >= kWarnPct   ? Severity::kWarning
                                                   : Severity::kInfo;
      f.fix =
          "The GPU is busy with the other processes' work while this one waits for it: give "
          "each rank its own GPU, or even out the work of the processes that share one.";
      f.fix_code.clear();
    }
    f.number("device_idle_pct", device_idle_pct, 1, "%");
    f.number("other_processes_pct_of_idle", filled_pct, 1, "%");
  }

  f.number("idle_pct", g.idle_pct, 1, "%");
  f.number("window_us", us_of(g.window_ns), 3, "us");
  f.number("busy_us", us_of(g.busy_ns), 3, "us");
  for (int k = 0; k < kGapCauses; ++k) {
    const std::string name = gap_cause_name(static_cast<GapCause>(k));
    f.number(name + "_us", us_of(c.idle_ns[k]), 3, "us");
    f.number(name + "_gaps", static_cast<double>(c.gaps[k]));
  }
  f.number("short_host_wait_us", us_of(c.short_host_wait_ns), 3, "us");
  if (in.analyses.graph_captures.any())
    f.number("in_graph_capture_pct", 100.0 * in_capture, 1, "%");
  if (act.total_ns > 0) f.text("cpu_in_long_host_waits", activity_text(act));
  // The ranges show the dominant cause (issue 18: a finding that says "host wait, short gaps"
  // listed the DataLoader's long gaps): short host waits when launch overhead is the story, else
  // the longest gaps of the top cause; the largest gaps of any cause without a top cause.
  const bool launch_overhead = top == static_cast<int>(GapCause::kHostWait) && !cpu_away;
  const std::vector<CausedGap>& shown =
      launch_overhead && !c.short_host_wait_examples.empty() ? c.short_host_wait_examples
      : top != static_cast<int>(GapCause::kOther) && !c.examples[top].empty() ? c.examples[top]
                                                                              : c.largest;
  for (size_t i = 0; i < shown.size() && i < 5; ++i) {
    const CausedGap& gap = shown[i];
    std::string label = "idle gap " + format_duration(gap.length());
    if (gap.cause != GapCause::kOther) label += std::string(" (") + gap_cause_name(gap.cause) + ")";
    f.range(gap.begin_ns, gap.end_ns, label);
    if (gap.next_op >= 0) f.events.push_back(static_cast<uint32_t>(gap.next_op));
  }
  out->push_back(std::move(f));
}

// Nsight Systems' rule: GPU gaps longer than 500 ms between GPU work (not before the first op
// or after the last): the GPU sat unused for long stretches.
void rule_long_gpu_gaps(const RuleInput& in, std::vector<Finding>* out) {
  const GpuIdleResult& g = in.analyses.gpu_idle;
  if (!g.has_gpu_ops || g.busy.size() < 2) return;
  constexpr int64_t kLongGapNs = 500000000;
  std::vector<Interval> long_gaps;
  int64_t total = 0;
  for (size_t i = 1; i < g.busy.size(); ++i) {
    Interval gap{g.busy[i - 1].end, g.busy[i].begin};
    if (gap.length() <= kLongGapNs) continue;
    long_gaps.push_back(gap);
    total += gap.length();
  }
  if (long_gaps.empty()) return;
  std::stable_sort(long_gaps.begin(), long_gaps.end(),
                   [](const Interval& a, const Interval& b) { return a.length() > b.length(); });
  const int64_t span = g.busy.back().end - g.busy.front().begin;
  Finding f;
  f.id = "gpu.long_gaps";
  f.severity = Severity::kWarning;
  f.title =
      strf("%zu GPU gap%s longer than 500 ms (longest %s, %s in all)", long_gaps.size(),
           long_gaps.size() == 1 ? "" : "s", format_duration(long_gaps.front().length()).c_str(),
           format_duration(total).c_str());
  f.meaning =
      "Between GPU operations the GPU ran nothing for over half a second: the CPU was "
      "busy elsewhere (data preparation, evaluation, checkpointing, a blocking call), or "
      "the capture spans more than the work of interest.";
  f.fix =
      "Look at what the CPU did during the gaps; overlap it with GPU work, or profile only "
      "the steady training loop.";
  // What the thread that launched the work after each gap was doing in it (gap_activity.h).
  std::vector<GapToFollow> follow;
  const auto& ops = in.analyses.join.gpu_ops_by_ts;
  const SliceTable& s = in.trace.slices;
  for (const Interval& gap : long_gaps) {
    auto next = std::lower_bound(ops.begin(), ops.end(), gap.end,
                                 [&s](uint32_t i, int64_t ts) { return s.ts[i] < ts; });
    if (next != ops.end()) follow.push_back({gap.begin, gap.end, *next});
  }
  const GapActivity act =
      activity_in_gaps(in.trace, in.analyses.join, in.analyses.steps, std::move(follow), 64);
  const std::string doing = act.lead_phrase();
  if (!doing.empty())
    f.fix += " The thread that launched the work after them was mostly " + doing + ".";
  f.number("gaps", static_cast<double>(long_gaps.size()));
  f.number("longest_us", us_of(long_gaps.front().length()), 3, "us");
  f.number("total_us", us_of(total), 3, "us");
  f.number("gpu_span_pct",
           span > 0 ? 100.0 * static_cast<double>(total) / static_cast<double>(span) : 0, 1, "%");
  if (act.total_ns > 0) f.text("cpu_in_gaps", activity_text(act));
  for (size_t i = 0; i < long_gaps.size() && i < 5; ++i)
    f.range(long_gaps[i].begin, long_gaps[i].end,
            "GPU idle " + format_duration(long_gaps[i].length()));
  out->push_back(std::move(f));
}

}  // namespace ks
