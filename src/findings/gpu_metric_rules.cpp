// The TB plugin's GPU metrics: kernels keeping the GPU busy less than half of the steps, and
// kernels that run but leave most SMs unused (small grids).
#include <algorithm>

#include "analysis/gpu_idle.h"
#include "analysis/kernel_class.h"
#include "analysis/name_cache.h"
#include "analysis/step_breakdown.h"
#include "findings/rules.h"
#include "util/format.h"

namespace ks {

// GPU utilization (kernel time over the steps) under 50% while the GPU is seldom fully idle:
// the time goes to copies and memsets instead of kernels (gpu.idle covers idle GPUs).
void rule_low_utilization(const RuleInput& in, std::vector<Finding>* out) {
  const Analyses& a = in.analyses;
  constexpr double kLowPct = 50.0;
  if (!a.gpu_idle.has_gpu_ops || a.gpu_idle.idle_pct >= 10.0) return;
  // The busy time that is not kernels: copies and memsets (step breakdown parts).
  const double copies_pct =
      a.step_breakdown.pct(StepRole::kMemcpy) + a.step_breakdown.pct(StepRole::kMemset);
  if (copies_pct < 25.0) return;
  for (const DeviceMetrics& d : a.gpu_metrics.devices) {
    if (!d.has_utilization || d.utilization_pct >= kLowPct) continue;
    Finding f;
    f.id = "gpu.low_utilization";
    f.severity = Severity::kWarning;
    f.title = strf("GPU utilization %s: kernels run less than half of %s",
                   format_pct(d.utilization_pct).c_str(),
                   a.gpu_metrics.window_is_steps ? "the steps" : "the trace");
    f.meaning =
        "The GPU is rarely idle, yet kernels run less than half of the time: memory copies "
        "and memsets take the rest.";
    f.fix =
        "Move data once (keep tensors on the GPU), pin host memory, and overlap copies with "
        "compute on a side stream.";
    f.number("utilization_pct", d.utilization_pct, 1, "%");
    f.number("gpu_idle_pct", a.gpu_idle.idle_pct, 1, "%");
    f.number("copies_pct", copies_pct, 1, "%");
    if (d.device != kNoValue) f.number("device", static_cast<double>(d.device));
    out->push_back(std::move(f));
    return;
  }
}

// One process driving several GPUs (nn.DataParallel, a model or pipeline split across the
// process's GPUs, or an export read whole) that keeps one of them far less busy than another:
// utilization (kernel time over the steps, per device) under half the busiest device's, and 25
// points or more below it, with the busiest at 30% or more. The slack is the least busy GPU's.
void rule_uneven_devices(const RuleInput& in, std::vector<Finding>* out) {
  const GpuMetrics& m = in.analyses.gpu_metrics;
  constexpr double kBusiestPct = 30.0, kRatio = 0.5, kGapPoints = 25.0;
  const DeviceMetrics* most = nullptr;
  const DeviceMetrics* least = nullptr;
  size_t devices = 0;
  for (const DeviceMetrics& d : m.devices) {
    // A device barely touched is gpu.stray_device's, not a share of the work.
    if (!d.has_utilization || in.analyses.gpu_idle.is_stray(d.device)) continue;
    ++devices;
    if (!most || d.utilization_pct > most->utilization_pct) most = &d;
    if (!least || d.utilization_pct < least->utilization_pct) least = &d;
  }
  if (devices < 2 || most->utilization_pct < kBusiestPct) return;
  if (least->utilization_pct >= kRatio * most->utilization_pct ||
      most->utilization_pct - least->utilization_pct < kGapPoints)
    return;
  const char* window = m.window_is_steps ? "the steps" : "the trace";
  Finding f;
  f.id = "gpu.uneven_devices";
  f.severity = Severity::kWarning;
  f.title = strf(
      "GPU %lld runs kernels %s of %s, GPU %lld %s: the work is uneven across "
      "this process's %zu GPUs",
      static_cast<long long>(least->device), format_pct(least->utilization_pct).c_str(), window,
      static_cast<long long>(most->device), format_pct(most->utilization_pct).c_str(), devices);
  f.meaning =
      "One of this process's GPUs idles for much of the time another works: where the run "
      "splits its work across them, a step lasts as long as the busiest GPU's share, and the "
      "least busy GPU's idle time is capacity lost.";
  f.fix =
      "With nn.DataParallel (GPU 0 gathers outputs and holds the optimizer), switch to "
      "DistributedDataParallel, one process per GPU; with a model or pipeline split across "
      "GPUs, move layers from the busiest GPU's part to the least busy one's.";
  f.number("devices", static_cast<double>(devices));
  f.number("least_busy_device", static_cast<double>(least->device));
  f.number("least_busy_utilization_pct", least->utilization_pct, 1, "%");
  f.number("busiest_device", static_cast<double>(most->device));
  f.number("busiest_utilization_pct", most->utilization_pct, 1, "%");
  out->push_back(std::move(f));
}

// One process driving several GPUs in turn (a naive model or pipeline split: GPU 1 waits for GPU
// 0's activations): the union of the devices reads busy, so gpu.idle stays quiet while every GPU
// idles most of the step. Fires when every device is idle 25% or more of the window and their
// mean idle is 15 points or more above the union's (the union hides it); the severity is
// gpu.idle's, on the mean per-device idle (the capacity lost).
void rule_devices_idle(const RuleInput& in, std::vector<Finding>* out) {
  const GpuIdleResult& g = in.analyses.gpu_idle;
  constexpr double kWarnPct = 25, kCriticalPct = 50, kHiddenPoints = 15;
  if (g.devices.size() < 2 || g.window_ns <= 0) return;
  double least = 100, sum = 0;
  for (const GpuIdleResult::DeviceIdle& d : g.devices) {
    least = std::min(least, d.idle_pct);
    sum += d.idle_pct;
  }
  const double mean = sum / static_cast<double>(g.devices.size());
  if (least < kWarnPct || mean - g.idle_pct < kHiddenPoints) return;
  std::string each;
  for (const GpuIdleResult::DeviceIdle& d : g.devices) {
    if (each.size() > 80) {
      each += ", ...";
      break;
    }
    each += strf("%sGPU %lld %s", each.empty() ? "" : ", ", static_cast<long long>(d.device),
                 format_pct(d.idle_pct).c_str());
  }
  const char* window = g.window_is_steps ? "step time" : "the GPU span";
  Finding f;
  f.id = "gpu.devices_idle";
  f.severity = mean >= kCriticalPct ? Severity::kCritical : Severity::kWarning;
  f.title = strf(
      "Each of this process's %zu GPUs is idle %s of %s or more (%s); some GPU is busy "
      "%s of it: the GPUs take turns",
      g.devices.size(), format_pct(least).c_str(), window, each.c_str(),
      format_pct(100.0 - g.idle_pct).c_str());
  f.meaning =
      "The process's GPUs mostly run one at a time: while one works the others wait for its "
      "output (a model or pipeline split across GPUs without micro-batches, or work moved "
      "between devices one after another). Counted over all GPUs together the time looks busy; "
      "each GPU's idle time is capacity lost.";
  f.fix =
      "Overlap the devices' work: split each batch into micro-batches and pipeline them "
      "(torch.distributed.pipelining, GPipe/1F1B schedules), or run one process per GPU with "
      "DistributedDataParallel/FSDP when the model fits.";
  f.number("devices", static_cast<double>(g.devices.size()));
  f.number("least_idle_pct", least, 1, "%");
  f.number("mean_device_idle_pct", mean, 1, "%");
  f.number("union_idle_pct", g.idle_pct, 1, "%");
  // The first 8 devices by id: a capture of thousands of devices keeps a bounded report.
  for (size_t k = 0; k < g.devices.size() && k < 8; ++k)
    f.number(strf("device%lld_idle_pct", static_cast<long long>(g.devices[k].device)),
             g.devices[k].idle_pct, 1, "%");
  out->push_back(std::move(f));
}

// Est. SM efficiency far below utilization: while kernels run, most SMs have no block to run.
void rule_low_sm_efficiency(const RuleInput& in, std::vector<Finding>* out) {
  const Analyses& a = in.analyses;
  // AMD traces record grid sizes in threads, and MTIA has no SM counts: NVIDIA only.
  if (gpu_vendor(in.trace, a) != GpuVendor::kNvidia) return;
  constexpr double kBusyPct = 30.0, kRatio = 0.5;
  for (const DeviceMetrics& d : a.gpu_metrics.devices) {
    // Nsight Systems' sampled SM Active, where the capture has it, over the same window as the
    // utilization (the steps' samples, else all): what the hardware counted, not the estimate.
    const bool over_steps = a.gpu_metrics.window_is_steps;
    const bool measured = over_steps ? d.sm_active_step_samples > 0 : d.sm_active_samples > 0;
    const double sm_pct =
        measured ? (over_steps ? d.sm_active_steps_pct : d.sm_active_pct) : d.sm_efficiency_pct;
    if (!(d.has_sm_efficiency || measured) || !d.has_utilization || d.utilization_pct < kBusyPct)
      continue;
    const double ratio = sm_pct / d.utilization_pct;
    if (ratio >= kRatio) continue;
    Finding f;
    f.id = "gpu.low_sm_efficiency";
    f.severity = Severity::kInfo;
    f.title = strf("Kernels keep only %s of the SMs busy while they run (%s %s vs utilization %s)",
                   format_pct(100.0 * ratio).c_str(),
                   measured ? "SM Active measured" : "est. SM efficiency",
                   format_pct(sm_pct).c_str(), format_pct(d.utilization_pct).c_str());
    f.meaning =
        "Many kernels launch fewer thread blocks than the GPU has SMs: the GPU looks busy "
        "but most of it idles (small batches, small tensors, per-sample loops).";
    f.fix =
        "Give each kernel more work: larger batches, batched or fused ops instead of loops "
        "over small tensors.";
    if (d.has_sm_efficiency) f.number("sm_efficiency_pct", d.sm_efficiency_pct, 1, "%");
    if (measured) f.number("sm_active_pct", sm_pct, 1, "%");
    f.number("utilization_pct", d.utilization_pct, 1, "%");
    if (d.has_occupancy) f.number("occupancy_pct", d.occupancy_pct, 1, "%");
    if (d.device != kNoValue) f.number("device", static_cast<double>(d.device));
    // On the timeline: the longest computation kernel with fewer blocks than SMs (blocks per
    // SM < 1). Communication kernels use few blocks by design and mostly wait for peers.
    const Trace& t = in.trace;
    const SliceTable& s = t.slices;
    int64_t longest = -1;
    auto is_computation = make_name_cache(t, [](std::string_view n) {
      return hta_category(SliceKind::kKernel, n) == HtaCategory::kComputation;
    });
    for (uint32_t i : a.join.gpu_ops_by_ts) {
      if (s.kind[i] != SliceKind::kKernel || s.launch_info[i] < 0) continue;
      if (!is_computation(s.name[i])) continue;
      const float bps = s.launch_infos[static_cast<size_t>(s.launch_info[i])].blocks_per_sm;
      if (bps < 0 || bps >= 1) continue;
      if (longest < 0 || s.dur[i] > s.dur[static_cast<size_t>(longest)]) longest = i;
    }
    if (longest >= 0) {
      const uint32_t l = static_cast<uint32_t>(longest);
      f.text("longest_small_grid_kernel", std::string(t.str(s.name[l])));
      f.range(s.ts[l], s.end(l), "longest kernel with fewer blocks than SMs");
      f.events.push_back(l);
      const int32_t launch = a.join.partner[l];
      if (launch >= 0) add_call_site(t, static_cast<uint32_t>(launch), &f);
    }
    out->push_back(std::move(f));
    return;
  }
}

}  // namespace ks

