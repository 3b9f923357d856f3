// The `nsys stats` reports a user of Nsight Systems knows (cuda_gpu_kern_sum,
// cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum, cuda_api_sum, nvtx_sum, osrt_sum, the combined
// summaries, the per-style NVTX summaries, the kernel launch summaries and the traces),
// computed from the export's own tables with NVIDIA's definitions, one report a file (each opens
// with its definition and source). They read the database, not the model: their numbers are
// NVIDIA's, column for column. `kinetoscope stats` prints them; the page shows the same tables.
#pragma once
#include <string>
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

// Every report we know, in nsys's order; the default set is what `nsys stats` prints by default.
const std::vector<std::string>& nsys_stats_report_names();
const std::vector<std::string>& nsys_stats_default_reports();

// Runs the named reports (unknown names are an error: *error says which and lists the known).
// `max_rows` > 0: a trace report (a row per call or GPU op) keeps its first `max_rows` rows and
// counts the rest in omitted_rows, holding no more than those while it reads.
bool run_nsys_stats(const NsysDatabase& db, const std::vector<std::string>& reports,
                    std::vector<StatsTable>* out, std::string* error, size_t max_rows = 0);

// Writers: text as `nsys stats` prints it (column layout), JSON for the page and scripts
// (docs/report-schema.md, "kinetoscope.stats/1"), CSV as `nsys stats --format csv`.
std::string nsys_stats_text(const std::vector<StatsTable>& tables);
std::string nsys_stats_json(const std::vector<StatsTable>& tables);
std::string nsys_stats_csv(const std::vector<StatsTable>& tables);

}  // namespace ks
