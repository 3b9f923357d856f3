// CUDA rows: runtime/driver API calls on the calling thread's "CUDA API" track, kernels, copies,
// memsets and synchronizations on (device, stream) tracks as Kineto lays them out, and the ac2g
// flow from each launch to its GPU op. Names follow Kineto's, so the analyses written for PyTorch
// traces apply unchanged (docs/report-schema.md, "Nsight Systems exports").
#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "import/nsys_sqlite/kernel_demangle.h"
#include "import/nsys_sqlite/nsys_rows.h"

namespace ks::nsys_sqlite {

namespace {

bool read_done(const RowReader& r) {
  return !r.failed();
}

// The launch (same process, same correlation id) of a GPU op: an ac2g flow from it, its id the
// correlation as Kineto writes it.
void link_launch(Context& c, int64_t global_pid, int64_t correlation, TrackId gpu, int64_t ts) {
  if (correlation == kNoValue || global_pid == kNoValue) return;
  const Launch* launch = c.launches.find(Context::launch_key(global_pid, correlation));
  if (!launch) return;
  const FlowId id = flow_id_of(correlation, &c.trace->strings);
  if (c.ac2g == 0) c.ac2g = c.trace->strings.intern("ac2g");
  const SliceTable& s = c.trace->slices;
  c.b.add_flow_ids(s.track[launch->slice], 's', s.ts[launch->slice], id, c.ac2g, false);
  c.b.add_flow_ids(gpu, 'f', ts, id, c.ac2g, true);
  ++c.flows;
}

// CUPTI's stream id is unsigned; 0xFFFFFFFF (and NULL) is "no stream": Kineto's device-wide lane.
int64_t stream_or_lane(int64_t stream) {
  return stream < 0 || stream == 0xFFFFFFFFll ? -1 : stream;
}

// The cudaEventRecord calls of each CUDA event (CUPTI_ACTIVITY_KIND_CUDA_EVENT, nsys
// --cuda-event-trace=true): by process and event id, the calls' times with the stream each
// recorded on, in time order. A sync on an event then knows which stream's work it waited for.
struct EventRecord {
  int64_t ts, stream, correlation;
};
using EventRecords = std::unordered_map<uint64_t, std::vector<EventRecord>>;
uint64_t event_key(int64_t global_pid, int64_t event) {
  return (static_cast<uint64_t>(Context::pid_of(global_pid)) << 32) ^ static_cast<uint64_t>(event);
}

bool read_event_records(Context& c, EventRecords* out) {
  const char* table = "CUPTI_ACTIVITY_KIND_CUDA_EVENT";
  if (!c.db.has_table(table)) return true;  // not traced: event syncs stay unlinked
  RowReader r;
  enum { kCorr, kPid, kStream, kEvent };
  if (!r.prepare(c.db, table, {"correlationId", "globalPid", "streamId", "eventId"},
                 &c.trace->diagnostics, c.error))
    return false;
  while (r.next()) {
    const int64_t global = r.i64(kPid, 0), corr = r.i64(kCorr), event = r.i64(kEvent);
    const int64_t stream = stream_or_lane(r.i64(kStream, -1));
    if (c.skip_global(global) || corr == kNoValue || event == kNoValue || stream < 0) continue;
    const Launch* call = c.launches.find(Context::launch_key(global, corr));
    if (!call) continue;  // the record call itself was not captured
    (*out)[event_key(global, event)].push_back({c.trace->slices.ts[call->slice], stream, corr});
  }
  for (auto& kv : *out)
    std::stable_sort(kv.second.begin(), kv.second.end(),
                     [](const EventRecord& a, const EventRecord& b) { return a.ts < b.ts; });
  return !r.failed();
}

// The record a wait that began at `ts` waits for: the event's last record before it.
const EventRecord* record_before(const EventRecords& records, int64_t global_pid, int64_t event,
                                 int64_t ts) {
  auto it = records.find(event_key(global_pid, event));
  if (it == records.end()) return nullptr;
  const auto& v = it->second;
  auto at = std::upper_bound(v.begin(), v.end(), ts,
                             [](int64_t t, const EventRecord& e) { return t < e.ts; });
  return at == v.begin() ? nullptr : &*(at - 1);
}

}  // namespace

bool read_runtime(Context& c) {
  const char* table = "CUPTI_ACTIVITY_KIND_RUNTIME";
  if (!c.db.has_table(table)) {
    c.table_missing(table);
    return true;
  }
  // Runtime and driver calls share the table; eventClass tells them apart (ENUM_NSYS_EVENT_CLASS:
  // TRACE_PROCESS_EVENT_CUDA_DRIVER), else the name does (driver calls are cu*, not cuda*).
  int64_t driver_class = 1;
  for (const auto& kv : read_enum(c, "ENUM_NSYS_EVENT_CLASS", "name"))
    if (kv.second == "TRACE_PROCESS_EVENT_CUDA_DRIVER") driver_class = kv.first;
  RowReader r;
  enum { kStart, kEnd, kClass, kTid, kCorr, kName, kChain };
  if (!r.prepare(
          c.db, table,
          {"start", "end", "eventClass", "globalTid", "correlationId", "nameId", "?callchainId"},
          &c.trace->diagnostics, c.error))
    return false;
  const bool has_class = r.has(kClass);
  while (r.next()) {
    const int64_t start = r.i64(kStart, RowReader::kNull), end = r.i64(kEnd, RowReader::kNull);
    if (!c.usable_times(start, end, Table::kRuntime, r.row())) continue;
    const int64_t gtid = r.i64(kTid, 0);
    if (c.skip_global(gtid)) continue;
    const StringId name = c.strings.interned(r.i64(kName), &c.trace->strings, true);
    bool driver;
    if (has_class) {
      driver = r.i64(kClass) == driver_class;
    } else {
      std::string_view n = c.trace->str(name);
      driver = n.size() > 2 && n[0] == 'c' && n[1] == 'u' && n.rfind("cuda", 0) != 0;
    }
    TrackId tr = c.cpu_track(gtid, Row::kCudaApi);
    SliceArgs a;
    a.correlation = r.i64(kCorr);
    if (!c.callers.empty() && !r.null(kChain)) {
      auto caller = c.callers.find(r.i64(kChain));
      if (caller != c.callers.end()) a.call_stack = c.trace->str(caller->second);
    }
    const uint32_t slice = c.add(
        tr, start, end, name, driver ? Context::kCatDriver : Context::kCatRuntime,
        driver ? SliceKind::kDriver : SliceKind::kRuntime, a, row_source(Table::kRuntime, r.row()));
    if (a.correlation != kNoValue) c.launches[Context::launch_key(gtid, a.correlation)] = {slice};
  }
  std::unordered_map<int64_t, StringId>().swap(c.callers);
  return read_done(r);
}

bool read_kernels(Context& c) {
  const char* table = "CUPTI_ACTIVITY_KIND_KERNEL";
  if (!c.db.has_table(table)) return true;  // the caller says what its absence means
  RowReader r;
  enum {
    kStart,
    kEnd,
    kDev,
    kStream,
    kCorr,
    kPid,
    kDemangled,
    kShort,
    kGx,
    kGy,
    kGz,
    kBx,
    kBy,
    kBz,
    kNode,
    kMangled
  };
  if (!r.prepare(c.db, table,
                 {"start", "end", "deviceId", "streamId", "correlationId", "globalPid",
                  "demangledName", "shortName", "gridX", "gridY", "gridZ", "blockX", "blockY",
                  "blockZ", "?graphNodeId", "?mangledName"},
                 &c.trace->diagnostics, c.error))
    return false;
  // A graph's kernels traced one by one (graphNodeId set): read_graph_trace() must not count the
  // same replay again. Only kept when the export has graph-trace rows at all.
  const bool note_graph_kernels = c.db.has_table("CUPTI_ACTIVITY_KIND_GRAPH_TRACE");
  // mangledName id -> its name, once each; `fallback` when that was the shortName (a mangled name
  // the demangler could not read).
  struct MangledName {
    StringId name = 0;
    bool fallback = false;
  };
  std::unordered_map<int64_t, MangledName> mangled_names;
  while (r.next()) {
    // deviceId is the ordinal in the row's process: keyed as the trace keys GPUs (row_device).
    const int64_t dev = c.row_device(r.i64(kPid, RowReader::kNull), r.i64(kDev, RowReader::kNull));
    const int64_t dev0 = dev == RowReader::kNull ? 0 : dev;
    c.note_gpu_op(r.i64(kPid, RowReader::kNull), dev);
    const int64_t start = r.i64(kStart, RowReader::kNull), end = r.i64(kEnd, RowReader::kNull);
    if (!c.usable_times(start, end, Table::kKernel, r.row())) continue;
    if (c.skip_global(r.i64(kPid, 0))) {
      c.note_other_work(dev0, start, end);
      continue;
    }
    if (c.filtered) c.note_used(dev0, start, end);
    const int64_t device = dev0, stream = stream_or_lane(r.i64(kStream, -1));
    StringId name;
    if (!r.null(kDemangled)) {
      name = c.strings.interned(r.i64(kDemangled), &c.trace->strings);
    } else if (!r.null(kMangled)) {
      auto [at, fresh] = mangled_names.try_emplace(r.i64(kMangled));
      if (fresh) {
        const std::string_view mangled = c.strings.get(r.i64(kMangled));
        const std::string text = demangled_kernel_name(mangled);
        // Not an Itanium mangled name (an extern "C" kernel's is its plain name): the shortName
        // is that same name. A "_Z" name left unread (cut off, too long, or nesting or repeating
        // too much to demangle safely: kernel_demangle.h) loses its namespaces and templates as
        // a kernel with no mangledName does: said alike.
        at->second.fallback = text.empty() && mangled.substr(0, 2) == "_Z";
        at->second.name = text.empty() ? c.strings.interned(r.i64(kShort), &c.trace->strings)
                                       : c.trace->strings.intern(text);
      }
      name = at->second.name;
      if (at->second.fallback)
        c.trace->diagnostics.add(Diag::kNsysShortKernelNames,
                                 export_row_offset(Table::kKernel, r.row()), c.trace->str(name));
    } else {
      // Said once (the first row, its short name): the tables show names nsys' GUI shows only
      // with "shorten kernel names" on, and the rules read classes from them.
      name = c.strings.interned(r.i64(kShort), &c.trace->strings);
      c.trace->diagnostics.add(Diag::kNsysShortKernelNames,
                               export_row_offset(Table::kKernel, r.row()), c.trace->str(name));
    }
    KernelLaunchInfo info;
    const int64_t dims[6] = {r.i64(kGx, 0), r.i64(kGy, 0), r.i64(kGz, 0),
                             r.i64(kBx, 0), r.i64(kBy, 0), r.i64(kBz, 0)};
    for (int k = 0; k < 3; ++k) {
      info.grid[k] = static_cast<uint32_t>(dims[k] < 0            ? 0
                                           : dims[k] > UINT32_MAX ? UINT32_MAX
                                                                  : dims[k]);
      info.block[k] = static_cast<uint32_t>(dims[k + 3] < 0            ? 0
                                            : dims[k + 3] > UINT32_MAX ? UINT32_MAX
                                                                       : dims[k + 3]);
    }
    // Kineto's "blocks per SM" and "warps per SM", from the device's SM count when known.
    auto sms = c.device_sms.find(device);
    if (sms != c.device_sms.end() && sms->second > 0) {
      double blocks = static_cast<double>(info.grid[0]) * info.grid[1] * info.grid[2];
      double threads = static_cast<double>(info.block[0]) * info.block[1] * info.block[2];
      info.blocks_per_sm = static_cast<float>(blocks / static_cast<double>(sms->second));
      info.warps_per_sm = static_cast<float>(
          blocks * static_cast<double>(static_cast<int64_t>((threads + 31) / 32)) /
          static_cast<double>(sms->second));
    }
    TrackId tr = c.gpu_track(device, stream);
    SliceArgs a;
    a.correlation = r.i64(kCorr);
    a.device = device;
    a.stream = stream;
    a.launch = &info;
    c.add(tr, start, end, name, Context::kCatKernel, SliceKind::kKernel, a,
          row_source(Table::kKernel, r.row()));
    if (!c.filtered)
      c.note_gpu_time(r.i64(kPid, RowReader::kNull), dev, start, end, c.collective(name));
    link_launch(c, r.i64(kPid), a.correlation, tr, start);
    if (note_graph_kernels && !r.null(kNode) && a.correlation != kNoValue)
      c.launches_with_kernels.insert(Context::launch_key(r.i64(kPid, 0), a.correlation));
  }
  return read_done(r);
}

namespace {

// The lowest device with a GPU track on `stream` (the lowest: the map's order differs between
// the native and the WASM standard library), else device 0.
int64_t device_of_stream(const Context& c, int64_t stream) {
  int64_t best = -1;
  if (stream >= 0) {
    for (const auto& kv : c.gpu_tracks) {
      const Track& tr = c.trace->tracks[kv.second];
      if (tr.stream == stream && tr.device >= 0 && (best < 0 || tr.device < best)) best = tr.device;
    }
  }
  return best < 0 ? 0 : best;
}

}  // namespace

// CUDA graph launches traced as a whole (nsys profile --cuda-graph-trace=graph):
// one row per replay, from its first node's start to its last node's end, on the stream it was
// launched into; its kernels are not in CUPTI_ACTIVITY_KIND_KERNEL. Each row is one GPU op
// (SliceKind::kKernel, category cuda_graph) named after the executable graph, so the GPU's busy
// time, idle gaps and launch delays count it; the nsys.graph_trace finding says what is hidden.
bool read_graph_trace(Context& c) {
  const char* table = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE";
  if (!c.db.has_table(table)) return true;  // no graphs, or traced node by node
  RowReader r;
  enum { kStart, kEnd, kDev, kStream, kCorr, kPid, kGraph, kExec };
  if (!r.prepare(c.db, table,
                 {"start", "end", "deviceId", "streamId", "correlationId", "globalPid", "graphId",
                  "graphExecId"},
                 &c.trace->diagnostics, c.error))
    return false;
  std::unordered_map<uint64_t, StringId> names;  // by graphExecId << 32 ^ graphId
  while (r.next()) {
    // deviceId is the ordinal in the row's process: keyed as the trace keys GPUs (row_device).
    const int64_t dev = c.row_device(r.i64(kPid, RowReader::kNull), r.i64(kDev, RowReader::kNull));
    const int64_t dev0 = dev == RowReader::kNull ? 0 : dev;
    c.note_gpu_op(r.i64(kPid, RowReader::kNull), dev);
    const int64_t start = r.i64(kStart, RowReader::kNull), end = r.i64(kEnd, RowReader::kNull);
    // CUPTI writes 0 for both when it could not time the graph: nothing to place.
    if (start == 0 && end == 0) continue;
    if (!c.usable_times(start, end, Table::kGraphTrace, r.row())) continue;
    const int64_t pid = r.i64(kPid, 0);
    if (c.skip_global(pid)) {
      c.note_other_work(dev0, start, end);
      continue;
    }
    const int64_t correlation = r.i64(kCorr);
    if (correlation != kNoValue &&
        c.launches_with_kernels.count(Context::launch_key(pid, correlation)))
      continue;  // its kernels are in the kernel table already
    int64_t device = dev0;
    const int64_t stream = stream_or_lane(r.i64(kStream, -1));
    // INT_MAX: the graph's first node ran on the host (CUPTI); the stream's GPU, if one is known.
    if (device >= 0x7FFFFFFF) device = device_of_stream(c, stream);
    if (c.filtered) c.note_used(device, start, end);
    const int64_t graph = r.i64(kGraph, -1), exec = r.i64(kExec, -1);
    const uint64_t key = (static_cast<uint64_t>(exec) << 32) ^ static_cast<uint64_t>(graph);
    auto nit = names.find(key);
    if (nit == names.end()) {
      std::string name = "CUDA graph";
      if (exec >= 0) name += " exec " + std::to_string(exec);
      if (graph >= 0)
        name += exec >= 0 ? " (graph " + std::to_string(graph) + ")" : " " + std::to_string(graph);
      nit = names.emplace(key, c.trace->strings.intern(name)).first;
    }
    TrackId tr = c.gpu_track(device, stream);
    SliceArgs a;
    a.correlation = correlation;
    a.device = device;
    a.stream = stream;
    c.add(tr, start, end, nit->second, Context::kCatGraph, SliceKind::kKernel, a,
          row_source(Table::kGraphTrace, r.row()));
    if (!c.filtered) c.note_gpu_time(r.i64(kPid, RowReader::kNull), dev, start, end, false);
    link_launch(c, pid, correlation, tr, start);
  }
  std::unordered_set<uint64_t>().swap(c.launches_with_kernels);
  return read_done(r);
}

namespace {

// "CUDA_MEMCPY_KIND_HTOD" -> "HtoD", "CUDA_MEMCPY_KIND_UVM_DTOH" -> "UVM DtoH": Kineto's spelling.
std::string copy_kind_text(std::string name) {
  const std::string prefix = "CUDA_MEMCPY_KIND_";
  if (name.rfind(prefix, 0) == 0) name = name.substr(prefix.size());
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    char ch = name[i];
    if (ch == '_') {
      out.push_back(' ');
    } else if (ch == 'T' && i + 1 < name.size() && name[i + 1] == 'O' && i > 0 &&
               name[i - 1] != '_' && i + 2 < name.size()) {
      out += "to";
      ++i;
    } else {
      out.push_back(ch);
    }
  }
  return out;
}

}  // namespace

