// The JSON report: the stable, documented schema (docs/report-schema.md). Times are
// microseconds relative to the first event of the trace, as numbers with 3 decimals
// (nanosecond precision); absolute times are strings of integer nanoseconds.
#include "report/findings_json.h"
#include "report/json_sections.h"
#include "report/report.h"
#include "util/json_writer.h"

namespace ks {

void write_duration_stats_json(JsonWriter& w, const DurationStats& s) {
  w.field("count", s.count);
  w.field_micros("total_us", s.total_ns);
  w.field("avg_us", s.avg_ns / 1e3, 3);
  w.field("median_us", s.median_ns / 1e3, 3);
  w.field_micros("min_us", s.min_ns);
  w.field_micros("max_us", s.max_ns);
  w.field("stddev_us", s.stddev_ns / 1e3, 3);
}

namespace {

using W = JsonWriter;

void write_optional_int(W& w, const char* key, int64_t v) {
  w.key(key);
  if (v == kNoValue)
    w.null();
  else
    w.value(v);
}

void write_capture_flag(W& w, const char* key, int v) {
  w.key(key);
  if (v < 0)
    w.null();
  else
    w.value(v != 0);
}

void write_trace(W& w, const Trace& t) {
  const TraceFacts& f = t.facts;
  TrackCounts c = count_tracks(t);
  w.key("trace").begin_object();
  w.field("file", std::string_view(f.source_name));
  w.field("gzip", f.source_gzip);
  w.field("format", trace_format_name(f.format));
  w.field("json_bytes", f.json_bytes);
  w.field("events_total", f.events_total);
  w.key("events_by_phase").begin_object();
  for (const auto& kv : f.events_by_phase) w.field(kv.first, kv.second);
  w.end_object();
  w.key("categories").begin_object();
  for (const auto& kv : f.categories) w.field(kv.first.empty() ? "(none)" : kv.first, kv.second);
  w.end_object();
  w.field_micros("span_us", t.span_ns());
  w.field("start_ns", std::string_view(std::to_string(f.start_ns)));
  w.field("slices", static_cast<uint64_t>(t.slices.size()));
  w.field("processes", c.processes);
  w.field("threads", c.threads);
  w.field("gpu_devices", c.gpu_devices);
  w.field("gpu_streams", c.gpu_streams);
  w.key("device");
  if (t.devices.empty()) {
    w.null();
  } else {
    const DeviceProperties& d = t.devices.front();
    w.begin_object();
    w.field("name", std::string_view(d.name));
    write_optional_int(w, "total_memory_bytes", d.total_memory);
    write_optional_int(w, "num_sms", d.num_sms);
    w.key("compute_capability");
    if (d.compute_major == kNoValue)
      w.null();
    else
      w.value(std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor));
    w.field("count", static_cast<uint64_t>(t.devices.size()));
    w.end_object();
  }
  write_optional_int(w, "rank", t.distributed.rank);
  write_optional_int(w, "world_size", t.distributed.world_size);
  w.key("backend");
  if (t.distributed.backend.empty())
    w.null();
  else
    w.value(std::string_view(t.distributed.backend));
  w.key("schema_version");
  if (f.schema_version.empty())
    w.null();
  else
    w.value(std::string_view(f.schema_version));
  w.key("capture").begin_object();
  write_capture_flag(w, "record_shapes", f.record_shapes);
  write_capture_flag(w, "profile_memory", f.profile_memory);
  write_capture_flag(w, "with_stack", f.with_stack);
  write_capture_flag(w, "with_flops", f.with_flops);
  write_capture_flag(w, "with_modules", f.with_modules);
  w.field("call_stacks_seen", f.saw_call_stack);
  w.field("input_shapes_seen", f.saw_input_dims);
  w.end_object();
  w.end_object();
}

void write_steps(W& w, const Trace& t, const Analyses& a) {
  const StepsResult& s = a.steps;
  const int64_t t0 = t.facts.start_ns;
  w.key("steps").begin_object();
  w.field("found", s.found);
  // Only where steps are not ProfilerStep's (or an nsys export has none): PyTorch reports keep
  // their bytes (docs/report-schema.md, `steps`).
  const std::string how = steps_note(s, t.facts.format == TraceFormat::kNsysSqlite);
  if (!how.empty()) {
    w.field("source", step_source_name(s.source));
    w.field("range", s.range_name);
    w.field("note", how);
  }
  w.field("dropped_last", s.dropped_last);
  w.field("count", s.stats.count);
  w.field_micros("total_us", s.stats.total_ns);
  w.field_micros("min_us", s.stats.min_ns);
  w.field("median_us", s.stats.median_ns / 1e3, 3);
  w.field("mean_us", s.stats.avg_ns / 1e3, 3);
  w.field_micros("max_us", s.stats.max_ns);
  w.field("stddev_us", s.stats.stddev_ns / 1e3, 3);
  w.field("spread_pct", s.spread_pct, 2);
  w.field("cv_pct", s.cv_pct, 2);
  w.key("rows").begin_array();
  for (size_t i = 0; i < s.steps.size(); ++i) {
    const Step& st = s.steps[i];
    w.begin_object();
    w.field("name", t.str(t.slices.name[st.slice]));
    w.field("number", st.number);
    w.field_micros("start_us", st.begin - t0);
    w.field_micros("end_us", st.end - t0);
    w.field_micros("dur_us", st.dur());
    w.field_micros("host_start_us", st.host_begin - t0);
    w.field_micros("host_end_us", st.host_end - t0);
    w.key("gpu_idle_pct");
    if (i < a.gpu_idle.idle_pct_per_step.size())
      w.value(a.gpu_idle.idle_pct_per_step[i], 2);
    else
      w.null();
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

void write_gpu(W& w, const Analyses& a) {
  const GpuIdleResult& g = a.gpu_idle;
  w.key("gpu").begin_object();
  w.field("has_gpu_ops", g.has_gpu_ops);
  w.field("window", g.window_is_steps ? "steps" : (g.has_gpu_ops ? "gpu_span" : "none"));
  w.field_micros("window_us", g.window_ns);
  w.field_micros("busy_us", g.busy_ns);
  w.field("idle_pct", g.idle_pct, 2);
  w.end_object();
}

void write_kernels(W& w, const Trace& t, const KernelSummary& k) {
  w.key("kernels").begin_object();
  w.field("count", k.count);
  w.field_micros("total_us", k.total_ns);
  w.key("rows").begin_array();
  for (size_t i = 0; i < k.rows.size() && i < kMaxTableRows; ++i) {
    const KernelRow& r = k.rows[i];
    w.begin_object();
    w.field("name", t.str(r.name));
    w.field("category", hta_category_name(r.category));
    w.field("class", kernel_class_name(r.klass));
    w.field("tensor_core", r.tensor_core);
    write_duration_stats_json(w, r.stats);
    w.field("percent", r.percent, 2);
    w.end_object();
  }
  w.end_array();
  write_omitted_rows(w, k.rows, [](const KernelRow& r) { return r.stats.total_ns; });
  w.end_object();
}

void write_memory_ops(W& w, const MemoryOpSummary& m) {
  w.key("memory_ops").begin_object();
  w.field("count", m.count);
  w.field_micros("total_us", m.total_ns);
  w.key("rows").begin_array();
  for (const MemoryOpRow& r : m.rows) {
    w.begin_object();
    w.field("kind", memory_op_kind_name(r.kind));
    write_duration_stats_json(w, r.stats);
    w.field("bytes", r.bytes);
    w.field("gb_per_s", r.gb_per_s, 3);
    w.field("pageable", r.pageable);
    w.field("percent", r.percent, 2);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

void write_sync(W& w, const Trace& t, const SyncResult& s) {
  w.key("sync").begin_object();
  w.field("count", s.count);
  w.field_micros("total_us", s.total_ns);
  w.key("calls").begin_array();
  for (const SyncCallRow& r : s.calls) {
    w.begin_object();
    w.field("name", t.str(r.name));
    w.field("count", r.count);
    w.field_micros("total_us", r.total_ns);
    w.field_micros("max_us", r.max_ns);
    w.end_object();
  }
  w.end_array();
  w.field("dtoh_in_steps", s.dtoh_in_steps_count);
  w.key("dtoh_origins").begin_array();
  for (const CopyOrigin& o : s.dtoh_in_steps) {
    w.begin_object();
    w.field("cpu_ops", std::string_view(o.cpu_ops));
    w.field("count", o.count);
    w.field("bytes", o.bytes);
    w.field_micros("gpu_us", o.gpu_ns);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

void write_diagnostics(W& w, const Diagnostics& d) {
  w.key("diagnostics").begin_array();
  for (int i = 0; i < static_cast<int>(Diag::kCount); ++i) {
    const DiagEntry& e = d.get(static_cast<Diag>(i));
    if (!e.count) continue;
    const DiagInfo& info = diag_info(static_cast<Diag>(i));
    w.begin_object();
    w.field("code", info.code);
    w.field("severity", diag_severity_name(info.severity));
    const std::string message = d.message(static_cast<Diag>(i));
    w.field("message", std::string_view(message));
    w.field("count", e.count);
    w.field("first_offset", e.first_offset);
    w.field("excerpt", std::string_view(e.excerpt));
    w.end_object();
  }
  w.end_array();
}

}  // namespace

std::string report_json(const Report& r) {
  const Trace& t = *r.trace;
  W w;
  w.begin_object();
  w.field("schema", kReportSchema);
  w.field("generator", std::string_view(std::string("kinetoscope ") + kVersion));
  w.key("options").begin_object();
  w.field("drop_last_step", r.analyses.options.drop_last_step);
  w.end_object();
  write_trace(w, t);
  write_findings_json(w, &t, r.findings);
  write_steps(w, t, r.analyses);
  write_gpu(w, r.analyses);
  write_kernels(w, t, r.analyses.kernels);
  write_memory_ops(w, r.analyses.memory_ops);
  write_sync(w, t, r.analyses.sync);
  write_analyses_json(w, t, r.analyses);
  write_diagnostics(w, t.diagnostics);
  w.end_object();
  return w.take();
}

std::string import_error_json(const ImportError& e) {
  W w;
  w.begin_object();
  w.field("code", import_error_code_name(e.code));
  w.field("message", std::string_view(e.message));
  w.field("offset", e.offset);
  w.end_object();
  return w.take();
}

}  // namespace ks
