// The three writers of a ReportSection (report_table.h): every format's rules live here, once.
#include "report/report_table.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "model/trace.h"

#include "util/compact_name.h"
#include "util/format.h"
#include "util/markdown.h"
#include "util/safe_text.h"

namespace ks {

Cell Cell::optional(int64_t v) {
  return v == kNoValue ? null() : integer(v);
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

void ReportSection::text_block(std::string text, std::string_view then) {
  Part p;
  p.kind = Part::Kind::kTextBlock;
  p.text = std::move(text);
  p.then = then;
  parts.push_back(std::move(p));
}

void ReportSection::paragraph(std::string text, std::string_view then) {
  Part p;
  p.kind = Part::Kind::kParagraph;
  p.text = std::move(text);
  p.then = then;
  parts.push_back(std::move(p));
}

std::string_view ReportSection::own(std::string s) {
  return keep.emplace_back(std::move(s));
}

const char* ReportSection::own_c(std::string s) {
  return keep.emplace_back(std::move(s)).c_str();
}

Table& ReportSection::nested_table() {
  return nested.emplace_back();
}

namespace {

void write_row_json(JsonWriter& w, const Table& t, const std::vector<Cell>& row);

void write_micros_list(JsonWriter& w, const std::vector<int64_t>& ns) {
  w.begin_array();
  for (int64_t v : ns) {
    if (v == kNullMicros)
      w.null();
    else
      w.micros(v);
  }
  w.end_array();
}

void write_cell_json(JsonWriter& w, const Cell& c, int decimals) {
  switch (c.type) {
    case Cell::Type::kInts:
      w.begin_array();
      for (int64_t v : *c.ints) w.value(v);
      w.end_array();
      break;
    case Cell::Type::kMicrosList:
      write_micros_list(w, *c.ints);
      break;
    case Cell::Type::kMicrosRows:
      w.begin_array();
      for (const std::vector<int64_t>& row : *c.matrix) write_micros_list(w, row);
      w.end_array();
      break;
    case Cell::Type::kRows:
      w.begin_array();
      for (const std::vector<Cell>& row : c.nested->rows) write_row_json(w, *c.nested, row);
      w.end_array();
      break;
    case Cell::Type::kObject:
      if (c.nested->rows.empty())
        w.begin_object().end_object();
      else
        write_row_json(w, *c.nested, c.nested->rows.front());
      break;
    case Cell::Type::kRawList:
      w.begin_array();
      for (std::string_view doc : *c.raw) w.raw(doc);
      w.end_array();
      break;
    case Cell::Type::kTextList:
      w.begin_array();
      for (std::string_view v : *c.raw) w.value(v);
      w.end_array();
      break;
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
    case Cell::Type::kShare:
      w.value(c.d, share_digits(c.d, decimals));
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
    case Cell::Type::kShare:
    case Cell::Type::kNsDouble:
      return static_cast<int64_t>(c.d);
    default:
      return c.i;
  }
}

// "+1.250" / "-0.031": printf's "%+.*f", then `unit`.
std::string signed_fixed(double v, int digits, const char* unit) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%+.*f%s", digits, v, unit);
  return buf;
}

// A cell as text or Markdown shows it (`markdown`: names as code spans instead of display_safe).
std::string shown(const Column& col, const Cell& c, Show show, bool markdown) {
  if (c.type == Cell::Type::kNull) return col.null_text;
  if (col.empty_is_null && c.type == Cell::Type::kText && c.text.empty()) return col.null_text;
  switch (show) {
    case Show::kNone:
      return "";
    case Show::kPlain:
      switch (c.type) {
        case Cell::Type::kText:
          return std::string(c.text);
        case Cell::Type::kDouble:
        case Cell::Type::kShare:
        case Cell::Type::kNsDouble:
          return format_fixed(c.d, col.shown_digits);
        case Cell::Type::kUint:
          return std::to_string(c.u);
        case Cell::Type::kBool:
          return c.b ? "true" : "false";
        default:
          return std::to_string(c.i);
      }
    case Show::kName:  // long C++ names lose their parameter lists before they are cut
      return markdown ? markdown_code_cell(compact_name(c.text, col.md_max), col.md_max)
                      : display_safe(compact_name(c.text, col.text_max), col.text_max);
    case Show::kText:
      return markdown ? markdown_cell(c.text, col.md_max) : display_safe(c.text, col.text_max);
    case Show::kUs:
      return format_fixed(as_double(c) / 1e3, 1);
    case Show::kMicros:
      return format_fixed(as_double(c) / 1e3, col.shown_digits);
    case Show::kMs:
      return format_fixed(as_double(c) / 1e6, col.shown_digits);
    case Show::kSignedMs:
      return signed_fixed(as_double(c) / 1e6, col.shown_digits, "");
    case Show::kSignedPct:
      return signed_fixed(as_double(c), 1, "%");
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

// One line of the text table: the header (`row` null) or a row, each column `widths` wide.
void append_text_row(std::string* out, const Table& t, const std::vector<size_t>& cols,
                     const std::vector<int>& widths, const std::vector<Cell>* row) {
  *out += t.text_indent;
  for (size_t k = 0; k < cols.size(); ++k) {
    const Column& col = t.columns[cols[k]];
    if (k > 0) out->append(static_cast<size_t>(col.text_gap), ' ');
    if (!row) {
      append_padded(out, col.text_header, widths[k], col.align_left || col.text_align_left);
      continue;
    }
    *out += col.text_prefix;
    append_padded(out, shown(col, (*row)[cols[k]], col.text_show, false), widths[k],
                  col.align_left || col.text_align_left);
    *out += col.text_suffix;
  }
  *out += '\n';
}

// Each shown column's width: its own, or (kAutoWidth) the widest of its header and the cells
// the text shows.
std::vector<int> text_widths(const Table& t, const std::vector<size_t>& cols, size_t rows) {
  std::vector<int> widths;
  for (size_t c : cols) {
    const Column& col = t.columns[c];
    if (col.text_width != kAutoWidth) {
      widths.push_back(col.text_width);
      continue;
    }
    size_t w = t.text_header ? std::strlen(col.text_header) : 0;
    for (size_t r = 0; r < rows; ++r)
      w = std::max(w, shown(col, t.rows[r][c], col.text_show, false).size());
    widths.push_back(static_cast<int>(w));
  }
  return widths;
}

void append_table_text(std::string* out, const Table& t) {
  const std::vector<size_t> cols = shown_columns(t, false);
  const size_t rows = std::min(t.rows.size(), t.text_rows);
  if (rows == 0 || cols.empty()) return;
  const std::vector<int> widths = text_widths(t, cols, rows);
  if (t.text_header) append_text_row(out, t, cols, widths, nullptr);
  for (size_t r = 0; r < rows; ++r) {
    append_text_row(out, t, cols, widths, &t.rows[r]);
    if (r < t.text_notes.size())
      for (const std::string& note : t.text_notes[r]) *out += note + "\n";
  }
  const size_t total = t.rows.size() + t.omitted_rows;
  if (t.text_more_note && total > t.text_rows)
    append_line(out, "  ... %zu more (see --format json)", total - t.text_rows);
}

void append_table_markdown(std::string* out, const Table& t) {
  const std::vector<size_t> cols = shown_columns(t, true);
  if (t.rows.empty() || t.md_rows == 0 || cols.empty()) return;
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
  if (t.md_blank_after) *out += "\n";
}

}  // namespace

namespace {

// A row's nested object (Column::in) that its first column, `first`, starts: true when the
// object is written as null (Column::or_null, every cell of it absent); `end` is past it.
bool null_object(const Table& t, const std::vector<Cell>& row, size_t first, size_t* end) {
  const char* name = t.columns[first].path[0];
  *end = first;
  bool all_absent = true;
  for (; *end < t.columns.size() && !t.columns[*end].path.empty() &&
         std::strcmp(t.columns[*end].path[0], name) == 0;
       ++*end)
    all_absent = all_absent && (!t.columns[*end].key || row[*end].type == Cell::Type::kAbsent);
  return t.columns[first].object_or_null && all_absent;
}

void write_row_json(JsonWriter& w, const Table& t, const std::vector<Cell>& row) {
  w.begin_object();
  std::vector<const char*> open;  // the row's nested objects (Column::in) open now
  for (size_t c = 0; c < t.columns.size(); ++c) {
    const Column& col = t.columns[c];
    const bool starts_object =
        !col.path.empty() && (c == 0 || t.columns[c - 1].path.empty() ||
                              std::strcmp(t.columns[c - 1].path[0], col.path[0]) != 0);
    size_t end = c;
    if (starts_object && null_object(t, row, c, &end)) {
      for (; !open.empty(); open.pop_back()) w.end_object();
      w.key(col.path[0]).null();
      c = end - 1;
      continue;
    }
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

}  // namespace

void write_table_rows_json(JsonWriter& w, const Table& t) {
  if (!t.key) return;
  w.key(t.key).begin_array();
  for (const std::vector<Cell>& row : t.rows) write_row_json(w, t, row);
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
    else if (p.kind == ReportSection::Part::Kind::kTextBlock)
      out->append(p.text).append(p.then);
    else if (p.kind == ReportSection::Part::Kind::kTable)
      append_table_text(out, s.tables[p.table]);
  }
}

void append_section_markdown(std::string* out, const ReportSection& s) {
  for (const ReportSection::Part& p : s.parts) {
    if (p.kind == ReportSection::Part::Kind::kParagraph)
      out->append(p.text).append(p.then);
    else if (p.kind == ReportSection::Part::Kind::kTable)
      append_table_markdown(out, s.tables[p.table]);
  }
}

}  // namespace ks
