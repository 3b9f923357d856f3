// GPU metrics per device (TensorBoard plugin): utilization, estimated SM efficiency and
// achieved occupancy, tensor-core kernel time; on Nsight Systems exports with GPU metrics
// samples also the hardware's measured SM Active, Tensor Active and the further series (SM Issue,
// warps, DRAM, PCIe, NVLink: gpu_metrics.h), said apart from the estimates (JSON `measured`, only
// there, so PyTorch reports are unchanged).
#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "report/sections/sections.h"
#include "util/format.h"

namespace ks {

namespace {

// Devices the text and Markdown reports list (a node has up to 8 or 16).
constexpr size_t kMaxDevicesShown = 32;

std::string device_label(int64_t device) {
  return device == kNoValue ? std::string("device ?") : "device " + std::to_string(device);
}

// A share: 0.004% SM efficiency beside 1.6% utilization (one-block kernels) read "0.0%" on the
// page once JSON rounded it to 0.00, as if no SM ever worked.
Cell pct_if(bool present, double v) {
  return present ? Cell::share(v) : Cell::null();
}

Cell text_if(const std::string& s) {
  return s.empty() ? Cell::null() : Cell::str(s);
}
Cell text_if(const char* s) {
  return *s ? Cell::str(s) : Cell::null();
}

std::string metric(bool present, double v) {
  return present ? format_pct(v) : std::string("n/a");
}

// "SM Active 61.5% (in steps 61.5%), Tensor Active 21.5% (in steps 21.5%)", per sampled series.
std::string measured_text(const DeviceMetrics& d) {
  std::string out;
  auto part = [&](const char* name, uint64_t n, double v, uint64_t n_steps, double v_steps) {
    if (n == 0) return;
    if (!out.empty()) out += ", ";
    out += std::string(name) + " " + format_pct(v) + " (in steps " + metric(n_steps > 0, v_steps) +
           ")";
  };
  part("SM Active", d.sm_active_samples, d.sm_active_pct, d.sm_active_step_samples,
       d.sm_active_steps_pct);
  part("Tensor Active", d.tensor_active_samples, d.tensor_active_pct, d.tensor_active_step_samples,
       d.tensor_active_steps_pct);
  for (size_t k = 0; k < kMeasuredMetrics; ++k) {
    const MeasuredMean& m = d.more[k];
    part(measured_metric_label(static_cast<MeasuredMetric>(k)), m.samples, m.pct, m.step_samples,
         m.steps_pct);
  }
  return out;
}

// The JSON keys of the further measured series, "<key>_pct" and "<key>_steps_pct" per metric:
// built once, so the columns can point at them.
const std::vector<std::string>& more_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (size_t i = 0; i < kMeasuredMetrics; ++i) {
      const std::string key = measured_metric_key(static_cast<MeasuredMetric>(i));
      k.push_back(key + "_pct");
      k.push_back(key + "_steps_pct");
    }
    return k;
  }();
  return keys;
}

Column pct_column(const char* key, const char* md_header = "") {
  return Column(key).md(md_header, *md_header ? Show::kPct : Show::kNone).null_as("n/a");
}

}  // namespace

