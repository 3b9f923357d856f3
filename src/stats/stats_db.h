// What the report files share: a thin reader over an open `sqlite3*` (tables and columns asked by
// name, since they differ between Nsight Systems versions), the summary builder every `*_sum`
// report uses, and the entry point that runs reports on a bare handle. The public entry point
// (nsys_stats.h) takes an NsysDatabase; tests and tools that open a database themselves
// (sqlite3_open_v2 on a file or ":memory:") call run_nsys_stats_on_handle() directly.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "stats/nsys_stats.h"
#include "util/flat_u64_map.h"

struct sqlite3;
struct sqlite3_stmt;

namespace ks {

// Which of a kernel's names the reports print: nsys's report arguments `:base` (the base name,
// shortName) and `:mangled` (mangledName where the capture recorded it, else the templated
// name); by default the templated name (demangledName).
enum class KernelNaming { kTemplated, kBase, kMangled };

class StatsDb {
 public:
  // `max_rows`: the most rows a trace report keeps (its first, in order; omitted_rows counts the
  // rest), 0 for all. The summaries have a row per name and ignore it.
  // `sink`: where trace reports stream their rows (then max_rows is 0); nullptr: they keep them.
  explicit StatsDb(sqlite3* db, size_t max_rows = 0, StatsSink* sink = nullptr)
      : db_(db), max_rows_(max_rows), sink_(sink) {}
  sqlite3* handle() const { return db_; }
  size_t max_rows() const { return max_rows_; }
  StatsSink* sink() const { return sink_; }
  KernelNaming kernel_naming() const { return kernel_naming_; }
  // The same database, its reports naming kernels as `naming` says.
  StatsDb with_kernel_naming(KernelNaming naming) const {
    StatsDb copy = *this;
    copy.kernel_naming_ = naming;
    return copy;
  }
  // Real tables only (a view under a known name is not read).
  bool has_table(const std::string& table) const;
  bool has_column(const std::string& table, const std::string& column) const;
  // Runs `sql`, calling `row` for each result row. False (and *error set) on an SQL error.
  bool query(const std::string& sql, const std::function<void(sqlite3_stmt*)>& row,
             std::string* error) const;
  // The first value of a one-value query as text ("" if none).
  std::string scalar_text(const std::string& sql) const;

 private:
  sqlite3* db_;
  size_t max_rows_;
  StatsSink* sink_;
  KernelNaming kernel_naming_ = KernelNaming::kTemplated;
};

// One statement prepared once and run many times: a trace report fetches each row by rowid.
class StatsStatement {
 public:
  // *error is set (and ok() false) where `sql` does not prepare.
  StatsStatement(const StatsDb& db, const std::string& sql, std::string* error);
  ~StatsStatement();
  StatsStatement(const StatsStatement&) = delete;
  StatsStatement& operator=(const StatsStatement&) = delete;
  bool ok() const { return st_ != nullptr; }
  // Runs it with ?1 = a (and ?2 = b where the statement has it): the statement on its first row,
  // or nullptr where there is none (*error set on an SQL error, "" otherwise).
  sqlite3_stmt* first_row(int64_t a, int64_t b, std::string* error);

