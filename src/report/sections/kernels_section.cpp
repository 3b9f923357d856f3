// Kernels: per kernel name, the nsys cuda_gpu_kern_sum columns (time share, total, instances,
// avg, median, min, max, stddev) with HTA's category. The terminal shows the top 15, Markdown
// the top 20, JSON up to kMaxTableRows.
#include <string>

#include "report/sections/sections.h"
#include "util/format.h"

namespace ks {

ReportSection kernels_section(const Trace& t, const KernelSummary& k) {
  ReportSection s("kernels");
  s.field("count", Cell::count(k.count));
  s.field("total_us", Cell::ns(k.total_ns));
  s.linef("Kernels: %zu names, %llu launches, %s total", k.rows.size(),
          static_cast<unsigned long long>(k.count), format_duration(k.total_ns).c_str());
  s.paragraph("## Kernels\n\n" + std::to_string(k.rows.size()) + " names, " +
              std::to_string(k.count) + " launches, " + format_duration(k.total_ns) +
              " total.\n\n");

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
