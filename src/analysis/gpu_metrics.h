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
//
// The other series of nsys' metric sets (2023-2025, Turing to Blackwell: `--gpu-metrics-set`
// tu10x, ga100, ga10x, gh100, gb100, gb20x) are read the same way, by name without the unit
// suffix (" [Throughput %]"; a series in another unit, "[Avg]", "[Avg Warps per Cycle]",
// "[Requests]", is not a share and is left alone), case-insensitively (`MeasuredMetric` below).
// NVLink's series are per direction and kind ("NVLink RX Responses User Data [Throughput %]"
// on Hopper and Blackwell): a direction's throughput is the sum of the means of its user data
// series (requests and responses carry different payloads over the same link), protocol data
// left out; a set with one series per direction ("NVLink RX Bandwidth") reads that one.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/steps.h"

namespace ks {

bool is_tensor_core_eligible_op(std::string_view name);

// The measured series read beyond SM Active and Tensor Active, each a percent of its peak.
enum class MeasuredMetric : uint8_t {
  kGrActive,          // "GR Active": the graphics/compute engine had work
  kSmIssue,           // "SM Issue": cycles the SMs' schedulers issued an instruction
  kWarpsInFlight,     // "Compute Warps in Flight": resident warps / the SMs' warp slots
  kUnallocatedWarps,  // "Unallocated Warps in Active SMs": slots left empty in active SMs
  kDramRead,          // "DRAM Read Bandwidth" (Hopper's sets: also "... Throughput")
  kDramWrite,
  kPcieRx,  // "PCIe RX Throughput": host (or peer) to this GPU
  kPcieTx,
  kNvlinkRx,  // sum of "NVLink RX ... User Data" (see above)
  kNvlinkTx,
  kCount
};
constexpr size_t kMeasuredMetrics = static_cast<size_t>(MeasuredMetric::kCount);
// The metric's name in reports ("SM Issue") and its JSON key prefix ("sm_issue").
const char* measured_metric_label(MeasuredMetric m);
const char* measured_metric_key(MeasuredMetric m);

// A sampled series' means; `samples` = 0: not sampled.
struct MeasuredMean {
  uint64_t samples = 0, step_samples = 0;
  double pct = 0, steps_pct = 0;
  // The mean in the steps where a sample fell in one, else over the capture.
  double best_pct() const { return step_samples > 0 ? steps_pct : pct; }
};

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
  MeasuredMean more[kMeasuredMetrics];  // by MeasuredMetric
  const MeasuredMean& of(MeasuredMetric m) const { return more[static_cast<size_t>(m)]; }
  bool measured() const {
    if (sm_active_samples > 0 || tensor_active_samples > 0) return true;
    for (const MeasuredMean& m : more)
      if (m.samples > 0) return true;
    return false;
  }
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
  bool measured = false;  // some device has measured samples (any series above)
};

GpuMetrics compute_gpu_metrics(const Trace& trace, const StepsResult& steps);

}  // namespace ks
