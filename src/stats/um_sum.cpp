// The unified-memory reports of `nsys stats` (Nsight Systems User Guide, "Report Scripts"; the
// scripts' usage text), over the page-fault tables of --cuda-um-cpu-page-faults=true and
// --cuda-um-gpu-page-faults=true and the memcpy rows of the migrations (copyKind 11
// CUDA_MEMCPY_KIND_UVM_HTOD, 12 CUDA_MEMCPY_KIND_UVM_DTOH):
//   um_sum, "Unified Memory Analysis Summary": per virtual address (the faults' `address`, the
//     migrations' `virtualAddress`), Virtual Address, HtoD Migration Size (MB), DtoH Migration
//     Size (MB), CPU Page Faults (rows), GPU Page Faults (summed numberOfPageFaults), Migration
//     Throughput (MB/s); NVIDIA computes the throughput as bytes * (1e9 / summed ns) in integer
//     arithmetic, and so do we (then in MB). Ordered by throughput descending (addresses with no
//     migration last), then address; its first 10 rows, as the script's default rows=10.
//   um_total_sum, "Unified Memory Totals Summary": one row, Total HtoD Migration Size (MB),
//     Total DtoH Migration Size (MB), Total CPU Page Faults, Total GPU PageFaults (the script's
//     spelling), Minimum and Maximum Virtual Address over faults and migrations.
//   um_cpu_page_faults_sum, "Unified Memory CPU Page Faults Summary": CPU Page Faults, CPU
//     Instruction Address (the CpuInstruction string: the faulting function), Source File, Source
//     Line (empty before the export had them), grouped by those three, most faults first.
// Memory in MB (1,000,000 B) as our other reports print it; addresses as integers, as the SQL
// returns them. um_sum and um_total_sum need all three tables, as the scripts check.
#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

#include "stats/stats_db.h"

namespace ks {

namespace {

constexpr int64_t kUvmHtoD = 11, kUvmDtoH = 12;
constexpr double kMB = 1e6;

const char* kCpuTable = "CUDA_UM_CPU_PAGE_FAULT_EVENTS";
const char* kGpuTable = "CUDA_UM_GPU_PAGE_FAULT_EVENTS";
const char* kMemcpyTable = "CUPTI_ACTIVITY_KIND_MEMCPY";

// The first table the unified-memory reports need that the export lacks, as a note; "" if none.
std::string missing_um_table(const StatsDb& db) {
  if (!db.has_table(kMemcpyTable))
    return "no CUPTI_ACTIVITY_KIND_MEMCPY table: no CUDA memory "
           "transfers were traced";
  if (!db.has_table(kCpuTable))
    return "no CUDA_UM_CPU_PAGE_FAULT_EVENTS table: capture with --cuda-um-cpu-page-faults=true";
  if (!db.has_table(kGpuTable))
    return "no CUDA_UM_GPU_PAGE_FAULT_EVENTS table: capture with --cuda-um-gpu-page-faults=true";
  if (!db.has_column(kMemcpyTable, "virtualAddress"))
    return "CUPTI_ACTIVITY_KIND_MEMCPY has no virtualAddress column (an export before schema 3)";
  return "";
}

struct Page {
  int64_t htod = 0, dtoh = 0, migration_ns = 0;
  bool migrated = false, htod_seen = false, dtoh_seen = false;
  std::optional<int64_t> cpu_faults, gpu_faults;
};

bool collect_pages(const StatsDb& db, std::map<int64_t, Page>* pages, std::string* error) {
  auto add_faults = [&](const std::string& sql, bool gpu) {
    return db.query(
        sql,
        [&](sqlite3_stmt* st) {
          Page& p = (*pages)[col_int(st, 0)];
          (gpu ? p.gpu_faults : p.cpu_faults) = col_int(st, 1);
        },
        error);
  };
  if (!add_faults(std::string("SELECT address, count(*) FROM ") + kCpuTable + " GROUP BY address",
                  false) ||
      !add_faults(std::string("SELECT address, sum(numberOfPageFaults) FROM ") + kGpuTable +
                      " GROUP BY address",
                  true))
    return false;
  return db.query(
      std::string("SELECT virtualAddress, copyKind, sum(bytes), sum(end - start) FROM ") +
          kMemcpyTable + " WHERE copyKind IN (" + std::to_string(kUvmHtoD) + ", " +
          std::to_string(kUvmDtoH) + ") GROUP BY virtualAddress, copyKind",
      [&](sqlite3_stmt* st) {
        Page& p = (*pages)[col_int(st, 0)];
        p.migrated = true;
        const bool htod = col_int(st, 1) == kUvmHtoD;
        (htod ? p.htod : p.dtoh) = col_int(st, 2);
        (htod ? p.htod_seen : p.dtoh_seen) = true;
        p.migration_ns += col_int(st, 3);
      },
      error);
}

StatsCell mb_or_null(bool seen, int64_t bytes) {
  return seen ? cell_real(static_cast<double>(bytes) / kMB) : cell_null();
}

StatsCell count_or_null(const std::optional<int64_t>& v) {
  return v ? cell_int(*v) : cell_null();
}

}  // namespace

bool report_um_sum(const StatsDb& db, StatsTable* t, std::string* error) {
  t->report = "um_sum";
  t->title = "Unified Memory Analysis Summary";
  t->columns = {"Virtual Address", "HtoD Migration Size (MB)", "DtoH Migration Size (MB)",
                "CPU Page Faults", "GPU Page Faults",          "Migration Throughput (MB/s)"};
  t->note = missing_um_table(db);
  if (!t->note.empty()) return true;
  std::map<int64_t, Page> pages;
  if (!collect_pages(db, &pages, error)) return false;
  struct Row {
    int64_t address;
    const Page* page;
    std::optional<int64_t> throughput;  // B/s
  };
  std::vector<Row> rows;
  for (const auto& [address, p] : pages) {
    Row r{address, &p, std::nullopt};
    // NVIDIA's expression: (h2d + d2h) * (1000000000 / summed ns), integer division.
    if (p.migrated && p.migration_ns > 0)
      r.throughput = (p.htod + p.dtoh) * (int64_t{1000000000} / p.migration_ns);
    rows.push_back(r);
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    if (a.throughput.has_value() != b.throughput.has_value()) return a.throughput.has_value();
    if (a.throughput && *a.throughput != *b.throughput) return *a.throughput > *b.throughput;
    return a.address < b.address;
  });
  constexpr size_t kRows = 10;  // the script's rows=10
  if (rows.size() > kRows) {
    t->omitted_rows = rows.size() - kRows;
    rows.resize(kRows);
  }
  for (const Row& r : rows)
    t->rows.push_back(
        {cell_int(r.address), mb_or_null(r.page->htod_seen, r.page->htod),
         mb_or_null(r.page->dtoh_seen, r.page->dtoh), count_or_null(r.page->cpu_faults),
         count_or_null(r.page->gpu_faults),
         r.throughput ? cell_real(static_cast<double>(*r.throughput) / kMB) : cell_null()});
  if (t->rows.empty()) t->note = "no unified-memory page faults or migrations";
  return true;
}

