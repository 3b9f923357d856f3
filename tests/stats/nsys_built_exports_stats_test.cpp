// The stats reports, NVTX steps and the nsys findings on the exports BUILT by
// tests/nsys/make_exports.py (engineer A's generator: NVIDIA's documented schema, the real file's
// tables; no nsys ran), read through the shared reader (NsysDatabase over a FileByteSource), as
// `kinetoscope stats` and `kinetoscope report` read them.
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <cstdlib>

#include "findings/catalogue.h"
#include "import/file_byte_source.h"
#include "import/nsys_sqlite/nsys_database.h"
#include "import/nsys_sqlite/nsys_file.h"
#include "report/report.h"
#include "source_dir.h"
#include "stats/nsys_stats.h"

namespace {

std::string built(const std::string& name) {
  static const std::string dir = ks_test::source_dir() + "/build/nsys-tests";
  static const bool made = [] {
    std::string cmd = "/usr/bin/python3 " + ks_test::source_dir() + "/tests/nsys/make_exports.py " +
                      dir + " >/dev/null";
    return std::system(cmd.c_str()) == 0;
  }();
  REQUIRE(made);
  return dir + "/" + name;
}

std::vector<ks::StatsTable> stats_of(const std::string& name, std::vector<std::string> reports) {
  ks::ImportError error;
  auto source = ks::FileByteSource::open(built(name), &error);
  REQUIRE(source);
  auto db = ks::NsysDatabase::open(source.get(), &error);
  INFO(error.to_line());
  REQUIRE(db);
  std::vector<ks::StatsTable> out;
  std::string err;
  INFO(err);
  REQUIRE(ks::run_nsys_stats(*db, reports, &out, &err));
  return out;
}

// One integer from plain SQL on the built file (independent of src/stats).
int64_t sql_int(const std::string& name, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(built(name).c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_step(st) == SQLITE_ROW);
  int64_t v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return v;
}

std::unique_ptr<ks::Trace> load(const std::string& name) {
  ks::ImportError error;
  auto t = ks::import_nsys_file(built(name), &error);
  INFO(error.to_line());
  REQUIRE(t);
  return t;
}

bool has_finding(const ks::Report& r, const std::string& id) {
  for (const auto& f : r.findings)
    if (f.id == id) return true;
  return false;
}

}  // namespace

TEST_CASE("nsys stats on built exports: nvtx_sum, osrt_sum and memsets equal plain SQL",
          "[nsys_stats][built_exports]") {
  auto t = stats_of("training_steps.sqlite", {"nvtx_sum", "osrt_sum"});
  const auto& nvtx = t[0];
  REQUIRE_FALSE(nvtx.rows.empty());
  int64_t instances = 0, total = 0;
  for (const auto& r : nvtx.rows) instances += r[2].i, total += r[1].i;
  CHECK(instances == sql_int("training_steps.sqlite",
                             "SELECT count(*) FROM NVTX_EVENTS WHERE eventType IN (59,60,70,71) "
                             "AND end IS NOT NULL"));
  CHECK(total == sql_int("training_steps.sqlite",
                         "SELECT sum(end - start) FROM NVTX_EVENTS WHERE eventType IN "
                         "(59,60,70,71) AND end IS NOT NULL"));
  const auto& osrt = t[1];
  REQUIRE_FALSE(osrt.rows.empty());
  int64_t calls = 0;
  for (const auto& r : osrt.rows) calls += r[2].i;
  CHECK(calls ==
        sql_int("training_steps.sqlite", "SELECT count(*) FROM OSRT_API WHERE eventClass = 27"));

  auto m = stats_of("process_start.sqlite", {"cuda_gpu_mem_time_sum"})[0];
  bool memset = false;
  for (const auto& r : m.rows) {
    if (r[8].text != "[CUDA memset]") continue;
    memset = true;
    CHECK(r[2].i == 20);
    CHECK(r[1].i == sql_int("process_start.sqlite",
                            "SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_MEMSET"));
  }
  CHECK(memset);
}

TEST_CASE("NVTX steps and nsys findings on built exports", "[nsys_stats][built_exports]") {
  SECTION("train_step ranges are the steps (no ProfilerStep in the export)") {
    auto t = load("train_step_ranges.sqlite");
    ks::Report r = ks::build_report(*t, ks::AnalysisOptions{});
    CHECK(r.analyses.steps.source == ks::StepSource::kStepLikeRange);
    CHECK(r.analyses.steps.steps.size() == 6);
    CHECK(r.analyses.steps.range_name == "train_step");
    CHECK_FALSE(has_finding(r, "steps.none"));
  }
  SECTION("a capture from process start") {
    auto t = load("process_start.sqlite");
    ks::Report r = ks::build_report(*t, ks::AnalysisOptions{});
    CHECK(has_finding(r, "nsys.from_process_start"));
  }
}
