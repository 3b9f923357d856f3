// run_nsys_stats() over an NsysDatabase, alone in its file: the reports themselves need only the
// database's sqlite3* (stats_db.h), so code that opens a database another way links without the
// NsysDatabase reader.
#include <sqlite3.h>

#include "import/nsys_sqlite/nsys_database.h"
#include "stats/nsys_stats.h"
#include "stats/stats_db.h"

namespace ks {

namespace {

// A damaged or cut-off export often opens fine and fails only in a report's query: say so as the
// importer does (damaged_database at byte N, with the file and header sizes), not as a bare SQL
// error. The handle still holds the failed query's code (finalize keeps it).
bool failed(const NsysDatabase& db, std::string* error) {
  ImportError e =
      db.error_from(sqlite3_extended_errcode(db.handle()), error->substr(0, error->find(':')));
  if (e.code == ImportErrorCode::kDamagedDatabase || e.code == ImportErrorCode::kQueryBudget)
    *error = e.to_line();
  return false;
}

}  // namespace

bool run_nsys_stats(const NsysDatabase& db, const std::vector<std::string>& reports,
                    std::vector<StatsTable>* out, std::string* error, size_t max_rows) {
  return run_nsys_stats_on_handle(db.handle(), reports, out, error, max_rows) || failed(db, error);
}

bool run_nsys_stats(const NsysDatabase& db, const std::vector<std::string>& reports,
                    StatsSink* sink, std::string* error) {
  return run_nsys_stats_on_handle(db.handle(), reports, sink, error) || failed(db, error);
}

}  // namespace ks
