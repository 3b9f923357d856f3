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
  const int64_t t0 = t.facts.start_ns;
  std::string o;
  append_section_markdown(&o, trace_section(t));
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
  for (const ReportSection& s : report_sections(t, a)) append_section_markdown(&o, s);
  return o;
}

}  // namespace ks
