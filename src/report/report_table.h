// The report's one model of a section: what an analysis shows, described once, and rendered by
// three writers (report_table.cpp) as JSON (docs/report-schema.md), text (a terminal) and
// Markdown (a pull request). A builder (report/sections/*.cpp, one per concern) fills a
// ReportSection from an analysis result; it never writes bytes of any format itself.
//
// A section is a list of parts, in order:
//   - Field:  one JSON value of the section's object (count, total_us, ...); JSON only.
//   - Object: begin_object(key) .. end_object(): the fields and tables between them nest in a
//             JSON object of that key (JSON only).
//   - Table:  rows of typed cells under named columns; every format renders it, each column
//             saying whether and how it shows in each format (Column below): its width (or
//             kAutoWidth), alignment, null text. A cell may also be a list, a matrix or a
//             nested table's rows or object (JSON only: a heat map, a kernel's top kernels, a
//             finding's evidence), and a text row may carry note lines under it.
//   - Line / Paragraph: the sentence a terminal (Line) or Markdown (Paragraph) shows; the
//             wording differs on purpose (a one-line summary vs prose), so each format gets its
//             own, written by the builder. TextBlock: text written as it is (a rank's report).
// The writers own every format's rules (JSON numbers, text padding, Markdown escaping of trace
// strings, the row limits and the "N more" notes), so a new section cannot get them wrong.
//
// The trace's report, the multi-rank report, the diff, the math and the critical-path reports
// are all sections; each command's writer renders its list of sections in its format's order.
//
// Adding a section (e.g. a new analysis "foo"):
//   1. report/sections/foo_section.cpp: `ReportSection foo_section(const Trace&, const Foo&)`:
//      ReportSection s("foo") (its JSON key); add fields; add a Table (s.table("rows")) with
//      its columns (JSON key, text header and width, Markdown header, how each format shows the
//      value) and one row of cells per result row; add the text Line and Markdown Paragraph
//      (heading included: "## Foo\n\n").
//   2. Declare it in report/sections/sections.h and list it at its place in report_sections
//      (report/sections/analyses_sections.cpp): json_report.cpp, text_report.cpp and
//      markdown_report.cpp render that list (write_section_json, append_section_text,
//      append_section_markdown).
//   3. Document the JSON keys in docs/report-schema.md; approve the goldens
//      (UPDATE=1 bash tests/golden/check.sh) after reading the diff.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "util/json_writer.h"

namespace ks {

struct Table;

// One value. Strings are views: into the trace's string pool, a static label, or the
// section's own storage (ReportSection::keep).
struct Cell {
  enum class Type : uint8_t {
    kNull,
    kAbsent,
    kBool,
    kInt,
    kUint,
    kDouble,
    kShare,  // a percentage: kDouble whose JSON never rounds a share that is not all to 100
    kNs,
    kNsDouble,
    kText,
    kSeries,
    kInts,        // [1, 2, 3]
    kMicrosList,  // [us, null, us]: times in ns, kNullMicros as null
    kMicrosRows,  // [[us, null], [us, us]]: a matrix of such times (a heat map)
    kRows,        // [{...}, {...}]: the rows of a nested Table
    kObject,      // {...}: the first row of a nested Table as one object ({} without rows)
    kRawList,     // [doc, doc]: JSON documents written elsewhere (each rank's whole report)
    kTextList     // ["a", "b"]
  };
  Type type = Type::kNull;
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  std::string_view text;
  const std::vector<std::array<int64_t, 2>>* series = nullptr;
  const std::vector<int64_t>* ints = nullptr;
  const std::vector<std::vector<int64_t>>* matrix = nullptr;
  const Table* nested = nullptr;
  const std::vector<std::string_view>* raw = nullptr;

