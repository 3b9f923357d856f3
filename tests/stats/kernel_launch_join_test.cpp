// join_kernel_launches (src/stats/kernel_launch_join.cpp) joins kernels with their launching calls
// in C++, where the reports used to ask SQLite. It must give exactly the pairs, and in the order,
// of the SQL join it replaced. BUILT data: random kernels and calls in random row order, with
// correlation ids repeated across processes and within one, NULL ids and kernels without calls;
// the expected pairs come from SQLite itself.
#include <random>
#include <tuple>

#include "stats/stats_checks.h"

namespace {

using ks_test::Db;
using Pair = std::tuple<int64_t, int64_t>;  // (kernel rowid, call rowid or -1)

std::string id_or_null(std::mt19937& rng, int64_t v) {
  return rng() % 25 == 0 ? "NULL" : std::to_string(v);
}

// 1,500 kernels and 2,500 calls over 400 correlation ids and three processes, each row's values
// drawn at random, so rowid order is not id order and most ids have several candidates.
void insert_random_launches(Db& d) {
  std::mt19937 rng(7);
  d.exec("INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'k1'), (3, 'k2')");
  d.exec("BEGIN");
  for (int i = 0; i < 1500; ++i) {
    const int64_t process = int64_t(1 + rng() % 3) << 24;
    d.exec(
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, "
        "correlationId, globalPid, demangledName, shortName, registersPerThread, gridX, gridY, "
        "gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory, "
        "localMemoryPerThread, localMemoryTotal, gridId) VALUES (" +
        std::to_string(i * 10) + ", " + std::to_string(i * 10 + 5) + ", " +
        std::to_string(rng() % 2) + ", 1, 7, " + id_or_null(rng, rng() % 400) + ", " +
        id_or_null(rng, process) + ", " + std::to_string(2 + rng() % 2) +
        ", 2, 0, 1, 1, 1, 1, 1, " + "1, 0, 0, 0, 0, 0)");
  }
  for (int i = 0; i < 2500; ++i) {
    const int64_t tid = (int64_t(1 + rng() % 3) << 24) + 1 + rng() % 4;
    d.exec(
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, "
        "correlationId, nameId, returnValue) VALUES (" +
        std::to_string(i * 7) + ", " + std::to_string(i * 7 + 3) + ", 1, " + id_or_null(rng, tid) +
        ", " + id_or_null(rng, rng() % 400) + ", 1, 0)");
  }
  d.exec("COMMIT");
}

std::vector<Pair> sql_pairs(Db& d, const std::string& join, const std::string& on_process) {
  std::vector<Pair> out;
  const std::string sql =
      "SELECT k.rowid, coalesce(r.rowid, -1) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k " + join +
      " CUPTI_ACTIVITY_KIND_RUNTIME AS r ON k.correlationId = r.correlationId" + on_process +
      " ORDER BY k.rowid, r.rowid";
  sqlite3_stmt* st = nullptr;
  REQUIRE(sqlite3_prepare_v2(d.db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK);
  while (sqlite3_step(st) == SQLITE_ROW)
    out.emplace_back(sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1));
  sqlite3_finalize(st);
  return out;
}

std::vector<Pair> joined_pairs(Db& d, bool keep_unlaunched) {
  std::vector<Pair> out;
  std::string error;
  ks::StatsDb db(d.db);
  REQUIRE(ks::join_kernel_launches(
      db, keep_unlaunched,
      [&out](const ks::LaunchPair& p) {
        out.emplace_back(p.kernel_rowid, p.has_call ? p.call_rowid : -1);
      },
      &error));
  CHECK(error.empty());
  return out;
}

}  // namespace