 private:
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
};

// Column helpers for a result row.
std::string col_text(sqlite3_stmt* st, int col);  // "" for NULL
int64_t col_int(sqlite3_stmt* st, int col);
bool col_null(sqlite3_stmt* st, int col);

StatsCell cell_int(int64_t v);
StatsCell cell_real(double v);
StatsCell cell_text(std::string v);
StatsCell cell_null();
// The row's integer at `col`, or an empty cell where it is NULL.
StatsCell int_or_null(sqlite3_stmt* st, int col);
// SQLite's round(x, 1) as the report scripts apply it: half away from zero.
double round1(double v);

// One group of a `*_sum` report: its label cells (e.g. {Style, Range} or {Name}) and its values.
struct SumGroup {
  std::vector<std::string> labels;
  std::vector<int64_t> values;
};

// Durations (end - start) of the rows `sql` returns as (start, end, name id, name text), one group
// per name id, in order of first appearance; `label` turns the name text into the group's label.
bool group_durations_by_name_id(const StatsDb& db, const std::string& sql,
                                const std::function<std::string(std::string)>& label,
                                std::vector<SumGroup>* groups, std::string* error);

// The nsys summary columns over each group's durations: Time (%), Total Time (ns), <count_column>,
// Avg (ns), Med (ns), Min (ns), Max (ns), StdDev (ns), then the label columns. Rows ordered as
// cuda_gpu_kern_sum orders them: total time descending, then count ascending, then the labels
// (nsys's other summaries order by total only; the tie-breakers make ours deterministic).
// Avg, Med and StdDev rounded to 0.1 ns and Time (%) to 0.1, as the scripts' round(x, 1) does.
void fill_time_summary(std::vector<SumGroup> groups, const std::string& count_column,
                       const std::vector<std::string>& label_columns, StatsTable* table);

// CUPTI_ACTIVITY_KIND_KERNEL's name id as the reports take it, an SQL expression over the table
// aliased `alias` ("" for none): demangledName, else shortName (an older export has no demangled
// column); shortName for KernelNaming::kBase; coalesce(mangledName, <the templated one>) for
// kMangled, as nsys falls back where the capture did not record mangled names.
std::string kernel_name_expr(const StatsDb& db, const std::string& alias = "");
// A launch's grid or block size as the reports print it: each of x, y, z right-aligned in four
// characters ("  64    1    1").
std::string launch_shape(const int64_t (&xyz)[3]);

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel": nsys's API names lose their version suffix.
std::string strip_nsys_api_version(const std::string& name);

// The durations the summaries group, one SumGroup (label: the name) per name in first-seen order:
// kernels by name text (cuda_gpu_kern_sum.cpp), CUDA API calls by name id without the version
// suffix (cuda_api_sum.cpp). An export without the table gives no groups and a *note saying which
// capture records them; false only for an SQL failure.
bool collect_kernel_groups(const StatsDb& db, std::vector<SumGroup>* groups, std::string* note,
                           std::string* error);
extern const char* kNoKernelRows;  // the note of an export whose kernel table is empty
bool collect_api_groups(const StatsDb& db, std::vector<SumGroup>* groups, std::string* note,
                        std::string* error);

// A kernel and the call that launched it, as join_kernel_launches reads them (names as ids).
struct LaunchPair {
  int64_t kernel_rowid = 0, start = 0, end = 0, device = 0, kernel_name_id = 0;
  bool kernel_name_null = false;
  bool has_call = false;  // false: a kernel without its call (kept only when asked)
  int64_t call_rowid = 0, call_start = 0, call_end = 0, call_name_id = 0, global_tid = 0;
  bool call_name_null = false, global_tid_null = false;
};
// Each kernel of CUPTI_ACTIVITY_KIND_KERNEL with each CUPTI_ACTIVITY_KIND_RUNTIME call of its
// correlationId in its process (where the kernel table has globalPid; correlation ids are per
// process), by kernel rowid then call rowid, as `k JOIN r` (or `k LEFT JOIN r` with
// `keep_unlaunched`) gives them. Needs both tables; false only for an SQL failure.
bool join_kernel_launches(const StatsDb& db, bool keep_unlaunched,
                          const std::function<void(const LaunchPair&)>& fn, std::string* error);
// The same for the GPU ops of `table` (CUPTI_ACTIVITY_KIND_MEMCPY, _MEMSET, or _KERNEL): the
// LaunchPair's "kernel" fields are the op's, its name id NULL for a table without names.
bool join_gpu_op_launches(const StatsDb& db, const std::string& table, bool keep_unlaunched,
                          const std::function<void(const LaunchPair&)>& fn, std::string* error);
// The names of StringIds by id, each read once ("" for an id not there).
class StringIdNames {
 public:
  // `label` turns a name into the text it is grouped and shown by (nullptr: as it is).
  explicit StringIdNames(const StatsDb& db, std::string (*label)(const std::string&) = nullptr);
  // The name's index for text(): equal texts share an index, so grouping by index is grouping
  // by text. A NULL id (`null`) is the empty name, as a LEFT JOIN leaves it. An SQL failure
  // gives the empty name and sets error().
  uint32_t index(int64_t id, bool null);
  const std::string& text(uint32_t index) const { return names_[index]; }
  const std::string& error() const { return error_; }

