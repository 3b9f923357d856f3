#include "report/trace_diff_report.h"

#include <cstdio>

#include "report/report.h"
#include "report/report_table.h"
#include "util/json_writer.h"
#include "util/markdown.h"
#include "util/safe_text.h"

namespace ks {

const char* diff_row_status(const DiffRow& r) {
  if (is_added(r)) return "added";
  if (is_removed(r)) return "removed";
  return r.base_count_per_step != r.test_count_per_step || r.base_per_step_ns != r.test_per_step_ns
             ? "changed"
             : "same";
}

namespace {

// Rows shown in the text and Markdown reports per table; the JSON has the first kMaxTableRows.
constexpr size_t kTopRows = 25;
// Names listed as added/removed in the text and Markdown reports.
constexpr size_t kTopNames = 20;

// (test - base) / base in percent; false when base is 0.
bool delta_pct(double base, double test, double* pct) {
  if (base == 0) return false;
  *pct = (test - base) / base * 100.0;
  return true;
}

// The names of the rows `is(row)` picks, at most kMaxTableRows of them; `KEY_omitted` says how
// many more there are (only when there are).
template <class Is>
void write_names(JsonWriter& w, const char* key, const DiffTable& t, Is is) {
  size_t n = 0;
  w.key(key).begin_array();
  for (const DiffRow& r : t.rows)
    if (is(r) && n++ < kMaxTableRows) w.value(std::string_view(r.name));
  w.end_array();
  if (n > kMaxTableRows)
    w.field(std::string(key) + "_omitted", static_cast<uint64_t>(n - kMaxTableRows));
}

void write_table_json(JsonWriter& w, const char* key, const DiffTable& t) {
  w.key(key).begin_object();
  w.field("base_count", t.base_count);
  w.field("test_count", t.test_count);
  w.field_micros("base_total_us", t.base_ns);
  w.field_micros("test_total_us", t.test_ns);
  w.field_micros("delta_us", t.test_ns - t.base_ns);
  w.field("base_per_step_us", t.base_per_step_ns / 1e3, 3);
  w.field("test_per_step_us", t.test_per_step_ns / 1e3, 3);
  w.field("delta_per_step_us", (t.test_per_step_ns - t.base_per_step_ns) / 1e3, 3);
  w.field("names", static_cast<uint64_t>(t.rows.size()));
  w.field("added", t.added);
  w.field("removed", t.removed);
  w.field("changed", t.changed);
  // Bounded like the report's name tables (report_table.h): two traces of 10^6 distinct names
  // each must not make a diff of hundreds of MB. The first kMaxTableRows names of each list (the
  // rows are by the size of their time change), then what was left out.
  write_names(w, "added_names", t, is_added);
  write_names(w, "removed_names", t, is_removed);
  w.key("rows").begin_array();
  for (size_t i = 0; i < t.rows.size() && i < kMaxTableRows; ++i) {
    const DiffRow& r = t.rows[i];
    w.begin_object();
    w.field("name", std::string_view(r.name));
    w.field("status", diff_row_status(r));
    w.field("base_count", r.base_count);
    w.field("test_count", r.test_count);
    w.field("count_delta", r.count_delta());
    w.field_micros("base_total_us", r.base_ns);
    w.field_micros("test_total_us", r.test_ns);
    w.field_micros("delta_us", r.delta_ns());
    double pct = 0;
    if (delta_pct(r.base_per_step_ns, r.test_per_step_ns, &pct))
      w.field("delta_pct", pct, 2);
    else
      w.key("delta_pct").null();
    w.field("base_count_per_step", r.base_count_per_step, 3);
    w.field("test_count_per_step", r.test_count_per_step, 3);
    w.field("base_per_step_us", r.base_per_step_ns / 1e3, 3);
    w.field("test_per_step_us", r.test_per_step_ns / 1e3, 3);
    w.field("delta_per_step_us", r.delta_per_step_ns() / 1e3, 3);
    w.end_object();
  }
  w.end_array();
  if (t.rows.size() > kMaxTableRows) {
    int64_t base_ns = 0, test_ns = 0;
    for (size_t i = kMaxTableRows; i < t.rows.size(); ++i) {
      base_ns += t.rows[i].base_ns;
      test_ns += t.rows[i].test_ns;
    }
    w.field("omitted_rows", static_cast<uint64_t>(t.rows.size() - kMaxTableRows));
    w.field_micros("omitted_base_total_us", base_ns);
    w.field_micros("omitted_test_total_us", test_ns);
  }
  w.end_object();
}

std::string step_count_warning(const TraceDiff& d) {
  return "the step counts differ (BASE " + std::to_string(d.base_steps) + ", TEST " +
         std::to_string(d.test_steps) +
         "): ops are compared per step; check that both captures cover the same part of the run";
}

void write_side_json(JsonWriter& w, const char* key, const std::string& file, uint64_t steps,
                     double median_ns, bool inferred) {
  w.key(key).begin_object();
  w.field("file", std::string_view(file));
  w.field("steps", steps);
  if (inferred) w.field("steps_inferred", true);  // only then: reports with steps keep their bytes
  if (steps)
    w.field("step_median_us", median_ns / 1e3, 3);
  else
    w.key("step_median_us").null();
  w.end_object();
}

}  // namespace

std::string trace_diff_json(const TraceDiff& d) {
  JsonWriter w;
  w.begin_object();
  w.field("schema", kDiffSchema);
  w.field("generator", std::string_view(std::string("kinetoscope ") + kVersion));
  write_side_json(w, "base", d.base_file, d.base_steps, d.base_step_median_ns, d.base_inferred);
  write_side_json(w, "test", d.test_file, d.test_steps, d.test_step_median_ns, d.test_inferred);
  w.key("step_time").begin_object();
  double pct = 0;
  if (d.has_step_delta) {
    w.field("delta_us", (d.test_step_median_ns - d.base_step_median_ns) / 1e3, 3);
    if (delta_pct(d.base_step_median_ns, d.test_step_median_ns, &pct))
      w.field("delta_pct", pct, 2);
    else
      w.key("delta_pct").null();
  } else {
    w.key("delta_us").null();
    w.key("delta_pct").null();
  }
  w.end_object();
  w.field("compared", d.per_step ? "per_step" : "whole_traces");
  w.field("step_counts_differ", d.step_counts_differ);
  w.key("warnings").begin_array();
  if (d.step_counts_differ) w.value(std::string_view(step_count_warning(d)));
  w.end_array();
  write_table_json(w, "gpu_ops", d.gpu_ops);
  write_table_json(w, "cpu_ops", d.cpu_ops);
  w.end_object();
  return w.take();
}

namespace {

std::string ms(double ns) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.3f", ns / 1e6);
  return buf;
}

std::string signed_ms(double ns) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%+.3f", ns / 1e6);
  return buf;
}

