// GPU memory usage (`nsys profile --cuda-memory-usage=true`): CUDA_GPU_MEMORY_USAGE_EVENTS holds
// one row per device allocation or free the CUDA driver saw (cudaMalloc, cudaFree, the pool
// allocators; with PyTorch, the caching allocator's segments, not its tensors). Each becomes a
// Kineto-style `[memory]` instant on the calling thread's CUDA API row, carrying the device's
// running total as "Total Reserved" (memory taken from the device), so the memory analysis and
// the peak-memory rule read an export as they read a trace written with profile_memory=True;
// the same total is a counter under the GPU, for the timeline.
#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "import/nsys_sqlite/nsys_rows.h"

namespace ks::nsys_sqlite {

namespace {

struct MemoryRow {
  int64_t ts, device, delta, correlation, global_pid;
  uint64_t row;
};

// Device memory kinds by ENUM_CUDA_MEM_KIND (label Device, Device Static, Array), else schema
// 3.x's ids. Pageable and pinned memory are the host's; managed memory moves between the two.
std::unordered_map<int64_t, bool> device_kinds(Context& c) {
  std::unordered_map<int64_t, bool> out;
  for (const auto& kv : read_enum(c, "ENUM_CUDA_MEM_KIND", "label"))
    out[kv.first] = kv.second.rfind("Device", 0) == 0 || kv.second == "Array";
  if (out.empty()) out = {{2, true}, {3, true}, {5, true}};
  return out;
}

// The operation ids that free (ENUM_CUDA_DEV_MEM_EVENT_OPER: 0 Allocation, 1 Deallocation).
std::unordered_map<int64_t, bool> free_operations(Context& c) {
  std::unordered_map<int64_t, bool> out;
  for (const auto& kv : read_enum(c, "ENUM_CUDA_DEV_MEM_EVENT_OPER", "label"))
    out[kv.first] = kv.second.find("ealloc") != std::string::npos;
  if (out.empty()) out = {{0, false}, {1, true}};
  return out;
}

constexpr const char* kMemorySeries = "CUDA memory (MiB)";

int64_t saturating_add(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? INT64_MAX : INT64_MIN;
}

}  // namespace

bool read_memory_usage(Context& c) {
  const char* table = "CUDA_GPU_MEMORY_USAGE_EVENTS";
  if (!c.db.has_table(table)) return true;  // captured without --cuda-memory-usage: no note
  const auto kinds = device_kinds(c);
  const auto frees = free_operations(c);
  RowReader r;
  enum { kStart, kPid, kDev, kBytes, kKind, kOper, kCorr };
  if (!r.prepare(c.db, table,
                 {"start", "globalPid", "deviceId", "bytes", "memKind", "memoryOperationType",
                  "?correlationId"},
                 &c.trace->diagnostics, c.error))
    return false;
  std::vector<MemoryRow> rows;
  while (r.next()) {
    const int64_t ts = r.i64(kStart, RowReader::kNull), bytes = r.i64(kBytes, RowReader::kNull);
    if (ts == RowReader::kNull || bytes == RowReader::kNull || bytes < 0) {
      c.trace->diagnostics.add(Diag::kNsysBadRow, row_source(Table::kMemoryUsage, r.row()).offset);
      continue;
    }
    const int64_t global = r.i64(kPid, 0);
    if (c.skip_global(global)) continue;
    auto kind = kinds.find(r.i64(kKind, 2));
    if (kind == kinds.end() || !kind->second) continue;
    auto op = frees.find(r.i64(kOper, 0));
    const bool is_free = op != frees.end() && op->second;
    const int64_t dev = c.row_device(global, r.i64(kDev, 0));  // as the GPU rows key it
    rows.push_back({ts, dev, is_free ? -bytes : bytes, r.i64(kCorr), global, r.row()});
  }
  if (r.failed()) return false;
  // The running total needs time order; tables are written in it, but nothing promises that.
  std::stable_sort(rows.begin(), rows.end(),
                   [](const MemoryRow& a, const MemoryRow& b) { return a.ts < b.ts; });
  // Frees of memory allocated before the capture began take the running total below zero: the
  // device held at least the deepest such dip before the first row, which is added back so the
  // totals are a lower bound of what the device held, never negative.
  std::unordered_map<int64_t, int64_t> total, lowest;
  for (const MemoryRow& m : rows) {
    int64_t& t = total[m.device];
    t = saturating_add(t, m.delta);
    lowest[m.device] = std::min(lowest[m.device], t);
  }
  for (auto& kv : total) {
    const int64_t low = lowest[kv.first];
    kv.second = low == INT64_MIN ? INT64_MAX : -low;  // a hostile dip saturates, never overflows
  }
  for (const MemoryRow& m : rows) {
    int64_t& t = total[m.device];
    t = saturating_add(t, m.delta);
    // On the thread that made the call, else on the process's main thread.
    TrackId track;
    const Launch* launch = m.correlation == kNoValue
                               ? nullptr
                               : c.launches.find(Context::launch_key(m.global_pid, m.correlation));
    if (launch) {
      track = c.trace->slices.track[launch->slice];
    } else {
      track = c.cpu_track(m.global_pid | Context::pid_of(m.global_pid), Row::kCudaApi);
    }
    const int64_t held = std::max<int64_t>(t, 0);
    c.b.add_instant(track, m.ts, "[memory]", "cpu_instant_event", 't', m.delta, -1, held, m.device);
    c.count("cpu_instant_event", m.ts, m.ts, "i");
    // And as a counter under the GPU, the row Nsight's GUI draws ("CUDA memory usage").
    c.b.add_counter(c.gpu_process(m.device), m.ts, kMemorySeries,
                    static_cast<double>(held) / (1024.0 * 1024.0));
    ++c.trace->facts.events_total;
    ++c.trace->facts.events_by_phase["C"];
  }
  return true;
}

}  // namespace ks::nsys_sqlite
