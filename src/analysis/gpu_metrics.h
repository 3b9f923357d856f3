// GPU metrics as the TensorBoard profiler plugin estimates them from a trace
// (tb_plugin/.../gpu_metrics_parser.py, tensor_cores_parser.py; ANALYSES.md "GPU metrics"),
// per device, over the steps window (first step start to last step end; the whole trace when
// there are no steps):
//   GPU utilization      = |union of kernel intervals in the window| / window;
//   est. SM efficiency   = per kernel min(blocks per SM, 1) (blocks per SM from the kernel's
//                          `blocks per SM` arg, else grid size / the device's SM count); values
//                          of concurrent kernels add up, capped at 1; time-weighted over the
//                          window (idle time counts 0);
//   est. achieved occupancy = mean of `est. achieved occupancy %`, weighted by the kernel time
//                          inside the window (kernels without the arg are left out);
//   tensor-core share    = time of tensor-core kernels (kernel_class.h name patterns) / time of
//                          all kernels; plus the time of CPU ops that could use tensor cores
//                          (conv, mm, bmm, addmm, linear, matmul, ...) as a share of CPU op time.
// A metric whose inputs the trace lacks is absent, with the reason in `*_absent`.
//
// Measured metrics (Nsight Systems exports only, `nsys profile --gpu-metrics-devices`): the
// importer puts GPU_METRICS samples in the model's counters under the GPU's process (pid text =
// the device id), one series per metric name. `SM Active` and `Tensor Active` (nsys 2021-22;
// 2023 and later: `SMs Active [Throughput %]`, `Tensor Active [Throughput %]`: matched by prefix)
// are then read per device:
//   mean over the capture = arithmetic mean of all samples (nsys samples at a fixed rate, so
//                           this is the time-weighted mean over the sampled span);
//   mean within steps     = mean of the samples whose timestamp lies inside a step.
// They are hardware counters, not estimates from kernel names and grids; PyTorch traces never
// get them (their counters are left alone, so their reports do not change).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/steps.h"

namespace ks {

bool is_tensor_core_eligible_op(std::string_view name);

struct DeviceMetrics {
  int64_t device = kNoValue;
  uint64_t kernels = 0;
  int64_t kernel_ns = 0;  // sum of kernel durations (whole trace)
  int64_t window_ns = 0;
  bool has_utilization = false;
  double utilization_pct = 0;
  bool has_sm_efficiency = false;
  double sm_efficiency_pct = 0;
  // Why a metric is absent (a fixed sentence, "" when present): a literal, not a std::string, so
  // an export of 80k devices does not hold 160k copies of two sentences.
  const char* sm_efficiency_absent = "";
  bool has_occupancy = false;
  double occupancy_pct = 0;
  const char* occupancy_absent = "";
  int64_t tensor_core_ns = 0;
  double tensor_core_pct = 0;  // of kernel time
  // Measured (nsys GPU metrics counters), see above. `*_samples` = 0: not measured.
  uint64_t sm_active_samples = 0, sm_active_step_samples = 0;
  double sm_active_pct = 0, sm_active_steps_pct = 0;
  uint64_t tensor_active_samples = 0, tensor_active_step_samples = 0;
  double tensor_active_pct = 0, tensor_active_steps_pct = 0;
  bool measured() const { return sm_active_samples > 0 || tensor_active_samples > 0; }
};

struct GpuMetrics {
  int64_t window_begin_ns = 0, window_end_ns = 0;
  bool window_is_steps = false;
  std::vector<DeviceMetrics> devices;  // devices that ran kernels, by id
  std::string absent;                  // why there are no device rows
  // Tensor-core eligibility, from the CPU side.
  uint64_t eligible_ops = 0;
  int64_t eligible_ops_ns = 0;
  // The eligible op with the most time, by its op name (an export's emit_nvtx range by the op
  // it names); "" when none.
  std::string top_eligible_op;
  // Compute capability of the first device named in deviceProperties, -1 when unknown.
  int64_t compute_major = kNoValue, compute_minor = kNoValue;
  bool measured = false;  // some device has measured SM/Tensor Active samples
};

GpuMetrics compute_gpu_metrics(const Trace& trace, const StepsResult& steps);

}  // namespace ks