std::string signed_pct(double base, double test) {
  double pct = 0;
  if (!delta_pct(base, test, &pct)) return "new";
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%+.1f%%", pct);
  return buf;
}

std::string signed_count(int64_t n) {
  return (n > 0 ? "+" : "") + std::to_string(n);
}

std::string step_line(const TraceDiff& d) {
  if (!d.has_step_delta)
    return "no step-time delta: " + std::string(d.base_steps ? "TEST" : "BASE") +
           " has no ProfilerStep";
  return ms(d.base_step_median_ns) + " ms -> " + ms(d.test_step_median_ns) + " ms (" +
         signed_ms(d.test_step_median_ns - d.base_step_median_ns) + " ms, " +
         signed_pct(d.base_step_median_ns, d.test_step_median_ns) + ")";
}

// A count per step: whole numbers as such, else two decimals.
std::string per_step_count(double n) {
  char buf[40];
  if (n == static_cast<double>(static_cast<int64_t>(n)))
    std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(n));
  else
    std::snprintf(buf, sizeof(buf), "%.2f", n);
  return buf;
}

std::string totals_line(const TraceDiff& d, const DiffTable& t) {
  std::string o;
  if (d.per_step) {
    const double bs = static_cast<double>(d.base_steps), ts = static_cast<double>(d.test_steps);
    o = per_step_count(static_cast<double>(t.base_count) / bs) + " -> " +
        per_step_count(static_cast<double>(t.test_count) / ts) + " ops per step, " +
        ms(t.base_per_step_ns) + " ms -> " + ms(t.test_per_step_ns) + " ms per step (" +
        signed_ms(t.test_per_step_ns - t.base_per_step_ns) + " ms)";
  } else {
    o = std::to_string(t.base_count) + " -> " + std::to_string(t.test_count) + " ops, " +
        ms(static_cast<double>(t.base_ns)) + " ms -> " + ms(static_cast<double>(t.test_ns)) +
        " ms (" + signed_ms(static_cast<double>(t.test_ns - t.base_ns)) + " ms)";
  }
  return o + "; names: " + std::to_string(t.added) + " added, " + std::to_string(t.removed) +
         " removed, " + std::to_string(t.changed) + " changed";
}

