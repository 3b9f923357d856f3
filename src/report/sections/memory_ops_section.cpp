// Memory ops: per kind of copy or set (HtoD, DtoH, ..., Memset): count, time, bytes, the
// achieved bandwidth and how many copies used pageable host memory (they cannot overlap).
#include <string>

#include "report/sections/sections.h"
#include "util/format.h"

namespace ks {

ReportSection memory_ops_section(const MemoryOpSummary& m) {
  ReportSection s("memory_ops");
  s.field("count", Cell::count(m.count));
  s.field("total_us", Cell::ns(m.total_ns));
  s.linef("Memory ops: %llu ops, %s total", static_cast<unsigned long long>(m.count),
          format_duration(m.total_ns).c_str());
  if (!m.rows.empty()) s.paragraph("## Memory ops\n\n");

  Table& tb = s.table();
  tb.columns = {Column("kind").text("", Show::kPlain, 7).md("Kind", Show::kPlain).left()};
  for (Column& c : duration_stats_columns()) tb.columns.push_back(c);
  enum {
    kKind,
    kCount,
    kTotal,
    kAvg,
    kMedian,
    kMin,
    kMax,
    kStddev,
    kBytes,
    kGbPerS,
    kPageable,
    kPercent,
    kPageableNote
  };
  tb.columns[kCount].text("", Show::kPlain, 7).suffix(" ops").md("Count", Show::kPlain);
  tb.columns[kTotal].text("", Show::kDuration, 12, 2).md("Total (us)", Show::kUs);
  tb.columns.push_back(Column("bytes").text("", Show::kBytes, 12, 2).md("Bytes", Show::kPlain));
  tb.columns.push_back(Column("gb_per_s")
                           .json(3)
                           .text("", Show::kPlain, 8, 2)
                           .suffix(" GB/s")
                           .md("GB/s", Show::kPlain));
  tb.columns.push_back(Column("pageable").md("Pageable", Show::kPlain));
  tb.columns.push_back(Column("percent"));
  // The terminal says " (N pageable)" after the bandwidth, only when there are some.
  tb.columns.push_back(Column(nullptr).text("", Show::kPlain, 0, 0));
  tb.shown = {kKind, kCount, kTotal, kBytes, kGbPerS, kPageable, kPageableNote};
  tb.text_header = false;
  for (const MemoryOpRow& r : m.rows) {
    std::vector<Cell>& row = tb.row();
    row.push_back(Cell::str(memory_op_kind_name(r.kind)));
    add_duration_stats_cells(&row, r.stats);
    row.push_back(Cell::integer(r.bytes));
    row.push_back(Cell::number(r.gb_per_s));
    row.push_back(Cell::count(r.pageable));
    row.push_back(Cell::number(r.percent));
    row.push_back(Cell::str(r.pageable ? s.own(" (" + std::to_string(r.pageable) + " pageable)")
                                       : std::string_view()));
  }
  s.line("");
  return s;
}

}  // namespace ks
