// nsys stats' --timeunit: the time columns in another unit, as nsys prints them ("Total Time
// (us)", 183548.942: whole nanoseconds kept). On the real export (REAL data, ../shared/nsys,
// skipped with a visible message when absent) every time cell of a summary and of a streamed trace
// written in usec equals the nanosecond cell with its decimal point moved; other columns stay.
#include "stats/stats_checks.h"

namespace {

using ks_test::Db;

// The CSV of `reports` as the CLI writes it, through the time-unit sink when `unit` is given.
std::string csv(Db& d, const std::vector<std::string>& reports, const ks::TimeUnit* unit) {
  std::string out, err;
  auto w = ks::make_stats_writer("csv", [&out](std::string_view s) { out += s; });
  std::unique_ptr<ks::StatsSink> in_unit;
  if (unit) in_unit = ks::make_time_unit_sink(*unit, w.get());
  REQUIRE(ks::run_nsys_stats_on_handle(d.db, reports, in_unit ? in_unit.get() : w.get(), &err));
  w->finish();
  return out;
}

std::vector<std::vector<std::string>> lines_of(const std::string& s) {
  std::vector<std::vector<std::string>> out;
  std::istringstream in(s);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    for (size_t at = 0; at < line.size();) {  // "a","b",...: every field quoted, none has '"'
      const size_t end = line.find("\",\"", at);
      cells.push_back(
          line.substr(at + 1, (end == std::string::npos ? line.size() - 1 : end) - at - 1));
      at = end == std::string::npos ? line.size() : end + 2;
    }
    out.push_back(cells);
  }
  return out;
}

// "123456789" ns in usec: "123456.789"; an average "3493.5" ns: "3.494" or "3.493" (rounded).
std::string moved(const std::string& ns) {
  if (ns.find('.') != std::string::npos || ns.empty()) return "";
  const bool neg = ns[0] == '-';
  std::string digits = ns.substr(neg ? 1 : 0);
  while (digits.size() < 4) digits = "0" + digits;
  return (neg ? "-" : "") + digits.substr(0, digits.size() - 3) + "." +
         digits.substr(digits.size() - 3);
}

}  // namespace

TEST_CASE("nsys stats: --timeunit usec moves the time columns' decimal point, as nsys prints them",
          "[nsys_stats][real]") {
  Db d;
  if (!ks_test::open_real_export(&d)) return;
  const ks::TimeUnit* us = ks::find_time_unit("usec");
  REQUIRE(us);
  CHECK(ks::find_time_unit("microseconds") == us);
  CHECK(ks::find_time_unit("ms")->divisor == 1000000);
  CHECK(ks::find_time_unit("hours") == nullptr);
  for (const char* report : {"cuda_gpu_kern_sum", "cuda_gpu_trace", "osrt_sum"}) {
    INFO(report);
    const auto ns = lines_of(csv(d, {report}, nullptr));
    const auto in_us = lines_of(csv(d, {report}, us));
    REQUIRE(ns.size() == in_us.size());
    REQUIRE(ns.size() > 2);
    const auto& header = ns[0];
    size_t times = 0, checked = 0;
    for (size_t c = 0; c < header.size(); ++c) {
      const bool time = header[c].size() > 5 && header[c].substr(header[c].size() - 4) == "(ns)";
      CHECK(in_us[0][c] == (time ? header[c].substr(0, header[c].size() - 4) + "(us)" : header[c]));
      times += time;
      for (size_t r = 1; r < ns.size(); ++r) {
        REQUIRE(in_us[r].size() == ns[r].size());
        if (!time || ns[r][c].find('.') != std::string::npos) {
          if (!time) CHECK(in_us[r][c] == ns[r][c]);
          continue;  // an average: divided, checked below
        }
        CHECK(in_us[r][c] == moved(ns[r][c]));
        ++checked;
      }
    }
    CHECK(times >= 2);
    CHECK(checked > 0);
  }
  // An average rounded to 0.1 ns shows whole nanoseconds: cuda_gpu_kern_sum's Avg column.
  const auto ns = lines_of(csv(d, {"cuda_gpu_kern_sum"}, nullptr));
  const auto in_us = lines_of(csv(d, {"cuda_gpu_kern_sum"}, us));
  for (size_t r = 1; r < ns.size(); ++r)
    CHECK(std::abs(std::stod(in_us[r][3]) * 1000 - std::stod(ns[r][3])) <= 0.5 + 1e-6);
}