TEST_CASE("kernels join their calls as SQL joins them: per process, ids repeated, NULLs",
          "[nsys_stats]") {
  Db d;
  ks_test::open_memory(&d);
  ks_test::create_nsys_schema(&d);
  insert_random_launches(d);
  const std::string same_process = " AND k.globalPid = (r.globalTid & 0xFFFFFFFFFF000000)";

  const std::vector<Pair> inner = sql_pairs(d, "JOIN", same_process);
  REQUIRE(inner.size() > 1000);  // the data gives the join work to do: most kernels match
  CHECK(joined_pairs(d, false) == inner);
  const std::vector<Pair> left = sql_pairs(d, "LEFT JOIN", same_process);
  REQUIRE(left.size() > inner.size());  // some kernels have no call
  CHECK(joined_pairs(d, true) == left);

  // One pair's values, against the rows themselves.
  const auto [k, r] = inner[inner.size() / 2];
  ks::StatsDb db(d.db);
  std::string error;
  bool seen = false;
  ks::join_kernel_launches(
      db, false,
      [&](const ks::LaunchPair& p) {
        if (p.kernel_rowid != k || p.call_rowid != r) return;
        seen = true;
        CHECK(p.start == (k - 1) * 10);
        CHECK(p.end == (k - 1) * 10 + 5);
        CHECK(p.call_start == (r - 1) * 7);
        CHECK(p.call_end == (r - 1) * 7 + 3);
        CHECK(p.call_name_id == 1);
        CHECK((p.kernel_name_id == 2 || p.kernel_name_id == 3));
        CHECK((p.global_tid >> 24) >= 1);
      },
      &error);
  CHECK(seen);

  // An older export's kernel table has no globalPid: ids then join across processes.
  d.exec("ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN globalPid");
  const std::vector<Pair> any_process = sql_pairs(d, "JOIN", "");
  REQUIRE(any_process.size() > inner.size());
  CHECK(joined_pairs(d, false) == any_process);
  CHECK(joined_pairs(d, true) == sql_pairs(d, "LEFT JOIN", ""));
}

TEST_CASE("StringIdNames reads each name once and gives equal texts one index", "[nsys_stats]") {
  Db d;
  ks_test::open_memory(&d);
  ks_test::create_nsys_schema(&d);
  d.exec(
      "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'cudaLaunchKernel'), "
      "(3, 'cudaMemcpy_v3020')");
  ks::StatsDb db(d.db);
  ks::StringIdNames raw(db), api(db, ks::strip_nsys_api_version);
  CHECK(raw.index(1, false) != raw.index(2, false));
  CHECK(api.index(1, false) == api.index(2, false));
  CHECK(api.text(api.index(1, false)) == "cudaLaunchKernel");
  CHECK(api.text(api.index(3, false)) == "cudaMemcpy");
  CHECK(raw.text(raw.index(99, false)).empty());  // not in StringIds
  CHECK(raw.text(raw.index(1, true)).empty());    // NULL, as a LEFT JOIN leaves it
  CHECK(raw.error().empty());
}

TEST_CASE("a crafted export whose correlation ids all repeat stops the join with an error",
          "[nsys_stats]") {
  Db d;
  ks_test::open_memory(&d);
  ks_test::create_nsys_schema(&d);
  d.exec("INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'k')");
  // BUILT data: 1,100 kernels and 1,000 calls of one id: 1.1 M pairs where an export has 1,100.
  d.exec(R"(
WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < 1099)
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId,
  globalPid, demangledName, shortName, registersPerThread, gridX, gridY, gridZ, blockX, blockY,
  blockZ, staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, localMemoryTotal, gridId)
SELECT i, i + 1, 0, 1, 7, 5, 16777216, 2, 2, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0 FROM c;
WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < 999)
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, correlationId, nameId,
  returnValue) SELECT i, i + 1, 1, 16777217, 5, 1, 0 FROM c;
)");
  std::vector<ks::StatsTable> out;
  std::string error;
  CHECK_FALSE(ks::run_nsys_stats_on_handle(d.db, {"cuda_kern_exec_sum"}, &out, &error));
  CHECK(error.find("cuda_kern_exec_sum: correlation ids repeat: more than 1002200 kernel/launch "
                   "pairs for 1100 kernels") == 0);
}
