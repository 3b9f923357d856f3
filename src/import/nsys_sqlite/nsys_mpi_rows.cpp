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
// in some versions, ...). All have start, end (nullable), globalTid and textId; the P2P,
// collective and wait tables also have requestHandle (a non-blocking call's MPI_Request).
//
// A non-blocking collective (MPI_Iallreduce, ...) returns at once: the rank waits for its peers
// in the MPI_Wait* / MPI_Test* call that completes its request. Such a wait is marked with the
// collective's name (its collective args), so that the multi-rank comparison counts its time as
// that collective's (analysis/multi_rank.cpp); a request handle is reused once completed, so a
// wait is matched to the latest call with that handle on its thread that began before it.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "import/nsys_sqlite/nsys_rows.h"

namespace ks::nsys_sqlite {

namespace {

struct MpiCall {
  int64_t gtid, start, end, text;
  Table table;
  uint64_t row;
  int64_t request;         // RowReader::kNull when the row has none
  int64_t completes = -1;  // a wait: the textId of the non-blocking collective it completes
  auto key() const { return std::tie(gtid, start, end, text); }
};

bool collect(Context& c, const char* table, Table code, std::vector<MpiCall>* out) {
  if (!c.db.has_table(table)) return true;  // --trace=mpi records only the kinds it saw: no note
  RowReader r;
  enum { kStart, kEnd, kTid, kText, kRequest };
  if (!r.prepare(c.db, table, {"start", "end", "globalTid", "textId", "?requestHandle"},
                 &c.trace->diagnostics, c.error))
    return false;
  while (r.next()) {
    const int64_t start = r.i64(kStart, RowReader::kNull), end = r.i64(kEnd, RowReader::kNull);
    const int64_t gtid = r.i64(kTid, RowReader::kNull);
    if (gtid == RowReader::kNull || c.skip_global(gtid)) continue;
    if (!c.usable_times(start, end, code, r.row())) continue;
    out->push_back(
        {gtid, start, end, r.i64(kText, -1), code, r.row(), r.i64(kRequest, RowReader::kNull)});
  }
  return !r.failed();
}

// Marks each MPI_START_WAIT_EVENTS row whose request is a non-blocking collective's.
void mark_collective_waits(Context& c, std::vector<MpiCall>* calls) {
  // (thread, request) -> (call start, textId) of the non-blocking collectives, by start.
  std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<int64_t, int64_t>>> issued;
  for (const MpiCall& m : *calls) {
    if (m.table != Table::kMpiCollectives || m.request == RowReader::kNull || m.text < 0) continue;
    const std::string_view name = c.strings.get(m.text);
    if (name.substr(0, 5) != "MPI_I") continue;  // blocking: no request to wait on
    issued[{m.gtid, m.request}].push_back({m.start, m.text});
  }
  if (issued.empty()) return;
  for (auto& [key, list] : issued) std::sort(list.begin(), list.end());
  for (MpiCall& m : *calls) {
    if (m.table != Table::kMpiStartWait || m.request == RowReader::kNull) continue;
    auto it = issued.find({m.gtid, m.request});
    if (it == issued.end()) continue;
    auto after =
        std::upper_bound(it->second.begin(), it->second.end(), std::make_pair(m.start, INT64_MAX));
    if (after != it->second.begin()) m.completes = std::prev(after)->second;
  }
}

}  // namespace

bool read_mpi(Context& c) {
  std::vector<MpiCall> calls;
  if (!collect(c, "MPI_P2P_EVENTS", Table::kMpiP2p, &calls) ||
      !collect(c, "MPI_COLLECTIVES_EVENTS", Table::kMpiCollectives, &calls) ||
      !collect(c, "MPI_START_WAIT_EVENTS", Table::kMpiStartWait, &calls) ||
      !collect(c, "MPI_OTHER_EVENTS", Table::kMpiOther, &calls))
    return false;
  mark_collective_waits(c, &calls);
  // nsys writes an MPI_Waitall as one MPI_START_WAIT_EVENTS row per request, each with the call's
  // start and end: one call, kept once (the first row), so its time is not counted N times. It
  // completes a collective when any of its requests is one.
  std::stable_sort(calls.begin(), calls.end(),
                   [](const MpiCall& a, const MpiCall& b) { return a.key() < b.key(); });
  size_t kept = 0;
  for (size_t i = 0; i < calls.size(); ++i) {
    if (kept > 0 && calls[kept - 1].key() == calls[i].key()) {
      if (calls[kept - 1].completes < 0) calls[kept - 1].completes = calls[i].completes;
      continue;
    }
    calls[kept++] = calls[i];
  }
  calls.resize(kept);
  for (const MpiCall& m : calls) {
    const StringId name = m.text < 0 ? c.trace->strings.intern("(unnamed MPI call)")
                                     : c.strings.interned(m.text, &c.trace->strings);
    SliceArgs args;
    if (m.completes >= 0) {
      args.has_collective = true;
      args.collective = c.strings.get(m.completes);
    }
    c.add(c.cpu_track(m.gtid, Row::kMpi), m.start, m.end, name, Context::kCatMpi, SliceKind::kOther,
          args, row_source(m.table, m.row));
  }
  return true;
}

}  // namespace ks::nsys_sqlite
