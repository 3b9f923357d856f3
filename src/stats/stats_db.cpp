#include "stats/stats_db.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <unordered_map>

#include "analysis/duration_stats.h"

namespace ks {

bool StatsDb::has_table(const std::string& table) const {
  bool found = false;
  std::string err;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?1", -1, &st,
                         nullptr) != SQLITE_OK)
    return false;
  sqlite3_bind_text(st, 1, table.data(), static_cast<int>(table.size()), SQLITE_TRANSIENT);
  found = sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  return found;
}

bool StatsDb::has_column(const std::string& table, const std::string& column) const {
  if (!has_table(table)) return false;
  bool found = false;
  std::string err;
  // table_info takes an identifier, not a bound value: the name is quoted ("" doubles a quote).
  std::string quoted;
  for (char c : table) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  query(
      "PRAGMA table_info(\"" + quoted + "\")",
      [&](sqlite3_stmt* st) {
        if (col_text(st, 1) == column) found = true;
      },
      &err);
  return found;
}

bool StatsDb::query(const std::string& sql, const std::function<void(sqlite3_stmt*)>& row,
                    std::string* error) const {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    if (error) *error = std::string("SQL error: ") + sqlite3_errmsg(db_);
    sqlite3_finalize(st);
    return false;
  }
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) row(st);
  bool ok = rc == SQLITE_DONE;
  if (!ok && error) *error = std::string("SQL error: ") + sqlite3_errmsg(db_);
  sqlite3_finalize(st);
  return ok;
}

StatsStatement::StatsStatement(const StatsDb& db, const std::string& sql, std::string* error)
    : db_(db.handle()) {
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st_, nullptr) != SQLITE_OK) {
    *error = std::string("SQL error: ") + sqlite3_errmsg(db_);
    sqlite3_finalize(st_);
    st_ = nullptr;
  }
}

StatsStatement::~StatsStatement() {
  sqlite3_finalize(st_);
}

sqlite3_stmt* StatsStatement::first_row(int64_t a, int64_t b, std::string* error) {
  error->clear();
  sqlite3_reset(st_);
  sqlite3_bind_int64(st_, 1, a);
  if (sqlite3_bind_parameter_count(st_) >= 2) sqlite3_bind_int64(st_, 2, b);
  const int rc = sqlite3_step(st_);
  if (rc == SQLITE_ROW) return st_;
  if (rc != SQLITE_DONE) *error = std::string("SQL error: ") + sqlite3_errmsg(db_);
  return nullptr;
}

std::string StatsDb::scalar_text(const std::string& sql) const {
  std::string v, err;
  bool first = true;
  query(
      sql,
      [&](sqlite3_stmt* st) {
        if (first) v = col_text(st, 0);
        first = false;
      },
      &err);
  return v;
}

std::string col_text(sqlite3_stmt* st, int col) {
  const unsigned char* p = sqlite3_column_text(st, col);
  if (!p) return std::string();
  return std::string(reinterpret_cast<const char*>(p),
                     static_cast<size_t>(sqlite3_column_bytes(st, col)));
}
int64_t col_int(sqlite3_stmt* st, int col) {
  return sqlite3_column_int64(st, col);
}
bool col_null(sqlite3_stmt* st, int col) {
  return sqlite3_column_type(st, col) == SQLITE_NULL;
}

StatsCell cell_int(int64_t v) {
  StatsCell c;
  c.kind = StatsCell::Kind::kInt;
  c.i = v;
  return c;
}
StatsCell cell_real(double v) {
  StatsCell c;
  c.kind = StatsCell::Kind::kReal;
  c.r = v;
  return c;
}
StatsCell cell_text(std::string v) {
  StatsCell c;
  c.kind = StatsCell::Kind::kText;
  c.text = std::move(v);
  return c;
}
StatsCell cell_null() {
  return StatsCell();
}

StatsCell int_or_null(sqlite3_stmt* st, int col) {
  return col_null(st, col) ? cell_null() : cell_int(col_int(st, col));
}

double round1(double v) {
  return std::round(v * 10.0) / 10.0;
}

void fill_time_summary(std::vector<SumGroup> groups, const std::string& count_column,
                       const std::vector<std::string>& label_columns, StatsTable* t) {
  t->columns = {"Time (%)", "Total Time (ns)", count_column, "Avg (ns)",
                "Med (ns)", "Min (ns)",        "Max (ns)",   "StdDev (ns)"};
  for (const std::string& c : label_columns) t->columns.push_back(c);
  struct Row {
    DurationStats s;
    std::vector<std::string> labels;
  };
  std::vector<Row> rows;
  int64_t grand = 0;
  for (SumGroup& g : groups) {
    if (g.values.empty()) continue;
    Row r;
    r.s = compute_duration_stats(g.values);
    r.labels = std::move(g.labels);
    grand += r.s.total_ns;
    rows.push_back(std::move(r));
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::make_tuple(-a.s.total_ns, a.s.count, a.labels) <
           std::make_tuple(-b.s.total_ns, b.s.count, b.labels);
  });
  for (const Row& r : rows) {
    std::vector<StatsCell> cells;
    // A capture whose durations are all zero has no share to give: nsys divides by zero there and
    // SQLite answers NULL.
    cells.push_back(grand > 0 ? cell_real(round1(static_cast<double>(r.s.total_ns) * 100.0 /
                                                 static_cast<double>(grand)))
                              : cell_null());
    cells.push_back(cell_int(r.s.total_ns));
    cells.push_back(cell_int(static_cast<int64_t>(r.s.count)));
    cells.push_back(cell_real(round1(r.s.avg_ns)));
    cells.push_back(cell_real(round1(r.s.median_ns)));
    cells.push_back(cell_int(r.s.min_ns));
    cells.push_back(cell_int(r.s.max_ns));
    cells.push_back(cell_real(round1(r.s.stddev_ns)));
    for (const std::string& l : r.labels) cells.push_back(cell_text(l));
    t->rows.push_back(std::move(cells));
  }
}

bool group_durations_by_name_id(const StatsDb& db, const std::string& sql,
                                const std::function<std::string(std::string)>& label,
                                std::vector<SumGroup>* groups, std::string* error) {
  std::unordered_map<int64_t, size_t> by_id;
  return db.query(
      sql,
      [&](sqlite3_stmt* st) {
        int64_t id = col_int(st, 2);
        auto it = by_id.find(id);
        if (it == by_id.end()) {
          it = by_id.emplace(id, groups->size()).first;
          groups->push_back({{label(col_text(st, 3))}, {}});
        }
        (*groups)[it->second].values.push_back(col_int(st, 1) - col_int(st, 0));
      },
      error);
}

}  // namespace ks