  static Cell null() { return Cell{}; }
  // JSON leaves the key out (and a row's nested object, Column::in, holding only these)
  static Cell absent() { return with(Type::kAbsent, &Cell::b, false); }
  static Cell flag(bool v) { return with(Type::kBool, &Cell::b, v); }
  static Cell integer(int64_t v) { return with(Type::kInt, &Cell::i, v); }
  static Cell count(uint64_t v) { return with(Type::kUint, &Cell::u, v); }
  // JSON decimals: the column's (or the field's) json_digits
  static Cell number(double v) { return with(Type::kDouble, &Cell::d, v); }
  // a percentage: as number(), with the JSON decimals (more than json_digits where needed) that
  // keep 99.996 from reading 100 and 0.004 from reading 0 (share_digits)
  static Cell share(double pct) { return with(Type::kShare, &Cell::d, pct); }
  // a time: JSON microseconds with 3 decimals, exactly
  static Cell ns(int64_t v) { return with(Type::kNs, &Cell::i, v); }
  // a mean or a median: JSON ns / 1e3 with 3 decimals
  static Cell ns(double v) { return with(Type::kNsDouble, &Cell::d, v); }
  static Cell str(std::string_view v) { return with(Type::kText, &Cell::text, v); }
  // an integer, or null for kNoValue (a device, a stream)
  static Cell optional(int64_t v);
  // (time in ns, value) pairs as JSON [[us, value], ...]: a series over time
  static Cell pairs(const std::vector<std::array<int64_t, 2>>* v) {
    return with(Type::kSeries, &Cell::series, v);
  }
  // Arrays and objects (JSON only; text and Markdown show a table's scalars):
  static Cell int_list(const std::vector<int64_t>* v) { return with(Type::kInts, &Cell::ints, v); }
  static Cell micros_list(const std::vector<int64_t>* ns) {
    return with(Type::kMicrosList, &Cell::ints, ns);
  }
  static Cell micros_rows(const std::vector<std::vector<int64_t>>* ns) {
    return with(Type::kMicrosRows, &Cell::matrix, ns);
  }
  // a row's list of objects (a kernel's top kernels)
  static Cell rows(const Table* t) { return with(Type::kRows, &Cell::nested, t); }
  // a row's object of keys known only at run time (a finding's evidence)
  static Cell object(const Table* t) { return with(Type::kObject, &Cell::nested, t); }
  static Cell raw_list(const std::vector<std::string_view>* docs) {
    return with(Type::kRawList, &Cell::raw, docs);
  }
  static Cell text_list(const std::vector<std::string_view>* strings) {
    return with(Type::kTextList, &Cell::raw, strings);
  }

 private:
  template <class Field, class Value>
  static Cell with(Type type, Field Cell::*field, Value v) {
    Cell c;
    c.type = type;
    c.*field = v;
    return c;
  }
};

// Cell::micros_list / micros_rows: this value is JSON null (a step a rank does not have).
constexpr int64_t kNullMicros = INT64_MIN;

// Column::text's width for a column as wide as its widest shown cell or its header.
constexpr int kAutoWidth = -1;

// How a cell is shown in the text or the Markdown table.
enum class Show : uint8_t {
  kNone,       // not in this format
  kPlain,      // integers as digits, doubles with `digits` decimals, text as it is (our labels)
  kName,       // a trace string: text display_safe(max), Markdown a code span (markdown_code_cell)
  kText,       // a trace string as prose: text display_safe(max), Markdown markdown_cell(max)
  kUs,         // nanoseconds as microseconds with 1 decimal (the nsys-style "Total(us)" columns)
  kMicros,     // nanoseconds as microseconds with `digits` decimals
  kMs,         // nanoseconds as milliseconds with `digits` decimals
  kSignedMs,   // the same with its sign: "+1.250", "-0.031" (a change)
  kSignedPct,  // a change in percent with its sign and 1 decimal: "+12.5%"
  kDuration,   // nanoseconds, human: "1.23 ms"
  kBytes,      // bytes, human: "1.50 MiB"
  kPct,        // a percentage, human: "12.3%"
};

// One column: its JSON key and how text and Markdown show it. Built by chaining:
//   Column("percent").json_digits(2).text("Time%", Show::kPlain, 6).md("Time %", Show::kPlain)
struct Column {
  explicit Column(const char* json_key) : key(json_key) {}
  Column& json(int decimals) {
    json_decimals = decimals;
    return *this;
  }
  // `width`: printf's minimum width (0: none; kAutoWidth: the widest shown cell or header);
  // `gap`: spaces before the column (the first column gets the table's indent instead).
  Column& text(const char* header, Show show, int width = 0, int gap = 1) {
    text_header = header;
    text_show = show;
    text_width = width;
    text_gap = gap;
    return *this;
  }
  Column& md(const char* header, Show show) {
    md_header = header;
    md_show = show;
    return *this;
  }
  Column& left() {  // left-aligned in both (text pads on the right; Markdown `---`)
    align_left = true;
    return *this;
  }
  Column& text_left() {  // left-aligned in text only
    text_align_left = true;
    return *this;
  }
  Column& md_left() {  // left-aligned in Markdown only
    md_align_left = true;
    return *this;
  }
  Column& digits(int d) {  // decimals of Show::kPlain doubles in text and Markdown
    shown_digits = d;
    return *this;
  }
  Column& max_len(size_t text_bytes, size_t md_bytes) {  // Show::kName cuts
    text_max = text_bytes;
    md_max = md_bytes;
    return *this;
  }
  Column& suffix(const char* s) {  // text only: after the padded value (" ops")
    text_suffix = s;
    return *this;
  }
  Column& prefix(const char* s) {  // text only: before the padded value ("max ")
    text_prefix = s;
    return *this;
  }
  // JSON: the value nests in the row's object `a` (and in it `b`): {"delay": {"count": ..}}
  Column& in(const char* a, const char* b = nullptr) {
    path = {a};
    if (b) path.push_back(b);
    return *this;
  }
  Column& null_as(const char* s) {  // text and Markdown show of a null cell ("-" by default)
    null_text = s;
    return *this;
  }
  Column& empty_as_null() {  // text and Markdown show an empty string as a null cell
    empty_is_null = true;
    return *this;
  }
  // JSON: the nested object of Column::in is `null` in a row where all its cells are absent
  // (set on the object's first column); without it such an object is left out.
  Column& or_null() {
    object_or_null = true;
    return *this;
  }

