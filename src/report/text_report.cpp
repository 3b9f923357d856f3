// The report for a terminal: findings first (most severe first), then the facts, steps, top
// kernels and memory ops, diagnostics. Full tables are in --format json.
#include <cctype>
#include <cstdio>
#include <string>

#include "report/report.h"
#include "report/text_sections.h"
#include "util/format.h"
#include "util/json_writer.h"
#include "util/safe_text.h"

namespace ks {

namespace {

constexpr size_t kTopKernels = 15;

// Names may hold anything; in a terminal, control characters, bidi overrides and invalid UTF-8
// are shown as '?' (util/safe_text.h), and a cut never splits a character.
std::string printable(std::string_view s, size_t max_len = 0) {
  return display_safe(s, max_len);
}

std::string us(double ns) {
  return format_fixed(ns / 1e3, 1);
}

std::string evidence_text(const Evidence& e) {
  if (!e.is_number) return e.key + "=" + printable(e.text, 120);
  if (e.unit == "us") {  // "min_us" -> "min=209.98 ms"
    std::string key = e.key.size() > 3 && e.key.compare(e.key.size() - 3, 3, "_us") == 0
                          ? e.key.substr(0, e.key.size() - 3)
                          : e.key;
    return key + "=" + format_duration(static_cast<int64_t>(e.number * 1000.0 + 0.5));
  }
  if (e.unit == "B") return e.key + "=" + format_bytes(static_cast<int64_t>(e.number));
  std::string v = format_fixed(e.number, e.digits);
  if (e.unit == "%")
    v += "%";
  else if (!e.unit.empty())
    v += " " + e.unit;
  return e.key + "=" + v;
}

}  // namespace

std::string report_text(const Report& r) {
  const Trace& t = *r.trace;
  const Analyses& a = r.analyses;
  const TraceFacts& f = t.facts;
  const int64_t t0 = f.start_ns;
  TrackCounts c = count_tracks(t);
  std::string o;
  append_line(&o, "Kinetoscope report: %s", printable(f.source_name).c_str());
  std::string phases;
  for (const auto& kv : f.events_by_phase)
    phases += (phases.empty() ? "" : ", ") + kv.first + " " + std::to_string(kv.second);
  append_line(&o, "Trace: %s, %s of %s%s, %llu events (%s), span %s", trace_format_name(f.format),
              format_bytes(static_cast<int64_t>(f.json_bytes)).c_str(),
              f.format == TraceFormat::kNsysSqlite ? "SQLite" : "JSON",
              f.source_gzip ? " (gzip)" : "", static_cast<unsigned long long>(f.events_total),
              phases.c_str(), format_duration(t.span_ns()).c_str());
  std::string device = t.devices.empty()                ? "none named"
                       : t.devices.front().name.empty() ? "(unnamed)"
                                                        : printable(t.devices.front().name);
  std::string rank = t.distributed.rank == kNoValue ? "-" : std::to_string(t.distributed.rank);
  if (t.distributed.world_size != kNoValue) rank += "/" + std::to_string(t.distributed.world_size);
  append_line(&o,
              "       %llu processes, %llu threads, %llu GPU devices, %llu GPU streams; device: "
              "%s; rank: %s",
              static_cast<unsigned long long>(c.processes),
              static_cast<unsigned long long>(c.threads),
              static_cast<unsigned long long>(c.gpu_devices),
              static_cast<unsigned long long>(c.gpu_streams), device.c_str(), rank.c_str());
  o.push_back('\n');

  append_line(&o, "Findings (%zu)", r.findings.size());
  if (r.findings.empty())
    append_line(&o, "  none: nothing in this trace crossed a rule's threshold");
  for (const Finding& fd : r.findings) {
    std::string sev = severity_name(fd.severity);
    for (char& ch : sev) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    append_line(&o, "  [%s] %s  (%s)", sev.c_str(), printable(fd.title).c_str(), fd.id.c_str());
    append_line(&o, "      %s", fd.meaning.c_str());
    std::string ev;
    for (const Evidence& e : fd.evidence) ev += (ev.empty() ? "" : ", ") + evidence_text(e);
    if (!ev.empty()) append_line(&o, "      evidence: %s", ev.c_str());
    for (size_t i = 0; i < fd.ranges.size() && i < 3; ++i) {
      const TimeRange& tr = fd.ranges[i];
      append_line(&o, "      at %s .. %s  %s", format_duration(tr.begin_ns - t0).c_str(),
                  format_duration(tr.end_ns - t0).c_str(), printable(tr.label, 80).c_str());
    }
    append_line(&o, "      fix: %s", fd.fix.c_str());
  }
  o.push_back('\n');

  const StepsResult& s = a.steps;
  const std::string steps_how = steps_note(s, t.facts.format == TraceFormat::kNsysSqlite);
  if (s.stats.count == 0) {
    if (steps_how.empty())
      append_line(&o, "Steps: none (no ProfilerStep#N markers); the trace is one window");
    else
      o += "Steps: none (" + printable(steps_how, 400) + "); the trace is one window\n";
  } else {
    append_line(&o, "Steps (%llu%s): min %s, median %s, max %s, spread %.1f%%, CV %.1f%%",
                static_cast<unsigned long long>(s.stats.count),
                s.dropped_last ? ", last dropped" : "", format_duration(s.stats.min_ns).c_str(),
                format_duration(static_cast<int64_t>(s.stats.median_ns)).c_str(),
                format_duration(s.stats.max_ns).c_str(), s.spread_pct, s.cv_pct);
    if (!steps_how.empty()) o += "  steps " + printable(steps_how, 400) + "\n";
    append_line(&o, "  %-22s %12s %12s %10s", "step", "start (ms)", "dur (ms)", "GPU idle");
    for (size_t i = 0; i < s.steps.size(); ++i) {
      const Step& st = s.steps[i];
      std::string idle = i < a.gpu_idle.idle_pct_per_step.size()
                             ? format_pct(a.gpu_idle.idle_pct_per_step[i])
                             : "-";
      append_line(&o, "  %-22s %12.3f %12.3f %10s",
                  printable(t.str(t.slices.name[st.slice])).c_str(),
                  static_cast<double>(st.begin - t0) / 1e6, static_cast<double>(st.dur()) / 1e6,
                  idle.c_str());
    }
  }
  if (a.gpu_idle.has_gpu_ops)
    append_line(
        &o, "GPU: busy %s of %s (%s idle, window: %s)", format_duration(a.gpu_idle.busy_ns).c_str(),
        format_duration(a.gpu_idle.window_ns).c_str(), format_pct(a.gpu_idle.idle_pct).c_str(),
        a.gpu_idle.window_is_steps ? "steps" : "GPU span");
  o.push_back('\n');

  const KernelSummary& k = a.kernels;
  append_line(&o, "Kernels: %zu names, %llu launches, %s total", k.rows.size(),
              static_cast<unsigned long long>(k.count), format_duration(k.total_ns).c_str());
  if (!k.rows.empty()) {
    append_line(&o, "  %6s %12s %9s %10s %10s %10s %10s %10s  %-13s %s", "Time%", "Total(us)",
                "Instances", "Avg(us)", "Med(us)", "Min(us)", "Max(us)", "StdDev", "Category",
                "Name");
    for (size_t i = 0; i < k.rows.size() && i < kTopKernels; ++i) {
      const KernelRow& row = k.rows[i];
      append_line(
          &o, "  %6.2f %12s %9llu %10s %10s %10s %10s %10s  %-13s %s", row.percent,
          us(static_cast<double>(row.stats.total_ns)).c_str(),
          static_cast<unsigned long long>(row.stats.count), us(row.stats.avg_ns).c_str(),
          us(row.stats.median_ns).c_str(), us(static_cast<double>(row.stats.min_ns)).c_str(),
          us(static_cast<double>(row.stats.max_ns)).c_str(), us(row.stats.stddev_ns).c_str(),
          hta_category_name(row.category), printable(t.str(row.name), 90).c_str());
    }
    if (k.rows.size() > kTopKernels)
      append_line(&o, "  ... %zu more (see --format json)", k.rows.size() - kTopKernels);
  }
  o.push_back('\n');

  const MemoryOpSummary& m = a.memory_ops;
  append_line(&o, "Memory ops: %llu ops, %s total", static_cast<unsigned long long>(m.count),
              format_duration(m.total_ns).c_str());
  for (const MemoryOpRow& row : m.rows) {
    append_line(&o, "  %-7s %7llu ops  %12s  %12s  %8.2f GB/s%s", memory_op_kind_name(row.kind),
                static_cast<unsigned long long>(row.stats.count),
                format_duration(row.stats.total_ns).c_str(), format_bytes(row.bytes).c_str(),
                row.gb_per_s,
                row.pageable ? (" (" + std::to_string(row.pageable) + " pageable)").c_str() : "");
  }
  o.push_back('\n');

  append_analyses_text(&o, t, a);
  append_line(&o, "Diagnostics:");
  bool any = false;
  for (int i = 0; i < static_cast<int>(Diag::kCount); ++i) {
    const DiagEntry& e = t.diagnostics.get(static_cast<Diag>(i));
    if (!e.count) continue;
    any = true;
    const DiagInfo& info = diag_info(static_cast<Diag>(i));
    append_line(&o, "  %-8s %-26s x%llu (first at byte %llu) %s", diag_severity_name(info.severity),
                info.code, static_cast<unsigned long long>(e.count),
                static_cast<unsigned long long>(e.first_offset),
                t.diagnostics.message(static_cast<Diag>(i)).c_str());
  }
  if (!any) append_line(&o, "  none: the input was read as written");
  return o;
}

}  // namespace ks
