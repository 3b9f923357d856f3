// Kernels: per kernel name, the nsys cuda_gpu_kern_sum columns (time share, total, instances,
// avg, median, min, max, stddev) with HTA's category. The terminal shows the top 15, Markdown
// the top 20, JSON up to kMaxTableRows.
#include <string>

#include "report/sections/sections.h"
#include "util/format.h"

namespace ks {

namespace {

// A CUDA graph launch starts all its graph's kernels with one call, so kernels are not launches
// there: "480 launches" read as 480 calls when 21 cudaGraphLaunch calls made 399 of them. The
// graph launch calls and the GPU ops they started (the launch statistics' rows of the APIs
// named *GraphLaunch), said beside the kernels; "" when no graph was launched.
std::string graph_launch_words(const Trace& t, const LaunchStats& l) {
  uint64_t calls = 0, ops = 0;
  for (const LaunchApiRow& r : l.apis) {
    if (t.str(r.api).find("GraphLaunch") == std::string_view::npos) continue;
    calls += r.launches;
    ops += r.launches + r.graph_ops;
  }
  if (calls == 0) return "";
  return " (" + std::to_string(calls) + " CUDA graph launch" + (calls == 1 ? "" : "es") +
         " started " + std::to_string(ops) + " GPU ops)";
}

}  // namespace

ReportSection kernels_section(const Trace& t, const KernelSummary& k, const LaunchStats& l) {
  ReportSection s("kernels");
  s.field("count", Cell::count(k.count));
  s.field("total_us", Cell::ns(k.total_ns));
  // Without graphs each kernel is one launch call; with them the calls are fewer: say kernels.
  const std::string graphs = graph_launch_words(t, l);
  const std::string counted =
      std::to_string(k.count) + (graphs.empty() ? " launches" : " kernels" + graphs);
  s.linef("Kernels: %zu names, %s, %s total", k.rows.size(), counted.c_str(),
          format_duration(k.total_ns).c_str());
  s.paragraph("## Kernels\n\n" + std::to_string(k.rows.size()) + " names, " + counted + ", " +
              format_duration(k.total_ns) + " total.\n\n");

  Table& tb = s.table();
  tb.columns = {
      Column("name").text("Name", Show::kName).md("Name", Show::kName).left().max_len(90, 120),
      Column("category").text("Category", Show::kPlain, 13, 2).md("Category", Show::kPlain).left(),
      Column("class"), Column("tensor_core")};
  for (Column& c : duration_stats_columns()) tb.columns.push_back(c);
  tb.columns.push_back(Column("percent").text("Time%", Show::kPlain, 6).md("Time %", Show::kPlain));
  enum {
    kName,
    kCategory,
    kClass,
    kTensorCore,
    kCount,
    kTotal,
    kAvg,
    kMedian,
    kMin,
    kMax,
    kStddev,
    kPercent
  };
  tb.columns[kCount].text("Instances", Show::kPlain, 9).md("Instances", Show::kPlain);
  tb.columns[kTotal].text("Total(us)", Show::kUs, 12).md("Total (us)", Show::kUs);
  tb.columns[kAvg].text("Avg(us)", Show::kUs, 10).md("Avg (us)", Show::kUs);
  tb.columns[kMedian].text("Med(us)", Show::kUs, 10).md("Med (us)", Show::kUs);
  tb.columns[kMin].text("Min(us)", Show::kUs, 10).md("Min (us)", Show::kUs);
  tb.columns[kMax].text("Max(us)", Show::kUs, 10).md("Max (us)", Show::kUs);
  tb.columns[kStddev].text("StdDev", Show::kUs, 10).md("StdDev (us)", Show::kUs);
  tb.shown = {kPercent, kTotal, kCount, kAvg, kMedian, kMin, kMax, kStddev, kCategory, kName};
  tb.text_rows = 15;
  tb.md_rows = 20;
  tb.text_more_note = true;
  tb.add_rows_capped(
      k.rows,
      [&](const KernelRow& r) {
        std::vector<Cell>& row = tb.row();
        row = {Cell::str(t.str(r.name)), Cell::str(hta_category_name(r.category)),
               Cell::str(kernel_class_name(r.klass)), Cell::flag(r.tensor_core)};
        add_duration_stats_cells(&row, r.stats);
        row.push_back(Cell::number(r.percent));
      },
      [](const KernelRow& r) { return r.stats.total_ns; });
  s.line("");
  return s;
}

}  // namespace ks