  const char* key;  // JSON key; nullptr: not in JSON
  int json_decimals = 2;
  const char* text_header = "";
  Show text_show = Show::kNone;
  int text_width = 0;
  int text_gap = 1;
  const char* text_suffix = "";
  const char* text_prefix = "";
  const char* md_header = "";
  Show md_show = Show::kNone;
  bool align_left = false;
  bool text_align_left = false;
  bool md_align_left = false;
  int shown_digits = 2;
  size_t text_max = 0, md_max = 0;
  std::vector<const char*> path;
  const char* null_text = "-";
  bool empty_is_null = false;
  bool object_or_null = false;
};

// Tables of names (kernels, CPU ops, API calls, annotations) list at most this many rows in
// JSON, the largest first, then say what they left out (only when they do): `omitted_rows`
// and `omitted_total_us`. A trace of 10^6 distinct names gave a 365 MB report; this keeps it
// under a few MB while every total above the rows still counts everything.
constexpr size_t kMaxTableRows = 1000;

// Tables of steps (and inferred iterations) list the first kMaxTableRows in JSON, in time order,
// with `omitted_rows` and `omitted_total_us` after them, and the first kMaxStepRowsShown in text
// and Markdown: a capture of 200 k steps gave a 121 MB JSON report and a 12 MB text one. The
// statistics above the rows, and the step findings, cover every step.
constexpr size_t kMaxStepRowsShown = 100;

struct Table {
  const char* key = "rows";  // JSON key of the array of row objects; nullptr: not in JSON
  std::vector<Column> columns;
  // Text and Markdown column order, as indices into `columns` (empty: `columns` in order);
  // the JSON objects keep `columns` order (the schema's).
  std::vector<size_t> shown;
  // The rows any format shows (JSON shows them all): a builder stops at kMaxTableRows and
  // records the rest with omit().
  std::vector<std::vector<Cell>> rows;

  // Rows left out (past kMaxTableRows) and their summed time: JSON `omitted_rows` and
  // `omitted_total_us` after the array, only when there are some.
  uint64_t omitted_rows = 0;
  int64_t omitted_ns = 0;

  size_t text_rows = SIZE_MAX, md_rows = SIZE_MAX;
  bool text_header = true;  // the header line above the text rows
  const char* text_indent = "  ";
  bool text_more_note = false;  // "  ... N more (see --format json)" past text_rows
  bool md_blank_after = true;   // the blank line that ends a Markdown table
  // Text only: lines printed under a row (text_notes[r] for row r; may be shorter than rows),
  // as the builder words them (a row's top kernel, a caveat).
  std::vector<std::vector<std::string>> text_notes;

