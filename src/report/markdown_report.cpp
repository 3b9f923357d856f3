// The report as Markdown, to paste into a pull request or an issue: findings with their
// evidence and fix, then the step and kernel tables.
#include "report/report.h"
#include "report/text_sections.h"
#include "util/format.h"
#include "util/json_writer.h"
#include "util/markdown.h"
#include "util/safe_text.h"

namespace ks {

namespace {

constexpr size_t kTopKernels = 20;

std::string us(double ns) {
  return format_fixed(ns / 1e3, 1);
}

}  // namespace

std::string report_markdown(const Report& r) {
  const Trace& t = *r.trace;
  const Analyses& a = r.analyses;
  const TraceFacts& f = t.facts;
  const int64_t t0 = f.start_ns;
  TrackCounts c = count_tracks(t);
  std::string o;
  o += "# Kinetoscope report: " + markdown_code_cell(f.source_name) + "\n\n";
  o += "- Format: " + std::string(trace_format_name(f.format)) + ", " +
       format_bytes(static_cast<int64_t>(f.json_bytes)) +
       (f.format == TraceFormat::kNsysSqlite ? " of SQLite" : " of JSON") +
       (f.source_gzip ? " (gzip)" : "") + ", " + std::to_string(f.events_total) + " events, span " +
       format_duration(t.span_ns()) + "\n";
  o += "- " + std::to_string(c.processes) + " processes, " + std::to_string(c.threads) +
       " threads, " + std::to_string(c.gpu_devices) + " GPU devices, " +
       std::to_string(c.gpu_streams) + " GPU streams\n";
  if (!t.devices.empty()) o += "- Device: " + markdown_cell(t.devices.front().name, 120) + "\n";
  if (t.distributed.rank != kNoValue)
    o += "- Rank: " + std::to_string(t.distributed.rank) +
         (t.distributed.world_size != kNoValue ? " of " + std::to_string(t.distributed.world_size)
                                               : std::string()) +
         "\n";
  o += "\n## Findings\n\n";
  if (r.findings.empty()) o += "None: nothing in this trace crossed a rule's threshold.\n";
  for (const Finding& fd : r.findings) {
    o += "### " + std::string(severity_name(fd.severity)) + ": " + markdown_cell(fd.title, 0) +
         "\n\n";
    o += fd.meaning + "\n\n";
    for (const Evidence& e : fd.evidence) {
      o += "- " + e.key + ": ";
      if (e.is_number) {
        o += format_fixed(e.number, e.digits) + (e.unit == "%"    ? "%"
                                                 : e.unit.empty() ? ""
                                                                  : " " + e.unit);
      } else {
        o += markdown_code_cell(e.text);
      }
      o += "\n";
    }
    for (size_t i = 0; i < fd.ranges.size() && i < 3; ++i)
      o += "- at " + format_duration(fd.ranges[i].begin_ns - t0) + " .. " +
           format_duration(fd.ranges[i].end_ns - t0) + " " + markdown_cell(fd.ranges[i].label, 80) +
           "\n";
    o += "\n**Fix:** " + fd.fix + "\n";
    if (!fd.fix_code.empty()) o += "\n```python\n" + fd.fix_code + "\n```\n";
    o += "\n";
  }
  const StepsResult& s = a.steps;
  o += "## Steps\n\n";
  const std::string steps_how = steps_note(s, t.facts.format == TraceFormat::kNsysSqlite);
  if (s.stats.count == 0) {
    if (steps_how.empty())
      o += "No ProfilerStep markers: the trace is one window.\n\n";
    else
      o += "No steps (" + markdown_cell(steps_how, 400) + "): the trace is one window.\n\n";
  } else {
    if (!steps_how.empty()) o += "Steps " + markdown_cell(steps_how, 400) + ".\n\n";
    o += "min " + format_duration(s.stats.min_ns) + ", median " +
         format_duration(static_cast<int64_t>(s.stats.median_ns)) + ", max " +
         format_duration(s.stats.max_ns) + ", spread " + format_fixed(s.spread_pct, 1) + "%, CV " +
         format_fixed(s.cv_pct, 1) + "%" + (s.dropped_last ? " (last step dropped)" : "") +
         "\n\n| Step | Start (ms) | Duration (ms) | GPU idle |\n|---|---:|---:|---:|\n";
    for (size_t i = 0; i < s.steps.size(); ++i) {
      const Step& st = s.steps[i];
      o += "| " + markdown_cell(t.str(t.slices.name[st.slice]), 120) + " | " +
           format_fixed(static_cast<double>(st.begin - t0) / 1e6, 3) + " | " +
           format_fixed(static_cast<double>(st.dur()) / 1e6, 3) + " | " +
           (i < a.gpu_idle.idle_pct_per_step.size() ? format_pct(a.gpu_idle.idle_pct_per_step[i])
                                                    : std::string("-")) +
           " |\n";
    }
    o += "\n";
  }
  const KernelSummary& k = a.kernels;
  o += "## Kernels\n\n" + std::to_string(k.rows.size()) + " names, " + std::to_string(k.count) +
       " launches, " + format_duration(k.total_ns) + " total.\n\n";
  if (!k.rows.empty()) {
    o += "| Time % | Total (us) | Instances | Avg (us) | Med (us) | Min (us) | Max (us) | StdDev "
         "(us) "
         "| Category | Name |\n|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n";
    for (size_t i = 0; i < k.rows.size() && i < kTopKernels; ++i) {
      const KernelRow& row = k.rows[i];
      o += "| " + format_fixed(row.percent, 2) + " | " +
           us(static_cast<double>(row.stats.total_ns)) + " | " + std::to_string(row.stats.count) +
           " | " + us(row.stats.avg_ns) + " | " + us(row.stats.median_ns) + " | " +
           us(static_cast<double>(row.stats.min_ns)) + " | " +
           us(static_cast<double>(row.stats.max_ns)) + " | " + us(row.stats.stddev_ns) + " | " +
           hta_category_name(row.category) + " | " + markdown_code_cell(t.str(row.name), 120) +
           " |\n";
    }
    o += "\n";
  }
  const MemoryOpSummary& m = a.memory_ops;
  if (!m.rows.empty()) {
    o += "## Memory ops\n\n| Kind | Count | Total (us) | Bytes | GB/s | Pageable |\n"
         "|---|---:|---:|---:|---:|---:|\n";
    for (const MemoryOpRow& row : m.rows)
      o += "| " + std::string(memory_op_kind_name(row.kind)) + " | " +
           std::to_string(row.stats.count) + " | " + us(static_cast<double>(row.stats.total_ns)) +
           " | " + std::to_string(row.bytes) + " | " + format_fixed(row.gb_per_s, 2) + " | " +
           std::to_string(row.pageable) + " |\n";
    o += "\n";
  }
  append_analyses_markdown(&o, t, a);
  return o;
}

}  // namespace ks