ReportSection gpu_metrics_section(const GpuMetrics& g) {
  ReportSection s("gpu_metrics");
  s.field("window", Cell::str(g.window_is_steps ? "steps" : "whole_trace"));
  s.field("window_us", Cell::ns(g.window_end_ns - g.window_begin_ns));
  s.field("absent", text_if(g.absent));
  s.field("compute_capability", g.compute_major == kNoValue
                                    ? Cell::null()
                                    : Cell::str(s.own(std::to_string(g.compute_major) + "." +
                                                      std::to_string(g.compute_minor))));
  s.field("tensor_core_eligible_ops", Cell::count(g.eligible_ops));
  s.field("tensor_core_eligible_us", Cell::ns(g.eligible_ops_ns));
  s.field("top_eligible_op",
          g.eligible_ops == 0 ? Cell::null() : Cell::str(s.own(g.top_eligible_op)));
  if (!g.devices.empty()) s.paragraph("## GPU metrics\n\n");
  Table& devices = s.table("devices");
  devices.columns = {Column(nullptr).md("Device", Show::kPlain).left(),
                     Column("device"),
                     Column("kernels"),
                     Column("kernel_us"),
                     pct_column("utilization_pct", "Utilization"),
                     pct_column("sm_efficiency_pct", "Est. SM efficiency"),
                     Column("sm_efficiency_absent"),
                     pct_column("occupancy_pct", "Est. occupancy"),
                     Column("occupancy_absent"),
                     Column("tensor_core_us"),
                     pct_column("tensor_core_pct", "Tensor-core kernels")};
  const char* measured[] = {"source",
                            "sm_active_samples",
                            "sm_active_pct",
                            "sm_active_steps_pct",
                            "tensor_active_samples",
                            "tensor_active_pct",
                            "tensor_active_steps_pct"};
  for (const char* key : measured) devices.columns.push_back(Column(key).in("measured"));
  for (const std::string& key : more_keys())
    devices.columns.push_back(Column(key.c_str()).in("measured"));
  const size_t measured_cells = std::size(measured) + more_keys().size();
  // One row per device: a generated file (or a broken device id) may name 80 k devices, which
  // gave a 12 MB text report. JSON lists the first kMaxTableRows, text and Markdown the first
  // kMaxDevicesShown.
  devices.md_rows = kMaxDevicesShown;
  for (const DeviceMetrics& d : g.devices) {
    if (!devices.room_for_row(d.kernel_ns)) continue;
    devices.row() = {Cell::str(s.own(device_label(d.device))),
                     Cell::optional(d.device),
                     Cell::count(d.kernels),
                     Cell::ns(d.kernel_ns),
                     pct_if(d.has_utilization, d.utilization_pct),
                     pct_if(d.has_sm_efficiency, d.sm_efficiency_pct),
                     text_if(d.sm_efficiency_absent),
                     pct_if(d.has_occupancy, d.occupancy_pct),
                     text_if(d.occupancy_absent),
                     Cell::ns(d.tensor_core_ns),
                     Cell::share(d.tensor_core_pct)};
    std::vector<Cell>& row = devices.rows.back();
    if (!d.measured()) {
      row.resize(row.size() + measured_cells, Cell::absent());
      continue;
    }
    row.insert(row.end(), {Cell::str("nsys_gpu_metrics"), Cell::count(d.sm_active_samples),
                           pct_if(d.sm_active_samples > 0, d.sm_active_pct),
                           pct_if(d.sm_active_step_samples > 0, d.sm_active_steps_pct),
                           Cell::count(d.tensor_active_samples),
                           pct_if(d.tensor_active_samples > 0, d.tensor_active_pct),
                           pct_if(d.tensor_active_step_samples > 0, d.tensor_active_steps_pct)});
    for (const MeasuredMean& m : d.more) {
      row.push_back(pct_if(m.samples > 0, m.pct));
      row.push_back(pct_if(m.step_samples > 0, m.steps_pct));
    }
  }
  const size_t shown = std::min(g.devices.size(), kMaxDevicesShown);
  for (size_t i = 0; i < shown; ++i) {
    const DeviceMetrics& d = g.devices[i];
    s.linef(
        "GPU metrics (%s, over %s): utilization %s, est. SM efficiency %s, est. achieved "
        "occupancy %s, tensor-core kernels %s of kernel time",
        device_label(d.device).c_str(), g.window_is_steps ? "the steps" : "the trace",
        metric(d.has_utilization, d.utilization_pct).c_str(),
        metric(d.has_sm_efficiency, d.sm_efficiency_pct).c_str(),
        metric(d.has_occupancy, d.occupancy_pct).c_str(), format_pct(d.tensor_core_pct).c_str());
  }
  // Nsight Systems GPU metrics: measured by the hardware, said apart from the estimates above.
  for (size_t i = 0; i < shown; ++i)
    if (g.devices[i].measured())
      s.linef("GPU metrics measured (%s, nsys --gpu-metrics-devices): %s",
              device_label(g.devices[i].device).c_str(), measured_text(g.devices[i]).c_str());
  if (g.devices.size() > shown)
    s.linef("GPU metrics: %zu more devices (see --format json)", g.devices.size() - shown);
  if (g.devices.empty() || !g.measured) return s;
  s.paragraph("Measured by Nsight Systems (`--gpu-metrics-devices`), mean of the samples:\n\n");
  Table& m = s.table(nullptr);  // Markdown only: the measured devices
  m.columns = {Column(nullptr).md("Device", Show::kPlain).left()};
  for (const char* h :
       {"SM Active", "SM Active in steps", "Tensor Active", "Tensor Active in steps"})
    m.columns.push_back(Column(nullptr).md(h, Show::kPct).null_as("n/a"));
  // The further series some shown device sampled, each its mean in the steps (over the capture
  // where no sample fell in a step): a set samples a dozen, another set other ones.
  std::vector<size_t> sampled;
  for (size_t k = 0; k < kMeasuredMetrics; ++k)
    for (size_t i = 0; i < shown; ++i)
      if (g.devices[i].more[k].samples > 0) {
        sampled.push_back(k);
        break;
      }
  for (size_t k : sampled)
    m.columns.push_back(Column(nullptr)
                            .md(measured_metric_label(static_cast<MeasuredMetric>(k)), Show::kPct)
                            .null_as("n/a"));
  for (size_t i = 0; i < shown; ++i) {
    const DeviceMetrics& d = g.devices[i];
    if (!d.measured()) continue;
    m.row() = {Cell::str(s.own(device_label(d.device))),
               pct_if(d.sm_active_samples > 0, d.sm_active_pct),
               pct_if(d.sm_active_step_samples > 0, d.sm_active_steps_pct),
               pct_if(d.tensor_active_samples > 0, d.tensor_active_pct),
               pct_if(d.tensor_active_step_samples > 0, d.tensor_active_steps_pct)};
    for (size_t k : sampled)
      m.rows.back().push_back(pct_if(d.more[k].samples > 0, d.more[k].best_pct()));
  }
  if (!sampled.empty())
    s.paragraph(
        "The further series: mean in the steps (over the capture where no sample fell in a "
        "step); DRAM, PCIe and NVLink as a share of their peak bandwidth.\n\n");
  return s;
}

}  // namespace ks
