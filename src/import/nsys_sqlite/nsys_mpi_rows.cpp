// MPI calls (nsys profile --trace=mpi): each call a slice of category "mpi" on its thread's "MPI"
// row, named by textId -> StringIds ("MPI_Allreduce"), as the GUI draws them. Time a rank spends
// blocked in MPI (waiting for its peers) is then what the launching thread was in while the GPU
// waited (analysis/gap_activity.h), and the collectives are the rank's communication in a
// multi-rank comparison (analysis/multi_rank.cpp).
//
// The tables, per Nsight Systems' SQLite schema reference (User Guide, "SQLite Schema
// Reference"): MPI_P2P_EVENTS (sends, receives: commHandle, tag, remoteRank, size),
// MPI_COLLECTIVES_EVENTS (commHandle, rootRank, size, recvSize), MPI_START_WAIT_EVENTS
// (MPI_Wait*, MPI_Start*: requestHandle) and MPI_OTHER_EVENTS (the rest: MPI_Init, MPI_Barrier
// in some versions, ...). All have start, end (nullable), globalTid and textId; only those are
// read here.
#include <algorithm>
#include <cstdint>
#include <tuple>
#include <vector>

#include "import/nsys_sqlite/nsys_rows.h"

namespace ks::nsys_sqlite {

namespace {

struct MpiCall {
  int64_t gtid, start, end, text;
  Table table;
  uint64_t row;
  auto key() const { return std::tie(gtid, start, end, text); }
};

bool collect(Context& c, const char* table, Table code, std::vector<MpiCall>* out) {
  if (!c.db.has_table(table)) return true;  // --trace=mpi records only the kinds it saw: no note
  RowReader r;
  enum { kStart, kEnd, kTid, kText };
  if (!r.prepare(c.db, table, {"start", "end", "globalTid", "textId"}, &c.trace->diagnostics,
                 c.error))
    return false;
  while (r.next()) {
    const int64_t start = r.i64(kStart, RowReader::kNull), end = r.i64(kEnd, RowReader::kNull);
    const int64_t gtid = r.i64(kTid, RowReader::kNull);
    if (gtid == RowReader::kNull || c.skip_global(gtid)) continue;
    if (!c.usable_times(start, end, code, r.row())) continue;
    out->push_back({gtid, start, end, r.i64(kText, -1), code, r.row()});
  }
  return !r.failed();
}

}  // namespace

bool read_mpi(Context& c) {
  std::vector<MpiCall> calls;
  if (!collect(c, "MPI_P2P_EVENTS", Table::kMpiP2p, &calls) ||
      !collect(c, "MPI_COLLECTIVES_EVENTS", Table::kMpiCollectives, &calls) ||
      !collect(c, "MPI_START_WAIT_EVENTS", Table::kMpiStartWait, &calls) ||
      !collect(c, "MPI_OTHER_EVENTS", Table::kMpiOther, &calls))
    return false;
  // nsys writes an MPI_Waitall as one MPI_START_WAIT_EVENTS row per request, each with the call's
  // start and end: one call, kept once (the first row), so its time is not counted N times.
  std::stable_sort(calls.begin(), calls.end(),
                   [](const MpiCall& a, const MpiCall& b) { return a.key() < b.key(); });
  calls.erase(std::unique(calls.begin(), calls.end(),
                          [](const MpiCall& a, const MpiCall& b) { return a.key() == b.key(); }),
              calls.end());
  for (const MpiCall& m : calls) {
    const StringId name = m.text < 0 ? c.trace->strings.intern("(unnamed MPI call)")
                                     : c.strings.interned(m.text, &c.trace->strings);
    c.add(c.cpu_track(m.gtid, Row::kMpi), m.start, m.end, name, Context::kCatMpi, SliceKind::kOther,
          SliceArgs(), row_source(m.table, m.row));
  }
  return true;
}

}  // namespace ks::nsys_sqlite
