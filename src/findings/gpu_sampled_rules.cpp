// Findings from Nsight Systems' sampled GPU metrics beyond SM/Tensor Active (`nsys profile
// --gpu-metrics-devices`, gpu_metrics.h): what the hardware says limits the kernels while the GPU
// is busy. Only exports hold them; PyTorch traces never fire these rules.
#include <algorithm>

#include "analysis/gpu_metrics.h"
#include "analysis/kernel_class.h"
#include "analysis/name_cache.h"
#include "findings/rules.h"
#include "util/format.h"

namespace ks {

namespace {

// A device's sampled means as shares of the time the GPU was busy. The series are means over
// all the time sampled, idle included: a GPU that idles half the steps reads half its real DRAM
// bandwidth. Busy is GR Active (the engine had work) where sampled, else the kernel utilization
// over the same window. Means are in the steps where samples fell in one, else over the capture.
struct BusyShares {
  bool ok = false;
  bool in_steps = false;
  double busy_pct = 0;
  const DeviceMetrics* d = nullptr;
  bool has(MeasuredMetric m) const { return d->of(m).samples > 0; }
  double mean(MeasuredMetric m) const {
    const MeasuredMean& x = d->of(m);
    return in_steps ? x.steps_pct : x.pct;
  }
  double sm_active() const { return in_steps ? d->sm_active_steps_pct : d->sm_active_pct; }
  double tensor_active() const {
    return in_steps ? d->tensor_active_steps_pct : d->tensor_active_pct;
  }
  double of_busy(double pct) const { return std::min(100.0, 100.0 * pct / busy_pct); }
};

BusyShares busy_shares(const GpuMetrics& g, const DeviceMetrics& d) {
  BusyShares b;
  b.d = &d;
  b.in_steps = d.sm_active_step_samples > 0;
  for (const MeasuredMean& m : d.more) b.in_steps = b.in_steps || m.step_samples > 0;
  const MeasuredMean& gr = d.of(MeasuredMetric::kGrActive);
  if (gr.samples > 0) {
    b.busy_pct = b.in_steps ? gr.steps_pct : gr.pct;
  } else if (d.has_utilization && b.in_steps == g.window_is_steps) {
    b.busy_pct = d.utilization_pct;
  }
  b.ok = b.busy_pct > 0;
  return b;
}

void add_device_evidence(const BusyShares& b, Finding* f) {
  f->number("busy_pct", b.busy_pct, 1, "%");
  f->text("measured_over", b.in_steps ? "steps" : "capture");
  f->number("device", static_cast<double>(b.d->device));
}

// The kernel with the most time on the device among those `keep` accepts, on the timeline.
template <typename Keep>
void add_top_kernel(const Trace& t, int64_t device, const char* key, const char* label, Keep keep,
                    Finding* f) {
  const SliceTable& s = t.slices;
  auto accepted = make_name_cache(t, [&](std::string_view n) { return keep(n) ? 1 : 0; });
  std::vector<int64_t> by_name(t.strings.size(), 0);
  int64_t best = 0;
  StringId top = 0;
  for (uint32_t i = 0; i < s.size(); ++i) {
    if (s.kind[i] != SliceKind::kKernel || t.tracks[s.track[i]].device != device) continue;
    if (!accepted(s.name[i])) continue;
    by_name[s.name[i]] += s.dur[i];
    if (by_name[s.name[i]] > best) best = by_name[s.name[i]], top = s.name[i];
  }
  if (best == 0) return;
  int64_t longest = -1;
  for (uint32_t i = 0; i < s.size(); ++i)
    if (s.kind[i] == SliceKind::kKernel && s.name[i] == top &&
        t.tracks[s.track[i]].device == device &&
        (longest < 0 || s.dur[i] > s.dur[static_cast<size_t>(longest)]))
      longest = i;
  f->text(key, std::string(t.str(top)));
  f->number(std::string(key) + "_total_us", static_cast<double>(best) / 1000.0, 1, "us");
  const uint32_t l = static_cast<uint32_t>(longest);
  f->range(s.ts[l], s.end(l), label);
  f->events.push_back(l);
}

}  // namespace

// DRAM bandwidth (read + write) at 60% of its peak or more of the busy time while the SMs issue
// an instruction in under 25% of the busy cycles, with the GPU busy 30% of the window or more:
// the kernels spend their time waiting on memory, not computing (elementwise chains, norms,
// copies, small-batch GEMMs reading their weights). 60% is where a streaming kernel's bandwidth
// is most of what it can reach (NVIDIA quotes 80-90% of peak as attainable); 25% issue is far
// below a compute-bound kernel's.
void rule_memory_bound(const RuleInput& in, std::vector<Finding>* out) {
  const GpuMetrics& g = in.analyses.gpu_metrics;
  if (!g.measured) return;
  constexpr double kBusyPct = 30, kDramPct = 60, kIssuePct = 25;
  for (const DeviceMetrics& d : g.devices) {
    const BusyShares b = busy_shares(g, d);
    if (!b.ok || b.busy_pct < kBusyPct || !b.has(MeasuredMetric::kSmIssue)) continue;
    if (!b.has(MeasuredMetric::kDramRead) && !b.has(MeasuredMetric::kDramWrite)) continue;
    const double read = b.mean(MeasuredMetric::kDramRead),
                 write = b.mean(MeasuredMetric::kDramWrite);
    const double dram = b.of_busy(read + write),
                 issue = b.of_busy(b.mean(MeasuredMetric::kSmIssue));
    if (dram < kDramPct || issue >= kIssuePct) continue;
    Finding f;
    f.id = "gpu.memory_bound";
    f.severity = Severity::kWarning;
    f.title = strf(
        "DRAM bandwidth at %s of its peak while the GPU is busy, SMs issuing in %s of the "
        "cycles: the kernels wait on memory (measured)",
        format_pct(dram).c_str(), format_pct(issue).c_str());
    f.meaning =
        "Nsight Systems sampled the GPU's memory bandwidth and instruction issue: while kernels "
        "run, the memory is near its peak and the SMs mostly wait for it. Faster math (tensor "
        "cores, higher clocks) will not help; moving fewer bytes will.";
    f.fix =
        "Move fewer bytes per step: fuse chains of elementwise ops and norms (torch.compile, "
        "fused optimizers: torch.optim with fused=True), keep activations in bf16/fp16, avoid "
        "extra copies (.contiguous(), .to() in the loop), and raise arithmetic intensity with "
        "larger batches.";
    f.number("dram_of_busy_pct", dram, 1, "%");
    f.number("dram_read_pct", read, 1, "%");
    f.number("dram_write_pct", write, 1, "%");
    f.number("sm_issue_of_busy_pct", issue, 1, "%");
    add_device_evidence(b, &f);
    // The memory-bound kernels' largest: time goes where bytes move, not where math runs.
    add_top_kernel(
        in.trace, d.device, "top_memory_kernel", "the memory-bound kernel with the most time",
        [](std::string_view n) { return !is_math_class(kernel_class(SliceKind::kKernel, n)); }, &f);
    out->push_back(std::move(f));
  }
}

// The active SMs hold warps in under a quarter of their warp slots while the GPU is busy and its
// SMs are mostly active, and nothing is near its limit (SM Issue under 30%, DRAM under 40%,
// Tensor Active under 30% of the busy time): each warp's stall (a memory load, a dependency)
// leaves its scheduler idle, as no other warp is there to issue. Low occupancy alone is no
// fault (cuBLAS' tensor-core GEMMs run few warps at full speed): the rule needs every limit far.
void rule_low_occupancy(const RuleInput& in, std::vector<Finding>* out) {
  const GpuMetrics& g = in.analyses.gpu_metrics;
  if (!g.measured) return;
  constexpr double kBusyPct = 30, kSmActivePct = 50, kOccupancyPct = 25;
  constexpr double kIssuePct = 30, kDramPct = 40, kTensorPct = 30;
  for (const DeviceMetrics& d : g.devices) {
    const BusyShares b = busy_shares(g, d);
    if (!b.ok || b.busy_pct < kBusyPct) continue;
    if (!b.has(MeasuredMetric::kWarpsInFlight) || !b.has(MeasuredMetric::kSmIssue)) continue;
    const double warps = b.mean(MeasuredMetric::kWarpsInFlight);
    // Both are shares of all the GPU's warp slots: the active SMs' slots are the allocated
    // plus the unallocated ones, or SM Active's share of them where unallocated is not sampled.
    const bool has_unallocated = b.has(MeasuredMetric::kUnallocatedWarps);
    const double active_slots =
        has_unallocated ? warps + b.mean(MeasuredMetric::kUnallocatedWarps) : b.sm_active();
    if (active_slots <= 0 || (!has_unallocated && d.sm_active_samples == 0)) continue;
    const double occupancy = std::min(100.0, 100.0 * warps / active_slots);
    const double sm_active = b.of_busy(active_slots);
    const double issue = b.of_busy(b.mean(MeasuredMetric::kSmIssue));
    const double dram =
        b.of_busy(b.mean(MeasuredMetric::kDramRead) + b.mean(MeasuredMetric::kDramWrite));
    const double tensor = d.tensor_active_samples > 0 ? b.of_busy(b.tensor_active()) : 0;
    if (sm_active < kSmActivePct || occupancy >= kOccupancyPct || issue >= kIssuePct ||
        dram >= kDramPct || tensor >= kTensorPct)
      continue;
    Finding f;
    f.id = "gpu.low_occupancy";
    f.severity = Severity::kInfo;
    f.title = strf(
        "Active SMs hold warps in %s of their warp slots while the GPU is busy, and nothing is "
        "near its limit (SM Issue %s, DRAM %s): too few warps to hide latency (measured)",
        format_pct(occupancy).c_str(), format_pct(issue).c_str(), format_pct(dram).c_str());
    f.meaning =
        "Nsight Systems sampled the SMs' warps: the kernels run with few warps per SM, so when "
        "a warp stalls on a load or a dependency its scheduler has no other warp to issue. "
        "Neither memory bandwidth nor the tensor cores are the limit: the time is latency.";
    f.fix =
        "Give each kernel more parallel work: larger batches or sequences, fewer and larger "
        "kernels (torch.compile fuses small ones). In your own Triton/CUDA kernels: more warps "
        "per block (num_warps), fewer registers per thread (__launch_bounds__, maxnreg) and "
        "less shared memory per block, so more blocks fit on an SM.";
    f.number("warp_occupancy_pct", occupancy, 1, "%");
    f.number("warps_in_flight_pct", warps, 1, "%");
    f.number("sm_active_of_busy_pct", sm_active, 1, "%");
    f.number("sm_issue_of_busy_pct", issue, 1, "%");
    f.number("dram_of_busy_pct", dram, 1, "%");
    if (d.tensor_active_samples > 0) f.number("tensor_active_of_busy_pct", tensor, 1, "%");
    add_device_evidence(b, &f);
    add_top_kernel(
        in.trace, d.device, "top_kernel", "the kernel with the most time",
        [](std::string_view n) {
          return hta_category(SliceKind::kKernel, n) == HtaCategory::kComputation;
        },
        &f);
    out->push_back(std::move(f));
  }
}

}  // namespace ks
