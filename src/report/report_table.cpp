// The three writers of a ReportSection (report_table.h): every format's rules live here, once.
#include "report/report_table.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "model/trace.h"

#include "util/format.h"
#include "util/markdown.h"
#include "util/safe_text.h"

namespace ks {

Cell Cell::flag(bool v) {
  Cell c;
  c.type = Type::kBool;
  c.b = v;
  return c;
}
Cell Cell::integer(int64_t v) {
  Cell c;
  c.type = Type::kInt;
  c.i = v;
  return c;
}
Cell Cell::count(uint64_t v) {
  Cell c;
  c.type = Type::kUint;
  c.u = v;
  return c;
}
Cell Cell::number(double v) {
  Cell c;
  c.type = Type::kDouble;
  c.d = v;
  return c;
}
Cell Cell::ns(int64_t v) {
  Cell c;
  c.type = Type::kNs;
  c.i = v;
  return c;
}
Cell Cell::ns(double v) {
  Cell c;
  c.type = Type::kNsDouble;
  c.d = v;
  return c;
}
Cell Cell::str(std::string_view v) {
  Cell c;
  c.type = Type::kText;
  c.text = v;
  return c;
}
Cell Cell::absent() {
  Cell c;
  c.type = Type::kAbsent;
  return c;
}
Cell Cell::optional(int64_t v) {
  return v == kNoValue ? null() : integer(v);
}
Cell Cell::pairs(const std::vector<std::array<int64_t, 2>>* v) {
  Cell c;
  c.type = Type::kSeries;
  c.series = v;
  return c;
}

void ReportSection::field(std::string k, Cell value, int json_decimals) {
  Part p;
  p.kind = Part::Kind::kField;
  p.key = std::move(k);
  p.cell = value;
  p.json_decimals = json_decimals;
  parts.push_back(std::move(p));
}

void ReportSection::begin_object(std::string k) {
  Part p;
  p.kind = Part::Kind::kBeginObject;
  p.key = std::move(k);
  parts.push_back(std::move(p));
}

void ReportSection::end_object() {
  Part p;
  p.kind = Part::Kind::kEndObject;
  parts.push_back(std::move(p));
}

void ReportSection::fields(const std::vector<Column>& columns, const std::vector<Cell>& cells) {
  size_t open = 0;  // nesting of Column::in paths of one level (a second level is not needed)
  for (size_t c = 0; c < columns.size(); ++c) {
    const Column& col = columns[c];
    if (open && (col.path.empty() || std::strcmp(col.path[0], columns[c - 1].path[0]) != 0)) {
      end_object();
      open = 0;
    }
    if (!open && !col.path.empty()) {
      begin_object(col.path[0]);
      open = 1;
    }
    field(col.key, cells[c], col.json_decimals);
  }
  if (open) end_object();
}

Table& ReportSection::table(const char* json_key) {
  Part p;
  p.kind = Part::Kind::kTable;
  p.table = tables.size();
  parts.push_back(std::move(p));
  Table& t = tables.emplace_back();
  t.key = json_key;
  return t;
}

void ReportSection::line(std::string text) {
  Part p;
  p.kind = Part::Kind::kLine;
  p.text = std::move(text);
  parts.push_back(std::move(p));
}

void ReportSection::linef(const char* fmt, ...) {
  char buf[1024];  // as append_line: one line of at most 1023 bytes
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  line(buf);
}

void ReportSection::paragraph(std::string text) {
  Part p;
  p.kind = Part::Kind::kParagraph;
  p.text = std::move(text);
  parts.push_back(std::move(p));
}

std::string_view ReportSection::own(std::string s) {
  return keep.emplace_back(std::move(s));
}

namespace {

void write_cell_json(JsonWriter& w, const Cell& c, int decimals) {
  switch (c.type) {
    case Cell::Type::kNull:
    case Cell::Type::kAbsent:
      w.null();
      break;
    case Cell::Type::kSeries:
      w.begin_array();
      for (const std::array<int64_t, 2>& p : *c.series) {
        w.begin_array();
        w.micros(p[0]);
        w.value(p[1]);
        w.end_array();
      }
      w.end_array();
      break;
    case Cell::Type::kBool:
      w.value(c.b);
      break;
    case Cell::Type::kInt:
      w.value(c.i);
      break;
    case Cell::Type::kUint:
      w.value(c.u);
      break;
    case Cell::Type::kDouble:
      w.value(c.d, decimals);
      break;
    case Cell::Type::kNs:
      w.micros(c.i);
      break;
    case Cell::Type::kNsDouble:
      w.value(c.d / 1e3, 3);
      break;
    case Cell::Type::kText:
      w.value(c.text);
      break;
  }
}

double as_double(const Cell& c) {
  switch (c.type) {
    case Cell::Type::kInt:
    case Cell::Type::kNs:
      return static_cast<double>(c.i);
    case Cell::Type::kUint:
      return static_cast<double>(c.u);
    case Cell::Type::kBool:
      return c.b ? 1 : 0;
    default:
      return c.d;
  }
}

int64_t as_int(const Cell& c) {
  switch (c.type) {
    case Cell::Type::kUint:
      return static_cast<int64_t>(c.u);
    case Cell::Type::kDouble:
    case Cell::Type::kNsDouble:
      return static_cast<int64_t>(c.d);
    default:
      return c.i;
  }
}

// A cell as text or Markdown shows it (`markdown`: names as code spans instead of display_safe).
std::string shown(const Column& col, const Cell& c, Show show, bool markdown) {
  if (c.type == Cell::Type::kNull) return col.null_text;
  switch (show) {
    case Show::kNone:
      return "";
    case Show::kPlain:
      switch (c.type) {
        case Cell::Type::kText:
          return std::string(c.text);
        case Cell::Type::kDouble:
        case Cell::Type::kNsDouble:
          return format_fixed(c.d, col.shown_digits);
        case Cell::Type::kUint:
          return std::to_string(c.u);
        case Cell::Type::kBool:
          return c.b ? "true" : "false";
        default:
          return std::to_string(c.i);
      }
    case Show::kName:
      return markdown ? markdown_code_cell(c.text, col.md_max) : display_safe(c.text, col.text_max);
    case Show::kText:
      return markdown ? markdown_cell(c.text, col.md_max) : display_safe(c.text, col.text_max);
    case Show::kUs:
      return format_fixed(as_double(c) / 1e3, 1);
    case Show::kMs:
      return format_fixed(as_double(c) / 1e6, col.shown_digits);
    case Show::kDuration:
      return format_duration(as_int(c));
    case Show::kBytes:
      return format_bytes(as_int(c));
    case Show::kPct:
      return format_pct(as_double(c));
  }
  return "";
}

std::vector<size_t> shown_columns(const Table& t, bool markdown) {
  std::vector<size_t> order = t.shown;
  if (order.empty())
    for (size_t i = 0; i < t.columns.size(); ++i) order.push_back(i);
  std::vector<size_t> out;
  for (size_t i : order)
    if ((markdown ? t.columns[i].md_show : t.columns[i].text_show) != Show::kNone) out.push_back(i);
  return out;
}

// printf's "%*s" / "%-*s": pads by bytes, as the report always has.
void append_padded(std::string* out, const std::string& v, int width, bool left) {
  size_t pad = width > 0 && v.size() < static_cast<size_t>(width) ? width - v.size() : 0;
  if (!left) out->append(pad, ' ');
  *out += v;
  if (left) out->append(pad, ' ');
}

// One line of the text table: the header (`row` null) or a row.
void append_text_row(std::string* out, const Table& t, const std::vector<size_t>& cols,
                     const std::vector<Cell>* row) {
  *out += t.text_indent;
  for (size_t k = 0; k < cols.size(); ++k) {
    const Column& col = t.columns[cols[k]];
    if (k > 0) out->append(static_cast<size_t>(col.text_gap), ' ');
    if (!row) {
      append_padded(out, col.text_header, col.text_width, col.align_left || col.text_align_left);
      continue;
    }
    *out += col.text_prefix;
    append_padded(out, shown(col, (*row)[cols[k]], col.text_show, false), col.text_width,
                  col.align_left || col.text_align_left);
    *out += col.text_suffix;
  }
  *out += '\n';
}

void append_table_text(std::string* out, const Table& t) {
  const std::vector<size_t> cols = shown_columns(t, false);
  if (t.rows.empty() || cols.empty()) return;
  if (t.text_header) append_text_row(out, t, cols, nullptr);
  for (size_t r = 0; r < t.rows.size() && r < t.text_rows; ++r)
    append_text_row(out, t, cols, &t.rows[r]);
  const size_t total = t.rows.size() + t.omitted_rows;
  if (t.text_more_note && total > t.text_rows)
    append_line(out, "  ... %zu more (see --format json)", total - t.text_rows);
}

void append_table_markdown(std::string* out, const Table& t) {
  const std::vector<size_t> cols = shown_columns(t, true);
  if (t.rows.empty() || cols.empty()) return;
  *out += "|";
  for (size_t c : cols) *out += std::string(" ") + t.columns[c].md_header + " |";
  *out += "\n|";
  for (size_t c : cols)
    *out += t.columns[c].align_left || t.columns[c].md_align_left ? "---|" : "---:|";
  *out += "\n";
  for (size_t r = 0; r < t.rows.size() && r < t.md_rows; ++r) {
    *out += "|";
    for (size_t c : cols)
      *out += " " + shown(t.columns[c], t.rows[r][c], t.columns[c].md_show, true) + " |";
    *out += "\n";
  }
  *out += "\n";
}

}  // namespace

void write_table_rows_json(JsonWriter& w, const Table& t) {
  if (!t.key) return;
  w.key(t.key).begin_array();
  std::vector<const char*> open;  // the row's nested objects (Column::in) open now
  for (const std::vector<Cell>& row : t.rows) {
    w.begin_object();
    for (size_t c = 0; c < t.columns.size(); ++c) {
      const Column& col = t.columns[c];
      if (!col.key || row[c].type == Cell::Type::kAbsent) continue;
      size_t common = 0;
      while (common < open.size() && common < col.path.size() &&
             std::strcmp(open[common], col.path[common]) == 0)
        ++common;
      for (; open.size() > common; open.pop_back()) w.end_object();
      while (open.size() < col.path.size()) {
        w.key(col.path[open.size()]).begin_object();
        open.push_back(col.path[open.size()]);
      }
      w.key(col.key);
      write_cell_json(w, row[c], col.json_decimals);
    }
    for (; !open.empty(); open.pop_back()) w.end_object();
    w.end_object();
  }
  w.end_array();
  if (t.omitted_rows > 0) {
    w.field("omitted_rows", t.omitted_rows);
    w.field_micros("omitted_total_us", t.omitted_ns);
  }
}

void write_section_json(JsonWriter& w, const ReportSection& s) {
  if (s.key) w.key(s.key).begin_object();
  for (const ReportSection::Part& p : s.parts) {
    if (p.kind == ReportSection::Part::Kind::kField) {
      if (p.cell.type == Cell::Type::kAbsent) continue;
      w.key(p.key);
      write_cell_json(w, p.cell, p.json_decimals);
    } else if (p.kind == ReportSection::Part::Kind::kTable) {
      write_table_rows_json(w, s.tables[p.table]);
    } else if (p.kind == ReportSection::Part::Kind::kBeginObject) {
      w.key(p.key).begin_object();
    } else if (p.kind == ReportSection::Part::Kind::kEndObject) {
      w.end_object();
    }
  }
  if (s.key) w.end_object();
}

void append_section_text(std::string* out, const ReportSection& s) {
  for (const ReportSection::Part& p : s.parts) {
    if (p.kind == ReportSection::Part::Kind::kLine)
      *out += p.text + "\n";
    else if (p.kind == ReportSection::Part::Kind::kTable)
      append_table_text(out, s.tables[p.table]);
  }
}

void append_section_markdown(std::string* out, const ReportSection& s) {
  for (const ReportSection::Part& p : s.parts) {
    if (p.kind == ReportSection::Part::Kind::kParagraph)
      *out += p.text;
    else if (p.kind == ReportSection::Part::Kind::kTable)
      append_table_markdown(out, s.tables[p.table]);
  }
}

}  // namespace ks
