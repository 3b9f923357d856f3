// The three writers of `nsys stats` tables (text as nsys's column layout, CSV as `--format csv`,
// JSON as kinetoscope.stats/1), each a StatsSink: rows are written as they come and the output is
// handed out in pieces of about a megabyte, so a streamed trace of millions of rows is never held
// whole. The string versions (nsys_stats_text/csv/json) run the same sinks over kept tables.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "stats/nsys_stats.h"
#include "util/json_writer.h"
#include "util/safe_text.h"

namespace ks {

namespace {

constexpr size_t kFlushBytes = size_t{1} << 20;

// The decimals of a column's real cells. Memory cells (bytes shown as MB) keep three in text, as
// nsys prints them, and six in CSV and JSON (exact bytes); times in another unit than ns
// (--timeunit) keep whole nanoseconds, as nsys prints them ("Avg (us)" 3.493); other real cells
// are the scripts' round(x, 1) values.
int column_decimals(const std::string& c, bool text) {
  if (c.find("(MB") != std::string::npos) return text ? 3 : 6;
  for (const TimeUnit& u : time_units())
    if (u.divisor > 1 && c.size() > u.suffix.size() &&
        c.compare(c.size() - u.suffix.size(), u.suffix.size(), u.suffix) == 0)
      return u.decimals;
  return 1;
}

std::string group_thousands(const std::string& digits) {
  std::string out;
  size_t start = digits[0] == '-' ? 1 : 0;
  out.append(digits, 0, start);
  size_t n = digits.size() - start;
  for (size_t i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) out += ',';
    out += digits[start + i];
  }
  return out;
}

// A name cell of the text table, as the report's names: safe in a terminal (util/safe_text.h) and
// cut past kTextCellBytes on a character boundary, with "..." and the name's length in bytes. nsys
// prints a name whole, and its column is as wide as its longest name: one 1 MB kernel name made
// every row of its table a megabyte. The longest real names (templated CUTLASS kernels) are a few
// KB and stay whole; CSV and JSON keep every name exactly (data for programs).
constexpr size_t kTextCellBytes = 4096;
std::string text_cell(const std::string& text) {
  if (text.size() <= kTextCellBytes) return display_safe(text);
  return display_safe(text, kTextCellBytes) + " (" + group_thousands(std::to_string(text.size())) +
         " bytes)";
}

// A cell as text. `grouped`: thousands separators (the text writer, as nsys's column format).
std::string cell_string(const StatsCell& c, int decimals, bool grouped) {
  switch (c.kind) {
    case StatsCell::Kind::kNull:
      return "";
    case StatsCell::Kind::kText:
      return c.text;
    case StatsCell::Kind::kInt: {
      std::string s = std::to_string(c.i);
      return grouped ? group_thousands(s) : s;
    }
    case StatsCell::Kind::kReal: {
      std::string s = format_fixed(c.r, decimals);
      if (!grouped) return s;
      size_t dot = s.find('.');
      return group_thousands(s.substr(0, dot)) + (dot == std::string::npos ? "" : s.substr(dot));
    }
  }
  return "";
}

// What every writer shares: the output buffer and which table is open. A table "opens" at its
// first streamed row or at its end, whichever comes first.
class BufferedWriter : public StatsWriter {
 public:
  explicit BufferedWriter(std::function<void(std::string_view)> out) : out_(std::move(out)) {}

  void row(const StatsTable& t, const std::vector<StatsCell>& cells) override {
    open(t);
    write_row(t, cells);
    if (buf_.size() >= kFlushBytes) flush();
  }
  void end(const StatsTable& t) override {
    open(t);
    close_table(t);
    open_ = nullptr;
    ++tables_;
    if (buf_.size() >= kFlushBytes) flush();
  }
  void finish() override {
    finish_output();
    flush();
  }

 protected:
  virtual void open_table(const StatsTable& t) = 0;
  virtual void write_row(const StatsTable& t, const std::vector<StatsCell>& cells) = 0;
  virtual void close_table(const StatsTable& t) = 0;  // t.rows (kept rows) are written here
  virtual void finish_output() {}
  void flush() {
    if (!buf_.empty()) out_(buf_);
    buf_.clear();
  }
  std::string buf_;
  size_t tables_ = 0;  // tables ended so far

 private:
  void open(const StatsTable& t) {
    if (open_ == &t) return;
    open_ = &t;
    open_table(t);
  }
  std::function<void(std::string_view)> out_;
  const StatsTable* open_ = nullptr;
};

class CsvWriter : public BufferedWriter {
 public:
  using BufferedWriter::BufferedWriter;

