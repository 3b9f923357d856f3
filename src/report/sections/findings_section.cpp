// Findings, most severe first: JSON `findings` (id, severity, title, meaning, evidence, time
// ranges, events to jump to, fix), a block of lines each in a terminal, a heading and bullets
// each in Markdown. The single-trace and the multi-rank report render them alike.
#include <cctype>
#include <cstring>
#include <string>
#include <utility>

#include "report/sections/sections.h"
#include "util/compact_name.h"
#include "util/format.h"
#include "util/markdown.h"
#include "util/safe_text.h"

namespace ks {

namespace {

// A number of evidence as a reader reads it, its key without the unit the value now carries:
// ("min_us", 209980) -> ("min", "209.98 ms"), ("bytes", 1572864, B) -> ("bytes", "1.50 MiB").
std::pair<std::string, std::string> readable_evidence(const Evidence& e) {
  if (e.unit == "us") {
    const bool suffixed = e.key.size() > 3 && e.key.compare(e.key.size() - 3, 3, "_us") == 0;
    return {suffixed ? e.key.substr(0, e.key.size() - 3) : e.key,
            format_duration(static_cast<int64_t>(e.number * 1000.0 + 0.5))};
  }
  if (e.unit == "B") return {e.key, format_bytes(static_cast<int64_t>(e.number))};
  std::string v = format_fixed(e.number, e.digits);
  if (e.unit == "%")
    v += "%";
  else if (!e.unit.empty())
    v += " " + e.unit;
  return {e.key, v};
}

// "min=209.98 ms", "bytes=1.50 MiB", "share=44%": a number with its unit, for a terminal.
std::string evidence_text(const Evidence& e) {
  if (!e.is_number) return display_safe(e.key, 120) + "=" + display_safe(e.text, 120);
  const auto [key, value] = readable_evidence(e);
  return display_safe(key, 120) + "=" + value;
}

// An evidence key as Markdown: the rules' own words ("allocator (cudaMalloc/cudaFree)": no
// character that starts a link, an image, a tag, code or emphasis, nor the '.' and ':' of an
// autolink) as they are; any other (the multi-rank rules name ranks by their file) escaped.
std::string markdown_key(const std::string& key) {
  for (char c : key)
    if (!std::isalnum(static_cast<unsigned char>(c)) && !std::strchr("_ ()/-,%=", c))
      return markdown_text(key);
  return key;
}

// "- share: 44%" / "- min: 209.98 ms" / "- kernel: `name`": one bullet of evidence in Markdown,
// numbers as the terminal shows them (the JSON keeps the exact values and their keys).
std::string evidence_bullet(const Evidence& e) {
  if (!e.is_number) return "- " + markdown_key(e.key) + ": " + markdown_code_cell(e.text) + "\n";
  const auto [key, value] = readable_evidence(e);
  return "- " + markdown_key(key) + ": " + value + "\n";
}

// The JSON of one finding's evidence (an object of its own keys), ranges and events.
void add_json_cells(ReportSection* s, const Trace* trace, const Finding& f,
                    std::vector<Cell>* row) {
  const int64_t t0 = trace ? trace->facts.origin_ns() : 0;
  Table& evidence = s->nested_table();
  std::vector<Cell>& values = evidence.row();
  for (const Evidence& e : f.evidence) {
    evidence.columns.push_back(Column(e.key.c_str()).json(e.digits));
    values.push_back(e.is_number ? Cell::number(e.number) : Cell::str(e.text));
  }
  Table& ranges = s->nested_table();
  ranges.columns = {Column("start_us"), Column("end_us"), Column("label")};
  for (const TimeRange& r : f.ranges)
    ranges.row() = {Cell::ns(r.begin_ns - t0), Cell::ns(r.end_ns - t0), Cell::str(r.label)};
  Table& events = s->nested_table();
  events.columns = {Column("name"), Column("ts_us"), Column("dur_us"), Column("byte_offset"),
                    Column("event_id")};
  for (uint32_t i : f.events) {
    if (!trace) break;
    const Trace& t = *trace;
    const uint64_t offset = t.slices.file_offset(i);
    // Past 2^53 (an nsys export's row id: its table in the top byte) also as exact digits.
    const bool inexact = offset > (uint64_t{1} << 53) - 1;
    events.row() = {Cell::str(t.str(t.slices.name[i])), Cell::ns(t.slices.ts[i] - t0),
                    Cell::ns(t.slices.dur[i]), Cell::count(offset),
                    inexact ? Cell::str(s->own(std::to_string(offset))) : Cell::absent()};
  }
  *row = {Cell::str(f.id),         Cell::str(severity_name(f.severity)),
          Cell::str(f.title),      Cell::str(f.meaning),
          Cell::object(&evidence), Cell::rows(&ranges),
          Cell::rows(&events),     Cell::str(f.fix),
          Cell::str(f.fix_code)};
}

}  // namespace

ReportSection findings_section(const Trace* trace, const std::vector<Finding>& findings,
                               const char* none) {
  const int64_t t0 = trace ? trace->facts.origin_ns() : 0;
  ReportSection s(nullptr);
  Table& t = s.table("findings");
  t.columns = {Column("id"),      Column("severity"), Column("title"),
               Column("meaning"), Column("evidence"), Column("ranges"),
               Column("events"),  Column("fix"),      Column("fix_code")};
  s.line("Findings (" + std::to_string(findings.size()) + ")");
  s.paragraph("\n## Findings\n\n");
  if (findings.empty()) {
    s.line(std::string("  none: ") + none);
    s.paragraph("None: " + std::string(none) + ".\n");
  }
  for (const Finding& f : findings) {
    add_json_cells(&s, trace, f, &t.row());
    std::string sev = severity_name(f.severity);
    for (char& ch : sev) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    s.line("  [" + sev + "] " + display_safe(f.title) + "  (" + f.id + ")");
    s.line("      " + f.meaning);
    std::string ev;
    for (const Evidence& e : f.evidence) ev += (ev.empty() ? "" : ", ") + evidence_text(e);
    if (!ev.empty()) s.line("      evidence: " + ev);
    std::string md = "### " + std::string(severity_name(f.severity)) + ": " +
                     markdown_cell(f.title, 0) + "\n\n" + f.meaning + "\n\n";
    for (const Evidence& e : f.evidence) md += evidence_bullet(e);
    for (size_t i = 0; i < f.ranges.size() && i < 3; ++i) {
      const TimeRange& r = f.ranges[i];
      const std::string span =
          "at " + format_duration(r.begin_ns - t0) + " .. " + format_duration(r.end_ns - t0);
      s.line("      " + span + "  " + display_safe(compact_name(r.label, 80), 80));
      md += "- " + span + " " + markdown_cell(r.label, 80) + "\n";
    }
    s.line("      fix: " + f.fix);
    md += "\n**Fix:** " + f.fix + "\n";
    if (!f.fix_code.empty()) md += "\n```python\n" + f.fix_code + "\n```\n";
    s.paragraph(md + "\n");
  }
  s.line("");
  return s;
}

}  // namespace ks
