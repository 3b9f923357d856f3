// Kernels joined with their launching calls, in C++ rather than SQL. SQLite runs
// `k JOIN r ON k.correlationId = r.correlationId` by building an automatic index of the whole
// CUPTI_ACTIVITY_KIND_RUNTIME table on every query (exports have no index on correlationId): in
// WebAssembly that was 8 s of the 8.2 s the page took for the first rows of cuda_kern_exec_trace
// on a 400 MB export (1.4 M kernels, 3.3 M calls). nvtx_gpu_proj_sum joins memcpys and memsets
// the same way (join_gpu_op_launches). Here, in three scans of the two tables:
//   1. the kernels' (correlation id, process), sorted: the index (24 bytes a kernel);
//   2. the calls streamed past it, each match kept in its kernel's slot (48 bytes a kernel);
//   3. the kernels again, in rowid order, each paired with its slot.
// So the pairs come out in the order SQLite's nested loop gave them (by kernel rowid, then call
// rowid), and no more than the two small arrays is held.
//
// The same matching as the SQL: equal correlationId, and, where the kernel table has globalPid,
// the call's process (globalTid with its low 24 bits cleared) equal to it; a NULL on either side
// matches nothing. Only integer ids match (an export stores them as integers; a damaged file with
// text or real ids there gets no pair for those rows, where SQL might have compared them).
#include <sqlite3.h>

#include <algorithm>
#include <tuple>

#include "stats/stats_db.h"