 protected:
  void open_table(const StatsTable& t) override {
    if (tables_ > 0) buf_ += "\n";  // reports are separated by an empty line
    for (size_t c = 0; c < t.columns.size(); ++c) {
      if (c) buf_ += ',';
      quoted(t.columns[c]);
    }
    buf_ += "\n";
  }
  void write_row(const StatsTable& t, const std::vector<StatsCell>& row) override {
    for (size_t c = 0; c < row.size(); ++c) {
      if (c) buf_ += ',';
      quoted(cell_string(row[c], c < t.columns.size() ? column_decimals(t.columns[c], false) : 1,
                         false));
    }
    buf_ += "\n";
  }
  void close_table(const StatsTable& t) override {
    for (const auto& row : t.rows) write_row(t, row);
  }

 private:
  void quoted(const std::string& s) {
    buf_ += '"';
    for (char ch : s) {
      if (ch == '"') buf_ += '"';
      buf_ += ch;
    }
    buf_ += '"';
  }
};

class JsonStatsWriter : public BufferedWriter {
 public:
  explicit JsonStatsWriter(std::function<void(std::string_view)> out)
      : BufferedWriter(std::move(out)) {
    w_.begin_object();
    w_.field("schema", "kinetoscope.stats/1");
    w_.key("reports").begin_array();
  }

 protected:
  void open_table(const StatsTable& t) override {
    w_.begin_object();
    w_.field("report", t.report);
    w_.field("title", t.title);
    w_.key("columns").begin_array();
    for (const std::string& c : t.columns) w_.value(c);
    w_.end_array();
    w_.key("rows").begin_array();
  }
  void write_row(const StatsTable& t, const std::vector<StatsCell>& row) override {
    w_.begin_array();
    for (size_t c = 0; c < row.size(); ++c) {
      const StatsCell& cell = row[c];
      switch (cell.kind) {
        case StatsCell::Kind::kNull:
          w_.null();
          break;
        case StatsCell::Kind::kText:
          w_.value(cell.text);
          break;
        case StatsCell::Kind::kInt:
          w_.value(cell.i);
          break;
        case StatsCell::Kind::kReal:
          w_.value(cell.r, c < t.columns.size() ? column_decimals(t.columns[c], false) : 1);
          break;
      }
    }
    w_.end_array();
    buf_ += w_.drain();
  }
  void close_table(const StatsTable& t) override {
    for (const auto& row : t.rows) write_row(t, row);
    w_.end_array();
    if (t.note.empty()) {
      w_.key("note").null();
    } else {
      w_.field("note", t.note);
    }
    if (t.omitted_rows > 0) w_.field("omitted_rows", t.omitted_rows);
    w_.end_object();
    buf_ += w_.drain();
  }
  void finish_output() override {
    w_.end_array();
    w_.end_object();
    buf_ += w_.drain();
    buf_ += "\n";
  }

 private:
  JsonWriter w_;
};

// nsys's column layout: one leading space, two between columns, headers centred (the extra space
// to the right), a dashed rule, numbers right-aligned, text left-aligned. The widths are known only
// after the last row, so streamed rows wait in a temporary file (in memory where none can be made)
// as their cells' text, then are laid out at the table's end.
class TextWriter : public BufferedWriter {
 public:
  using BufferedWriter::BufferedWriter;
  ~TextWriter() override {
    if (spool_) std::fclose(spool_);
  }

