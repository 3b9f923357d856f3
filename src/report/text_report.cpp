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

namespace {

// Names may hold anything; in a terminal, control characters, bidi overrides and invalid UTF-8
// are shown as '?' (util/safe_text.h), and a cut never splits a character.
std::string printable(std::string_view s, size_t max_len = 0) {
  return display_safe(s, max_len);
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
  const int64_t t0 = t.facts.start_ns;
  std::string o;
  append_section_text(&o, trace_section(t));
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

  for (const ReportSection& s : report_sections(t, a)) append_section_text(&o, s);
  append_section_text(&o, diagnostics_section(t.diagnostics, t.facts.format));
  return o;
}

}  // namespace ks
