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
constexpr const char* kGpuOpsTitle = "GPU ops (kernels, memcpy, memset)";
constexpr const char* kCpuOpsTitle = "CPU ops";

// (test - base) / base in percent; false when base is 0.
bool delta_pct(double base, double test, double* pct) {
  if (base == 0) return false;
  *pct = (test - base) / base * 100.0;
  return true;
}

// The names of the rows `is(row)` picks, at most kMaxTableRows of them, as the field `key`;
// `KEY_omitted` says how many more there are (only when there are).
template <class Is>
void add_names(ReportSection* s, const char* key, const DiffTable& t, Is is) {
  std::vector<std::string_view>& names = s->keep_views.emplace_back();
  size_t n = 0;
  for (const DiffRow& r : t.rows)
    if (is(r) && n++ < kMaxTableRows) names.push_back(r.name);
  s->field(key, Cell::text_list(&names));
  if (n > kMaxTableRows) s->field(std::string(key) + "_omitted", Cell::count(n - kMaxTableRows));
}

std::string step_count_warning(const TraceDiff& d) {
  return "the step counts differ (BASE " + std::to_string(d.base_steps) + ", TEST " +
         std::to_string(d.test_steps) +
         "): ops are compared per step; check that both captures cover the same part of the run";
}

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

// The two traces and their steps, the step-time delta, what is compared.
ReportSection sides_section(const TraceDiff& d) {
  ReportSection s(nullptr);
  auto side = [&s](const char* key, const std::string& file, uint64_t steps, double median_ns,
                   bool inferred) {
    s.begin_object(key);
    s.field("file", Cell::str(file));
    s.field("steps", Cell::count(steps));
    // Only when inferred: reports with steps keep their bytes.
    s.field("steps_inferred", inferred ? Cell::flag(true) : Cell::absent());
    s.field("step_median_us", steps ? Cell::ns(median_ns) : Cell::null());
    s.end_object();
  };
  side("base", d.base_file, d.base_steps, d.base_step_median_ns, d.base_inferred);
  side("test", d.test_file, d.test_steps, d.test_step_median_ns, d.test_inferred);
  s.begin_object("step_time");
  double pct = 0;
  const bool has_pct =
      d.has_step_delta && delta_pct(d.base_step_median_ns, d.test_step_median_ns, &pct);
  s.field("delta_us", d.has_step_delta ? Cell::ns(d.test_step_median_ns - d.base_step_median_ns)
                                       : Cell::null());
  s.field("delta_pct", has_pct ? Cell::number(pct) : Cell::null());
  s.end_object();
  s.field("compared", Cell::str(d.per_step ? "per_step" : "whole_traces"));
  s.field("step_counts_differ", Cell::flag(d.step_counts_differ));
  std::vector<std::string_view>& warnings = s.keep_views.emplace_back();
  if (d.step_counts_differ) warnings.push_back(s.own(step_count_warning(d)));
  s.field("warnings", Cell::text_list(&warnings));

  const std::string base = steps_count(d.base_steps, d.base_inferred);
  const std::string test = steps_count(d.test_steps, d.test_inferred);
  s.line("Kinetoscope trace diff");
  s.line("  base: " + d.base_file + " (" + base + ")");
  s.line("  test: " + d.test_file + " (" + test + ")\n");
  s.line("Step time (median): " + step_line(d));
  s.line("Compared: " + compared_line(d));
  if (d.step_counts_differ) s.line("WARNING: " + step_count_warning(d));
  s.line("");
  s.paragraph("# Kinetoscope trace diff\n\n- base: " + markdown_code_cell(d.base_file) + " (" +
              base + ")\n- test: " + markdown_code_cell(d.test_file) + " (" + test +
              ")\n\n**Step time (median):** " + step_line(d) + "\n\n**Compared:** " +
              compared_line(d) + ".\n\n");
  if (d.step_counts_differ) s.paragraph("> **Warning:** " + step_count_warning(d) + ".\n\n");
  return s;
}

Column delta_column(const char* key, const char* head, Show show) {
  return Column(key).json(3).text(head, show, kAutoWidth).md(head, show).digits(3);
}

