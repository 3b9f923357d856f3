// The nsys summary columns (count, total, avg, median, min, max, stddev) every table of names
// carries in JSON (docs/report-schema.md).
#include "report/sections/sections.h"

namespace ks {

std::vector<Column> duration_stats_columns() {
  return {Column("count"),  Column("total_us"), Column("avg_us"),   Column("median_us"),
          Column("min_us"), Column("max_us"),   Column("stddev_us")};
}

void add_duration_stats_cells(std::vector<Cell>* row, const DurationStats& s) {
  row->push_back(Cell::count(s.count));
  row->push_back(Cell::ns(s.total_ns));
  row->push_back(Cell::ns(s.avg_ns));
  row->push_back(Cell::ns(s.median_ns));
  row->push_back(Cell::ns(s.min_ns));
  row->push_back(Cell::ns(s.max_ns));
  row->push_back(Cell::ns(s.stddev_ns));
}

}  // namespace ks
