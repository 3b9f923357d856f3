#include "analysis/gpu_metrics.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "analysis/intervals.h"
#include "analysis/kernel_class.h"
#include "analysis/name_cache.h"

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

namespace {

struct ValueEdge {
  int64_t t;
  double delta;
};

// Time integral of min(sum of concurrent values, 1) inside [begin, end).
double capped_integral(std::vector<ValueEdge>& edges, int64_t begin, int64_t end) {
  std::sort(edges.begin(), edges.end(), [](const ValueEdge& a, const ValueEdge& b) {
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

// Which measured series a counter is: 1 = SM Active, 2 = Tensor Active, 0 = neither. nsys 2021-22
// names them "SM Active" and "Tensor Active" ("Tensor Active / FP16 Active" on Turing), 2023 and
// later "SMs Active [Throughput %]" and "Tensor Active [Throughput %]".
int measured_series(std::string_view n) {
  if (n.substr(0, 9) == "SM Active" || n.substr(0, 10) == "SMs Active") return 1;
  if (n.substr(0, 13) == "Tensor Active") return 2;
  return 0;
}

struct MeasuredAcc {
  uint64_t n[2] = {0, 0}, n_steps[2] = {0, 0};
  double sum[2] = {0, 0}, sum_steps[2] = {0, 0};
};

// Adds the measured SM/Tensor Active means to the devices of an nsys export (see the header).
void add_measured(const Trace& t, const StepsResult& steps, GpuMetrics* r) {
  if (t.facts.format != TraceFormat::kNsysSqlite) return;
  const CounterTable& c = t.counters;
  auto series = make_name_cache(t, [](std::string_view n) { return measured_series(n); });
  std::map<int64_t, MeasuredAcc> acc;
  std::vector<Interval> windows;  // the steps (device-adjusted), by start, overlaps merged
  for (const Step& st : steps.steps) windows.push_back({st.begin, st.end});
  windows = merge_intervals(std::move(windows));
  for (size_t i = 0; i < c.size(); ++i) {
    const int which = series(c.series[i]);
    if (which == 0) continue;
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
    MeasuredAcc& a = acc[dev];
    const int k = which - 1;
    ++a.n[k];
    a.sum[k] += c.value[i];
    // The step that could hold ts: the last one starting at or before it (nsys samples at up to
    // 200 kHz, so a binary search rather than a scan of every step).
    auto it = std::upper_bound(windows.begin(), windows.end(), c.ts[i],
                               [](int64_t ts, const Interval& w) { return ts < w.begin; });
    if (it != windows.begin() && c.ts[i] < std::prev(it)->end) {
      ++a.n_steps[k];
      a.sum_steps[k] += c.value[i];
    }
  }
  for (DeviceMetrics& d : r->devices) {
    auto it = acc.find(d.device);
    if (it == acc.end()) continue;
    const MeasuredAcc& a = it->second;
    auto mean = [](double sum, uint64_t n) { return n > 0 ? sum / static_cast<double>(n) : 0; };
    d.sm_active_samples = a.n[0];
    d.sm_active_pct = mean(a.sum[0], a.n[0]);
    d.sm_active_step_samples = a.n_steps[0];
    d.sm_active_steps_pct = mean(a.sum_steps[0], a.n_steps[0]);
    d.tensor_active_samples = a.n[1];
    d.tensor_active_pct = mean(a.sum[1], a.n[1]);
    d.tensor_active_step_samples = a.n_steps[1];
    d.tensor_active_steps_pct = mean(a.sum_steps[1], a.n_steps[1]);
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
      auto it = sms_of_device.find(dev);
      const double blocks = static_cast<double>(li.grid[0]) * li.grid[1] * li.grid[2];
      if (it != sms_of_device.end() && blocks > 0)
        blocks_per_sm = blocks / static_cast<double>(it->second);
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
