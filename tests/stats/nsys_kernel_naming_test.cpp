// nsys's report arguments `:base` and `:mangled` (`nsys stats -r cuda_gpu_kern_sum:base`): the
// reports that name kernels group and print them by their base name (shortName) or their mangled
// name (mangledName, the templated one where the capture has none). On the real export (REAL
// data, ../shared/nsys, skipped with a visible message when absent) each equals a plain SQL
// grouping by that column; unknown or clashing arguments are errors that say so.
#include "stats/stats_checks.h"

namespace {

using ks_test::col;
using ks_test::Db;
using ks_test::run;

// Instances per name of `t` (a summary with a Name column).
std::map<std::string, int64_t> instances(const ks::StatsTable& t) {
  std::map<std::string, int64_t> out;
  for (const auto& r : t.rows) out[r[col(t, "Name")].text] += r[col(t, "Instances")].i;
  return out;
}

}  // namespace

TEST_CASE("nsys stats: :base and :mangled name kernels by shortName and mangledName",
          "[nsys_stats][real]") {
  Db d;
  if (!ks_test::open_real_export(&d)) return;
  const auto tables = run(d, {"cuda_gpu_kern_sum:base", "cuda_gpu_kern_sum:mangled",
                              "cuda_kern_exec_trace:base", "cuda_gpu_kern_sum"});
  CHECK(tables[0].report == "cuda_gpu_kern_sum:base");  // as asked, arguments and all
  for (const auto& [i, column] :
       std::vector<std::pair<size_t, std::string>>{{0, "shortName"}, {1, "mangledName"}}) {
    INFO(column);
    const auto by_name = ks_test::group_sql(
        d,
        "SELECT s.value, k.end - k.start FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s "
        "ON s.id = coalesce(k." +
            column + ", k.demangledName)");
    const ks::StatsTable& t = tables[i];
    REQUIRE(t.rows.size() == by_name.size());
    for (const auto& [name, durations] : by_name) {
      INFO(name);
      ks_test::check_summary_row(t, ks_test::row_named(t, "Name", name), "Instances",
                                 ks_test::expect_of(durations));
    }
  }
  CHECK(tables[0].rows.size() < tables[3].rows.size());  // base names merge templated ones
  CHECK(instances(tables[0]).at("par_ranged2d_kernel") > 100);
  CHECK(tables[1].rows[0][col(tables[1], "Name")].text.rfind("_Z", 0) == 0);
  // The trace's kernels by base name too, row for row as many.
  const ks::StatsTable& trace = tables[2];
  REQUIRE(trace.rows.size() == 1312);
  std::map<std::string, int64_t> traced;
  for (const auto& r : trace.rows) ++traced[r[col(trace, "Kernel Name")].text];
  CHECK(traced == instances(tables[0]));
}

TEST_CASE("nsys stats: report arguments that do not apply are usage errors", "[nsys_stats]") {
  std::string error;
  CHECK(ks::check_nsys_stats_reports({"cuda_gpu_trace:mangled", "nvtx_kern_sum:base"}, &error));
  CHECK_FALSE(ks::check_nsys_stats_reports({"osrt_sum:base"}, &error));
  CHECK(error == "report 'osrt_sum:base': unknown argument 'base' (osrt_sum takes none)");
  CHECK_FALSE(ks::check_nsys_stats_reports({"cuda_gpu_kern_sum:base:mangled"}, &error));
  CHECK(error.find("base and mangled exclude each other") != std::string::npos);
  CHECK_FALSE(ks::check_nsys_stats_reports({"cuda_gpu_kern_sum:nvtx-name"}, &error));
  CHECK(error.find("nvtx-name argument is not implemented") != std::string::npos);
  CHECK_FALSE(ks::check_nsys_stats_reports({"cuda_gpu_kern_sum:"}, &error));
  CHECK(error.find("unknown argument ''") != std::string::npos);
  CHECK_FALSE(ks::check_nsys_stats_reports({"no_such_sum:base"}, &error));
  CHECK(error.find("unknown report 'no_such_sum:base' (known: nvtx_sum,") == 0);
}
