// The NVTX ranges the per-range reports read (nvtx_kern_sum, nvtx_gpu_proj_sum), by thread, as
// NVIDIA's scripts take them, and the sweep that finds the ranges around each launching call.
#pragma once
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "stats/stats_db.h"

namespace ks {

struct NvtxRange {
  int64_t start = 0, end = 0;
  int64_t id = 0;     // rowid
  int32_t name = -1;  // index into NvtxRanges::names
  bool push_pop = true;
};

struct NvtxRanges {
  std::vector<std::string> names;  // "<domain>:<text>", ":train_step" in the default domain
  std::unordered_map<int64_t, std::vector<NvtxRange>> by_thread;  // globalTid -> sorted by start
};

// NVTX domain names (NVTX_EVENTS rows of eventType 75) by domain id AND process: a domain id is a
// handle of one process (nvtxDomainCreateA), so two processes of one export (torchrun, mpirun
// under one nsys) may give one id to different domains. NVIDIA's own NVTX report SQL groups the
// domains by (domainId, globalTid) and joins ON domainId and (globalTid & 0x0000FFFFFF000000),
// the process bits. The first row of each (by start) names it.
class NvtxDomains {
 public:
  // `text_expr` and `from` are the caller's: its name expression over "FROM NVTX_EVENTS AS n ...".
  bool load(const StatsDb& db, const std::string& text_expr, const std::string& from,
            std::string* error);
  // The name of the domain `domain_id` in the process of `global_tid`; "" when none is known
  // (the default domain, or a domain without its name row).
  const std::string& name(int64_t domain_id, int64_t global_tid) const;

 private:
  std::map<std::pair<int64_t, int64_t>, std::string> names_;
};

// NVTX_EVENTS of eventType 59/70 (push/pop) and 60/71 (start/end) that end on the thread they
// started on (endGlobalTid NULL); an unclosed one lasts to the last NVTX timestamp; named
// "<domain>:<text>" (NvtxDomains' name, "" for the default domain), the text from
// StringIds(textId), else `text`. The caller checks that the NVTX_EVENTS table exists; false only
// for an SQL failure.
bool load_nvtx_ranges(const StatsDb& db, NvtxRanges* out, std::string* error);

// Each push/pop range's place in its thread's stack, by its index in `ranges` (one thread's,
// sorted by start): the enclosing range's index (-1 at the top), the level (0 at the top) and
// the ranges directly inside. A range encloses the next ones that start within it and end no
// later (at one start, the longer encloses the shorter). Start/end ranges stand alone: -1, 0, 0.
struct NvtxNesting {
  std::vector<int64_t> parent, level, children;
};
NvtxNesting nest_push_pop(const std::vector<NvtxRange>& ranges);

// A call inside more than this many ranges (a hostile export: thousands of unclosed ranges)
// counts in the kMaxEnclosingRanges that end first after it (the innermost, when they nest), so
// the work per call is bounded.
constexpr size_t kMaxEnclosingRanges = 256;

// For `calls` ((start, end) of each launching call, sorted by start) and `ranges` (sorted by
// start), calls fn(call index, range) for each range with start <= the call's start and end >=
// its end, and fn(call index, nullptr) for a call in no range. Returns how many calls hit the
// bound.
uint64_t for_each_enclosing_range(const std::vector<NvtxRange>& ranges,
                                  const std::vector<std::pair<int64_t, int64_t>>& calls,
                                  const std::function<void(size_t, const NvtxRange*)>& fn);

// True, with *note naming the first absent table and the capture flag that records it, when the
// export lacks one of `tables` (the NVTX reports skip then, as nsys does).
bool missing_table(const StatsDb& db, std::initializer_list<const char*> tables, std::string* note);

// The table's note when `capped` calls hit the bound.
std::string enclosing_bound_note(uint64_t capped);

}  // namespace ks
