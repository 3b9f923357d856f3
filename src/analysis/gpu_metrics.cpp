#include "analysis/gpu_metrics.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <map>
#include <unordered_map>

#include "analysis/intervals.h"
#include "analysis/kernel_class.h"
#include "analysis/name_cache.h"
#include "util/sort_runs.h"
#include "util/text_match.h"

namespace ks {

bool is_tensor_core_eligible_op(std::string_view n) {
  // The TB plugin's allow-list (tensor_core.py), names of aten ops that lower to GEMM or conv.
  static const char* const kOps[] = {"aten::_convolution",
                                     "aten::conv1d",
                                     "aten::conv2d",
                                     "aten::conv3d",
                                     "aten::conv_tbc",
                                     "aten::conv_transpose1d",
                                     "aten::conv_transpose2d",
                                     "aten::conv_transpose3d",
                                     "aten::convolution",
                                     "aten::cudnn_convolution",
                                     "aten::cudnn_convolution_transpose",
                                     "aten::prelu",
                                     "aten::addmm",
                                     "aten::addmv",
                                     "aten::addr",
                                     "aten::matmul",
                                     "aten::mm",
                                     "aten::mv",
                                     "aten::bmm",
                                     "aten::baddbmm",
                                     "aten::addbmm",
                                     "aten::chain_matmul",
                                     "aten::linear",
                                     "aten::_thnn_fused_lstm_cell",
                                     "aten::_thnn_fused_gru_cell",
                                     "aten::lstm_cell",
                                     "aten::gru_cell",
                                     "aten::rnn_tanh_cell",
                                     "aten::rnn_relu_cell",
                                     "aten::einsum",
                                     "aten::scaled_dot_product_attention"};
  for (const char* op : kOps)
    if (n == op) return true;
  return false;
}

const char* measured_metric_label(MeasuredMetric m) {
  static const char* const kLabels[] = {"GR Active",
                                        "SM Issue",
                                        "Compute Warps in Flight",
                                        "Unallocated Warps in Active SMs",
                                        "DRAM Read",
                                        "DRAM Write",
                                        "PCIe RX",
                                        "PCIe TX",
                                        "NVLink RX",
                                        "NVLink TX"};
  static_assert(std::size(kLabels) == kMeasuredMetrics);
  return kLabels[static_cast<size_t>(m)];
}

const char* measured_metric_key(MeasuredMetric m) {
  static const char* const kKeys[] = {
      "gr_active",  "sm_issue", "warps_in_flight", "unallocated_warps", "dram_read",
      "dram_write", "pcie_rx",  "pcie_tx",         "nvlink_rx",         "nvlink_tx"};
  static_assert(std::size(kKeys) == kMeasuredMetrics);
  return kKeys[static_cast<size_t>(m)];
}

namespace {

struct ValueEdge {
  int64_t t;
  double delta;
};

// Time integral of min(sum of concurrent values, 1) inside [begin, end).
// The edges arrive stream by stream (slices are sorted by track, then start), and a stream's
// kernels follow each other, so each stream's edges are one sorted run (broken only where its
// kernels overlap or last 0 ns): the runs are merged instead of sorted (util/sort_runs.h). Edges
// that compare equal have the same time and value, so the sum is the same as after a sort.
double capped_integral(std::vector<ValueEdge>& edges, int64_t begin, int64_t end) {
  sort_runs(&edges, [](const ValueEdge& a, const ValueEdge& b) {
    return a.t != b.t ? a.t < b.t : a.delta < b.delta;
  });
  double level = 0, area = 0;
  for (size_t i = 0; i + 1 < edges.size(); ++i) {
    level += edges[i].delta;
    const int64_t lo = std::max(edges[i].t, begin), hi = std::min(edges[i + 1].t, end);
    if (hi > lo && level > 1e-12) area += std::min(level, 1.0) * static_cast<double>(hi - lo);
  }
  return area;
}

bool starts_as(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

// Which measured series a counter is: kSmActive, kTensorActive, or kMore + a MeasuredMetric;
// kNone for any other counter. nsys 2021-22 names them without a unit ("SM Active", "Tensor
// Active", "Tensor Active / FP16 Active" on Turing), 2023 and later with one ("SMs Active
// [Throughput %]"); a series in another unit than a percent ("Compute Warps in Flight [Avg]")
// is not a share of its peak and is left alone.
enum Series : int { kNone = -1, kSmActive = 0, kTensorActive = 1, kMore = 2 };
int measured_series(std::string_view n) {
  std::string_view base = n, unit;
  size_t open = n.find(" [");
  if (open == std::string_view::npos) open = n.find(" (");
  if (open != std::string_view::npos) {
    base = n.substr(0, open);
    unit = n.substr(open + 2);
    if (!unit.empty() && (unit.back() == ']' || unit.back() == ')')) unit.remove_suffix(1);
  }
  if (!unit.empty() && !iequals(unit, "Throughput %") && unit != "%") return kNone;
  if (starts_as(base, "SM Active") || starts_as(base, "SMs Active")) return kSmActive;
  if (starts_as(base, "Tensor Active")) return kTensorActive;
  auto more = [](MeasuredMetric m) { return kMore + static_cast<int>(m); };
  struct Named {
    const char* name;
    MeasuredMetric metric;
  };
  static const Named kNamed[] = {
      {"GR Active", MeasuredMetric::kGrActive},
      {"SM Issue", MeasuredMetric::kSmIssue},
      {"Compute Warps in Flight", MeasuredMetric::kWarpsInFlight},
      {"Unallocated Warps in Active SMs", MeasuredMetric::kUnallocatedWarps},
      {"DRAM Read Bandwidth", MeasuredMetric::kDramRead},
      {"DRAM Read Throughput", MeasuredMetric::kDramRead},
      {"DRAM Write Bandwidth", MeasuredMetric::kDramWrite},
      {"DRAM Write Throughput", MeasuredMetric::kDramWrite},
      {"PCIe RX Throughput", MeasuredMetric::kPcieRx},
      {"PCIe TX Throughput", MeasuredMetric::kPcieTx}};
  for (const Named& k : kNamed)
    if (iequals(base, k.name)) return more(k.metric);
  // NVLink: user data only (protocol data is the link's own overhead).
  const bool protocol = base.find("Protocol") != std::string_view::npos ||
                        base.find("protocol") != std::string_view::npos;
  if (!protocol && starts_as(base, "NVLink RX")) return more(MeasuredMetric::kNvlinkRx);
  if (!protocol && starts_as(base, "NVLink TX")) return more(MeasuredMetric::kNvlinkTx);
  return kNone;
}

// The series a direction's NVLink throughput adds up (see the header).
bool sums_series(int which) {
  return which == kMore + static_cast<int>(MeasuredMetric::kNvlinkRx) ||
         which == kMore + static_cast<int>(MeasuredMetric::kNvlinkTx);
}

struct SeriesAcc {
  int which = kNone;
  uint64_t n = 0, n_steps = 0;
  double sum = 0, sum_steps = 0;
};

double mean_of(double sum, uint64_t n) {
  return n > 0 ? sum / static_cast<double>(n) : 0;
}

// One device's means from its series: one series per metric (the one with most samples, should
// an export name a metric twice), the NVLink directions summed over their series.
void set_means(const std::vector<const SeriesAcc*>& series, DeviceMetrics* d) {
  MeasuredMean by[kMore + kMeasuredMetrics];
  for (const SeriesAcc* a : series) {
    MeasuredMean& m = by[a->which];
    const double pct = mean_of(a->sum, a->n), steps = mean_of(a->sum_steps, a->n_steps);
    if (sums_series(a->which)) {
      m.pct += pct;
      m.steps_pct += steps;
      m.samples = std::max(m.samples, a->n);
      m.step_samples = std::max(m.step_samples, a->n_steps);
    } else if (a->n > m.samples) {
      m = {a->n, a->n_steps, pct, steps};
    }
  }
  d->sm_active_samples = by[kSmActive].samples;
  d->sm_active_pct = by[kSmActive].pct;
  d->sm_active_step_samples = by[kSmActive].step_samples;
  d->sm_active_steps_pct = by[kSmActive].steps_pct;
  d->tensor_active_samples = by[kTensorActive].samples;
  d->tensor_active_pct = by[kTensorActive].pct;
  d->tensor_active_step_samples = by[kTensorActive].step_samples;
  d->tensor_active_steps_pct = by[kTensorActive].steps_pct;
  for (size_t k = 0; k < kMeasuredMetrics; ++k) d->more[k] = by[kMore + k];
}

// Adds the measured means to the devices of an nsys export (see the header).
void add_measured(const Trace& t, const StepsResult& steps, GpuMetrics* r) {
  if (t.facts.format != TraceFormat::kNsysSqlite) return;
  const CounterTable& c = t.counters;
  // The cache holds codes from 0: kNone (-1) is kept as 0.
  auto series = make_name_cache(t, [](std::string_view n) { return measured_series(n) + 1; });
  std::map<std::pair<int64_t, StringId>, SeriesAcc> acc;  // by (device, series name)
  std::vector<Interval> windows;  // the steps (device-adjusted), by start, overlaps merged
  for (const Step& st : steps.steps) windows.push_back({st.begin, st.end});
  windows = merge_intervals(std::move(windows));
  for (size_t i = 0; i < c.size(); ++i) {
    const int which = series(c.series[i]) - 1;
    if (which == kNone) continue;
    // The importer names the GPU's process by its device id.
    const std::string_view pid = t.str(t.processes[c.process[i]].pid_text);
    int64_t dev = 0;
    if (pid.empty()) continue;
    bool ok = true;
    for (char ch : pid) {
      if (ch < '0' || ch > '9') ok = false;
      dev = dev * 10 + (ch - '0');
    }
    if (!ok) continue;
    SeriesAcc& a = acc[{dev, c.series[i]}];
    a.which = which;
    ++a.n;
    a.sum += c.value[i];
    // The step that could hold ts: the last one starting at or before it (nsys samples at up to
    // 200 kHz, so a binary search rather than a scan of every step).
    auto it = std::upper_bound(windows.begin(), windows.end(), c.ts[i],
                               [](int64_t ts, const Interval& w) { return ts < w.begin; });
    if (it != windows.begin() && c.ts[i] < std::prev(it)->end) {
      ++a.n_steps;
      a.sum_steps += c.value[i];
    }
  }
  std::map<int64_t, std::vector<const SeriesAcc*>> by_device;
  for (const auto& kv : acc) by_device[kv.first.first].push_back(&kv.second);
  for (DeviceMetrics& d : r->devices) {
    auto it = by_device.find(d.device);
    if (it == by_device.end()) continue;
    set_means(it->second, &d);
    if (d.measured()) r->measured = true;
  }
}

struct DeviceAcc {
  std::vector<Interval> kernels;
  std::vector<ValueEdge> sm_edges;
  uint64_t kernels_count = 0, with_blocks = 0, with_occupancy = 0;
  int64_t kernel_ns = 0, tc_ns = 0;
  int64_t with_blocks_ns = 0;  // kernel time of the kernels with a grid (blocks per SM known)
  double occupancy_weighted = 0;
  int64_t occupancy_time = 0;
};

}  // namespace

GpuMetrics compute_gpu_metrics(const Trace& t, const StepsResult& steps) {
  const SliceTable& s = t.slices;
  GpuMetrics r;
  if (!steps.steps.empty()) {
    r.window_is_steps = true;
    r.window_begin_ns = steps.steps.front().begin;
    r.window_end_ns = steps.steps.back().end;
  } else {
    r.window_begin_ns = t.facts.start_ns;
    r.window_end_ns = t.facts.end_ns;
  }
  const int64_t wb = r.window_begin_ns, we = r.window_end_ns;
  std::map<int64_t, int64_t> sms_of_device;
  for (const DeviceProperties& d : t.devices)
    if (d.num_sms > 0) sms_of_device[d.id] = d.num_sms;
  // A kernel device the properties do not list: ROCm's tracer numbers its agents with the CPUs
  // first, so a one-GPU MI300X run's kernels say device 2 while deviceProperties lists id 0. When
  // every listed GPU has the same SM count, that is this GPU's too (else: unknown).
  int64_t sms_of_unlisted = kNoValue;
  for (const auto& kv : sms_of_device)
    sms_of_unlisted = sms_of_unlisted == kNoValue || sms_of_unlisted == kv.second ? kv.second : -1;
  auto sms_of = [&](int64_t dev) {
    auto it = sms_of_device.find(dev);
    return it != sms_of_device.end() ? it->second : sms_of_unlisted;
  };
  if (!t.devices.empty()) {
    r.compute_major = t.devices.front().compute_major;
    r.compute_minor = t.devices.front().compute_minor;
  }
  std::map<int64_t, DeviceAcc> acc;
  std::unordered_map<std::string_view, int64_t> eligible_time;  // by op name
  // An Nsight Systems export's ops are emit_nvtx's ranges, each call its own name ("aten::mm,
  // seq = 3, op_id = 7, ..."): counted as the op they name.
  auto eligible = make_name_cache(t, [](std::string_view n) {
    return is_tensor_core_eligible_op(n) ||
                   (is_emit_nvtx_op_range(n) && is_tensor_core_eligible_op(emit_nvtx_op_name(n)))
               ? 1
               : 0;
  });
  auto tensor_core =
      make_name_cache(t, [](std::string_view n) { return is_tensor_core_kernel(n) ? 1 : 0; });
  for (uint32_t i = 0; i < s.size(); ++i) {
    const SliceKind k = s.kind[i];
    if (k == SliceKind::kCpuOp || k == SliceKind::kUserAnnotation) {
      if (eligible(s.name[i])) {
        ++r.eligible_ops;
        r.eligible_ops_ns += s.dur[i];
        eligible_time[emit_nvtx_op_name(t.str(s.name[i]))] += s.dur[i];
      }
      continue;
    }
    if (k != SliceKind::kKernel) continue;
    const int64_t dev = t.tracks[s.track[i]].device;  // kNoValue: kernels without a device arg
    DeviceAcc& a = acc[dev];
    ++a.kernels_count;
    a.kernel_ns += s.dur[i];
    a.kernels.push_back({s.ts[i], s.end(i)});
    if (tensor_core(s.name[i])) a.tc_ns += s.dur[i];
    if (s.launch_info[i] < 0) continue;
    const KernelLaunchInfo& li = s.launch_infos[static_cast<size_t>(s.launch_info[i])];
    double blocks_per_sm = li.blocks_per_sm;
    if (blocks_per_sm < 0) {
      const int64_t sms = sms_of(dev);
      const double blocks = static_cast<double>(li.grid[0]) * li.grid[1] * li.grid[2];
      if (sms > 0 && blocks > 0) blocks_per_sm = blocks / static_cast<double>(sms);
    }
    if (blocks_per_sm > 0) {
      ++a.with_blocks;
      a.with_blocks_ns += s.dur[i];
      a.sm_edges.push_back({s.ts[i], std::min(blocks_per_sm, 1.0)});
      a.sm_edges.push_back({s.end(i), -std::min(blocks_per_sm, 1.0)});
    }
    if (li.occupancy_pct >= 0) {
      ++a.with_occupancy;
      const int64_t lo = std::max(s.ts[i], wb), hi = std::min(s.end(i), we);
      if (hi > lo) {
        a.occupancy_weighted +=
            static_cast<double>(li.occupancy_pct) * static_cast<double>(hi - lo);
        a.occupancy_time += hi - lo;
      }
    }
  }
  int64_t best = -1;
  for (const auto& kv : eligible_time)
    if (kv.second > best || (kv.second == best && kv.first < r.top_eligible_op)) {
      best = kv.second;
      r.top_eligible_op = std::string(kv.first);
    }
  if (acc.empty()) r.absent = "no kernels in the trace";
  const double window = static_cast<double>(we - wb);
  r.devices.reserve(acc.size());  // exact: one row per device (80k devices grew it to 131k rows)
  for (auto& kv : acc) {
    DeviceAcc& a = kv.second;
    DeviceMetrics m;
    m.device = kv.first;
    m.kernels = a.kernels_count;
    m.kernel_ns = a.kernel_ns;
    m.window_ns = we - wb;
    m.tensor_core_ns = a.tc_ns;
    m.tensor_core_pct =
        a.kernel_ns > 0 ? 100.0 * static_cast<double>(a.tc_ns) / static_cast<double>(a.kernel_ns)
                        : 0;
    if (window > 0) {
      m.has_utilization = true;
      m.utilization_pct =
          100.0 *
          static_cast<double>(length_within(merge_intervals(std::move(a.kernels)), wb, we)) /
          window;
    }
    if (a.with_blocks == 0) {
      m.sm_efficiency_absent = "kernels carry no 'blocks per SM' (nor a grid with the SM count)";
    } else if (a.with_blocks_ns < a.kernel_ns - a.kernel_ns / 4) {
      // Kernels without a grid would count as SMs left empty: too many of them (CUDA graphs an
      // nsys capture traced whole, say) and the estimate says nothing.
      m.sm_efficiency_absent = "over a quarter of the kernel time is in kernels without a grid";
    } else if (window > 0) {
      m.has_sm_efficiency = true;
      m.sm_efficiency_pct = 100.0 * capped_integral(a.sm_edges, wb, we) / window;
    }
    if (a.with_occupancy == 0) {
      m.occupancy_absent = "kernels carry no 'est. achieved occupancy %'";
    } else if (a.occupancy_time == 0) {
      m.occupancy_absent = "no kernel with occupancy ran inside the steps";
    } else {
      m.has_occupancy = true;
      m.occupancy_pct = a.occupancy_weighted / static_cast<double>(a.occupancy_time);
    }
    r.devices.push_back(std::move(m));
  }
  add_measured(t, steps, &r);
  return r;
}

}  // namespace ks