 protected:
  void open_table(const StatsTable& t) override {
    width_.assign(t.columns.size(), 0);
    text_col_.assign(t.columns.size(), false);
    for (size_t c = 0; c < t.columns.size(); ++c) width_[c] = t.columns[c].size();
    spooled_ = 0;
    memory_spool_.clear();
    if (spool_) std::rewind(spool_);
  }
  void write_row(const StatsTable& t, const std::vector<StatsCell>& row) override {
    if (!spool_ && !spool_failed_) {
      spool_ = std::tmpfile();
      spool_failed_ = spool_ == nullptr;
    }
    std::string record;
    for (size_t c = 0; c < t.columns.size(); ++c) {
      std::string s = c < row.size() ? cell_text(t, row, c) : std::string();
      const auto n = static_cast<uint32_t>(s.size());
      record.append(reinterpret_cast<const char*>(&n), sizeof n);
      record += s;
    }
    if (spool_) {
      std::fwrite(record.data(), 1, record.size(), spool_);
    } else {
      memory_spool_ += record;
    }
    ++spooled_;
  }
  void close_table(const StatsTable& t) override {
    buf_ += "\n ** " + t.title + " (" + t.report + "):\n\n";
    if (t.rows.empty() && spooled_ == 0) {
      buf_ += "SKIPPED: " + (t.note.empty() ? std::string("no rows") : t.note) + "\n";
      return;
    }
    const size_t nc = t.columns.size();
    std::vector<std::vector<std::string>> kept(t.rows.size(), std::vector<std::string>(nc));
    for (size_t r = 0; r < t.rows.size(); ++r)
      for (size_t c = 0; c < nc && c < t.rows[r].size(); ++c)
        kept[r][c] = cell_text(t, t.rows[r], c);
    std::string head = " ", rule = " ";
    for (size_t c = 0; c < nc; ++c) {
      size_t pad = width_[c] - t.columns[c].size();
      head += std::string(pad / 2, ' ') + t.columns[c] + std::string(pad - pad / 2, ' ');
      rule += std::string(width_[c], '-');
      if (c + 1 < nc) head += "  ", rule += "  ";
    }
    buf_ += head + "\n" + rule + "\n";
    replay_spool(nc);
    for (const auto& row : kept) lay_out(row);
  }
  void finish_output() override { buf_ += "\n"; }

 private:
  // The cell as text, counted into its column's width and alignment.
  std::string cell_text(const StatsTable& t, const std::vector<StatsCell>& row, size_t c) {
    std::string s = row[c].kind == StatsCell::Kind::kText
                        ? text_cell(row[c].text)
                        : cell_string(row[c], column_decimals(t.columns[c], true), true);
    width_[c] = std::max(width_[c], s.size());
    if (row[c].kind == StatsCell::Kind::kText) text_col_[c] = true;
    return s;
  }
  void lay_out(const std::vector<std::string>& row) {
    buf_ += ' ';
    for (size_t c = 0; c < row.size(); ++c) {
      const size_t pad = width_[c] - row[c].size();
      if (!text_col_[c]) buf_.append(pad, ' ');
      buf_ += row[c];
      if (text_col_[c]) buf_.append(pad, ' ');
      if (c + 1 < row.size()) buf_ += "  ";
    }
    buf_ += '\n';
    if (buf_.size() >= kFlushBytes) flush();
  }
  void replay_spool(size_t nc) {
    if (spooled_ == 0) return;
    size_t at = 0;
    if (spool_) {
      std::fflush(spool_);
      std::rewind(spool_);
    }
    // Reads `n` bytes of the spool: from the file, or from memory.
    auto read = [&](void* dst, size_t n) {
      if (spool_) return std::fread(dst, 1, n, spool_) == n;
      if (at + n > memory_spool_.size()) return false;
      std::memcpy(dst, memory_spool_.data() + at, n);
      at += n;
      return true;
    };
    std::vector<std::string> row(nc);
    for (uint64_t r = 0; r < spooled_; ++r) {
      for (size_t c = 0; c < nc; ++c) {
        uint32_t n = 0;
        if (!read(&n, sizeof n)) return;
        row[c].resize(n);
        if (n && !read(&row[c][0], n)) return;
      }
      lay_out(row);
    }
    if (spool_) std::rewind(spool_);
  }
  std::vector<size_t> width_;
  std::vector<bool> text_col_;
  std::FILE* spool_ = nullptr;
  bool spool_failed_ = false;
  std::string memory_spool_;
  uint64_t spooled_ = 0;
};

std::string write_tables(const std::string& format, const std::vector<StatsTable>& tables) {
  std::string out;
  auto w = make_stats_writer(format, [&out](std::string_view s) { out.append(s); });
  for (const StatsTable& t : tables) w->end(t);
  w->finish();
  return out;
}

}  // namespace

std::unique_ptr<StatsWriter> make_stats_writer(const std::string& format,
                                               std::function<void(std::string_view)> out) {
  if (format == "text") return std::make_unique<TextWriter>(std::move(out));
  if (format == "csv") return std::make_unique<CsvWriter>(std::move(out));
  if (format == "json") return std::make_unique<JsonStatsWriter>(std::move(out));
  return nullptr;
}

std::string nsys_stats_text(const std::vector<StatsTable>& tables) {
  return write_tables("text", tables);
}
std::string nsys_stats_csv(const std::vector<StatsTable>& tables) {
  return write_tables("csv", tables);
}
std::string nsys_stats_json(const std::vector<StatsTable>& tables) {
  return write_tables("json", tables);
}

}  // namespace ks