bool read_memcpy(Context& c) {
  const char* table = "CUPTI_ACTIVITY_KIND_MEMCPY";
  if (!c.db.has_table(table)) {
    c.table_missing(table);
    return true;
  }
  // The enums as this export defines them; the values of schema 3.x when a table is absent.
  auto copy_kinds = read_enum(c, "ENUM_CUDA_MEMCPY_OPER", "name");
  if (copy_kinds.empty()) {
    const char* k[] = {"UNKNOWN", "HTOD", "DTOH", "HTOA", "ATOH",     "ATOA",     "ATOD",
                       "DTOA",    "DTOD", "HTOH", "PTOP", "UVM_HTOD", "UVM_DTOH", "UVM_DTOD"};
    for (int i = 0; i < 14; ++i) copy_kinds[i] = std::string("CUDA_MEMCPY_KIND_") + k[i];
  }
  auto mem_kinds = read_enum(c, "ENUM_CUDA_MEM_KIND", "label");
  if (mem_kinds.empty()) {
    const char* k[] = {"Pageable", "Pinned",        "Device",         "Array",
                       "Managed",  "Device Static", "Managed Static", "Unknown"};
    for (int i = 0; i < 8; ++i) mem_kinds[i] = k[i];
  }
  auto kind_label = [&mem_kinds](int64_t k) -> std::string {
    auto it = mem_kinds.find(k);
    return it != mem_kinds.end() && !it->second.empty() ? it->second : "Unknown";
  };
  std::unordered_map<uint64_t, StringId> names;  // (copy, src, dst) -> name
  // Managed pages by address (virtualAddress, schema 3.x; absent before): which ways each moved,
  // 1 to the GPU, 2 to the host; a page with both ping-pongs (facts.unified_memory).
  auto migration_way = [&copy_kinds](int64_t copy) -> uint8_t {
    auto ck = copy_kinds.find(copy);
    if (ck == copy_kinds.end()) return 0;
    return ck->second == "CUDA_MEMCPY_KIND_UVM_HTOD"   ? 1
           : ck->second == "CUDA_MEMCPY_KIND_UVM_DTOH" ? 2
                                                       : 0;
  };
  std::unordered_map<int64_t, uint8_t> page_ways;
  RowReader r;
  enum { kStart, kEnd, kDev, kStream, kCorr, kPid, kBytes, kCopy, kSrc, kDst, kAddr };
  if (!r.prepare(c.db, table,
                 {"start", "end", "deviceId", "streamId", "correlationId", "globalPid", "bytes",
                  "copyKind", "srcKind", "dstKind", "?virtualAddress"},
                 &c.trace->diagnostics, c.error))
    return false;
  while (r.next()) {
    // deviceId is the ordinal in the row's process: keyed as the trace keys GPUs (row_device).
    const int64_t dev = c.row_device(r.i64(kPid, RowReader::kNull), r.i64(kDev, RowReader::kNull));
    const int64_t dev0 = dev == RowReader::kNull ? 0 : dev;
    c.note_gpu_op(r.i64(kPid, RowReader::kNull), dev);
    const int64_t start = r.i64(kStart, RowReader::kNull), end = r.i64(kEnd, RowReader::kNull);
    if (!c.usable_times(start, end, Table::kMemcpy, r.row())) continue;
    if (c.skip_global(r.i64(kPid, 0))) {
      c.note_other_work(dev0, start, end);
      continue;
    }
    if (!c.filtered) c.note_gpu_time(r.i64(kPid, RowReader::kNull), dev, start, end, false);
    if (c.filtered) c.note_used(dev0, start, end);
    const int64_t copy = r.i64(kCopy, 0), src = r.i64(kSrc, 7), dst = r.i64(kDst, 7);
    // A copy kind the enum does not name reads "UNKNOWN": neither HtoD nor DtoH, so no rule
    // about host copies sees it; said, not hidden.
    if (copy_kinds.count(copy) == 0)
      c.unknown_enum(Table::kMemcpy, table, "copyKind", copy, r.row());
    if (!r.null(kAddr))
      if (const uint8_t way = migration_way(copy)) page_ways[r.i64(kAddr)] |= way;
    const uint64_t key = (static_cast<uint64_t>(copy & 0xFFFFFF) << 40) ^
                         (static_cast<uint64_t>(src & 0xFFFFF) << 20) ^
                         static_cast<uint64_t>(dst & 0xFFFFF);
    auto nit = names.find(key);
    if (nit == names.end()) {
      auto ck = copy_kinds.find(copy);
      std::string kind = copy_kind_text(ck != copy_kinds.end() ? ck->second : "UNKNOWN");
      // CUDA_MEMCPY_KIND_UVM_HTOD/DTOH/DTOD (ENUM_CUDA_MEMCPY_OPER 11-13, labelled "Unified
      // Host-to-Device", ... in the 2024.5 export): page migrations of managed memory, which the
      // driver makes on a page fault or a prefetch (correlationId 0: no call made them). Named
      // "Memcpy Unified DtoH" so that no rule reads them as copies the program issued
      // (gpu_op_summary.h, MemoryOpKind::kUnified).
      if (kind.rfind("UVM ", 0) == 0) kind = "Unified " + kind.substr(4);
      const std::string name =
          "Memcpy " + kind + " (" + kind_label(src) + " -> " + kind_label(dst) + ")";
      nit = names.emplace(key, c.trace->strings.intern(name)).first;
    }
    const int64_t device = dev0, stream = stream_or_lane(r.i64(kStream, -1));
    TrackId tr = c.gpu_track(device, stream);
    KernelLaunchInfo info;  // Kineto's "memory bandwidth (GB/s)": bytes per ns
    const int64_t bytes = r.i64(kBytes);
    if (bytes >= 0 && end > start)
      info.bandwidth_gbps =
          static_cast<float>(static_cast<double>(bytes) / static_cast<double>(end - start));
    SliceArgs a;
    a.correlation = r.i64(kCorr);
    a.bytes = bytes;
    a.device = device;
    a.stream = stream;
    a.launch = &info;
    c.add(tr, start, end, nit->second, Context::kCatMemcpy, SliceKind::kMemcpy, a,
          row_source(Table::kMemcpy, r.row()));
    link_launch(c, r.i64(kPid), a.correlation, tr, start);
  }
  TraceFacts::UnifiedMemory& um = c.trace->facts.unified_memory;
  um.pages_migrated = page_ways.size();
  for (const auto& kv : page_ways) um.pages_both_ways += kv.second == 3;
  return read_done(r);
}