bool report_um_total_sum(const StatsDb& db, StatsTable* t, std::string* error) {
  t->report = "um_total_sum";
  t->title = "Unified Memory Totals Summary";
  t->columns = {"Total HtoD Migration Size (MB)", "Total DtoH Migration Size (MB)",
                "Total CPU Page Faults",          "Total GPU PageFaults",
                "Minimum Virtual Address",        "Maximum Virtual Address"};
  t->note = missing_um_table(db);
  if (!t->note.empty()) return true;
  std::map<int64_t, Page> pages;
  if (!collect_pages(db, &pages, error)) return false;
  int64_t htod = 0, dtoh = 0, cpu = 0, gpu = 0;
  bool any_htod = false, any_dtoh = false, any_cpu = false, any_gpu = false;
  for (const auto& kv : pages) {
    const Page& p = kv.second;
    htod += p.htod;
    dtoh += p.dtoh;
    any_htod |= p.htod_seen;
    any_dtoh |= p.dtoh_seen;
    if (p.cpu_faults) cpu += *p.cpu_faults, any_cpu = true;
    if (p.gpu_faults) gpu += *p.gpu_faults, any_gpu = true;
  }
  // SQL's count(*) is 0 over no rows; its sum() is NULL.
  t->rows.push_back({mb_or_null(any_htod, htod), mb_or_null(any_dtoh, dtoh),
                     cell_int(any_cpu ? cpu : 0), any_gpu ? cell_int(gpu) : cell_null(),
                     pages.empty() ? cell_null() : cell_int(pages.begin()->first),
                     pages.empty() ? cell_null() : cell_int(pages.rbegin()->first)});
  return true;
}

bool report_um_cpu_page_faults_sum(const StatsDb& db, StatsTable* t, std::string* error) {
  t->report = "um_cpu_page_faults_sum";
  t->title = "Unified Memory CPU Page Faults Summary";
  t->columns = {"CPU Page Faults", "CPU Instruction Address", "Source File", "Source Line"};
  if (!db.has_table("StringIds")) {
    t->note = "no StringIds table: the export has no names";
    return true;
  }
  if (!db.has_table(kCpuTable)) {
    t->note = "no CUDA_UM_CPU_PAGE_FAULT_EVENTS table: capture with --cuda-um-cpu-page-faults=true";
    return true;
  }
  // Exports before 2024 have no source columns: each group's file and line are then empty.
  const bool source =
      db.has_column(kCpuTable, "sourceFile") && db.has_column(kCpuTable, "sourceLine");
  const std::string sql = std::string("SELECT count(*), i.value, ") +
                          (source ? "f.value, c.sourceLine" : "NULL, NULL") + " FROM " + kCpuTable +
                          " AS c LEFT JOIN StringIds AS i ON i.id = c.CpuInstruction" +
                          (source ? " LEFT JOIN StringIds AS f ON f.id = c.sourceFile" : "") +
                          " GROUP BY c.CpuInstruction" +
                          (source ? ", c.sourceFile, c.sourceLine" : "");
  struct Row {
    int64_t count;
    std::string function, file;
    bool has_file, has_line;
    int64_t line;
  };
  std::vector<Row> rows;
  if (!db.query(
          sql,
          [&](sqlite3_stmt* st) {
            rows.push_back({col_int(st, 0), col_text(st, 1), col_text(st, 2), !col_null(st, 2),
                            !col_null(st, 3), col_int(st, 3)});
          },
          error))
    return false;
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::make_tuple(-a.count, a.function, a.file, a.line) <
           std::make_tuple(-b.count, b.function, b.file, b.line);
  });
  for (const Row& r : rows)
    t->rows.push_back({cell_int(r.count), cell_text(r.function),
                       r.has_file ? cell_text(r.file) : cell_null(),
                       r.has_line ? cell_int(r.line) : cell_null()});
  if (t->rows.empty()) t->note = "CUDA_UM_CPU_PAGE_FAULT_EVENTS has no rows";
  return true;
}

}  // namespace ks
