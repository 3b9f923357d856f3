// What the report says about an Nsight Systems export of another stack than a PyTorch loop,
// on hand-built rows (SQLite itself writes the file): a JAX/XLA program without step ranges
// gets JAX's advice, not torch's; kernels from CUDA graph launches are counted as kernels, with
// the graph launch calls that started them, not as "launches".
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "analysis/analyze.h"
#include "import/nsys_sqlite/nsys_file.h"
#include "report/report.h"

#include <sqlite3.h>
#include "source_dir.h"
#include "stats/nsys_db_helpers.h"

namespace {

// Process 4242, thread 4242: (4242 << 24) | 4242, and the process alone.
const std::string kTid = "71168954514", kPid = "71168950272";

const std::string kTables =
    "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER,"
    " globalTid INTEGER, correlationId INTEGER, nameId INTEGER);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,"
    " streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER,"
    " shortName INTEGER);"
    "CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, text TEXT,"
    " globalTid INTEGER);";

const ks::Finding* finding(const ks::Report& r, const std::string& id) {
  for (const ks::Finding& f : r.findings)
    if (f.id == id) return &f;
  return nullptr;
}

}  // namespace

TEST_CASE("export words: a JAX/XLA program without steps gets JAX's advice, not torch's",
          "[nsys][report]") {
  // One jitted call (lax.scan over the steps): XLA's module range around it, its thunks inside,
  // each launching one kernel through the driver API; no range per step.
  std::string sql =
      kTables + "INSERT INTO StringIds VALUES (0, 'cuLaunchKernel'), (1, 'loop_add_fusion');";
  std::string nvtx =
      "INSERT INTO NVTX_EVENTS VALUES (1000, 900000, 59, "
      "'XlaModule:#hlo_module=jit_train_loop,program_id=18#', " +
      kTid + ")";
  for (int k = 0; k < 40; ++k) {
    const std::string at = std::to_string(2000 + k * 20000);
    const std::string corr = std::to_string(k + 1);
    sql += "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (" + at + ", " + at + " + 5000, 1, " +
           kTid + ", " + corr + ", 0);";
    sql += "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (" + at + " + 6000, " + at +
           " + 16000, 0, 7, " + corr + ", " + kPid + ", 1, 1);";
    nvtx += ", (" + at + ", " + at + " + 5500, 59, 'Thunk:#hlo_op=fusion.12#', " + kTid + ")";
  }
  auto t = ks_test::import_sql_rows("jax_no_steps.sqlite", sql + nvtx + ";");
  const ks::Report report = ks::build_report(*t, ks::AnalysisOptions{});
  const ks::Finding* f = finding(report, "steps.none");
  REQUIRE(f);
  CHECK(f->fix.find("nvtx.annotate") != std::string::npos);
  CHECK(f->fix.find("torch") == std::string::npos);
  CHECK(f->fix_code.find("torch") == std::string::npos);  // was torch.cuda.nvtx.range
  CHECK(ks::report_text(report).find("torch.cuda.nvtx") == std::string::npos);
}

TEST_CASE("export words: kernels from CUDA graph launches are kernels, not launches",
          "[nsys][report]") {
  // Two replays of a 3-kernel graph (each one cudaGraphLaunch whose correlation its kernels
  // carry) and one eager kernel: 7 kernels, 3 launch calls.
  std::string sql = kTables +
                    "INSERT INTO StringIds VALUES (0, 'cudaGraphLaunch_v10000'),"
                    " (1, 'cudaLaunchKernel_v7000'), (2, 'gemm'), (3, 'norm'), (4, 'add');"
                    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1000, 1010, 0, " +
                    kTid + ", 1, 0), (5000, 5010, 0, " + kTid + ", 2, 0), (9000, 9010, 0, " + kTid +
                    ", 3, 1);"
                    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES";
  int64_t at = 1100;
  for (int corr : {1, 1, 1, 2, 2, 2, 3}) {
    sql += std::string(at == 1100 ? " " : ", ") + "(" + std::to_string(at) + ", " +
           std::to_string(at + 500) + ", 0, 7, " + std::to_string(corr) + ", " + kPid + ", " +
           std::to_string(2 + at % 3) + ", 2)";
    at += corr == 1 ? 600 : 1400;
  }
  auto t = ks_test::import_sql_rows("graph_kernels_words.sqlite", sql + ";");
  const std::string text = ks::report_text(ks::build_report(*t, ks::AnalysisOptions{}));
  INFO(text.substr(0, 2000));
  CHECK(text.find(" names, 7 kernels (2 CUDA graph launches started 6 GPU ops)") !=
        std::string::npos);
  CHECK(text.find("7 launches") == std::string::npos);  // was "3 names, 7 launches"
}
