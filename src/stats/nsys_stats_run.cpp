// run_nsys_stats() over an NsysDatabase, alone in its file: the reports themselves need only the
// database's sqlite3* (stats_db.h), so code that opens a database another way links without the
// NsysDatabase reader.
#include "import/nsys_sqlite/nsys_database.h"
#include "stats/nsys_stats.h"
#include "stats/stats_db.h"

namespace ks {

bool run_nsys_stats(const NsysDatabase& db, const std::vector<std::string>& reports,
                    std::vector<StatsTable>* out, std::string* error) {
  return run_nsys_stats_on_handle(db.handle(), reports, out, error);
}

}  // namespace ks
