// nvtx_pushpop_trace, "NVTX Push/Pop Range Trace". NVIDIA's definition (Nsight Systems
// Post-Collection Analysis Guide, "nvtx_pushpop_trace"): "This report provides a trace of NV Tools
// Extensions Push/Pop Ranges, their execution time, stack state, and relationship to other
// push/pop ranges."
//   Columns: Start (ns), End (ns), Duration (ns), DurChild (ns) ("Duration of all child
//   ranges"), DurNonChild (ns) ("Duration of this range minus child ranges"), Name, PID, TID, Lvl
//   ("Stack level, starts at 0"), NumChild, RangeId, ParentId ("Range ID of the enclosing range"),
//   RangeStack ("Range IDs that make up the push/pop stack"), NameTree ("Range name prefixed with
//   level indicator"). As computed here, following nsys's own output (e.g. a row
//   "1499980066,1502730617,2750551,0,2750551,:copy_in,53,53,1,0,6,5,:5:6,--:copy_in"):
//   - the push/pop ranges of nvtx_ranges.h (eventType 59/70 ending on their own thread), named
//     "<domain>:<text>", nested per thread by nest_push_pop;
//   - DurChild sums the durations of the ranges directly inside; RangeId is the NVTX_EVENTS
//     rowid; ParentId empty at the top; RangeStack ":<outermost id>:...:<own id>"; NameTree the
//     name after "--" per level;
//   - ordered by start, the enclosing range first at one start.
//   Bound: a range more than kMaxEnclosingRanges deep lists only that many innermost ids in its
//   RangeStack (after "..."), and as many "--" in NameTree (Lvl stays exact), so a hostile export
//   of deeply nested ranges cannot make the table grow with the square of its depth; the note
//   counts them.
#include <algorithm>
#include <map>

#include "stats/nvtx_ranges.h"
#include "stats/trace_rows.h"

namespace ks {

namespace {

struct Thread {
  int64_t tid = 0;
  const std::vector<NvtxRange>* ranges = nullptr;
  NvtxNesting nesting;
  std::vector<uint64_t> child_ns;  // by range index; unsigned: a hostile sum wraps, no UB
};

std::string range_stack(const Thread& th, size_t i) {
  std::vector<int64_t> ids;
  int64_t at = static_cast<int64_t>(i);
  while (at >= 0 && ids.size() < kMaxEnclosingRanges) {
    ids.push_back((*th.ranges)[static_cast<size_t>(at)].id);
    at = th.nesting.parent[static_cast<size_t>(at)];
  }
  std::string out = at >= 0 ? "..." : "";
  for (auto it = ids.rbegin(); it != ids.rend(); ++it) out += ":" + std::to_string(*it);
  return out;
}

}  // namespace

bool report_nvtx_pushpop_trace(const StatsDb& db, StatsTable* t, std::string* error) {
  t->report = "nvtx_pushpop_trace";
  t->title = "NVTX Push/Pop Range Trace";
  t->columns = {"Start (ns)", "End (ns)", "Duration (ns)", "DurChild (ns)", "DurNonChild (ns)",
                "Name",       "PID",      "TID",           "Lvl",           "NumChild",
                "RangeId",    "ParentId", "RangeStack",    "NameTree"};
  if (missing_table(db, {"NVTX_EVENTS"}, &t->note)) return true;
  NvtxRanges nvtx;
  if (!load_nvtx_ranges(db, &nvtx, error)) return false;

  // Threads in globalTid order, so rows that tie come in the same order in every build.
  std::map<int64_t, const std::vector<NvtxRange>*> by_tid;
  for (const auto& entry : nvtx.by_thread) by_tid[entry.first] = &entry.second;
  std::vector<Thread> threads;
  TraceRows rows(db);
  uint64_t deep = 0;
  for (const auto& [tid, ranges] : by_tid) {
    Thread th;
    th.tid = tid;
    th.ranges = ranges;
    th.nesting = nest_push_pop(*ranges);
    th.child_ns.assign(ranges->size(), 0);
    for (size_t i = 0; i < ranges->size(); ++i) {
      const int64_t parent = th.nesting.parent[i];
      if (parent >= 0)
        th.child_ns[static_cast<size_t>(parent)] +=
            static_cast<uint64_t>((*ranges)[i].end) - static_cast<uint64_t>((*ranges)[i].start);
    }
    const int source = static_cast<int>(threads.size());
    for (size_t i = 0; i < ranges->size(); ++i) {
      if (!(*ranges)[i].push_pop) continue;
      if (th.nesting.level[i] >= static_cast<int64_t>(kMaxEnclosingRanges)) ++deep;
      rows.offer((*ranges)[i].start, th.nesting.level[i], {source, static_cast<int64_t>(i), 0});
    }
    threads.push_back(std::move(th));
  }
  if (rows.count() == 0) t->note = "no push/pop NVTX range in the export";
  if (deep > 0)
    t->note = "ranges more than " + std::to_string(kMaxEnclosingRanges) +
              " deep: " + std::to_string(deep) + " (RangeStack lists the " +
              std::to_string(kMaxEnclosingRanges) +
              " innermost ids after \"...\", NameTree as many \"--\")";

  auto build = [&](const TraceRowRef& ref, std::vector<StatsCell>* c, std::string*) {
    const Thread& th = threads[static_cast<size_t>(ref.source)];
    const size_t i = static_cast<size_t>(ref.id);
    const NvtxRange& r = (*th.ranges)[i];
    const int64_t duration =
        static_cast<int64_t>(static_cast<uint64_t>(r.end) - static_cast<uint64_t>(r.start));
    const int64_t child = static_cast<int64_t>(th.child_ns[i]);
    const int64_t level = th.nesting.level[i], parent = th.nesting.parent[i];
    const std::string& name = nvtx.names[static_cast<size_t>(r.name)];
    *c = {cell_int(r.start),
          cell_int(r.end),
          cell_int(duration),
          cell_int(child),
          cell_int(
              static_cast<int64_t>(static_cast<uint64_t>(duration) - static_cast<uint64_t>(child))),
          cell_text(name),
          cell_int((th.tid >> 24) & 0xFFFFFF),
          cell_int(th.tid & 0xFFFFFF),
          cell_int(level),
          cell_int(th.nesting.children[i]),
          cell_int(r.id),
          parent < 0 ? cell_null() : cell_int((*th.ranges)[static_cast<size_t>(parent)].id),
          cell_text(range_stack(th, i)),
          cell_text(std::string(2 * static_cast<size_t>(std::min<int64_t>(
                                        level, static_cast<int64_t>(kMaxEnclosingRanges))),
                                '-') +
                    name)};
    return true;
  };
  return rows.emit(t, build, error);
}

}  // namespace ks
