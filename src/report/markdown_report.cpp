// The report as Markdown, to paste into a pull request or an issue: findings with their
// evidence and fix, then the step and kernel tables.
#include "report/report.h"
#include "report/sections/sections.h"
#include "util/format.h"
#include "util/json_writer.h"
#include "util/markdown.h"
#include "util/safe_text.h"

namespace ks {

std::string report_markdown(const Report& r) {
  const Trace& t = *r.trace;
  const Analyses& a = r.analyses;
  std::string o;
  append_section_markdown(&o, trace_section(t));
  append_section_markdown(&o, findings_section(&t, r.findings, kNoFindings));
  for (const ReportSection& s : report_sections(t, a)) append_section_markdown(&o, s);
  return o;
}

}  // namespace ks
