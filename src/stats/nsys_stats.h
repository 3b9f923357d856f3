// The `nsys stats` reports a user of Nsight Systems knows (cuda_gpu_kern_sum,
// cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum, cuda_api_sum, nvtx_sum, osrt_sum, the combined
// summaries, the per-style NVTX summaries, the kernel launch summaries and the traces),
// computed from the export's own tables with NVIDIA's definitions, one report a file (each opens
// with its definition and source). They read the database, not the model: their numbers are
// NVIDIA's, column for column. `kinetoscope stats` prints them; the page shows the same tables.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "import/nsys_sqlite/nsys_database.h"

namespace ks {

// One cell: text, or a number (integers stay exact: nanoseconds and bytes).
struct StatsCell {
  enum class Kind { kText, kInt, kReal, kNull } kind = Kind::kNull;
  std::string text;
  int64_t i = 0;
  double r = 0;
};

struct StatsTable {
  std::string report;                // "cuda_gpu_kern_sum"
  std::string title;                 // "CUDA GPU Kernel Summary"
  std::vector<std::string> columns;  // as nsys names them: "Time (%)", "Total Time (ns)", ...
  std::vector<std::vector<StatsCell>> rows;
  std::string note;  // why the table is empty, e.g. "no NVTX_EVENTS table: ..."; "" otherwise
  uint64_t omitted_rows = 0;  // rows left out past the first ones (the page's tables); 0: none
};

// Where reports go as they are made. A trace report (a row per call or GPU op: tens of millions in
// a multi-GB export) hands its rows over one at a time, in order, holding none; the other reports
// keep their rows in the table. end() comes once per report, after its streamed rows, with the
// table's note, kept rows and omitted count final.
class StatsSink {
 public:
  virtual ~StatsSink() = default;
  virtual void row(const StatsTable& table, const std::vector<StatsCell>& cells) = 0;
  virtual void end(const StatsTable& table) = 0;
};

// Every report we know, in nsys's order; the default set is what `nsys stats` prints by default.
const std::vector<std::string>& nsys_stats_report_names();
// Whether each of `reports` ("NAME" or "NAME:ARG[:ARG]", nsys's `:base` and `:mangled` on the
// reports that name kernels) is known; false with *error saying which is not, and what is.
bool check_nsys_stats_reports(const std::vector<std::string>& reports, std::string* error);
const std::vector<std::string>& nsys_stats_default_reports();

// Runs the named reports (unknown names are an error: *error says which and lists the known).
// `max_rows` > 0: a trace report (a row per call or GPU op) keeps its first `max_rows` rows and
// counts the rest in omitted_rows, holding no more than those while it reads.
bool run_nsys_stats(const NsysDatabase& db, const std::vector<std::string>& reports,
                    std::vector<StatsTable>* out, std::string* error, size_t max_rows = 0);

// The same into `sink`, every row of the trace reports streamed (the CLI: constant memory).
bool run_nsys_stats(const NsysDatabase& db, const std::vector<std::string>& reports,
                    StatsSink* sink, std::string* error);

// The writers as sinks: "text", "csv" or "json" (nullptr for another name). They hand their output
// to `out` in pieces as it is made; text lays out columns to the widest cell, so a streamed
// table's rows wait in a temporary file until its end.
// finish() after the last report closes the output (JSON's brackets) and hands out the rest.
class StatsWriter : public StatsSink {
 public:
  virtual void finish() = 0;
};
std::unique_ptr<StatsWriter> make_stats_writer(const std::string& format,
                                               std::function<void(std::string_view)> out);

// nsys stats' --timeunit: the time columns ("... (ns)") in another unit, "Avg (us)" 3.493.
struct TimeUnit {
  std::vector<std::string> names;  // as --timeunit takes it: "usec", "microseconds", "us"
  std::string suffix;              // the columns' "(us)"
  int64_t divisor = 1;             // nanoseconds in one unit
  int decimals = 0;                // the digits that keep whole nanoseconds
};
const std::vector<TimeUnit>& time_units();
// The unit --timeunit names, or nullptr.
const TimeUnit* find_time_unit(const std::string& name);
// A sink that hands `inner` each table with its "(ns)" columns in `unit`: integer nanoseconds
// become reals of that unit, reals (averages, already rounded to 0.1 ns) are divided.
std::unique_ptr<StatsSink> make_time_unit_sink(const TimeUnit& unit, StatsSink* inner);

// Writers: text as `nsys stats` prints it (column layout), JSON for the page and scripts
// (docs/report-schema.md, "kinetoscope.stats/1"), CSV as `nsys stats --format csv`.
std::string nsys_stats_text(const std::vector<StatsTable>& tables);
std::string nsys_stats_json(const std::vector<StatsTable>& tables);
std::string nsys_stats_csv(const std::vector<StatsTable>& tables);

}  // namespace ks