 private:
  uint32_t intern(const std::string& text);
  std::string (*label_)(const std::string&);
  std::string error_;  // before lookup_, which sets it where it cannot be prepared
  StatsStatement lookup_;
  std::vector<std::string> names_;
  std::map<std::string, uint32_t> by_text_;
  FlatU64Map<uint32_t> by_id_;  // seeded: a file cannot choose ids that collide
  uint32_t null_index_ = UINT32_MAX;
};

// Whether the tables a launch needs are there (else false and *note says which is missing), and
// the note for an export where no kernel has its call (cuda_kern_exec_sum and _trace).
bool kernel_launch_tables(const StatsDb& db, std::string* note);
extern const char* kNoKernelLaunches;

// The reports, one file each (definitions at the top of each).
bool report_cuda_gpu_kern_sum(const StatsDb& db, StatsTable* t, std::string* error);
bool report_cuda_gpu_mem_time_sum(const StatsDb& db, StatsTable* t, std::string* error);
bool report_cuda_gpu_mem_size_sum(const StatsDb& db, StatsTable* t, std::string* error);
bool report_cuda_api_sum(const StatsDb& db, StatsTable* t, std::string* error);
bool report_nvtx_sum(const StatsDb& db, StatsTable* t, std::string* error);
bool report_osrt_sum(const StatsDb& db, StatsTable* t, std::string* error);
bool report_cuda_gpu_trace(const StatsDb& db, StatsTable* t, std::string* error);
bool report_cuda_kern_exec_sum(const StatsDb& db, StatsTable* t, std::string* error);
bool report_nvtx_kern_sum(const StatsDb& db, StatsTable* t, std::string* error);
bool report_cuda_gpu_sum(const StatsDb& db, StatsTable* t, std::string* error);
bool report_cuda_api_gpu_sum(const StatsDb& db, StatsTable* t, std::string* error);
bool report_nvtx_pushpop_sum(const StatsDb& db, StatsTable* t, std::string* error);
bool report_nvtx_startend_sum(const StatsDb& db, StatsTable* t, std::string* error);
bool report_cuda_api_trace(const StatsDb& db, StatsTable* t, std::string* error);
bool report_cuda_kern_exec_trace(const StatsDb& db, StatsTable* t, std::string* error);
bool report_cuda_gpu_kern_gb_sum(const StatsDb& db, StatsTable* t, std::string* error);
bool report_nvtx_pushpop_trace(const StatsDb& db, StatsTable* t, std::string* error);
// um_sum.cpp: the unified-memory reports.
bool report_um_sum(const StatsDb& db, StatsTable* t, std::string* error);
bool report_um_total_sum(const StatsDb& db, StatsTable* t, std::string* error);
bool report_um_cpu_page_faults_sum(const StatsDb& db, StatsTable* t, std::string* error);
bool report_nvtx_gpu_proj_sum(const StatsDb& db, StatsTable* t, std::string* error);

// run_nsys_stats() on a bare handle (the database must stay open while this runs).
bool run_nsys_stats_on_handle(sqlite3* db, const std::vector<std::string>& reports,
                              std::vector<StatsTable>* out, std::string* error,
                              size_t max_rows = 0);
bool run_nsys_stats_on_handle(sqlite3* db, const std::vector<std::string>& reports, StatsSink* sink,
                              std::string* error);

}  // namespace ks
