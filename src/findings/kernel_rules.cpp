// What the kernels are: how much of the GPU time is real math (GEMM, attention, convolution)
// rather than overhead kernels; many tiny kernels the CPU cannot launch fast enough; GEMMs that
// do not use the tensor cores of a GPU that has them.
#include <climits>

#include "analysis/name_cache.h"

#include "findings/compile_advice.h"
#include "findings/rules.h"

namespace ks {

namespace {

bool vendor_has_cuda_names(GpuVendor v) {
  return v == GpuVendor::kNvidia || v == GpuVendor::kAmd;
}

std::string top_rows_text(const Trace& t, const KernelSummary& k, bool math, size_t n) {
  std::string out;
  size_t shown = 0;
  for (const KernelRow& r : k.rows) {
    if (is_math_class(r.klass) != math || r.category != HtaCategory::kComputation || shown == n)
      continue;
    if (!out.empty()) out += "; ";
    std::string name(t.str(r.name));
    if (name.size() > 80) name = name.substr(0, 77) + "...";
    out += name + " (" + format_pct(r.percent) + ")";
    ++shown;
  }
  return out;
}

}  // namespace

// Kernel time mostly outside GEMM/attention/convolution: elementwise, copies, reductions and
// indexing kernels dominate, which fusion removes. "Dominant" by its meaning: the overhead
// kernels take more time than the math kernels (math < 50% of computation kernel time; the math
// and overhead classes are ANALYSES.md's). And only when fusing them can shorten the step
// noticeably: their time is at least 10% of the analysis window, the share the TB plugin asks
// of a part of the step before recommending work on it (communication > 10% of step time).
// With the GPU mostly idle, or the overhead kernels a few percent of the step, the kernel mix
// is not what makes the step slow (gpu.idle and the other rules say what does).
void rule_math_share(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  const Analyses& a = in.analyses;
  const KernelGroups& g = a.kernel_groups;
  constexpr double kDominantPct = 50.0, kWorthPct = 10.0;
  if (!vendor_has_cuda_names(gpu_vendor(t, a))) return;
  // Of the computation kernels: communication kernels are neither math nor overhead.
  int64_t compute_ns = g.total_ns;
  for (const KernelClassRow& r : g.by_class)
    if (r.category != HtaCategory::kComputation) compute_ns -= r.stats.total_ns;
  compute_ns -= graph_trace_ns(t);  // graph replays traced whole: their kernels are unknown
  if (compute_ns <= 0) return;
  const double math_pct = 100.0 * static_cast<double>(g.math_ns) / static_cast<double>(compute_ns);
  const int64_t overhead_ns = compute_ns - g.math_ns;
  // Kernel time of every device: a share of every device's window.
  const int64_t window = devices_window_ns(t, a);
  const std::string window_name = devices_window_name(a);
  const double overhead_pct =
      window > 0 ? 100.0 * static_cast<double>(overhead_ns) / static_cast<double>(window) : 0;
  if (math_pct >= kDominantPct || overhead_pct < kWorthPct) return;
  Finding f;
  f.id = "kernels.overhead_dominant";
  f.severity = Severity::kInfo;
  f.title = strf(
      "Elementwise/copy/index/reduction kernels take %s of %s; math (GEMM, attention, "
      "convolution) is only %s of kernel time",
      format_pct(overhead_pct).c_str(), window_name.c_str(), format_pct(math_pct).c_str());
  f.meaning =
      "Most GPU time goes to elementwise, copy, indexing and reduction kernels: memory-"
      "bound work around the math, which fusing kernels shrinks (or, in embedding-heavy "
      "models, the nature of the model).";
  f.fix =
      "Fuse the elementwise work (torch.compile), use fused layers and optimizers, avoid "
      "needless copies (.contiguous(), dtype conversions, cat/index in loops).";
  f.fix_code = "model = torch.compile(model)";
  fit_fusion_fix(compile_use(t, a), &f.fix, &f.fix_code);
  // Kernels whose names match no class (custom CUDA, an HPC code's stencils) are not known to be
  // elementwise or copies: said as such when they are most of the non-math time.
  int64_t unclassified_ns = 0;
  for (const KernelClassRow& r : g.by_class)
    if (r.klass == KernelClass::kOther && r.category == HtaCategory::kComputation)
      unclassified_ns += r.stats.total_ns;
  if (2 * unclassified_ns > overhead_ns) {
    f.title = strf(
        "Kernels other than math take %s of %s (%s of them of no known class: custom "
        "kernels); math (GEMM, attention, convolution) is only %s of kernel time",
        format_pct(overhead_pct).c_str(), window_name.c_str(),
        format_pct(100.0 * static_cast<double>(unclassified_ns) / static_cast<double>(overhead_ns))
            .c_str(),
        format_pct(math_pct).c_str());
    f.meaning =
        "Most GPU time goes to kernels that are not GEMM, attention or convolution, and most of "
        "those have names that match no known kind (elementwise, copy, reduction, ...): custom "
        "or hand-written kernels, as in an HPC code. Tensor cores do not help them; their speed "
        "is set by memory bandwidth and occupancy.";
    f.fix =
        "Profile the top kernels with Nsight Compute (memory throughput, occupancy); in a "
        "PyTorch model, fuse elementwise work (torch.compile) and use fused layers.";
    f.fix_code = "ncu --set full -k regex:<top kernel> python train.py";
  }
  // A softmax among the largest overhead kernels is usually attention computed op by op.
  const std::string top_overhead = top_rows_text(t, a.kernels, false, 3);
  if (top_overhead.find("oftMax") != std::string::npos ||
      top_overhead.find("softmax") != std::string::npos) {
    f.fix +=
        " A softmax among the largest kernels: attention computed op by op; use the fused "
        "attention kernels.";
    f.fix_code = "out = torch.nn.functional.scaled_dot_product_attention(q, k, v)";
  }
  f.number("overhead_kernel_us", us_of(overhead_ns), 3, "us");
  f.number("overhead_pct_of_window", overhead_pct, 1, "%");
  f.number("math_pct", math_pct, 1, "%");
  f.number("computation_kernel_us", us_of(compute_ns), 3, "us");
  for (const KernelClassRow& r : g.by_class) {
    if (is_math_class(r.klass) || r.category != HtaCategory::kComputation) continue;
    f.text("largest_other_class", kernel_class_name(r.klass));
    f.number("largest_other_class_pct", r.percent, 1, "%");
    break;
  }
  f.text("top_overhead_kernels", top_overhead);
  // Which ops of the model launched that work (analysis/gpu_time_by_op.h), where launches sit
  // inside ops: the three with the most non-math kernel time of their own.
  std::vector<const OpGpuTimeRow*> by_non_math;
  for (const OpGpuTimeRow& r : a.gpu_by_op.rows)
    if (r.non_math_ns > 0) by_non_math.push_back(&r);
  std::sort(by_non_math.begin(), by_non_math.end(),
            [](const OpGpuTimeRow* x, const OpGpuTimeRow* y) {
              return x->non_math_ns != y->non_math_ns ? x->non_math_ns > y->non_math_ns
                                                      : x->name < y->name;
            });
  std::string ops;
  for (size_t k = 0; k < by_non_math.size() && k < 3; ++k) {
    std::string name = by_non_math[k]->name;
    if (name.size() > 60) name = name.substr(0, 57) + "...";
    ops += (ops.empty() ? "" : "; ") + name + " " + format_duration(by_non_math[k]->non_math_ns);
  }
  if (!ops.empty()) {
    f.text("top_overhead_ops", ops);
    f.fix += " Start with the ops that launch most of it: " + ops + ".";
  }
  // On the timeline: the longest run of the overhead kernel with the most time.
  const KernelRow* top = nullptr;
  for (const KernelRow& r : a.kernels.rows)
    if (!is_math_class(r.klass) && r.category == HtaCategory::kComputation) {
      top = &r;
      break;
    }
  const SliceTable& s = t.slices;
  int64_t longest = -1;
  for (uint32_t i : a.join.gpu_ops_by_ts)
    if (top && s.kind[i] == SliceKind::kKernel && s.name[i] == top->name &&
        (longest < 0 || s.dur[i] > s.dur[static_cast<size_t>(longest)]))
      longest = i;
  if (longest >= 0) {
    const uint32_t l = static_cast<uint32_t>(longest);
    f.range(s.ts[l], s.end(l), "longest run of the top overhead kernel");
    f.events.push_back(l);
  }
  out->push_back(std::move(f));
}

// Launch-bound: many kernels shorter than their own launch, and the GPU waiting for the CPU.
void rule_launch_bound(const RuleInput& in, std::vector<Finding>* out) {
  const Analyses& a = in.analyses;
  const LaunchApiRow& l = a.launches.total;
  constexpr uint64_t kMinLaunches = 100;
  constexpr double kShortPct = 25.0, kHostWaitPct = 10.0;
  constexpr int64_t kTinyKernelNs = 4000;
  if (l.launches < kMinLaunches) return;
  const double short_pct =
      100.0 * static_cast<double>(l.short_kernels) / static_cast<double>(l.launches);
  const IdleCauses& c = a.idle_causes;
  // Only short host waits count: the GPU waiting for the next launch, not for a CPU that was
  // busy elsewhere for milliseconds.
  const int64_t host_wait = c.short_host_wait_ns;
  const double host_wait_pct =
      c.window_ns > 0 ? 100.0 * static_cast<double>(host_wait) / static_cast<double>(c.window_ns)
                      : 0;
  if (short_pct < kShortPct || host_wait_pct < kHostWaitPct) return;
  const SliceTable& s = in.trace.slices;
  uint64_t kernels = 0, tiny = 0;
  // With steps, the kernels inside them (per-step numbers then match the steps counted).
  const std::vector<Step>& steps_v = a.steps.steps;
  const int64_t from = steps_v.empty() ? INT64_MIN : steps_v.front().begin;
  const int64_t to = steps_v.empty() ? INT64_MAX : steps_v.back().end;
  // Kernels of a CUDA graph (several ops on one cudaGraphLaunch) pay no launch each: their
  // count is no evidence of launch overhead, and blaming them ("1465 of 1465 kernels") would
  // advise the CUDA graphs that already run. Kernels launched one per call only.
  uint64_t graph_kernels = 0;
  auto in_graph = [&a](uint32_t op) {
    const int32_t l = a.join.partner[op];
    if (l < 0) return false;
    auto it = std::lower_bound(a.join.multi_op_ends.begin(), a.join.multi_op_ends.end(),
                               std::make_pair(static_cast<uint32_t>(l), INT64_MIN));
    return it != a.join.multi_op_ends.end() && it->first == static_cast<uint32_t>(l);
  };
  for (uint32_t i : a.join.gpu_ops_by_ts) {
    if (s.kind[i] != SliceKind::kKernel || s.ts[i] < from || s.ts[i] >= to) continue;
    if (in_graph(i)) {
      ++graph_kernels;
      continue;
    }
    ++kernels;
    if (s.dur[i] <= kTinyKernelNs) ++tiny;
  }
  if (tiny == 0) return;  // the short launches are copies, memsets or whole graphs
  const size_t steps = a.steps.steps.size();
  Finding f;
  f.id = "kernels.launch_bound";
  f.severity = host_wait_pct >= 25.0 ? Severity::kWarning : Severity::kInfo;
  f.title = strf(
      "Launch-bound: %llu of %llu kernels run 4 us or less; the GPU waits for "
      "launches %s of %s",
      static_cast<unsigned long long>(tiny), static_cast<unsigned long long>(kernels),
      format_pct(host_wait_pct).c_str(),
      c.window_ns == a.steps.stats.total_ns ? "step time" : "the GPU span");
  f.meaning =
      "Many kernels finish faster than the CPU can launch the next one (launch overhead "
      "and Python per kernel), so the GPU sits idle between them: the run is limited by "
      "the CPU, not the GPU.";
  f.fix =
      "Launch fewer, larger kernels: fused/foreach optimizers, torch.compile, or CUDA graphs "
      "for a static step.";
  f.fix_code =
      "optimizer = torch.optim.AdamW(params, foreach=True)  # or fused=True\n"
      "model = torch.compile(model, mode=\"reduce-overhead\")  # CUDA graphs";
  fit_launch_overhead_fix(compile_use(in.trace, a), &f.fix, &f.fix_code);
  f.number("kernels", static_cast<double>(kernels));
  f.number("kernels_le_4us", static_cast<double>(tiny));
  if (graph_kernels > 0) f.number("graph_kernels_left_out", static_cast<double>(graph_kernels));
  if (steps > 0)
    f.number("kernels_le_4us_per_step", static_cast<double>(tiny) / static_cast<double>(steps), 0);
  f.number("short_kernels", static_cast<double>(l.short_kernels));
  f.number("short_kernels_pct", short_pct, 1, "%");
  f.number("launch_wait_us", us_of(host_wait), 3, "us");
  f.number("launch_wait_pct", host_wait_pct, 1, "%");
  if (steps > 0)
    f.number("launch_wait_us_per_step", us_of(host_wait) / static_cast<double>(steps), 3, "us");
  f.number("launch_wait_gaps", static_cast<double>(c.short_host_wait_gaps));
  // The median launch call: what each kernel costs the CPU.
  std::vector<int64_t> launch_durs;
  for (uint32_t i : a.join.gpu_ops_by_ts)
    if (a.join.partner[i] >= 0)
      launch_durs.push_back(s.dur[static_cast<size_t>(a.join.partner[i])]);
  f.number("launch_median_us", compute_duration_stats(launch_durs).median_ns / 1e3, 3, "us");
  for (const CausedGap& g : c.largest) {
    if (g.cause != GapCause::kHostWait || g.length() >= kLaunchGapNs) continue;
    f.range(g.begin_ns, g.end_ns, "host wait " + format_duration(g.length()));
    if (f.ranges.size() == 3) break;
  }
  out->push_back(std::move(f));
}

// Tensor cores unused: GEMM/convolution kernels ran in plain fp32 on a GPU with tensor cores
// (compute capability 7.0 or newer) although the model has ops that could use them.
void rule_no_tensor_cores(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  const Analyses& a = in.analyses;
  const GpuMetrics& m = a.gpu_metrics;
  if (gpu_vendor(t, a) != GpuVendor::kNvidia) return;  // AMD/MTIA name their MMA kernels apart
  if (m.compute_major == kNoValue || m.compute_major < 7 || m.eligible_ops == 0) return;
  int64_t tc = 0;
  for (const DeviceMetrics& d : m.devices) tc += d.tensor_core_ns;
  if (tc > 0 || m.devices.empty()) return;
  uint64_t math_kernels = 0;
  int64_t math_ns = 0;
  for (const KernelClassRow& r : a.kernel_groups.by_class) {
    if (r.klass != KernelClass::kGemm && r.klass != KernelClass::kConvolution) continue;
    math_kernels += r.stats.count;
    math_ns += r.stats.total_ns;
  }
  if (math_kernels == 0) return;
  const size_t steps = a.steps.steps.size();
  const bool tf32 = m.compute_major >= 8;
  // The TB plugin's rule, ranked by what tensor cores can win: a warning when the fp32
  // GEMMs/convolutions take 10% of the window or more (the plugin's bar for a step part, as in
  // kernels.overhead_dominant), else for information (a few small GEMMs in a step that
  // communication or idle time fills).
  const int64_t window = devices_window_ns(t, a);  // GEMMs of every device: every window
  const double math_share =
      window > 0 ? 100.0 * static_cast<double>(math_ns) / static_cast<double>(window) : 0;
  Finding f;
  f.id = "kernels.no_tensor_cores";
  f.severity = math_share >= 10.0 ? Severity::kWarning : Severity::kInfo;
  f.title = strf(
      "No tensor-core kernels: %llu GEMM/convolution kernels ran in fp32 on a compute "
      "capability %lld.%lld GPU",
      static_cast<unsigned long long>(math_kernels), static_cast<long long>(m.compute_major),
      static_cast<long long>(m.compute_minor));
  f.meaning =
      "The matrix multiplications and convolutions used the GPU's plain fp32 units; its "
      "tensor cores, several times faster, sat unused.";
  f.fix = tf32 ? "Train with mixed precision (bf16/fp16 autocast), or at least allow TF32 for "
                 "matmuls and convolutions."
               : "Train with mixed precision (fp16 autocast with a gradient scaler).";
  f.fix_code = tf32 ? "torch.backends.cuda.matmul.allow_tf32 = True\n"
                      "torch.backends.cudnn.allow_tf32 = True\n"
                      "with torch.autocast('cuda', dtype=torch.bfloat16):\n    loss = model(x)"
                    : "scaler = torch.cuda.amp.GradScaler()\n"
                      "with torch.autocast('cuda', dtype=torch.float16):\n    loss = model(x)";
  f.text("compute_capability",
         std::to_string(m.compute_major) + "." + std::to_string(m.compute_minor));
  f.number("gemm_conv_kernels", static_cast<double>(math_kernels));
  f.number("gemm_conv_us", us_of(math_ns), 3, "us");
  f.number("gemm_conv_pct_of_window", math_share, 1, "%");
  if (steps > 0)
    f.number("gemm_conv_us_per_step", us_of(math_ns) / static_cast<double>(steps), 3, "us");
  f.number("eligible_ops", static_cast<double>(m.eligible_ops));
  f.text("top_eligible_op", m.top_eligible_op);
  f.text("top_math_kernels", top_rows_text(t, a.kernels, true, 2));
  f.number("tensor_core_pct", 0, 1, "%");
  // On the timeline: the longest fp32 GEMM/convolution kernel.
  auto is_gemm_conv = make_name_cache(t, [](std::string_view n) {
    const KernelClass k = kernel_class(SliceKind::kKernel, n);
    return k == KernelClass::kGemm || k == KernelClass::kConvolution ? 1 : 0;
  });
  const SliceTable& s = t.slices;
  int64_t longest = -1;
  for (uint32_t i : a.join.gpu_ops_by_ts)
    if (s.kind[i] == SliceKind::kKernel && is_gemm_conv(s.name[i]) &&
        (longest < 0 || s.dur[i] > s.dur[static_cast<size_t>(longest)]))
      longest = i;
  if (longest >= 0) {
    const uint32_t l = static_cast<uint32_t>(longest);
    f.range(s.ts[l], s.end(l), "longest fp32 GEMM/convolution kernel");
    f.events.push_back(l);
    const int32_t launch = a.join.partner[l];
    if (launch >= 0) add_call_site(t, static_cast<uint32_t>(launch), &f);
  }
  out->push_back(std::move(f));
}

}  // namespace ks