// Which side's steps are iterations inferred from the repeating launches (no step markers).
std::string inferred_note(const TraceDiff& d) {
  if (!d.base_inferred && !d.test_inferred) return "";
  const char* who = d.base_inferred && d.test_inferred ? "both traces'"
                    : d.base_inferred                  ? "BASE's"
                                                       : "TEST's";
  return std::string(" (") + who +
         " steps are the iterations inferred from the repeating launches: no step markers)";
}

// The steps of one side, as the header counts them.
std::string steps_count(uint64_t steps, bool inferred) {
  return std::to_string(steps) + (inferred ? " inferred iterations" : " steps");
}

// What the tables compare, and the warning when the step counts differ.
std::string compared_line(const TraceDiff& d) {
  if (d.per_step)
    return "per step: the ops inside the steps, each trace's sums divided by its step count" +
           inferred_note(d);
  return "whole traces (" + std::string(d.base_steps ? "TEST" : "BASE") +
         " has no ProfilerStep): totals, which depend on how long each capture ran";
}

// The first kTopNames added (or removed) names, "; "-joined, with how many more.
std::string name_list(const DiffTable& t, bool added) {
  std::string out;
  size_t shown = 0, total = 0;
  for (const DiffRow& r : t.rows) {
    if (added ? !is_added(r) : !is_removed(r)) continue;
    ++total;
    if (shown == kTopNames) continue;
    if (shown++) out += "; ";
    out += r.name;
  }
  if (total > shown) out += "; ... " + std::to_string(total - shown) + " more";
  return out;
}

std::vector<std::vector<std::string>> table_cells(const TraceDiff& d, const DiffTable& t) {
  std::vector<std::vector<std::string>> rows;
  if (d.per_step)
    rows.push_back(
        {"delta/step (ms)", "change", "base/step (ms)", "test/step (ms)", "count/step", "name"});
  else
    rows.push_back({"delta (ms)", "change", "base (ms)", "test (ms)", "count", "name"});
  for (const DiffRow& r : t.rows) {
    if (rows.size() > kTopRows || r.delta_per_step_ns() == 0) break;
    std::string count =
        d.per_step
            ? per_step_count(r.base_count_per_step) + " -> " + per_step_count(r.test_count_per_step)
            : std::to_string(r.base_count) + " -> " + std::to_string(r.test_count) +
                  (r.count_delta() ? " (" + signed_count(r.count_delta()) + ")" : "");
    rows.push_back({signed_ms(r.delta_per_step_ns()),
                    signed_pct(r.base_per_step_ns, r.test_per_step_ns), ms(r.base_per_step_ns),
                    ms(r.test_per_step_ns), count, r.name});
  }
  return rows;
}

size_t rows_with_time_change(const DiffTable& t) {
  size_t n = 0;
  for (const DiffRow& r : t.rows) n += r.delta_per_step_ns() != 0;
  return n;
}

