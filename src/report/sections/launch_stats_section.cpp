// Kernel launches (HTA's cuda_kernel_launch_stats): per launching API and in total, the short
// kernels, slow launches and delays; and each stream's launch queue over time (JSON). The
// terminal and Markdown say the totals in one sentence, only when the trace has GPU ops.
#include <algorithm>
#include <string>

#include "report/sections/sections.h"
#include "util/format.h"

namespace ks {

namespace {

std::vector<Column> launch_columns() {
  std::vector<Column> cols = {
      Column("launches"),       Column("short_kernels"), Column("runtime_outliers"),
      Column("delay_outliers"), Column("before_launch"), Column("cpu_us"),
      Column("gpu_us")};
  for (Column& c : duration_stats_columns()) cols.push_back(c.in("delay"));
  return cols;
}

void add_launch_cells(std::vector<Cell>* row, const LaunchApiRow& r) {
  row->insert(row->end(), {Cell::count(r.launches), Cell::count(r.short_kernels),
                           Cell::count(r.runtime_outliers), Cell::count(r.delay_outliers),
                           Cell::count(r.before_launch), Cell::ns(r.cpu_ns), Cell::ns(r.gpu_ns)});
  add_duration_stats_cells(row, r.delay);
}

void add_launch_prose(ReportSection* s, const LaunchStats& l) {
  const LaunchApiRow& r = l.total;
  int64_t max_queue = 0, blocked = 0;
  for (const StreamQueue& q : l.queues) {
    max_queue = std::max(max_queue, q.max_len);
    blocked += q.blocked_ns;
  }
  // A CUDA graph's kernels share their cudaGraphLaunch's correlation id: one launch, more ops.
  const std::string graph_ops = r.graph_ops > 0
                                    ? "; " + std::to_string(r.graph_ops) +
                                          " more GPU ops started by the same launches (CUDA graphs)"
                                    : "";
  s->linef(
      "Launches: %llu; short kernels %llu, launches > 50 us %llu, launch delay > 100 us %llu; "
      "median delay %s; longest launch queue %lld%s%s",
      static_cast<unsigned long long>(r.launches), static_cast<unsigned long long>(r.short_kernels),
      static_cast<unsigned long long>(r.runtime_outliers),
      static_cast<unsigned long long>(r.delay_outliers),
      format_duration(static_cast<int64_t>(r.delay.median_ns)).c_str(),
      static_cast<long long>(max_queue),
      blocked > 0 ? (", blocked on a full queue " + format_duration(blocked)).c_str() : "",
      graph_ops.c_str());
  s->paragraph("Launches: " + std::to_string(r.launches) + "; short kernels " +
               std::to_string(r.short_kernels) + ", launches > 50 us " +
               std::to_string(r.runtime_outliers) + ", launch delay > 100 us " +
               std::to_string(r.delay_outliers) + ".\n\n");
}

// The queues in device and stream order (LaunchStats::queues'), past kMaxTableRows only the
// busiest (busier_queue: the longest queue must be in the table, and every series).
std::vector<const StreamQueue*> busiest_queues(const std::vector<StreamQueue>& all) {
  std::vector<const StreamQueue*> v;
  v.reserve(all.size());
  for (const StreamQueue& q : all) v.push_back(&q);
  if (v.size() <= kMaxTableRows) return v;
  std::nth_element(v.begin(), v.begin() + kMaxTableRows, v.end(),
                   [](const StreamQueue* a, const StreamQueue* b) { return busier_queue(*a, *b); });
  // Back to the order of `all`, which the pointers into it keep.
  std::sort(v.begin(), v.begin() + kMaxTableRows);
  std::sort(v.begin() + kMaxTableRows, v.end());
  return v;
}

}  // namespace

ReportSection launch_stats_section(const Trace& t, const LaunchStats& l, bool has_gpu_ops) {
  ReportSection s("launch_stats");
  std::vector<Cell> total;
  add_launch_cells(&total, l.total);
  s.fields(launch_columns(), total);
  Table& apis = s.table("apis");
  apis.columns = {Column("name")};
  for (Column& c : launch_columns()) apis.columns.push_back(c);
  for (const LaunchApiRow& r : l.apis) {
    apis.row().push_back(Cell::str(t.str(r.api)));
    add_launch_cells(&apis.rows.back(), r);
  }
  // GPU ops a launch started beyond its first (a cudaGraphLaunch's kernels share its id).
  s.field("graph_ops", Cell::count(l.total.graph_ops));
  s.field("full_queue", Cell::integer(kFullLaunchQueue));
  Table& queues = s.table("queues");
  queues.columns = {Column("device"),           Column("stream"),     Column("max_len"),
                    Column("mean_len").json(2), Column("blocked_us"), Column("series")};
  for (const StreamQueue* q : busiest_queues(l.queues)) {
    if (!queues.room_for_row(q->blocked_ns)) continue;  // past the longest kMaxTableRows
    Cell series = Cell::null();
    if (!q->series.empty()) {
      std::vector<std::array<int64_t, 2>>& points = s.keep_series.emplace_back();
      points.reserve(q->series.size());
      for (const QueuePoint& p : q->series)
        points.push_back({p.ts_ns - t.facts.origin_ns(), p.max_len});
      series = Cell::pairs(&points);
    }
    queues.row() = {Cell::optional(q->device), Cell::optional(q->stream), Cell::integer(q->max_len),
                    Cell::number(q->mean_len), Cell::ns(q->blocked_ns),   series};
  }
  if (has_gpu_ops && l.total.launches > 0) add_launch_prose(&s, l);
  return s;
}

}  // namespace ks
