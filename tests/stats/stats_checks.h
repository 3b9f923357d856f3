// What the `nsys stats` tests share: running reports on an open database, finding columns and rows,
// and the independent statistics (a full sort for medians, two passes for the sample deviation)
// and plain-SQL / CSV groupings the reports are checked against. Header-only, for the tests.
#pragma once
#include <sqlite3.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "stats/nsys_db_helpers.h"
#include "stats/nsys_stats.h"
#include "stats/stats_db.h"

namespace ks_test {

inline std::vector<ks::StatsTable> run(Db& d, std::vector<std::string> reports) {
  std::vector<ks::StatsTable> out;
  std::string err;
  INFO(err);
  REQUIRE(ks::run_nsys_stats_on_handle(d.db, reports, &out, &err));
  REQUIRE(out.size() == reports.size());
  return out;
}

inline size_t col(const ks::StatsTable& t, const std::string& name) {
  auto it = std::find(t.columns.begin(), t.columns.end(), name);
  REQUIRE(it != t.columns.end());
  return static_cast<size_t>(it - t.columns.begin());
}

// The row whose text cell in `column` is `label`; fails the test when absent.
inline const std::vector<ks::StatsCell>& row_named(const ks::StatsTable& t,
                                                   const std::string& column,
                                                   const std::string& label) {
  size_t c = col(t, column);
  for (const auto& r : t.rows)
    if (r[c].text == label) return r;
  FAIL("no row " << label << " in " << t.report);
  return t.rows.front();
}

struct Expect {
  int64_t total = 0, count = 0, min = 0, max = 0;
  double avg = 0, med = 0, stddev = 0;
};

// Independent of src/: a full sort for the median, two passes for the sample deviation.
inline Expect expect_of(std::vector<int64_t> v) {
  Expect e;
  std::sort(v.begin(), v.end());
  e.count = static_cast<int64_t>(v.size());
  for (int64_t x : v) e.total += x;
  e.min = v.front();
  e.max = v.back();
  e.avg = static_cast<double>(e.total) / static_cast<double>(v.size());
  size_t n = v.size();
  e.med = n % 2 ? static_cast<double>(v[n / 2])
                : (static_cast<double>(v[n / 2 - 1]) + static_cast<double>(v[n / 2])) / 2;
  double sq = 0;
  for (int64_t x : v) sq += (static_cast<double>(x) - e.avg) * (static_cast<double>(x) - e.avg);
  e.stddev = n > 1 ? std::sqrt(sq / static_cast<double>(n - 1)) : 0;
  return e;
}

// The row's summary columns equal `e` (reals as the scripts' round(x, 1)).
inline void check_summary_row(const ks::StatsTable& t, const std::vector<ks::StatsCell>& r,
                              const std::string& count_col, const Expect& e) {
  CHECK(r[col(t, "Total Time (ns)")].i == e.total);
  CHECK(r[col(t, count_col)].i == e.count);
  CHECK(r[col(t, "Min (ns)")].i == e.min);
  CHECK(r[col(t, "Max (ns)")].i == e.max);
  CHECK(r[col(t, "Avg (ns)")].r == Approx(e.avg).margin(0.05 + 1e-9));
  CHECK(r[col(t, "Med (ns)")].r == Approx(e.med).margin(0.05 + 1e-9));
  CHECK(r[col(t, "StdDev (ns)")].r == Approx(e.stddev).margin(0.05 + 1e-6));
}

// Plain SQL: label -> the durations (or any value) of its rows.
inline std::map<std::string, std::vector<int64_t>> group_sql(Db& d, const std::string& sql) {
  std::map<std::string, std::vector<int64_t>> g;
  sqlite3_stmt* st = nullptr;
  REQUIRE(sqlite3_prepare_v2(d.db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK);
  while (sqlite3_step(st) == SQLITE_ROW)
    g[reinterpret_cast<const char*>(sqlite3_column_text(st, 0))].push_back(
        sqlite3_column_int64(st, 1));
  sqlite3_finalize(st);
  return g;
}

inline int64_t sum(const std::vector<int64_t>& v) {
  int64_t s = 0;
  for (int64_t x : v) s += x;
  return s;
}

// Totals descending, as every *_sum report orders its rows.
inline void check_total_order(const ks::StatsTable& t, const std::string& total_col) {
  size_t c = col(t, total_col);
  for (size_t i = 1; i < t.rows.size(); ++i) {
    double a = t.rows[i - 1][c].kind == ks::StatsCell::Kind::kInt ? t.rows[i - 1][c].i
                                                                  : t.rows[i - 1][c].r;
    double b = t.rows[i][c].kind == ks::StatsCell::Kind::kInt ? t.rows[i][c].i : t.rows[i][c].r;
    CHECK(a >= b);
  }
}

// The independent reader's CSV (pipit): Enter rows carry their Leave time in _matching_timestamp.
// Returns name -> durations, for rows whose `type_column` (index) equals `type` ("" = any).
inline std::map<std::string, std::vector<int64_t>> csv_durations(const std::string& path,
                                                                 int type_column,
                                                                 const std::string& type) {
  std::map<std::string, std::vector<int64_t>> out;
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  std::vector<std::string> head;
  {
    std::stringstream ss(line);
    std::string f;
    while (std::getline(ss, f, ',')) head.push_back(f);
  }
  size_t ev = std::find(head.begin(), head.end(), "Event Type") - head.begin();
  size_t ts = std::find(head.begin(), head.end(), "Timestamp (ns)") - head.begin();
  size_t mt = std::find(head.begin(), head.end(), "_matching_timestamp") - head.begin();
  REQUIRE(mt < head.size());
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string x;
    while (std::getline(ss, x, ',')) f.push_back(x);
    if (f.size() <= mt || f[ev] != "Enter") continue;
    if (type_column >= 0 && f[static_cast<size_t>(type_column)] != type) continue;
    out[f[0]].push_back(std::stoll(f[mt]) - std::stoll(f[ts]));
  }
  return out;
}

}  // namespace ks_test