  std::vector<Cell>& row() { return rows.emplace_back(); }
  // Shown in no format but JSON (e.g. a GPU table in a report of a CPU-only trace).
  void json_only() {
    for (Column& c : columns) c.text_show = c.md_show = Show::kNone;
  }
  // Whether one more row fits (the first kMaxTableRows); past that, counts it and its time
  // `ns` as omitted. For builders that add one row per item in their own loop.
  bool room_for_row(int64_t ns) {
    if (rows.size() < kMaxTableRows) return true;
    ++omitted_rows;
    omitted_ns += ns;
    return false;
  }
  // Takes the first kMaxTableRows of `all` through `add(row)`, and counts the rest, whose
  // time `ns_of(row)` gives, as omitted.
  template <class Rows, class Add, class NsOf>
  void add_rows_capped(const Rows& all, Add add, NsOf ns_of) {
    for (size_t i = 0; i < all.size(); ++i) {
      if (i < kMaxTableRows) {
        add(all[i]);
      } else {
        ++omitted_rows;
        omitted_ns += ns_of(all[i]);
      }
    }
  }
};

struct ReportSection {
  struct Part {
    enum class Kind : uint8_t {
      kField,
      kTable,
      kLine,
      kTextBlock,
      kParagraph,
      kBeginObject,
      kEndObject
    };
    Kind kind = Kind::kLine;
    std::string key;  // kField, kBeginObject: the JSON key
    Cell cell;        // kField: the value (decimals: json_decimals)
    int json_decimals = 2;
    size_t table = 0;  // kTable: index into tables
    // kLine (a newline is added) / kTextBlock, kParagraph (written as they are)
    std::string text;
    std::string_view then;  // kTextBlock, kParagraph: written after `text`, not copied
  };

  // Cells view the section's own strings (keep): a copy would view the original's, so a
  // section only moves (a vector of them moves too, its copy being deleted).
  explicit ReportSection(const char* json_key = "") : key(json_key) {}
  ReportSection(ReportSection&&) = default;
  ReportSection& operator=(ReportSection&&) = default;
  ReportSection(const ReportSection&) = delete;

  // The JSON object's key; nullptr: the parts go in the enclosing object (a top-level array,
  // a section of text lines only).
  const char* key = "";
  std::vector<Part> parts;
  std::deque<Table> tables;
  std::deque<std::string> keep;  // storage for strings that cells view
  std::deque<std::vector<std::array<int64_t, 2>>> keep_series;  // and series (Cell::pairs)
  std::deque<std::vector<int64_t>> keep_ints;                   // Cell::int_list, micros_list
  std::deque<std::vector<std::vector<int64_t>>> keep_matrix;    // Cell::micros_rows
  std::deque<std::vector<std::string_view>> keep_views;         // Cell::raw_list
  std::deque<Table> nested;  // tables that are cells of a row or a field (Cell::rows, object)

  void field(std::string key, Cell value, int json_decimals = 2);
  void begin_object(std::string key);
  void end_object();
  // One row of `columns` as fields (nested as Column::in says): a table's row shape, once.
  void fields(const std::vector<Column>& columns, const std::vector<Cell>& cells);
  Table& table(const char* json_key = "rows");  // a new table, appended as the next part
  void line(std::string text);                  // text only
  void linef(const char* fmt, ...) __attribute__((format(printf, 2, 3)));
  // Text only / Markdown only, written as they are; `then` after `text`, viewed, not copied (a
  // rank's whole report: the caller keeps it alive while the section is written).
  void text_block(std::string text, std::string_view then = {});
  void paragraph(std::string text, std::string_view then = {});
  std::string_view own(std::string s);  // keeps `s` alive as long as the section
  const char* own_c(std::string s);     // the same, for a Column's header or key
  Table& nested_table();                // a table that is no part: a cell's (Cell::rows)
};

void write_section_json(JsonWriter& w, const ReportSection& s);
void append_section_text(std::string* out, const ReportSection& s);
void append_section_markdown(std::string* out, const ReportSection& s);

// JSON of one row object of a table (the writers' rule, for sections that nest tables in
// their own JSON shape).
void write_table_rows_json(JsonWriter& w, const Table& t);

}  // namespace ks
