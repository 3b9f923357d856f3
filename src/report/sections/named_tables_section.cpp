// The tables of names from the TensorBoard plugin and nsys: runtime API calls, user
// annotations and CPU ops by self time, kernels by class and by annotation. JSON lists up to
// kMaxTableRows rows; the terminal and Markdown the top 8 of API calls and CPU ops and the
// kernel classes in one line (annotations are JSON and the page only).
#include <string>

#include "report/sections/sections.h"
#include "util/format.h"

namespace ks {

namespace {

constexpr size_t kTopRows = 8;

// name, the 7 duration columns, percent: the JSON of every NamedStatsTable.
Table& named_stats_table(ReportSection* s, const Trace& t, const NamedStatsTable& table,
                         const char* empty_name) {
  s->field("count", Cell::count(table.count));
  s->field("total_us", Cell::ns(table.total_ns));
  Table& tb = s->table();
  tb.columns = {Column("name")};
  for (Column& c : duration_stats_columns()) tb.columns.push_back(c);
  tb.columns.push_back(Column("percent"));
  tb.add_rows_capped(
      table.rows,
      [&](const NamedStatsRow& r) {
        std::vector<Cell>& row = tb.row();
        row.push_back(Cell::str(!r.label.empty() ? std::string_view(r.label)
                                : r.name == 0    ? std::string_view(empty_name)
                                                 : t.str(r.name)));
        add_duration_stats_cells(&row, r.stats);
        row.push_back(Cell::number(r.percent));
      },
      [](const NamedStatsRow& r) { return r.stats.total_ns; });
  return tb;
}

}  // namespace

ReportSection api_calls_section(const Trace& t, const NamedStatsTable& api) {
  ReportSection s("api_calls");
  if (!api.rows.empty()) {
    s.linef("Runtime API calls (CUDA, HIP, driver): %llu calls, %s",
            static_cast<unsigned long long>(api.count), format_duration(api.total_ns).c_str());
    s.paragraph("## Runtime API calls (CUDA, HIP, driver)\n\n");
  }
  Table& tb = named_stats_table(&s, t, api, "");
  enum { kName, kCount, kTotal, kAvg, kMedian, kMin, kMax, kStddev, kPercent, kRawName };
  tb.columns[kPercent].text("", Show::kPlain, 6).suffix("%").md("Time %", Show::kPlain);
  tb.columns[kTotal].text("", Show::kDuration, 12).md("Total", Show::kDuration);
  tb.columns[kCount].text("", Show::kPlain, 9).suffix(" calls").md("Calls", Show::kPlain);
  tb.columns[kMax]
      .text("", Show::kDuration, 10, 2)
      .prefix("max ")
      .text_left()
      .md("Max", Show::kDuration);
  // The terminal and Markdown show the name as the trace writes it (JSON: its group's name).
  tb.columns.push_back(
      Column(nullptr).text("", Show::kName).md("Name", Show::kName).left().max_len(60, 80));
  for (size_t i = 0; i < tb.rows.size(); ++i)
    tb.rows[i].push_back(Cell::str(t.str(api.rows[i].name)));
  tb.shown = {kPercent, kTotal, kCount, kMax, kRawName};
  tb.text_header = false;
  tb.text_rows = tb.md_rows = kTopRows;
  return s;
}

ReportSection annotations_section(const Trace& t, const NamedStatsTable& annotations) {
  ReportSection s("annotations");
  named_stats_table(&s, t, annotations, "");
  return s;
}

ReportSection cpu_ops_section(const Trace& t, const CpuOpSummary& c) {
  ReportSection s("cpu_ops");
  s.field("count", Cell::count(c.count));
  s.field("self_us", Cell::ns(c.self_ns));
  if (!c.rows.empty()) {
    s.linef("CPU ops by self time: %llu ops, %s self", static_cast<unsigned long long>(c.count),
            format_duration(c.self_ns).c_str());
    s.paragraph("## CPU ops by self time\n\n");
  }
  Table& tb = s.table();
  tb.columns = {
      Column("name").text("", Show::kName, 0, 2).md("Name", Show::kName).left().max_len(70, 80)};
  for (Column& col : duration_stats_columns()) tb.columns.push_back(col);
  tb.columns.push_back(Column("self_us")
                           .text("", Show::kDuration, 10)
                           .prefix("self ")
                           .text_left()
                           .md("Self", Show::kDuration));
  tb.columns.push_back(Column("self_max_us"));
  tb.columns.push_back(
      Column("self_percent").text("", Show::kPlain, 6).suffix("%").md("Self %", Show::kPlain));
  enum { kName, kCount, kTotal, kAvg, kMedian, kMin, kMax, kStddev, kSelf, kSelfMax, kSelfPercent };
  tb.columns[kTotal]
      .text("", Show::kDuration, 10)
      .prefix("total ")
      .text_left()
      .md("Total", Show::kDuration);
  tb.columns[kCount].text("", Show::kPlain, 8).suffix(" calls").md("Calls", Show::kPlain);
  tb.shown = {kSelfPercent, kSelf, kTotal, kCount, kName};
  tb.text_header = false;
  tb.text_rows = tb.md_rows = kTopRows;
  tb.add_rows_capped(
      c.rows,
      [&](const CpuOpRow& r) {
        std::vector<Cell>& row = tb.row();
        row.push_back(Cell::str(r.label.empty() ? t.str(r.name) : std::string_view(r.label)));
        add_duration_stats_cells(&row, r.total);
        row.push_back(Cell::ns(r.self_ns));
        row.push_back(Cell::ns(r.self_max_ns));
        row.push_back(Cell::number(r.self_percent));
      },
      [](const CpuOpRow& r) { return r.self_ns; });
  return s;
}

ReportSection kernel_groups_section(const Trace& t, const KernelGroups& g) {
  ReportSection s("kernel_groups");
  s.field("math_us", Cell::ns(g.math_ns));
  s.field("math_pct", Cell::number(g.math_pct));
  Table& tb = s.table("by_class");
  tb.columns = {Column("class"), Column("category"), Column("math")};
  for (Column& c : duration_stats_columns()) tb.columns.push_back(c);
  tb.columns.push_back(Column("percent"));
  std::string classes;
  for (const KernelClassRow& r : g.by_class) {
    tb.row() = {Cell::str(kernel_class_name(r.klass)), Cell::str(hta_category_name(r.category)),
                Cell::flag(is_math_class(r.klass))};
    add_duration_stats_cells(&tb.rows.back(), r.stats);
    tb.rows.back().push_back(Cell::number(r.percent));
    classes += (classes.empty() ? "" : ", ") + std::string(kernel_class_name(r.klass)) + " " +
               format_pct(r.percent);
  }
  s.field("has_annotations", Cell::flag(g.has_annotations));
  s.field("annotation_source",
          Cell::str(g.nvtx_at_launch ? "nvtx_at_launch" : "gpu_user_annotation"));
  if (!g.by_class.empty())
    s.linef("Kernel classes (math %s): %s", format_pct(g.math_pct).c_str(), classes.c_str());
  // The kernels by annotation: JSON always; text and Markdown for an export's NVTX ranges
  // (Kineto's GPU annotations stay JSON and the page's, as the other name tables of Kineto).
  const bool shown = g.has_annotations && g.nvtx_at_launch;
  const char* heading = "Kernels by NVTX range at launch (the innermost the program pushed)";
  if (shown) {
    s.linef("%s:", heading);
    s.paragraph(std::string("## ") + heading + "\n\n");
  }
  s.begin_object("by_annotation");
  Table& by = named_stats_table(&s, t, g.by_annotation, "(no annotation)");
  s.end_object();
  if (shown) {
    enum { kName, kCount, kTotal, kAvg, kMedian, kMin, kMax, kStddev, kPercent };
    by.columns[kPercent].text("Time%", Show::kPlain, 7).digits(1).md("Time %", Show::kPlain);
    by.columns[kTotal].text("Total", Show::kDuration, 10).md("Total", Show::kDuration);
    by.columns[kCount].text("Kernels", Show::kPlain, 8).md("Kernels", Show::kPlain);
    by.columns[kAvg].text("Avg", Show::kDuration, 10).md("Avg", Show::kDuration);
    by.columns[kName]
        .text("Name", Show::kName, 0, 2)
        .md("Name", Show::kName)
        .left()
        .max_len(70, 80);
    by.shown = {kPercent, kTotal, kCount, kAvg, kName};
    by.text_rows = by.md_rows = kTopRows;
    by.text_more_note = true;
  }
  s.line("");
  return s;
}

}  // namespace ks
