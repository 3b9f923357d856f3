// The report for a terminal: findings first (most severe first), then the facts, steps, top
// kernels and memory ops, diagnostics. Full tables are in --format json.
#include <cctype>
#include <cstdio>
#include <string>

#include "report/report.h"
#include "report/sections/sections.h"
#include "util/format.h"
#include "util/json_writer.h"
#include "util/safe_text.h"

namespace ks {

std::string report_text(const Report& r) {
  const Trace& t = *r.trace;
  const Analyses& a = r.analyses;
  std::string o;
  append_section_text(&o, trace_section(t));
  append_section_text(&o, findings_section(&t, r.findings, kNoFindings));

  for (const ReportSection& s : report_sections(t, a)) append_section_text(&o, s);
  append_section_text(&o, diagnostics_section(t.diagnostics, t.facts.format));
  return o;
}

}  // namespace ks