void text_table(std::string& o, const char* title, const TraceDiff& d, const DiffTable& t) {
  o += std::string(title) + ": " + totals_line(d, t) + "\n";
  if (t.added) o += "  added:   " + name_list(t, true) + "\n";
  if (t.removed) o += "  removed: " + name_list(t, false) + "\n";
  auto cells = table_cells(d, t);
  if (cells.size() == 1) {
    o += "  no time changes\n\n";
    return;
  }
  std::vector<size_t> width(cells[0].size(), 0);
  for (const auto& row : cells)
    for (size_t c = 0; c + 1 < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  for (const auto& row : cells) {
    o += " ";
    for (size_t c = 0; c + 1 < row.size(); ++c)
      o += " " + std::string(width[c] - row[c].size(), ' ') + row[c];
    o += "  " + row.back() + "\n";
  }
  size_t changed = rows_with_time_change(t);
  if (changed > cells.size() - 1)
    o += "  ... " + std::to_string(changed - (cells.size() - 1)) +
         " more with a time change (--format json lists every name)\n";
  o += "\n";
}

// Names joined as prose: every punctuation character escaped (util/markdown.h), so no name
// becomes a link, an image or a tag in a pasted comment.
std::string md_cell(const std::string& raw) {
  return markdown_text(raw);
}

void md_table(std::string& o, const char* title, const TraceDiff& d, const DiffTable& t) {
  o += std::string("## ") + title + "\n\n" + totals_line(d, t) + ".\n\n";
  if (t.added) o += "**Added:** " + md_cell(name_list(t, true)) + "\n\n";
  if (t.removed) o += "**Removed:** " + md_cell(name_list(t, false)) + "\n\n";
  auto cells = table_cells(d, t);
  if (cells.size() == 1) {
    o += "No time changes.\n\n";
    return;
  }
  for (size_t i = 0; i < cells.size(); ++i) {
    o += "|";
    for (size_t c = 0; c < cells[i].size(); ++c)
      // Names (last column) as code spans; the other cells are our own numbers.
      o += " " + (c + 1 == cells[i].size() && i ? markdown_code_cell(cells[i][c]) : cells[i][c]) +
           " |";
    o += "\n";
    if (i == 0) o += "|---:|---:|---:|---:|---:|---|\n";
  }
  size_t changed = rows_with_time_change(t);
  if (changed > cells.size() - 1)
    o += "\n" + std::to_string(changed - (cells.size() - 1)) +
         " more with a time change (`--format json` lists every name).\n";
  o += "\n";
}

}  // namespace

std::string trace_diff_text(const TraceDiff& d) {
  std::string o = "Kinetoscope trace diff\n";
  o += "  base: " + d.base_file + " (" + steps_count(d.base_steps, d.base_inferred) + ")\n";
  o += "  test: " + d.test_file + " (" + steps_count(d.test_steps, d.test_inferred) + ")\n\n";
  o += "Step time (median): " + step_line(d) + "\n";
  o += "Compared: " + compared_line(d) + "\n";
  if (d.step_counts_differ) o += "WARNING: " + step_count_warning(d) + "\n";
  o += "\n";
  text_table(o, "GPU ops (kernels, memcpy, memset)", d, d.gpu_ops);
  text_table(o, "CPU ops", d, d.cpu_ops);
  return o;
}

std::string trace_diff_markdown(const TraceDiff& d) {
  std::string o = "# Kinetoscope trace diff\n\n";
  o += "- base: " + markdown_code_cell(d.base_file) + " (" +
       steps_count(d.base_steps, d.base_inferred) + ")\n";
  o += "- test: " + markdown_code_cell(d.test_file) + " (" +
       steps_count(d.test_steps, d.test_inferred) + ")\n\n";
  o += "**Step time (median):** " + step_line(d) + "\n\n";
  o += "**Compared:** " + compared_line(d) + ".\n\n";
  if (d.step_counts_differ) o += "> **Warning:** " + step_count_warning(d) + ".\n\n";
  md_table(o, "GPU ops (kernels, memcpy, memset)", d, d.gpu_ops);
  md_table(o, "CPU ops", d, d.cpu_ops);
  return o;
}

}  // namespace ks