namespace ks {

// Measured tensor-core activity (Nsight Systems GPU metrics, `Tensor Active`) under 10% while
// GEMM/convolution kernels take at least 30% of the device's kernel time: the matrix math runs
// on the CUDA cores (fp32 without TF32, or shapes/dtypes the tensor cores cannot take). Unlike
// kernels.no_tensor_cores (kernel names and aten ops, which nsys exports lack) this is what the
// hardware counted, so it also catches tensor-core kernels that keep the tensor cores mostly idle.
void rule_low_tensor_active(const RuleInput& in, std::vector<Finding>* out) {
  const Analyses& a = in.analyses;
  if (!a.gpu_metrics.measured) return;
  constexpr double kLowPct = 10.0, kGemmSharePct = 30.0;
  const Trace& t = in.trace;
  const SliceTable& s = t.slices;
  auto is_math = make_name_cache(t, [](std::string_view n) {
    const KernelClass c = kernel_class(SliceKind::kKernel, n);
    return c == KernelClass::kGemm || c == KernelClass::kConvolution ? 1 : 0;
  });
  for (const DeviceMetrics& d : a.gpu_metrics.devices) {
    if (d.tensor_active_samples == 0 || d.kernel_ns <= 0) continue;
    const bool in_steps = d.tensor_active_step_samples > 0;
    const double active = in_steps ? d.tensor_active_steps_pct : d.tensor_active_pct;
    // Tensor Active is a share of all the time sampled, idle time included; the GEMM share is
    // of kernel time. A mostly idle GPU whose GEMMs all run on the tensor cores reads low
    // (BERT-small converted with metrics: 4.5% measured, 64% of kernel time in tensor-core
    // kernels, 7% utilization): compared as a share of the busy time when the utilization over
    // the same window is known.
    const bool same_window = in_steps == a.gpu_metrics.window_is_steps;
    const double busy_active = same_window && d.has_utilization && d.utilization_pct > 0
                                   ? std::min(100.0, 100.0 * active / d.utilization_pct)
                                   : active;
    if (busy_active >= kLowPct) continue;
    int64_t math_ns = 0, longest = -1;
    for (uint32_t i = 0; i < s.size(); ++i) {
      if (s.kind[i] != SliceKind::kKernel || t.tracks[s.track[i]].device != d.device) continue;
      if (!is_math(s.name[i])) continue;
      math_ns += s.dur[i];
      if (longest < 0 || s.dur[i] > s.dur[static_cast<size_t>(longest)]) longest = i;
    }
    const double share = 100.0 * static_cast<double>(math_ns) / static_cast<double>(d.kernel_ns);
    if (share < kGemmSharePct) continue;
    Finding f;
    f.id = "gpu.low_tensor_active";
    f.severity = Severity::kWarning;
    f.title = strf(
        "Tensor cores active %s of the time (measured) while GEMM/convolution kernels "
        "take %s of kernel time",
        format_pct(active).c_str(), format_pct(share).c_str());
    f.meaning =
        "Nsight Systems sampled the GPU's tensor-core activity: the matrix multiplies and "
        "convolutions that dominate this run mostly execute on the ordinary CUDA cores, several "
        "times slower than the tensor cores could run them.";
    f.fix =
        "Run the math in a tensor-core precision: bf16/fp16 autocast "
        "(torch.autocast(\"cuda\", dtype=torch.bfloat16)) or TF32 for fp32 "
        "(torch.backends.cuda.matmul.allow_tf32 = True, torch.backends.cudnn.allow_tf32 = True), "
        "and keep GEMM dimensions multiples of 8.";
    f.number("tensor_active_pct", active, 1, "%");
    if (busy_active != active) f.number("tensor_active_of_busy_pct", busy_active, 1, "%");
    f.text("tensor_active_over", in_steps ? "steps" : "capture");
    f.number("gemm_share_pct", share, 1, "%");
    if (d.sm_active_samples > 0)
      f.number("sm_active_pct",
               in_steps && d.sm_active_step_samples > 0 ? d.sm_active_steps_pct : d.sm_active_pct,
               1, "%");
    f.number("device", static_cast<double>(d.device));
    if (longest >= 0) {
      const uint32_t l = static_cast<uint32_t>(longest);
      f.text("longest_gemm_kernel", std::string(t.str(s.name[l])));
      f.range(s.ts[l], s.end(l), "longest GEMM/convolution kernel");
      f.events.push_back(l);
    }
    out->push_back(std::move(f));
  }
}

}  // namespace ks