namespace ks {

namespace {

// One kernel in the index: its ids and its place in rowid order.
struct IndexEntry {
  int64_t corr = 0, process = 0;
  uint32_t kernel = 0;
  bool operator<(const IndexEntry& o) const {
    return std::tie(corr, process, kernel) < std::tie(o.corr, o.process, o.kernel);
  }
};

// A call's half of a pair.
struct CallSide {
  int64_t start = 0, end = 0, name_id = 0, global_tid = 0, rowid = 0;
  bool name_null = false, tid_null = false, present = false;
};

// A further call of a kernel that already has one (a correlation id repeated in a damaged file).
struct ExtraCall {
  uint32_t kernel = 0;
  CallSide call;
};

bool is_int(sqlite3_stmt* st, int col) {
  return sqlite3_column_type(st, col) == SQLITE_INTEGER;
}

constexpr int64_t kProcessMask = ~int64_t{0xFFFFFF};  // globalTid -> its process's globalPid

// The further calls a join may pair, beyond one per kernel. An export pairs each kernel with one
// call; only a damaged or crafted file repeats ids, and n kernels and n calls of one id would
// make n * n pairs (SQLite's join was stopped by the query budget; this is its bound here).
uint64_t max_extra_calls(uint64_t kernels) {
  return kernels + 1000000;
}

// The first entry of the index whose id is not below `corr`, found by galloping from the last
// answer (`hint`): calls come nearly in id order, so most searches take a step or two, and any
// order costs O(log n).
size_t lower_bound_near(const std::vector<IndexEntry>& index, int64_t corr, size_t hint) {
  auto below = [corr](const IndexEntry& e) { return e.corr < corr; };
  size_t lo = 0, hi = index.size();
  if (hint < index.size()) {
    if (below(index[hint])) {
      size_t step = 1;
      lo = hint + 1;
      while (lo + step < hi && below(index[lo + step])) {
        lo += step + 1;
        step *= 2;
      }
      hi = std::min(hi, lo + step);
    } else {
      size_t step = 1;
      hi = hint;
      while (hi > step && !below(index[hi - step])) {
        hi -= step;
        step *= 2;
      }
      lo = hi > step ? hi - step : 0;
    }
  }
  return static_cast<size_t>(std::partition_point(index.begin() + static_cast<std::ptrdiff_t>(lo),
                                                  index.begin() + static_cast<std::ptrdiff_t>(hi),
                                                  below) -
                             index.begin());
}

const char* kKernels = "CUPTI_ACTIVITY_KIND_KERNEL";
const char* kCalls = "CUPTI_ACTIVITY_KIND_RUNTIME";

}  // namespace

bool kernel_launch_tables(const StatsDb& db, std::string* note) {
  if (db.has_table(kKernels) && db.has_table(kCalls) && db.has_table("StringIds")) return true;
  *note = !db.has_table(kKernels) ? "no CUPTI_ACTIVITY_KIND_KERNEL table: no CUDA kernels were "
                                    "traced (capture with --trace=cuda)"
          : !db.has_table(kCalls) ? "no CUPTI_ACTIVITY_KIND_RUNTIME table: the export has no "
                                    "CUDA API calls to join the kernels with"
                                  : "no StringIds table: the export has no names";
  return false;
}

const char* kNoKernelLaunches =
    "no kernel has its launching call in the export (or none ran inside the capture)";

bool join_kernel_launches(const StatsDb& db, bool keep_unlaunched,
                          const std::function<void(const LaunchPair&)>& fn, std::string* error) {
  return join_gpu_op_launches(db, kKernels, keep_unlaunched, fn, error);
}

bool join_gpu_op_launches(const StatsDb& db, const std::string& table, bool keep_unlaunched,
                          const std::function<void(const LaunchPair&)>& fn, std::string* error) {
  const bool kernel_table = table == kKernels;
  const std::string op = kernel_table ? "kernel" : "GPU op";
  const bool by_process = db.has_column(table, "globalPid");

  // 1. The index.
  std::vector<IndexEntry> index;
  uint64_t ops = 0;
  bool ok = db.query(
      "SELECT correlationId, " + std::string(by_process ? "globalPid" : "0") + " FROM " + table +
          " ORDER BY rowid",
      [&](sqlite3_stmt* st) {
        if (is_int(st, 0) && is_int(st, 1) && ops < UINT32_MAX)
          index.push_back({col_int(st, 0), col_int(st, 1), static_cast<uint32_t>(ops)});
        ++ops;
      },
      error);
  if (!ok) return false;
  if (ops >= UINT32_MAX) {
    *error = "more " + op + "s than this report can join (4 billion)";
    return false;
  }
  std::sort(index.begin(), index.end());

  // 2. The calls, each into the slots of the ops it launched.
  std::vector<CallSide> slots(ops);
  std::vector<ExtraCall> extra;
  const uint64_t extra_limit = max_extra_calls(ops);
  bool too_many = false;
  size_t hint = 0;
  ok = db.query(
      "SELECT correlationId, globalTid, start, end, nameId, rowid FROM " + std::string(kCalls) +
          " ORDER BY rowid",
      [&](sqlite3_stmt* st) {
        if (too_many || !is_int(st, 0) || (by_process && !is_int(st, 1))) return;
        const int64_t corr = col_int(st, 0);
        size_t first = lower_bound_near(index, corr, hint);
        hint = first;
        size_t last = first;
        while (last < index.size() && index[last].corr == corr && !by_process) ++last;
        if (by_process) {
          const IndexEntry probe{corr, col_int(st, 1) & kProcessMask, 0};
          const auto range =
              std::equal_range(index.begin() + static_cast<std::ptrdiff_t>(first), index.end(),
                               probe, [](const IndexEntry& a, const IndexEntry& b) {
                                 return std::tie(a.corr, a.process) < std::tie(b.corr, b.process);
                               });
          first = static_cast<size_t>(range.first - index.begin());
          last = static_cast<size_t>(range.second - index.begin());
        }
        if (first == last) return;
        CallSide c;
        c.global_tid = col_int(st, 1);
        c.tid_null = col_null(st, 1);
        c.start = col_int(st, 2);
        c.end = col_int(st, 3);
        c.name_id = col_int(st, 4);
        c.name_null = col_null(st, 4);
        c.rowid = col_int(st, 5);
        c.present = true;
        for (size_t e = first; e < last; ++e) {
          CallSide& slot = slots[index[e].kernel];
          if (!slot.present) {
            slot = c;
          } else if (extra.size() < extra_limit) {
            extra.push_back({index[e].kernel, c});
          } else {
            too_many = true;
            return;
          }
        }
      },
      error);
  if (!ok) return false;
  if (too_many) {
    *error = "correlation ids repeat: more than " + std::to_string(ops + extra_limit) + " " + op +
             "/launch pairs for " + std::to_string(ops) + " " + op + "s (each " + op +
             " has one launching call): the file is damaged or crafted";
    return false;
  }
  index = {};
  std::stable_sort(extra.begin(), extra.end(),
                   [](const ExtraCall& a, const ExtraCall& b) { return a.kernel < b.kernel; });

  // 3. The ops again, each with its calls.
  LaunchPair p;
  uint32_t i = 0;
  size_t next = 0;
  auto emit = [&p, &fn](const CallSide& c) {
    p.has_call = c.present;
    p.call_rowid = c.rowid;
    p.call_start = c.start;
    p.call_end = c.end;
    p.call_name_id = c.name_id;
    p.call_name_null = c.name_null;
    p.global_tid = c.global_tid;
    p.global_tid_null = c.tid_null;
    fn(p);
  };
  ok = db.query(
      "SELECT start, end, " + std::string(db.has_column(table, "deviceId") ? "deviceId" : "0") +
          ", " + (kernel_table ? kernel_name_expr(db) : "NULL") + ", rowid FROM " + table +
          " ORDER BY rowid",
      [&](sqlite3_stmt* st) {
        if (i >= slots.size()) return;  // the table cannot grow (read-only); a guard all the same
        p.start = col_int(st, 0);
        p.end = col_int(st, 1);
        p.device = col_int(st, 2);
        p.kernel_name_id = col_int(st, 3);
        p.kernel_name_null = col_null(st, 3);
        p.kernel_rowid = col_int(st, 4);
        const CallSide& c = slots[i];
        if (c.present || keep_unlaunched) emit(c);
        for (; next < extra.size() && extra[next].kernel == i; ++next) emit(extra[next].call);
        ++i;
      },
      error);
  return ok;
}

StringIdNames::StringIdNames(const StatsDb& db, std::string (*label)(const std::string&))
    : label_(label), lookup_(db, "SELECT value FROM StringIds WHERE id = ?1", &error_) {}

uint32_t StringIdNames::index(int64_t id, bool null) {
  if (null) {
    if (null_index_ == UINT32_MAX) null_index_ = intern("");
    return null_index_;
  }
  if (const uint32_t* known = by_id_.find(static_cast<uint64_t>(id))) return *known;
  std::string text, err;
  if (!lookup_.ok()) {
    err = "cannot read StringIds";
  } else if (sqlite3_stmt* row = lookup_.first_row(id, 0, &err)) {
    text = col_text(row, 0);
  }
  if (label_) text = label_(text);
  if (!err.empty() && error_.empty()) error_ = err;
  const uint32_t i = intern(text);
  by_id_[static_cast<uint64_t>(id)] = i;
  return i;
}

uint32_t StringIdNames::intern(const std::string& text) {
  auto [it, added] = by_text_.emplace(text, static_cast<uint32_t>(names_.size()));
  if (added) names_.push_back(text);
  return it->second;
}

}  // namespace ks