bool read_memset(Context& c) {
  const char* table = "CUPTI_ACTIVITY_KIND_MEMSET";
  if (!c.db.has_table(table)) {
    c.table_missing(table);
    return true;
  }
  auto mem_kinds = read_enum(c, "ENUM_CUDA_MEM_KIND", "label");
  RowReader r;
  enum { kStart, kEnd, kDev, kStream, kCorr, kPid, kBytes, kKind };
  if (!r.prepare(c.db, table,
                 {"start", "end", "deviceId", "streamId", "correlationId", "globalPid", "bytes",
                  "memKind"},
                 &c.trace->diagnostics, c.error))
    return false;
  std::unordered_map<int64_t, StringId> names;
  while (r.next()) {
    // deviceId is the ordinal in the row's process: keyed as the trace keys GPUs (row_device).
    const int64_t dev = c.row_device(r.i64(kPid, RowReader::kNull), r.i64(kDev, RowReader::kNull));
    const int64_t dev0 = dev == RowReader::kNull ? 0 : dev;
    c.note_gpu_op(r.i64(kPid, RowReader::kNull), dev);
    const int64_t start = r.i64(kStart, RowReader::kNull), end = r.i64(kEnd, RowReader::kNull);
    if (!c.usable_times(start, end, Table::kMemset, r.row())) continue;
    if (c.skip_global(r.i64(kPid, 0))) {
      c.note_other_work(dev0, start, end);
      continue;
    }
    if (!c.filtered) c.note_gpu_time(r.i64(kPid, RowReader::kNull), dev, start, end, false);
    if (c.filtered) c.note_used(dev0, start, end);
    const int64_t kind = r.i64(kKind, 2);  // Device when not recorded
    auto nit = names.find(kind);
    if (nit == names.end()) {
      auto mk = mem_kinds.find(kind);
      std::string label = mk != mem_kinds.end() && !mk->second.empty() ? mk->second
                          : kind == 2                                  ? "Device"
                                                                       : "Unknown";
      nit = names.emplace(kind, c.trace->strings.intern("Memset (" + label + ")")).first;
    }
    const int64_t device = dev0, stream = stream_or_lane(r.i64(kStream, -1));
    TrackId tr = c.gpu_track(device, stream);
    SliceArgs a;
    a.correlation = r.i64(kCorr);
    a.bytes = r.i64(kBytes);
    a.device = device;
    a.stream = stream;
    c.add(tr, start, end, nit->second, Context::kCatMemset, SliceKind::kMemset, a,
          row_source(Table::kMemset, r.row()));
    link_launch(c, r.i64(kPid), a.correlation, tr, start);
  }
  return read_done(r);
}

