// cuda_gpu_kern_gb_sum: cuda_gpu_kern_sum split by launch shape. On the real export (REAL data,
// ../shared/nsys, skipped with a visible message when absent) every row equals a plain SQL
// grouping by (name, grid, block), and the rows of one name add up to cuda_gpu_kern_sum's row (the
// run launched each kernel with one shape); on a BUILT export, one kernel launched with two grids
// makes two rows.
#include "stats/stats_checks.h"

namespace {

using ks_test::col;
using ks_test::Db;
using ks_test::run;

std::string shape(int64_t x, int64_t y, int64_t z) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%4lld %4lld %4lld", static_cast<long long>(x),
                static_cast<long long>(y), static_cast<long long>(z));
  return buf;
}

}  // namespace

TEST_CASE("nsys stats: cuda_gpu_kern_gb_sum on the real export equals SQL by name, grid and block",
          "[nsys_stats][real]") {
  Db d;
  if (!ks_test::open_real_export(&d)) return;
  const auto tables = run(d, {"cuda_gpu_kern_gb_sum", "cuda_gpu_kern_sum"});
  const ks::StatsTable& t = tables[0];
  CHECK(t.columns == std::vector<std::string>{"Time (%)", "Total Time (ns)", "Instances",
                                              "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)",
                                              "StdDev (ns)", "GridXYZ", "BlockXYZ", "Name"});
  // The label of each group: name, grid and block joined by tabs (the test's own formatting).
  std::map<std::string, std::vector<int64_t>> by_shape;
  sqlite3_stmt* st = nullptr;
  REQUIRE(sqlite3_prepare_v2(d.db,
                             "SELECT s.value, gridX, gridY, gridZ, blockX, blockY, blockZ, "
                             "k.end - k.start FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s "
                             "ON s.id = k.demangledName",
                             -1, &st, nullptr) == SQLITE_OK);
  while (sqlite3_step(st) == SQLITE_ROW) {
    auto i = [st](int c) { return sqlite3_column_int64(st, c); };
    by_shape[std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, 0))) + "\t" +
             shape(i(1), i(2), i(3)) + "\t" + shape(i(4), i(5), i(6))]
        .push_back(i(7));
  }
  sqlite3_finalize(st);
  REQUIRE(t.rows.size() == by_shape.size());
  REQUIRE(t.rows.size() == tables[1].rows.size());  // in this run each kernel kept one shape
  std::map<std::string, std::pair<int64_t, int64_t>> per_name;  // total, instances
  for (const auto& r : t.rows) {
    const std::string key = r[col(t, "Name")].text + "\t" + r[col(t, "GridXYZ")].text + "\t" +
                            r[col(t, "BlockXYZ")].text;
    INFO(key);
    REQUIRE(by_shape.count(key) == 1);
    ks_test::check_summary_row(t, r, "Instances", ks_test::expect_of(by_shape[key]));
    per_name[r[col(t, "Name")].text].first += r[col(t, "Total Time (ns)")].i;
    per_name[r[col(t, "Name")].text].second += r[col(t, "Instances")].i;
  }
  const ks::StatsTable& k = tables[1];
  for (const auto& r : k.rows) {
    INFO(r[col(k, "Name")].text);
    CHECK(per_name[r[col(k, "Name")].text] ==
          std::make_pair(r[col(k, "Total Time (ns)")].i, r[col(k, "Instances")].i));
  }
  ks_test::check_total_order(t, "Total Time (ns)");
}

TEST_CASE("nsys stats: cuda_gpu_kern_gb_sum splits one kernel by its grid", "[nsys_stats][built]") {
  Db d;
  ks_test::open_memory(&d);
  ks_test::create_nsys_schema(&d);
  d.exec("INSERT INTO StringIds VALUES (1, 'gemm')");
  ks_test::insert_kernel(&d, 0, 100, 1, 1 << 24, 1);
  ks_test::insert_kernel(&d, 200, 250, 2, 1 << 24, 1);
  ks_test::insert_kernel(&d, 300, 330, 3, 1 << 24, 1);
  d.exec("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET gridX = 64 WHERE correlationId = 3");
  const ks::StatsTable t = run(d, {"cuda_gpu_kern_gb_sum"})[0];
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[0][col(t, "Total Time (ns)")].i == 150);
  CHECK(t.rows[0][col(t, "Instances")].i == 2);
  CHECK(t.rows[0][col(t, "GridXYZ")].text == "   1    1    1");
  CHECK(t.rows[1][col(t, "Total Time (ns)")].i == 30);
  CHECK(t.rows[1][col(t, "GridXYZ")].text == "  64    1    1");
  CHECK(t.rows[1][col(t, "Name")].text == "gemm");
  CHECK(t.rows[0][0].r == Approx(83.3));  // Time (%) of the table

  // Without kernels: no rows, and cuda_gpu_kern_sum's note on what the capture lacked.
  Db empty;
  ks_test::open_memory(&empty);
  const ks::StatsTable none = run(empty, {"cuda_gpu_kern_gb_sum"})[0];
  CHECK(none.rows.empty());
  CHECK(none.note.find("--trace=cuda") != std::string::npos);
}
