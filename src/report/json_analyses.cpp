// The JSON sections of the HTA, TensorBoard-plugin and nsys analyses (docs/report-schema.md):
// temporal_breakdown, kernel_types, idle_breakdown, comm_overlap, launch_stats,
// step_breakdown, gpu_metrics, memory, kernel_groups, api_calls, annotations, cpu_ops.
// Same conventions as json_report.cpp: times in microseconds relative to the trace start.
#include "report/json_sections.h"

namespace ks {

namespace {

using W = JsonWriter;

void write_optional_pct(W& w, const char* key, bool present, double v) {
  w.key(key);
  if (present)
    w.value(v, 2);
  else
    w.null();
}

void write_id(W& w, const char* key, int64_t v) {
  w.key(key);
  if (v == kNoValue)
    w.null();
  else
    w.value(v);
}

void write_temporal(W& w, const TemporalBreakdown& t) {
  w.key("temporal_breakdown").begin_object();
  w.field("has_gpu_ops", t.has_gpu_ops);
  w.field_micros("span_us", t.span_ns);
  w.field_micros("idle_us", t.idle_ns);
  w.field_micros("compute_us", t.compute_ns);
  w.field_micros("non_compute_us", t.non_compute_ns);
  w.field("idle_pct", t.idle_pct, 2);
  w.field("compute_pct", t.compute_pct, 2);
  w.field("non_compute_pct", t.non_compute_pct, 2);
  w.end_object();
}

void write_kernel_types(W& w, const KernelTypeBreakdown& k) {
  w.key("kernel_types").begin_object();
  w.field_micros("total_us", k.total_ns);
  w.key("rows").begin_array();
  for (const KernelTypeRow& r : k.rows) {
    w.begin_object();
    w.field("type", std::string_view(r.label));
    w.field_micros("total_us", r.ns);
    w.field("percent", r.percent, 2);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

// "<cause>_us" for each idle cause, in IdleCause order.
void write_idle_by_cause(W& w, const int64_t (&idle_ns)[kIdleCauses]) {
  for (int c = 0; c < kIdleCauses; ++c)
    w.field_micros(std::string(idle_cause_name(static_cast<IdleCause>(c))) + "_us", idle_ns[c]);
}

void write_idle(W& w, const IdleBreakdown& b) {
  w.key("idle_breakdown").begin_object();
  w.field_micros("kernel_wait_threshold_us", kKernelWaitThresholdNs);
  write_idle_by_cause(w, b.idle_ns);
  w.key("streams").begin_array();
  for (const StreamIdle& s : b.streams) {
    w.begin_object();
    write_id(w, "device", s.device);
    write_id(w, "stream", s.stream);
    w.field("ops", s.ops);
    w.field_micros("idle_us", s.idle_total_ns());
    write_idle_by_cause(w, s.idle_ns);
    w.key("gaps").begin_object();
    for (int c = 0; c < kIdleCauses; ++c) {
      w.key(idle_cause_name(static_cast<IdleCause>(c))).begin_object();
      write_duration_stats_json(w, s.gaps[c]);
      w.end_object();
    }
    w.end_object();
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

void write_overlap(W& w, const CommOverlap& o) {
  w.key("comm_overlap").begin_object();
  w.field_micros("communication_us", o.communication_ns);
  w.field_micros("computation_us", o.computation_ns);
  w.field_micros("overlap_us", o.overlap_ns);
  write_optional_pct(w, "overlap_pct", o.has_communication, o.overlap_pct);
  w.end_object();
}

void write_idle_causes(W& w, const Trace& t, const IdleCauses& c) {
  const int64_t t0 = t.facts.start_ns;
  w.key("idle_causes").begin_object();
  w.field_micros("window_us", c.window_ns);
  w.field_micros("idle_us", c.idle_total_ns());
  for (int k = 0; k < kGapCauses; ++k) {
    const std::string name = gap_cause_name(static_cast<GapCause>(k));
    w.field_micros(name + "_us", c.idle_ns[k]);
    w.field(name + "_gaps", c.gaps[k]);
  }
  w.field_micros("short_host_wait_us", c.short_host_wait_ns);
  w.field("short_host_wait_gaps", c.short_host_wait_gaps);
  w.key("largest").begin_array();
  for (const CausedGap& g : c.largest) {
    w.begin_object();
    w.field_micros("start_us", g.begin_ns - t0);
    w.field_micros("end_us", g.end_ns - t0);
    w.field_micros("dur_us", g.length());
    w.field("cause", gap_cause_name(g.cause));
    w.key("next_op");
    if (g.next_op < 0)
      w.null();
    else
      w.value(t.str(t.slices.name[static_cast<size_t>(g.next_op)]));
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

void write_launch_row(W& w, const LaunchApiRow& r) {
  w.field("launches", r.launches);
  w.field("short_kernels", r.short_kernels);
  w.field("runtime_outliers", r.runtime_outliers);
  w.field("delay_outliers", r.delay_outliers);
  w.field("before_launch", r.before_launch);
  w.field_micros("cpu_us", r.cpu_ns);
  w.field_micros("gpu_us", r.gpu_ns);
  w.key("delay").begin_object();
  write_duration_stats_json(w, r.delay);
  w.end_object();
}

void write_launches(W& w, const Trace& t, const LaunchStats& l) {
  const int64_t t0 = t.facts.start_ns;
  w.key("launch_stats").begin_object();
  write_launch_row(w, l.total);
  w.key("apis").begin_array();
  for (const LaunchApiRow& r : l.apis) {
    w.begin_object();
    w.field("name", t.str(r.api));
    write_launch_row(w, r);
    w.end_object();
  }
  w.end_array();
  w.field("full_queue", kFullLaunchQueue);
  w.key("queues").begin_array();
  for (const StreamQueue& q : l.queues) {
    w.begin_object();
    write_id(w, "device", q.device);
    write_id(w, "stream", q.stream);
    w.field("max_len", q.max_len);
    w.field("mean_len", q.mean_len, 2);
    w.field_micros("blocked_us", q.blocked_ns);
    w.key("series").begin_array();
    for (const QueuePoint& p : q.series) {
      w.begin_array();
      w.micros(p.ts_ns - t0);
      w.value(p.max_len);
      w.end_array();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

void write_parts(W& w, const int64_t* ns) {
  for (int k = 0; k < kStepRoles; ++k)
    w.field_micros(std::string(step_role_name(static_cast<StepRole>(k))) + "_us", ns[k]);
}

void write_step_breakdown(W& w, const Trace& t, const StepBreakdown& b) {
  const int64_t t0 = t.facts.start_ns;
  w.key("step_breakdown").begin_object();
  w.field("window", b.whole_trace ? "whole_trace" : "steps");
  w.field_micros("total_us", b.window_ns);
  w.key("parts").begin_object();
  write_parts(w, b.total_ns);
  w.end_object();
  w.key("parts_pct").begin_object();
  for (int k = 0; k < kStepRoles; ++k)
    w.field(std::string(step_role_name(static_cast<StepRole>(k))) + "_pct",
            b.pct(static_cast<StepRole>(k)), 2);
  w.end_object();
  w.key("rows").begin_array();
  for (const StepParts& p : b.steps) {
    w.begin_object();
    write_id(w, "number", p.step_number);
    w.field_micros("start_us", p.begin_ns - t0);
    w.field_micros("dur_us", p.end_ns - p.begin_ns);
    write_parts(w, p.ns);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

void write_gpu_metrics(W& w, const Trace& t, const GpuMetrics& g) {
  w.key("gpu_metrics").begin_object();
  w.field("window", g.window_is_steps ? "steps" : "whole_trace");
  w.field_micros("window_us", g.window_end_ns - g.window_begin_ns);
  w.key("absent");
  if (g.absent.empty())
    w.null();
  else
    w.value(std::string_view(g.absent));
  w.key("compute_capability");
  if (g.compute_major == kNoValue)
    w.null();
  else
    w.value(std::to_string(g.compute_major) + "." + std::to_string(g.compute_minor));
  w.field("tensor_core_eligible_ops", g.eligible_ops);
  w.field_micros("tensor_core_eligible_us", g.eligible_ops_ns);
  w.key("top_eligible_op");
  if (g.eligible_ops == 0)
    w.null();
  else
    w.value(t.str(g.top_eligible_op));
  w.key("devices").begin_array();
  for (const DeviceMetrics& d : g.devices) {
    w.begin_object();
    write_id(w, "device", d.device);
    w.field("kernels", d.kernels);
    w.field_micros("kernel_us", d.kernel_ns);
    write_optional_pct(w, "utilization_pct", d.has_utilization, d.utilization_pct);
    write_optional_pct(w, "sm_efficiency_pct", d.has_sm_efficiency, d.sm_efficiency_pct);
    w.key("sm_efficiency_absent");
    if (d.sm_efficiency_absent.empty())
      w.null();
    else
      w.value(std::string_view(d.sm_efficiency_absent));
    write_optional_pct(w, "occupancy_pct", d.has_occupancy, d.occupancy_pct);
    w.key("occupancy_absent");
    if (d.occupancy_absent.empty())
      w.null();
    else
      w.value(std::string_view(d.occupancy_absent));
    w.field_micros("tensor_core_us", d.tensor_core_ns);
    w.field("tensor_core_pct", d.tensor_core_pct, 2);
    // Only on Nsight Systems exports with GPU metrics samples (absent elsewhere, so PyTorch
    // reports are unchanged): the hardware's measured means, not estimates.
    if (d.measured()) {
      w.key("measured").begin_object();
      w.field("source", "nsys_gpu_metrics");
      w.field("sm_active_samples", d.sm_active_samples);
      write_optional_pct(w, "sm_active_pct", d.sm_active_samples > 0, d.sm_active_pct);
      write_optional_pct(w, "sm_active_steps_pct", d.sm_active_step_samples > 0,
                         d.sm_active_steps_pct);
      w.field("tensor_active_samples", d.tensor_active_samples);
      write_optional_pct(w, "tensor_active_pct", d.tensor_active_samples > 0, d.tensor_active_pct);
      write_optional_pct(w, "tensor_active_steps_pct", d.tensor_active_step_samples > 0,
                         d.tensor_active_steps_pct);
      w.end_object();
    }
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

void write_memory(W& w, const Trace& t, const MemoryUsage& m) {
  const int64_t t0 = t.facts.start_ns;
  w.key("memory").begin_object();
  w.field("events", m.events);
  w.key("devices").begin_array();
  for (const DeviceMemory& d : m.devices) {
    w.begin_object();
    write_id(w, "device", d.device);
    w.field("events", d.events);
    w.field("peak_allocated_bytes", d.peak_allocated);
    w.field_micros("peak_allocated_at_us", d.peak_allocated_ns - t0);
    write_id(w, "peak_reserved_bytes", d.peak_reserved);
    w.key("peak_reserved_at_us");
    if (d.peak_reserved == kNoValue)
      w.null();
    else
      w.micros(d.peak_reserved_ns - t0);
    write_id(w, "device_total_bytes", d.device_total);
    w.field("largest_allocation_bytes", d.largest_allocation);
    const int64_t peak = d.peak_reserved != kNoValue ? d.peak_reserved : d.peak_allocated;
    w.key("peak_pct");
    if (d.device_total > 0)
      w.value(100.0 * static_cast<double>(peak) / static_cast<double>(d.device_total), 2);
    else
      w.null();
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

void write_named_rows(W& w, const Trace& t, const NamedStatsTable& table, const char* empty_name) {
  w.key("rows").begin_array();
  for (size_t i = 0; i < table.rows.size() && i < kMaxTableRows; ++i) {
    const NamedStatsRow& r = table.rows[i];
    w.begin_object();
    if (r.grouped)
      w.field("name", kProfilerStepGroup);
    else if (r.name == 0)
      w.field("name", empty_name);
    else
      w.field("name", t.str(r.name));
    write_duration_stats_json(w, r.stats);
    w.field("percent", r.percent, 2);
    w.end_object();
  }
  w.end_array();
  write_omitted_rows(w, table.rows, [](const NamedStatsRow& r) { return r.stats.total_ns; });
}

void write_named_table(W& w, const Trace& t, const char* key, const NamedStatsTable& table) {
  w.key(key).begin_object();
  w.field("count", table.count);
  w.field_micros("total_us", table.total_ns);
  write_named_rows(w, t, table, "");
  w.end_object();
}

void write_kernel_groups(W& w, const Trace& t, const KernelGroups& g) {
  w.key("kernel_groups").begin_object();
  w.field_micros("math_us", g.math_ns);
  w.field("math_pct", g.math_pct, 2);
  w.key("by_class").begin_array();
  for (const KernelClassRow& r : g.by_class) {
    w.begin_object();
    w.field("class", kernel_class_name(r.klass));
    w.field("category", hta_category_name(r.category));
    w.field("math", is_math_class(r.klass));
    write_duration_stats_json(w, r.stats);
    w.field("percent", r.percent, 2);
    w.end_object();
  }
  w.end_array();
  w.field("has_annotations", g.has_annotations);
  w.key("by_annotation").begin_object();
  w.field("count", g.by_annotation.count);
  w.field_micros("total_us", g.by_annotation.total_ns);
  write_named_rows(w, t, g.by_annotation, "(no annotation)");
  w.end_object();
  w.end_object();
}

void write_cpu_ops(W& w, const Trace& t, const CpuOpSummary& c) {
  w.key("cpu_ops").begin_object();
  w.field("count", c.count);
  w.field_micros("self_us", c.self_ns);
  w.key("rows").begin_array();
  for (size_t i = 0; i < c.rows.size() && i < kMaxTableRows; ++i) {
    const CpuOpRow& r = c.rows[i];
    w.begin_object();
    if (r.grouped)
      w.field("name", kProfilerStepGroup);
    else
      w.field("name", t.str(r.name));
    write_duration_stats_json(w, r.total);
    w.field_micros("self_us", r.self_ns);
    w.field_micros("self_max_us", r.self_max_ns);
    w.field("self_percent", r.self_percent, 2);
    w.end_object();
  }
  w.end_array();
  write_omitted_rows(w, c.rows, [](const CpuOpRow& r) { return r.self_ns; });
  w.end_object();
}

}  // namespace

void write_analyses_json(JsonWriter& w, const Trace& t, const Analyses& a) {
  write_temporal(w, a.temporal);
  write_kernel_types(w, a.kernel_types);
  write_idle(w, a.idle);
  write_overlap(w, a.comm_overlap);
  write_launches(w, t, a.launches);
  write_idle_causes(w, t, a.idle_causes);
  write_step_breakdown(w, t, a.step_breakdown);
  write_gpu_metrics(w, t, a.gpu_metrics);
  write_memory(w, t, a.memory);
  write_kernel_groups(w, t, a.kernel_groups);
  write_named_table(w, t, "api_calls", a.api_calls);
  write_named_table(w, t, "annotations", a.annotations);
  write_cpu_ops(w, t, a.cpu_ops);
}

}  // namespace ks