bool read_sync(Context& c) {
  const char* table = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
  if (!c.db.has_table(table)) {
    c.table_missing(table);
    return true;
  }
  // Kineto's names for CUPTI's synchronization types (ENUM_CUPTI_SYNC_TYPE).
  std::unordered_map<int64_t, std::string> names = {
      {1, "Event Sync"}, {2, "Stream Wait Event"}, {3, "Stream Sync"}, {4, "Context Sync"}};
  for (const auto& kv : read_enum(c, "ENUM_CUPTI_SYNC_TYPE", "name")) {
    const std::string& n = kv.second;
    auto ends = [&n](const char* s) {
      std::string_view v(s);
      return n.size() >= v.size() && n.compare(n.size() - v.size(), v.size(), v) == 0;
    };
    names[kv.first] = ends("EVENT_SYNCHRONIZE")     ? "Event Sync"
                      : ends("STREAM_WAIT_EVENT")   ? "Stream Wait Event"
                      : ends("STREAM_SYNCHRONIZE")  ? "Stream Sync"
                      : ends("CONTEXT_SYNCHRONIZE") ? "Context Sync"
                                                    : "Unknown";
  }
  std::unordered_map<int64_t, StringId> ids;
  for (const auto& kv : names) ids[kv.first] = c.trace->strings.intern(kv.second);
  const StringId unknown = c.trace->strings.intern("Unknown");
  const StringId context_sync = c.trace->strings.intern("Context Sync");
  const StringId event_sync = c.trace->strings.intern("Event Sync");
  const StringId stream_wait = c.trace->strings.intern("Stream Wait Event");
  EventRecords records;
  if (!read_event_records(c, &records)) return false;
  RowReader r;
  enum { kStart, kEnd, kDev, kStream, kCorr, kPid, kType, kEvent };
  if (!r.prepare(c.db, table,
                 {"start", "end", "deviceId", "streamId", "correlationId", "globalPid", "syncType",
                  "?eventId"},
                 &c.trace->diagnostics, c.error))
    return false;
  while (r.next()) {
    // deviceId is the ordinal in the row's process: keyed as the trace keys GPUs (row_device).
    const int64_t dev = c.row_device(r.i64(kPid, RowReader::kNull), r.i64(kDev, RowReader::kNull));
    const int64_t dev0 = dev == RowReader::kNull ? 0 : dev;
    const int64_t start = r.i64(kStart, RowReader::kNull), end = r.i64(kEnd, RowReader::kNull);
    if (!c.usable_times(start, end, Table::kSync, r.row())) continue;
    if (c.skip_global(r.i64(kPid, 0))) continue;
    if (c.filtered) c.used_devices.emplace(dev0, 0);  // no GPU time of its own
    const int64_t device = dev0, stream = stream_or_lane(r.i64(kStream, -1));
    // A synchronization on no stream and no event can only be of the whole context, whatever
    // its type says: a real nsys 2024.5 export types every cudaDeviceSynchronize 1 (event
    // synchronize) with both ids invalid. Named by its type, it waited for nothing (the
    // critical path lost the GPU time behind every such call).
    const int64_t event = r.i64(kEvent, RowReader::kNull);
    const bool no_event = event != RowReader::kNull && stream_or_lane(event) < 0;
    auto nit = ids.find(r.i64(kType, 0));
    if (nit == ids.end() && !(stream < 0 && no_event))
      c.unknown_enum(Table::kSync, table, "syncType", r.i64(kType, 0), r.row());
    const StringId name = stream < 0 && no_event ? context_sync
                          : nit != ids.end()     ? nit->second
                                                 : unknown;
    TrackId tr = c.gpu_track(device, stream);
    SliceArgs a;
    a.correlation = r.i64(kCorr);
    a.device = device;
    if (stream >= 0) a.stream = stream;
    // Kineto's wait args: the stream the awaited event was recorded on and the record call.
    if ((name == event_sync || name == stream_wait) && !no_event && event != RowReader::kNull) {
      if (const EventRecord* rec = record_before(records, r.i64(kPid, 0), event, start)) {
        a.wait_on_stream = rec->stream;
        a.wait_on_record_correlation = rec->correlation;
      }
    }
    c.add(tr, start, end, name, Context::kCatSync, SliceKind::kSync, a,
          row_source(Table::kSync, r.row()));
  }
  return read_done(r);
}

}  // namespace ks::nsys_sqlite
