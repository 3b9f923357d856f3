// Unified-memory page faults (`nsys profile --cuda-um-gpu-page-faults=true` and
// `--cuda-um-cpu-page-faults=true`; NVIDIA's "SQLite Schema Reference", schema 3.x):
//   CUDA_UM_GPU_PAGE_FAULT_EVENTS (start, end, globalPid, deviceId, address, numberOfPageFaults,
//     faultAccessType): a group of GPU faults on one page while a kernel ran;
//   CUDA_UM_CPU_PAGE_FAULT_EVENTS (start, globalPid, address, originalFaultPc, CpuInstruction,
//     module, unresolvedFaultPc, and since 2024 sourceFile, sourceLine): one host fault, with the
//     function (StringIds) that touched a page resident on the GPU.
// Counted into facts.unified_memory, with the host function that faulted most: where a program
// that thrashes managed memory touches it. Tables absent (not captured) are no news.
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "import/nsys_sqlite/nsys_rows.h"
#include "util/path_name.h"

namespace ks::nsys_sqlite {

namespace {

bool read_gpu_faults(Context& c, TraceFacts::UnifiedMemory* um) {
  const char* table = "CUDA_UM_GPU_PAGE_FAULT_EVENTS";
  if (!c.db.has_table(table)) return true;
  RowReader r;
  enum { kStart, kEnd, kPid, kFaults };
  if (!r.prepare(c.db, table, {"start", "end", "globalPid", "numberOfPageFaults"},
                 &c.trace->diagnostics, c.error))
    return false;
  while (r.next()) {
    if (c.skip_global(r.i64(kPid, 0))) continue;
    const int64_t start = r.i64(kStart, 0), end = r.i64(kEnd, 0), faults = r.i64(kFaults, 1);
    ++um->gpu_fault_groups;
    if (faults > 0) um->gpu_faults += static_cast<uint64_t>(faults);
    int64_t dur, sum;  // a crafted row's times must not overflow the sum
    if (end > start && !__builtin_sub_overflow(end, start, &dur) &&
        !__builtin_add_overflow(um->gpu_fault_ns, dur, &sum))
      um->gpu_fault_ns = sum;
  }
  return !r.failed();
}

bool read_cpu_faults(Context& c, TraceFacts::UnifiedMemory* um) {
  const char* table = "CUDA_UM_CPU_PAGE_FAULT_EVENTS";
  if (!c.db.has_table(table)) return true;
  RowReader r;
  enum { kPid, kFunction, kModule, kFile, kLine };
  if (!r.prepare(c.db, table,
                 {"globalPid", "CpuInstruction", "module", "?sourceFile", "?sourceLine"},
                 &c.trace->diagnostics, c.error))
    return false;
  // (function, module, file, line) ids -> faults; few distinct sites, many faults.
  std::map<std::tuple<int64_t, int64_t, int64_t, int64_t>, uint64_t> sites;
  while (r.next()) {
    if (c.skip_global(r.i64(kPid, 0))) continue;
    ++um->cpu_faults;
    ++sites[{r.i64(kFunction, -1), r.i64(kModule, -1), r.i64(kFile, -1), r.i64(kLine, -1)}];
  }
  if (r.failed()) return false;
  const std::pair<const std::tuple<int64_t, int64_t, int64_t, int64_t>, uint64_t>* top = nullptr;
  for (const auto& kv : sites)
    if (!top || kv.second > top->second) top = &kv;
  if (!top) return true;
  const auto [function, module, file, line] = top->first;
  std::string site(function >= 0 ? c.strings.get(function) : "(unknown function)");
  if (file >= 0 && line > 0)
    site += " (" + std::string(c.strings.get(file)) + ":" + std::to_string(line) + ")";
  else if (module >= 0)
    site += " in " + std::string(path_base_name(c.strings.get(module)));
  um->cpu_site = std::move(site);
  um->cpu_site_faults = top->second;
  return true;
}

}  // namespace

bool read_um_page_faults(Context& c) {
  TraceFacts::UnifiedMemory& um = c.trace->facts.unified_memory;
  return read_gpu_faults(c, &um) && read_cpu_faults(c, &um);
}

}  // namespace ks::nsys_sqlite
