// The JSON report: the stable, documented schema (docs/report-schema.md). Times are
// microseconds relative to the first event of the trace, as numbers with 3 decimals
// (nanosecond precision); absolute times are strings of integer nanoseconds.
#include "report/math_report.h"
#include "report/report.h"
#include "report/sections/sections.h"
#include "util/json_writer.h"

namespace ks {

std::string report_json(const Report& r) {
  const Trace& t = *r.trace;
  JsonWriter w;
  w.begin_object();
  w.field("schema", kReportSchema);
  w.field("generator", std::string_view(std::string("kinetoscope ") + kVersion));
  w.key("options").begin_object();
  w.field("drop_last_step", r.analyses.options.drop_last_step);
  w.end_object();
  write_section_json(w, trace_section(t));
  write_section_json(w, findings_section(&t, r.findings, kNoFindings));
  for (const ReportSection& s : report_sections(t, r.analyses)) write_section_json(w, s);
  w.key("math").begin_object();  // kinetoscope.math/1, as `kinetoscope math --format json`
  write_math_json(w, r.analyses.math, t.facts.source_name);
  w.end_object();
  write_section_json(w, diagnostics_section(t.diagnostics, t.facts.format));
  w.end_object();
  return w.take();
}

std::string import_error_json(const ImportError& e) {
  JsonWriter w;
  w.begin_object();
  w.field("code", import_error_code_name(e.code));
  w.field("message", std::string_view(e.message));
  // A file known by its name (foreign_format) has no byte to point at.
  if (e.code == ImportErrorCode::kForeignFormat)
    w.key("offset").null();
  else
    w.field("offset", e.offset);
  w.end_object();
  return w.take();
}

}  // namespace ks
