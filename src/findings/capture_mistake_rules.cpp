// Capture mistakes: how the trace was taken makes some numbers unreliable. One-time work
// recorded as steady state, diagnosis flags that slow the run, a capture far too long, errors
// during the run, a multi-GPU trace without its rank, clocks the importer had to repair.
#include <cstdint>
#include <map>

#include "analysis/name_cache.h"
#include "analysis/warmup.h"
#include "findings/rules.h"
#include "util/text_match.h"

namespace ks {

namespace {

// One group's calls inside the steps (anywhere, without steps).
struct WarmupGroup {
  uint64_t calls = 0;
  int64_t ns = 0;
  uint32_t first = 0;  // the earliest call
};

// The caching allocator calling cudaMalloc/cudaFree in (nearly) every step: each call is slow,
// and cudaFree waits for the whole device.
Finding alloc_every_step(const Trace& t, const Analyses& a, size_t steps_with,
                         const WarmupGroup& alloc, int64_t window) {
  const SliceTable& s = t.slices;
  const uint64_t calls = alloc.calls;
  const int64_t ns = alloc.ns;
  const uint32_t first = alloc.first;
  const double pct = window > 0 ? 100.0 * static_cast<double>(ns) / static_cast<double>(window) : 0;
  Finding f;
  f.id = "memory.alloc_every_step";
  f.severity = pct >= 1.0 ? Severity::kWarning : Severity::kInfo;
  f.title = strf(
      "Device memory allocated and freed in %zu of %zu steps: %llu cudaMalloc/cudaFree "
      "calls (%s, %s of %s)",
      steps_with, a.steps.steps.size(), static_cast<unsigned long long>(calls),
      format_duration(ns).c_str(), format_pct(pct).c_str(), analysis_window_name(a));
  f.meaning =
      "PyTorch's caching allocator keeps freed blocks for reuse; when it calls the driver every "
      "step it is giving memory back and taking it again: each call is slow, and cudaFree waits "
      "for everything queued on the device, so the CPU cannot run ahead.";
  f.fix =
      "Remove torch.cuda.empty_cache() (and gc-driven frees) from the loop; keep tensor shapes "
      "stable (pad variable-length batches to a few sizes); near the memory limit, "
      "expandable_segments reduces fragmentation.";
  f.fix_code = "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True";
  f.number("steps_with_calls", static_cast<double>(steps_with));
  f.number("steps", static_cast<double>(a.steps.steps.size()));
  f.number("calls", static_cast<double>(calls));
  f.number("total_us", us_of(ns), 3, "us");
  f.number("share_pct", pct, 1, "%");
  f.range(s.ts[first], s.end(first), std::string(t.str(s.name[first])));
  f.events.push_back(first);
  return f;
}

}  // namespace

// Allocator growth, module loading (JIT) or autotuning inside the steps (or anywhere, without
// steps): the capture includes one-time work.
void rule_warmup_ops(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  const Analyses& a = in.analyses;
  const SliceTable& s = t.slices;
  const std::vector<Step>& steps = a.steps.steps;
  std::map<std::string, WarmupGroup> groups;
  // Allocator calls by step: in nearly every step they are not warm-up but the allocator
  // giving memory back and taking it again each step (alloc_every_step's finding).
  std::vector<char> alloc_in_step(steps.size(), 0);
  auto group_of = make_name_cache(t, [](std::string_view n) {
    const char* g = one_time_work_group(n);
    for (int k = 0; k < 3; ++k)
      if (g == kOneTimeWorkGroups[k]) return k + 1;
    return 0;
  });
  for (uint32_t i = 0; i < s.size(); ++i) {
    const SliceKind k = s.kind[i];
    if (k != SliceKind::kRuntime && k != SliceKind::kDriver && k != SliceKind::kCpuOp &&
        k != SliceKind::kUserAnnotation && k != SliceKind::kOther)
      continue;
    const int code = group_of(s.name[i]);
    if (code == 0) continue;
    if (!steps.empty()) {
      auto it = std::upper_bound(steps.begin(), steps.end(), s.ts[i],
                                 [](int64_t x, const Step& st) { return x < st.begin; });
      if (it == steps.begin() || s.ts[i] >= std::prev(it)->end) continue;
      if (code == 1) alloc_in_step[static_cast<size_t>(std::prev(it) - steps.begin())] = 1;
    }
    WarmupGroup& g = groups[kOneTimeWorkGroups[code - 1]];
    if (g.calls == 0 || s.ts[i] < s.ts[g.first]) g.first = i;
    ++g.calls;
    g.ns += s.dur[i];
  }
  // Counted within the steps when there are steps, else over the whole capture (from process
  // start, say): the share is of that same time. Over the GPU span it read "1220.2% of the GPU
  // span" for a capture whose allocator storm came before the first kernel.
  const int64_t window = steps.empty() ? t.span_ns() : analysis_window_ns(t, a);
  const char* window_name = steps.empty() ? "the capture" : analysis_window_name(a);
  // Three steps or more, allocator calls in all but at most a quarter of them: churn, said on
  // its own and left out of the warm-up finding.
  size_t steps_with_alloc = 0;
  for (char c : alloc_in_step) steps_with_alloc += c ? 1 : 0;
  if (steps.size() >= 3 && steps_with_alloc * 4 >= steps.size() * 3) {
    const auto alloc = groups.find(kOneTimeWorkGroups[0]);
    out->push_back(alloc_every_step(t, a, steps_with_alloc, alloc->second, window));
    groups.erase(alloc);
  }
  if (groups.empty()) return;
  // The groups' totals, and their earliest call (the first in slice order among equal times).
  uint64_t calls = 0;
  int64_t total = 0;
  uint32_t first = groups.begin()->second.first;
  for (const auto& kv : groups) {
    calls += kv.second.calls;
    total += kv.second.ns;
    const uint32_t f = kv.second.first;
    if (s.ts[f] < s.ts[first] || (s.ts[f] == s.ts[first] && f < first)) first = f;
  }
  const double pct =
      window > 0 ? 100.0 * static_cast<double>(total) / static_cast<double>(window) : 0;
  std::string what;
  for (const auto& kv : groups)
    what += (what.empty() ? "" : ", ") + kv.first + " x" + std::to_string(kv.second.calls);
  Finding f;
  f.id = "capture.warmup_ops";
  f.severity = pct >= 1.0 ? Severity::kWarning : Severity::kInfo;
  f.title =
      strf("One-time work inside the %s: %s (%s, %s of %s)", steps.empty() ? "capture" : "steps",
           what.c_str(), format_duration(total).c_str(), format_pct(pct).c_str(), window_name);
  f.meaning =
      "Memory allocation from the device, module loading/JIT compilation and autotuning "
      "normally happen in the first iterations only; seen here, the capture includes "
      "warm-up (or the allocator keeps growing and freeing memory every step).";
  f.fix =
      "Record steady-state steps after a warm-up; if the calls repeat every step, keep "
      "tensor shapes stable so the caching allocator can reuse its blocks.";
  f.fix_code = "schedule=torch.profiler.schedule(wait=2, warmup=2, active=3)";
  // An Nsight Systems capture is started by nsys, not by torch.profiler's schedule.
  if (t.facts.format == TraceFormat::kNsysSqlite) {
    f.fix =
        "Capture steady-state steps after a warm-up (nsys --capture-range=cudaProfilerApi with "
        "torch.cuda.profiler.start() after a few steps); if the calls repeat every step, keep "
        "tensor shapes stable so the caching allocator can reuse its blocks.";
    f.fix_code =
        "nsys profile --trace=cuda,nvtx,osrt --capture-range=cudaProfilerApi "
        "--capture-range-end=stop python train.py";
  }
  f.number("calls", static_cast<double>(calls));
  f.number("total_us", us_of(total), 3, "us");
  f.number("share_pct", pct, 1, "%");
  for (const auto& kv : groups) f.number(kv.first, static_cast<double>(kv.second.calls));
  f.range(s.ts[first], s.end(first), std::string(t.str(s.name[first])));
  f.events.push_back(first);
  out->push_back(std::move(f));
}

// with_stack, record_shapes, profile_memory, with_flops, with_modules or CUPTI metrics
// (experimental_config profiler_metrics) were on: they add overhead to every op (the metrics
// replay each kernel), so step times from this capture are not the run's step times. Each flag
// is named from its evidence in the trace, else from the header's key: Python frames or "Call
// stack" args (with_stack; nn.Module frames come with with_stack alone, so they do not tell
// with_modules), shape args, [memory] events, "flops" args, cuda_profiler_range events.
void rule_diagnostic_flags(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  if (!has_timed_events(t)) return;  // the header's flags, over nothing recorded
  const TraceFacts& fa = t.facts;
  uint64_t python_frames = 0;
  for (SliceKind k : t.slices.kind) python_frames += k == SliceKind::kPythonFunction ? 1 : 0;
  const auto ranges_it = fa.categories.find(kCuptiRangeCategory);
  const uint64_t metric_ranges = ranges_it == fa.categories.end() ? 0 : ranges_it->second;
  const bool stack = fa.with_stack == 1 || fa.saw_call_stack || python_frames > 0;
  const bool shapes = fa.record_shapes == 1 || fa.saw_input_dims;
  const bool memory = fa.profile_memory == 1 || in.analyses.memory.events > 0;
  const bool flops = fa.with_flops == 1 || fa.saw_flops;
  const bool modules = fa.with_modules == 1;
  const bool metrics = metric_ranges > 0;
  if (!stack && !shapes && !memory && !flops && !modules && !metrics) return;
  std::string flags;
  auto add = [&flags](bool on, const char* name) {
    if (on) flags += (flags.empty() ? "" : ", ") + std::string(name);
  };
  // Nsight Systems' memory usage events come from its own flag, which NVIDIA documents as
  // adding significant overhead; its shapes from --pytorch=autograd-shapes-nvtx (emit_nvtx with
  // record_shapes); it has no stacks of PyTorch's kind.
  const bool nsys = fa.format == TraceFormat::kNsysSqlite;
  add(stack, "with_stack");
  add(shapes, nsys ? "--pytorch=autograd-shapes-nvtx" : "record_shapes");
  add(memory, nsys ? "--cuda-memory-usage=true" : "profile_memory");
  add(flops, "with_flops");
  add(modules, "with_modules");
  add(metrics, "profiler_metrics");
  Finding f;
  f.id = "capture.diagnostic_flags";
  f.severity = Severity::kInfo;
  f.title = "Diagnosis flags were on (" + flags + "): do not quote step times from this capture";
  f.meaning =
      "Recording stacks, input shapes or every allocation adds work to each op, so the "
      "steps here are slower than the run's own; use this capture to find where time "
      "goes, and a capture without the flags to measure it.";
  if (metrics)
    f.meaning +=
        " CUPTI metrics (profiler_metrics) replay every kernel to read its counters and take "
        "the place of the kernel timeline: this capture has no kernel times at all.";
  f.fix = "Profile step times with the flags off; turn them on only to locate a problem.";
  f.fix_code =
      nsys ? std::string("nsys profile --trace=cuda,nvtx,osrt") +
                 (shapes ? " --pytorch=autograd-nvtx" : "") +
                 (memory ? " --cuda-memory-usage=false" : "") + " ..."
           : "torch.profiler.profile(record_shapes=False, profile_memory=False, with_stack=False" +
                 std::string(flops ? ", with_flops=False" : "") +
                 (modules ? ", with_modules=False" : "") +
                 (metrics ? ", experimental_config=None" : "") + ")";
  f.text("flags", flags);
  f.number("python_frames", static_cast<double>(python_frames));
  f.number("memory_events", static_cast<double>(in.analyses.memory.events));
  if (metrics) f.number("metric_ranges", static_cast<double>(metric_ranges));
  out->push_back(std::move(f));
}

// A capture far longer than needed: slow to write, load and read; a schedule records a few
// representative steps.
void rule_capture_too_long(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  constexpr uint64_t kManySteps = 20;
  constexpr uint64_t kHugeJson = 500ull << 20;
  const uint64_t steps = in.analyses.steps.found;
  if (steps <= kManySteps && t.facts.json_bytes <= kHugeJson) return;
  // An Nsight Systems export: nsys.long_capture says it, with nsys's flags.
  if (t.facts.format == TraceFormat::kNsysSqlite) return;
  Finding f;
  f.id = "capture.too_long";
  f.severity = Severity::kInfo;
  f.title = steps > kManySteps
                ? strf("The capture holds %llu steps: a few are enough",
                       static_cast<unsigned long long>(steps))
                : strf("The trace is %s of JSON",
                       format_bytes(static_cast<int64_t>(t.facts.json_bytes)).c_str());
  f.meaning =
      "Profiling many steps makes the trace huge and slow to write and read, and the "
      "profiler's own overhead grows with it, without telling more than 3-5 steady steps.";
  f.fix = "Use a profiler schedule that records a few steps after a warm-up.";
  f.fix_code = "schedule=torch.profiler.schedule(wait=5, warmup=2, active=3, repeat=1)";
  f.number("steps", static_cast<double>(steps));
  f.number("json_bytes", static_cast<double>(t.facts.json_bytes), 0, "B");
  out->push_back(std::move(f));
}

// Errors, exceptions or retries recorded as ops or annotations: the profiled run was not a
// healthy one, and its timings show the failure handling.
void rule_errors_visible(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  const SliceTable& s = t.slices;
  std::map<std::string, uint64_t> names;
  uint64_t count = 0;
  uint32_t first = 0;
  auto is_error = make_name_cache(t, [](std::string_view n) {
    return icontains(n, "exception") || icontains(n, "error") || icontains(n, "retry") ? 1 : 0;
  });
  for (uint32_t i = 0; i < s.size(); ++i) {
    if (s.kind[i] != SliceKind::kCpuOp && s.kind[i] != SliceKind::kUserAnnotation) continue;
    if (!is_error(s.name[i])) continue;
    std::string_view n = t.str(s.name[i]);
    if (count == 0 || s.ts[i] < s.ts[first]) first = i;
    ++count;
    ++names[std::string(n)];
  }
  if (count == 0) return;
  std::string list;
  for (const auto& kv : names) {
    if (list.size() > 200) break;
    list += (list.empty() ? "" : "; ") + kv.first + " x" + std::to_string(kv.second);
  }
  Finding f;
  f.id = "capture.errors";
  f.severity = Severity::kWarning;
  f.title =
      strf("%llu error/exception/retry events recorded", static_cast<unsigned long long>(count));
  f.meaning =
      "The profiled run handled errors or retried work: its timings include the failure "
      "path and do not describe normal training.";
  f.fix = "Fix the error first, then profile a clean run.";
  f.number("events", static_cast<double>(count));
  f.text("names", list);
  f.range(s.ts[first], s.end(first), std::string(t.str(s.name[first])));
  f.events.push_back(first);
  out->push_back(std::move(f));
}

// A trace with collectives but no distributedInfo: its rank must be guessed (file name), and
// multi-rank tools cannot line the ranks up reliably.
void rule_missing_distributed_info(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  if (t.distributed.present) return;
  uint64_t comm_kernels = 0, comm_ops = 0;
  for (const KernelRow& r : in.analyses.kernels.rows)
    if (r.category == HtaCategory::kCommunication) comm_kernels += r.stats.count;
  const SliceTable& s = t.slices;
  for (uint32_t i = 0; i < s.size(); ++i) {
    if (s.kind[i] != SliceKind::kCpuOp) continue;
    std::string_view n = t.str(s.name[i]);
    if (starts_with(n, "nccl:") || starts_with(n, "c10d::") || starts_with(n, "gloo:")) ++comm_ops;
  }
  if (comm_kernels == 0 && comm_ops == 0) return;
  // One rank of a job whose process sees one GPU (CUDA_VISIBLE_DEVICES, srun --gpus-per-task=1)
  // is not a multi-GPU file: say what the file holds.
  uint64_t gpus = 0;
  for (const auto& p : t.processes) gpus += p.has_gpu_ops ? 1 : 0;
  Finding f;
  f.id = "capture.no_distributed_info";
  f.severity = Severity::kInfo;
  if (t.facts.format == TraceFormat::kNsysSqlite) {
    // An export's rank is the one in the environment nsys recorded: Kineto's advice does not
    // apply (nsys writes no distributedInfo).
    f.title = gpus > 1 ? "Multi-GPU export without a recorded rank: the rank is unknown"
                       : "One GPU's export with collectives but no recorded rank: the rank is "
                         "unknown";
    f.meaning =
        "The export has collectives, so it is one rank of several, but the environment Nsight "
        "Systems recorded holds no rank (RANK, OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID): "
        "comparing ranks has to rely on file names.";
    f.fix =
        "Start nsys inside the launcher, once per rank, so each export records its rank's "
        "environment, and name each output after its rank.";
    f.fix_code = "srun nsys profile -o report_%q{SLURM_PROCID} python train.py";
  } else {
    f.title = gpus > 1 ? "Multi-GPU trace without distributedInfo: the rank is unknown"
                       : "One GPU's trace with collectives but no distributedInfo: the rank is "
                         "unknown";
    f.meaning =
        "The trace has collectives, so it is one rank of several, but it does not say which "
        "(no top-level distributedInfo): comparing ranks has to rely on file names.";
    f.fix =
        "Initialize the process group before creating the profiler (Kineto then writes "
        "distributedInfo), and keep the rank in the file name.";
    f.fix_code =
        "dist.init_process_group('nccl')\n"
        "prof = torch.profiler.profile(on_trace_ready=torch.profiler.tensorboard_trace_handler(\n"
        "    './log', worker_name=f'rank{dist.get_rank()}'))";
  }
  f.number("comm_kernels", static_cast<double>(comm_kernels));
  f.number("comm_ops", static_cast<double>(comm_ops));
  f.number("gpus", static_cast<double>(gpus));
  out->push_back(std::move(f));
}

// Clock oddities the importer repaired (negative durations, ends before begins), and GPU ops
// that start before the CPU call that launched them began: CPU and GPU clocks disagree, so
// launch delays and CPU/GPU alignment in this trace are off.
void rule_clock_oddities(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  const LaunchApiRow& l = in.analyses.launches.total;
  const uint64_t negative = t.diagnostics.count(Diag::kNegativeDuration);
  const uint64_t backwards = t.diagnostics.count(Diag::kEndBeforeBegin);
  const bool skew = l.before_launch >= 5 && l.before_launch * 100 >= l.launches;
  if (!skew && negative == 0 && backwards == 0) return;
  Finding f;
  f.id = "capture.clock_oddities";
  f.severity = Severity::kInfo;
  f.title = skew ? strf("%llu GPU ops start before the CPU call that launched them began",
                        static_cast<unsigned long long>(l.before_launch))
                 : strf("%llu events with negative or reversed durations were repaired",
                        static_cast<unsigned long long>(negative + backwards));
  f.meaning =
      "Timestamps that cannot be right: the CPU and GPU clocks were not aligned (or the "
      "trace was edited); launch delays and CPU/GPU alignment in this trace are off by "
      "the skew.";
  f.fix =
      "Take the numbers that compare CPU and GPU times with care; re-capture with a recent "
      "PyTorch/Kineto, which aligns the clocks.";
  f.number("ops_before_launch", static_cast<double>(l.before_launch));
  f.number("launches", static_cast<double>(l.launches));
  f.number("negative_durations", static_cast<double>(negative));
  f.number("ends_before_begins", static_cast<double>(backwards));
  // On the timeline: the first GPU op that starts before its launch began.
  if (skew) {
    const Analyses& a = in.analyses;
    const SliceTable& s = t.slices;
    for (uint32_t g : a.join.gpu_ops_by_ts) {
      const int32_t launch = a.join.partner[g];
      if (launch < 0 || s.ts[g] >= s.ts[static_cast<size_t>(launch)]) continue;
      f.range(s.ts[g], s.end(static_cast<size_t>(launch)), "GPU op before its launch");
      f.events.push_back(g);
      f.events.push_back(static_cast<uint32_t>(launch));
      break;
    }
  }
  out->push_back(std::move(f));
}

}  // namespace ks