// One table of ops (GPU or CPU) by name: its totals, the added and removed names, and the rows
// by the size of their time change. Text and Markdown show the first kTopRows rows whose time
// changed; JSON the first kMaxTableRows (bounded like the report's name tables, report_table.h:
// two traces of 10^6 distinct names each must not make a diff of hundreds of MB).
ReportSection ops_section(const char* key, const char* title, const TraceDiff& d,
                          const DiffTable& t) {
  ReportSection s(key);
  s.field("base_count", Cell::count(t.base_count));
  s.field("test_count", Cell::count(t.test_count));
  s.field("base_total_us", Cell::ns(t.base_ns));
  s.field("test_total_us", Cell::ns(t.test_ns));
  s.field("delta_us", Cell::ns(t.test_ns - t.base_ns));
  s.field("base_per_step_us", Cell::ns(t.base_per_step_ns));
  s.field("test_per_step_us", Cell::ns(t.test_per_step_ns));
  s.field("delta_per_step_us", Cell::ns(t.test_per_step_ns - t.base_per_step_ns));
  s.field("names", Cell::count(t.rows.size()));
  s.field("added", Cell::count(t.added));
  s.field("removed", Cell::count(t.removed));
  s.field("changed", Cell::count(t.changed));
  add_names(&s, "added_names", t, is_added);
  add_names(&s, "removed_names", t, is_removed);

  s.line(std::string(title) + ": " + totals_line(d, t));
  s.paragraph(std::string("## ") + title + "\n\n" + totals_line(d, t) + ".\n\n");
  if (t.added) {
    s.line("  added:   " + name_list(t, true));
    s.paragraph("**Added:** " + markdown_text(name_list(t, true)) + "\n\n");
  }
  if (t.removed) {
    s.line("  removed: " + name_list(t, false));
    s.paragraph("**Removed:** " + markdown_text(name_list(t, false)) + "\n\n");
  }

  const bool per_step = d.per_step;
  Table& tb = s.table();
  tb.columns = {
      Column("name").text("name", Show::kName, 0, 2).md("name", Show::kName).left(),
      Column("status"),
      Column("base_count"),
      Column("test_count"),
      Column("count_delta"),
      Column("base_total_us"),
      Column("test_total_us"),
      Column("delta_us"),
      Column("delta_pct")
          .text("change", Show::kSignedPct, kAutoWidth)
          .md("change", Show::kSignedPct)
          .null_as("new"),
      Column("base_count_per_step").json(3),
      Column("test_count_per_step").json(3),
      delta_column("base_per_step_us", per_step ? "base/step (ms)" : "base (ms)", Show::kMs),
      delta_column("test_per_step_us", per_step ? "test/step (ms)" : "test (ms)", Show::kMs),
      delta_column("delta_per_step_us", per_step ? "delta/step (ms)" : "delta (ms)",
                   Show::kSignedMs),
      Column(nullptr)
          .text(per_step ? "count/step" : "count", Show::kPlain, kAutoWidth)
          .md(per_step ? "count/step" : "count", Show::kPlain)};
  tb.shown = {13, 8, 11, 12, 14, 0};
  size_t shown = 0, changed = 0;
  for (const DiffRow& r : t.rows) changed += r.delta_per_step_ns() != 0;
  for (size_t i = 0; i < t.rows.size() && i < kMaxTableRows; ++i) {
    const DiffRow& r = t.rows[i];
    if (shown == i && shown < kTopRows && r.delta_per_step_ns() != 0) ++shown;
    double pct = 0;
    const bool has_pct = delta_pct(r.base_per_step_ns, r.test_per_step_ns, &pct);
    const std::string count =
        per_step
            ? per_step_count(r.base_count_per_step) + " -> " + per_step_count(r.test_count_per_step)
            : std::to_string(r.base_count) + " -> " + std::to_string(r.test_count) +
                  (r.count_delta() ? " (" + signed_count(r.count_delta()) + ")" : "");
    tb.row() = {Cell::str(r.name),
                Cell::str(diff_row_status(r)),
                Cell::count(r.base_count),
                Cell::count(r.test_count),
                Cell::integer(r.count_delta()),
                Cell::ns(r.base_ns),
                Cell::ns(r.test_ns),
                Cell::ns(r.delta_ns()),
                has_pct ? Cell::number(pct) : Cell::null(),
                Cell::number(r.base_count_per_step),
                Cell::number(r.test_count_per_step),
                Cell::ns(r.base_per_step_ns),
                Cell::ns(r.test_per_step_ns),
                Cell::ns(r.delta_per_step_ns()),
                Cell::str(s.own(count))};
  }
  tb.text_rows = tb.md_rows = shown;
  if (t.rows.size() > kMaxTableRows) {
    int64_t base_ns = 0, test_ns = 0;
    for (size_t i = kMaxTableRows; i < t.rows.size(); ++i) {
      base_ns += t.rows[i].base_ns;
      test_ns += t.rows[i].test_ns;
    }
    s.field("omitted_rows", Cell::count(t.rows.size() - kMaxTableRows));
    s.field("omitted_base_total_us", Cell::ns(base_ns));
    s.field("omitted_test_total_us", Cell::ns(test_ns));
  }
  if (shown == 0) {
    s.line("  no time changes\n");
    s.paragraph("No time changes.\n\n");
    return s;
  }
  if (changed > shown) {
    const std::string more = std::to_string(changed - shown) + " more with a time change (";
    s.line("  ... " + more + "--format json lists every name)");
    s.paragraph(more + "`--format json` lists every name).\n\n");
  }
  s.line("");
  return s;
}

}  // namespace

std::string trace_diff_json(const TraceDiff& d) {
  JsonWriter w;
  w.begin_object();
  w.field("schema", kDiffSchema);
  w.field("generator", std::string_view(std::string("kinetoscope ") + kVersion));
  write_section_json(w, sides_section(d));
  write_section_json(w, ops_section("gpu_ops", kGpuOpsTitle, d, d.gpu_ops));
  write_section_json(w, ops_section("cpu_ops", kCpuOpsTitle, d, d.cpu_ops));
  w.end_object();
  return w.take();
}

std::string trace_diff_text(const TraceDiff& d) {
  std::string o;
  append_section_text(&o, sides_section(d));
  append_section_text(&o, ops_section("gpu_ops", kGpuOpsTitle, d, d.gpu_ops));
  append_section_text(&o, ops_section("cpu_ops", kCpuOpsTitle, d, d.cpu_ops));
  return o;
}

std::string trace_diff_markdown(const TraceDiff& d) {
  std::string o;
  append_section_markdown(&o, sides_section(d));
  append_section_markdown(&o, ops_section("gpu_ops", kGpuOpsTitle, d, d.gpu_ops));
  append_section_markdown(&o, ops_section("cpu_ops", kCpuOpsTitle, d, d.cpu_ops));
  return o;
}

}  // namespace ks
