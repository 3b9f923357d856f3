// How a trace report (a row per call or GPU op) makes its rows, in two passes. First the order:
// each row's sort key and where it lies (its rowids), read by narrow queries; the page's limit
// keeps only the first keys (FirstRows). Then the rows themselves, fetched by rowid in that order,
// built one at a time and kept in the table or streamed to the database's sink. So no more than
// the kept rows are ever built, and a streamed trace of millions holds only its keys (48 bytes a
// row) where it used to hold every row's cells (about 2 KB a row).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "stats/first_rows.h"
#include "stats/stats_db.h"

namespace ks {

// Where a row lies: which of the report's queries (`source`) and its rowids there.
struct TraceRowRef {
  int source = 0;
  int64_t id = 0, id2 = 0;
};

class TraceRows {
 public:
  explicit TraceRows(const StatsDb& db) : db_(db), keys_(db.max_rows()) {}

  // The row at `ref` sorts by (a, b), then in the order it is offered.
  void offer(int64_t a, int64_t b, TraceRowRef ref) {
    keys_.offer(a, b, [&ref] { return ref; });
  }
  uint64_t count() const { return keys_.seen(); }

  // Builds the kept rows in order (`build` fills the cells of one; false and *error on an SQL
  // error) and puts each in t->rows or the sink; counts the rest in t->omitted_rows.
  bool emit(
      StatsTable* t,
      const std::function<bool(const TraceRowRef&, std::vector<StatsCell>*, std::string*)>& build,
      std::string* error) {
    const std::vector<TraceRowRef> refs = keys_.take();
    t->omitted_rows = count() - refs.size();
    std::vector<StatsCell> cells;
    for (const TraceRowRef& ref : refs) {
      cells.clear();
      cells.reserve(t->columns.size());
      if (!build(ref, &cells, error)) return false;
      if (db_.sink()) {
        db_.sink()->row(*t, cells);
      } else {
        t->rows.push_back(std::move(cells));
        cells = {};
      }
    }
    return true;
  }

 private:
  const StatsDb& db_;
  FirstRows<TraceRowRef> keys_;
};

// A row fetched by rowid(s) through `st` (?1, ?2), or false with *error: an SQL error, or the row
// gone between the passes (the export is read-only, so only a damaged file does that).
inline sqlite3_stmt* fetch_trace_row(StatsStatement& st, const TraceRowRef& ref,
                                     std::string* error) {
  sqlite3_stmt* row = st.first_row(ref.id, ref.id2, error);
  if (!row && error->empty()) *error = "a row read in the first pass is gone in the second";
  return row;
}

}  // namespace ks
