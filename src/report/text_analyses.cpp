// The analyses in the text and Markdown reports: a few lines each (where the time went, idle
// causes per stream, overlap, launches, GPU metrics, memory, the top API calls and CPU ops);
// the full tables are in --format json and the page.
#include <cstdio>

#include "report/text_sections.h"
#include "util/format.h"
#include "util/json_writer.h"
#include "util/markdown.h"
#include "util/safe_text.h"

namespace ks {

namespace {

constexpr size_t kTopRows = 8;

// Names may hold anything: control characters, bidi overrides and bad UTF-8 become '?', long
// names are cut on a character boundary (util/safe_text.h, docs/hardening.md).
std::string printable(std::string_view s, size_t max_len) {
  return display_safe(s, max_len);
}

std::string dur(int64_t ns) {
  return format_duration(ns);
}
std::string pct(double p) {
  return format_pct(p);
}

std::string stream_label(int64_t device, int64_t stream) {
  std::string s = "stream " + (stream == kNoValue ? std::string("?") : std::to_string(stream));
  if (device != kNoValue) s = "device " + std::to_string(device) + " " + s;
  return s;
}

std::string step_parts_text(const StepBreakdown& b) {
  std::string out;
  for (int k = 0; k < kStepRoles; ++k) {
    if (!out.empty()) out += ", ";
    out += std::string(step_role_name(static_cast<StepRole>(k))) + " " +
           pct(b.pct(static_cast<StepRole>(k)));
  }
  return out;
}

std::string metric(bool present, double v) {
  return present ? pct(v) : std::string("n/a");
}

std::string device_label(int64_t device) {
  return device == kNoValue ? std::string("device ?") : "device " + std::to_string(device);
}

// "SM Active 61.5% (in steps 61.5%), Tensor Active 21.5% (in steps 21.5%)", per sampled series.
std::string measured_text(const DeviceMetrics& d) {
  std::string out;
  auto part = [&](const char* name, uint64_t n, double v, uint64_t n_steps, double v_steps) {
    if (n == 0) return;
    if (!out.empty()) out += ", ";
    out += std::string(name) + " " + pct(v) + " (in steps " + metric(n_steps > 0, v_steps) + ")";
  };
  part("SM Active", d.sm_active_samples, d.sm_active_pct, d.sm_active_step_samples,
       d.sm_active_steps_pct);
  part("Tensor Active", d.tensor_active_samples, d.tensor_active_pct, d.tensor_active_step_samples,
       d.tensor_active_steps_pct);
  return out;
}

}  // namespace

void append_analyses_text(std::string* o, const Trace& t, const Analyses& a) {
  const TemporalBreakdown& tb = a.temporal;
  if (tb.has_gpu_ops) {
    append_line(o,
                "GPU time (HTA temporal breakdown, span %s): idle %s, compute %s, non-compute %s",
                dur(tb.span_ns).c_str(), pct(tb.idle_pct).c_str(), pct(tb.compute_pct).c_str(),
                pct(tb.non_compute_pct).c_str());
    std::string types;
    for (const KernelTypeRow& r : a.kernel_types.rows)
      types += (types.empty() ? "" : ", ") + r.label + " " + pct(r.percent);
    append_line(o, "  by kernel type: %s", types.c_str());
    append_line(
        o, "Idle time per stream (host wait / kernel wait / other, gaps < %s are kernel wait):",
        dur(kKernelWaitThresholdNs).c_str());
    for (const StreamIdle& s : a.idle.streams) {
      append_line(o, "  %-22s %7llu ops  idle %-10s = %s (%llu) / %s (%llu) / %s (%llu)",
                  stream_label(s.device, s.stream).c_str(), static_cast<unsigned long long>(s.ops),
                  dur(s.idle_total_ns()).c_str(), dur(s.idle_ns[0]).c_str(),
                  static_cast<unsigned long long>(s.gaps[0].count), dur(s.idle_ns[1]).c_str(),
                  static_cast<unsigned long long>(s.gaps[1].count), dur(s.idle_ns[2]).c_str(),
                  static_cast<unsigned long long>(s.gaps[2].count));
    }
    const CommOverlap& co = a.comm_overlap;
    if (co.has_communication)
      append_line(o, "Communication: %s, %s of it overlapped with computation",
                  dur(co.communication_ns).c_str(), pct(co.overlap_pct).c_str());
    const LaunchApiRow& l = a.launches.total;
    if (l.launches > 0) {
      int64_t max_queue = 0;
      int64_t blocked = 0;
      for (const StreamQueue& q : a.launches.queues) {
        max_queue = std::max(max_queue, q.max_len);
        blocked += q.blocked_ns;
      }
      append_line(
          o,
          "Launches: %llu; short kernels %llu, launches > 50 us %llu, launch delay > 100 us "
          "%llu; median delay %s; longest launch queue %lld%s",
          static_cast<unsigned long long>(l.launches),
          static_cast<unsigned long long>(l.short_kernels),
          static_cast<unsigned long long>(l.runtime_outliers),
          static_cast<unsigned long long>(l.delay_outliers),
          dur(static_cast<int64_t>(l.delay.median_ns)).c_str(), static_cast<long long>(max_queue),
          blocked > 0 ? (", blocked on a full queue " + dur(blocked)).c_str() : "");
    }
  }
  const StepBreakdown& sb = a.step_breakdown;
  // Without steps or GPU work (a browser or CPU profile) the breakdown says nothing.
  const bool breakdown_useful = sb.window_ns > 0 && (!sb.whole_trace || tb.has_gpu_ops);
  if (breakdown_useful)
    append_line(o, "Step breakdown (%s, %s): %s", sb.whole_trace ? "whole trace" : "all steps",
                dur(sb.window_ns).c_str(), step_parts_text(sb).c_str());
  for (const DeviceMetrics& d : a.gpu_metrics.devices)
    append_line(o,
                "GPU metrics (%s, over %s): utilization %s, est. SM efficiency %s, est. achieved "
                "occupancy %s, tensor-core kernels %s of kernel time",
                device_label(d.device).c_str(),
                a.gpu_metrics.window_is_steps ? "the steps" : "the trace",
                metric(d.has_utilization, d.utilization_pct).c_str(),
                metric(d.has_sm_efficiency, d.sm_efficiency_pct).c_str(),
                metric(d.has_occupancy, d.occupancy_pct).c_str(), pct(d.tensor_core_pct).c_str());
  // Nsight Systems GPU metrics: measured by the hardware, said apart from the estimates above.
  for (const DeviceMetrics& d : a.gpu_metrics.devices)
    if (d.measured())
      append_line(o, "GPU metrics measured (%s, nsys --gpu-metrics-devices): %s",
                  device_label(d.device).c_str(), measured_text(d).c_str());
  for (const DeviceMemory& m : a.memory.devices) {
    std::string reserved =
        m.peak_reserved == kNoValue ? std::string("-") : format_bytes(m.peak_reserved);
    std::string total = m.device_total > 0 ? " of " + format_bytes(m.device_total) : "";
    append_line(o, "Memory (%s): peak allocated %s, peak reserved %s%s",
                m.device == kNoValue ? "CPU" : device_label(m.device).c_str(),
                format_bytes(m.peak_allocated).c_str(), reserved.c_str(), total.c_str());
  }
  const KernelGroups& g = a.kernel_groups;
  if (!g.by_class.empty()) {
    std::string classes;
    for (const KernelClassRow& r : g.by_class)
      classes += (classes.empty() ? "" : ", ") + std::string(kernel_class_name(r.klass)) + " " +
                 pct(r.percent);
    append_line(o, "Kernel classes (math %s): %s", pct(g.math_pct).c_str(), classes.c_str());
  }
  o->push_back('\n');
  if (!a.api_calls.rows.empty()) {
    append_line(o, "Runtime API calls (CUDA, HIP, driver): %llu calls, %s",
                static_cast<unsigned long long>(a.api_calls.count),
                dur(a.api_calls.total_ns).c_str());
    for (size_t i = 0; i < a.api_calls.rows.size() && i < kTopRows; ++i) {
      const NamedStatsRow& r = a.api_calls.rows[i];
      append_line(o, "  %6.2f%% %12s %9llu calls  max %-10s %s", r.percent,
                  dur(r.stats.total_ns).c_str(), static_cast<unsigned long long>(r.stats.count),
                  dur(r.stats.max_ns).c_str(), printable(t.str(r.name), 60).c_str());
    }
  }
  if (!a.cpu_ops.rows.empty()) {
    append_line(o, "CPU ops by self time: %llu ops, %s self",
                static_cast<unsigned long long>(a.cpu_ops.count), dur(a.cpu_ops.self_ns).c_str());
    for (size_t i = 0; i < a.cpu_ops.rows.size() && i < kTopRows; ++i) {
      const CpuOpRow& r = a.cpu_ops.rows[i];
      append_line(o, "  %6.2f%% self %-10s total %-10s %8llu calls  %s", r.self_percent,
                  dur(r.self_ns).c_str(), dur(r.total.total_ns).c_str(),
                  static_cast<unsigned long long>(r.total.count),
                  r.grouped ? kProfilerStepGroup : printable(t.str(r.name), 70).c_str());
    }
  }
  if (!a.api_calls.rows.empty() || !a.cpu_ops.rows.empty()) o->push_back('\n');
}

void append_analyses_markdown(std::string* o, const Trace& t, const Analyses& a) {
  const TemporalBreakdown& tb = a.temporal;
  if (tb.has_gpu_ops) {
    *o += "## Where the GPU time went\n\n";
    *o += "HTA temporal breakdown over the GPU span (" + dur(tb.span_ns) + "): idle " +
          pct(tb.idle_pct) + ", compute " + pct(tb.compute_pct) + ", non-compute " +
          pct(tb.non_compute_pct) + ".\n\n";
    *o +=
        "| Stream | Ops | Idle | Host wait | Kernel wait | Other "
        "|\n|---|---:|---:|---:|---:|---:|\n";
    for (const StreamIdle& s : a.idle.streams)
      *o += "| " + stream_label(s.device, s.stream) + " | " + std::to_string(s.ops) + " | " +
            dur(s.idle_total_ns()) + " | " + dur(s.idle_ns[0]) + " | " + dur(s.idle_ns[1]) + " | " +
            dur(s.idle_ns[2]) + " |\n";
    *o += "\n";
    if (a.comm_overlap.has_communication)
      *o += "Communication " + dur(a.comm_overlap.communication_ns) + ", " +
            pct(a.comm_overlap.overlap_pct) + " overlapped with computation.\n\n";
    const LaunchApiRow& l = a.launches.total;
    if (l.launches > 0)
      *o += "Launches: " + std::to_string(l.launches) + "; short kernels " +
            std::to_string(l.short_kernels) + ", launches > 50 us " +
            std::to_string(l.runtime_outliers) + ", launch delay > 100 us " +
            std::to_string(l.delay_outliers) + ".\n\n";
  }
  const StepBreakdown& sb = a.step_breakdown;
  if (sb.window_ns > 0 && (!sb.whole_trace || tb.has_gpu_ops)) {
    *o += "## Step breakdown\n\n| Part | Time | Share |\n|---|---:|---:|\n";
    for (int k = 0; k < kStepRoles; ++k)
      *o += "| " + std::string(step_role_name(static_cast<StepRole>(k))) + " | " +
            dur(sb.total_ns[k]) + " | " + pct(sb.pct(static_cast<StepRole>(k))) + " |\n";
    *o += "\n";
  }
  if (!a.gpu_metrics.devices.empty()) {
    *o +=
        "## GPU metrics\n\n| Device | Utilization | Est. SM efficiency | Est. occupancy | "
        "Tensor-core kernels |\n|---|---:|---:|---:|---:|\n";
    for (const DeviceMetrics& d : a.gpu_metrics.devices)
      *o += "| " + device_label(d.device) + " | " + metric(d.has_utilization, d.utilization_pct) +
            " | " + metric(d.has_sm_efficiency, d.sm_efficiency_pct) + " | " +
            metric(d.has_occupancy, d.occupancy_pct) + " | " + pct(d.tensor_core_pct) + " |\n";
    *o += "\n";
    if (a.gpu_metrics.measured) {
      *o +=
          "Measured by Nsight Systems (`--gpu-metrics-devices`), mean of the samples:\n\n"
          "| Device | SM Active | SM Active in steps | Tensor Active | Tensor Active in steps "
          "|\n|---|---:|---:|---:|---:|\n";
      for (const DeviceMetrics& d : a.gpu_metrics.devices)
        if (d.measured())
          *o += "| " + device_label(d.device) + " | " +
                metric(d.sm_active_samples > 0, d.sm_active_pct) + " | " +
                metric(d.sm_active_step_samples > 0, d.sm_active_steps_pct) + " | " +
                metric(d.tensor_active_samples > 0, d.tensor_active_pct) + " | " +
                metric(d.tensor_active_step_samples > 0, d.tensor_active_steps_pct) + " |\n";
      *o += "\n";
    }
  }
  if (!a.api_calls.rows.empty()) {
    *o +=
        "## Runtime API calls (CUDA, HIP, driver)\n\n| Time % | Total | Calls | Max | Name "
        "|\n|---:|---:|---:|---:|---|\n";
    for (size_t i = 0; i < a.api_calls.rows.size() && i < kTopRows; ++i) {
      const NamedStatsRow& r = a.api_calls.rows[i];
      *o += "| " + format_fixed(r.percent, 2) + " | " + dur(r.stats.total_ns) + " | " +
            std::to_string(r.stats.count) + " | " + dur(r.stats.max_ns) + " | " +
            markdown_code_cell(t.str(r.name), 80) + " |\n";
    }
    *o += "\n";
  }
  if (!a.cpu_ops.rows.empty()) {
    *o +=
        "## CPU ops by self time\n\n| Self % | Self | Total | Calls | Name "
        "|\n|---:|---:|---:|---:|---|\n";
    for (size_t i = 0; i < a.cpu_ops.rows.size() && i < kTopRows; ++i) {
      const CpuOpRow& r = a.cpu_ops.rows[i];
      *o +=
          "| " + format_fixed(r.self_percent, 2) + " | " + dur(r.self_ns) + " | " +
          dur(r.total.total_ns) + " | " + std::to_string(r.total.count) + " | " +
          markdown_code_cell(r.grouped ? std::string_view(kProfilerStepGroup) : t.str(r.name), 80) +
          " |\n";
    }
    *o += "\n";
  }
}

}  // namespace ks
