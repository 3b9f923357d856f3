// Nsight Systems export -> the model. The mapping (docs/report-schema.md, "Nsight Systems
// exports"), in short:
//   processes: pid = (globalPid >> 24) & 0xFFFFFF, named from PROCESSES; threads: tid = globalTid
//     & 0xFFFFFF, named from ThreadNames, else by nvtxNameOsThread (NVTX_EVENTS type 39); each
//     thread gets one track per row, as Nsight's GUI draws them: "<thread> NVTX", "<thread> CUDA
//     API", "<thread> OS runtime";
//   CUPTI_ACTIVITY_KIND_RUNTIME -> cuda_runtime / cuda_driver slices (version suffix dropped),
//     with their caller from CUDA_CALLCHAINS (--cudabacktrace) as their call stack;
//   KERNEL / MEMCPY / MEMSET / SYNCHRONIZATION -> kernel / gpu_memcpy / gpu_memset / cuda_sync on
//     (device, stream) tracks named and laid out as Kineto's, with ac2g flows from the launch;
//   GRAPH_TRACE (graphs traced whole, --cuda-graph-trace=graph) -> one kernel-kind slice per
//     replay, category cuda_graph, named "CUDA graph exec E (graph G)";
//   NVTX_EVENTS -> user_annotation slices (push/pop on the thread, start/end on a per-process
//     track of their own) and instants for marks; OSRT_API -> os_runtime slices;
//   CUDNN_EVENTS, CUBLAS_EVENTS -> cudnn / cublas slices on the thread's "cuDNN" / "cuBLAS" rows;
//   MPI_P2P_EVENTS, MPI_COLLECTIVES_EVENTS, MPI_START_WAIT_EVENTS, MPI_OTHER_EVENTS -> mpi slices
//     on the thread's "MPI" row;
//   PROFILER_OVERHEAD -> profiler_overhead slices on the thread's "Profiler overhead" row
//     (the program's threads, within its span);
//   GPU_METRICS -> counters under the GPU's process; TARGET_INFO_GPU -> devices;
//   CUDA_GPU_MEMORY_USAGE_EVENTS -> Kineto-style [memory] instants with the device's total;
//   CUDA_UM_GPU/CPU_PAGE_FAULT_EVENTS -> facts.unified_memory (counts, the host's fault site);
//   times are integer ns since the session start, plus TARGET_INFO_SESSION_START_TIME.
// Every table is read with one prepared SELECT by column name; absent tables and columns are
// noted in Diagnostics, never fatal, since the schema changes between nsys versions.
#include "import/nsys_sqlite/nsys_importer.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "analysis/kernel_class.h"
#include "import/nsys_sqlite/nsys_rows.h"

namespace ks {

namespace {

using nsys_sqlite::Context;
using nsys_sqlite::RowReader;

// The schema major version this reader follows (Nsight Systems 2021-2024 write 3.x).
constexpr int kSchemaMajor = 3;

bool read_strings(Context& c) {
  if (!c.db.has_table("StringIds")) {
    c.table_missing("StringIds");
    return true;
  }
  return c.strings.load(c.db, &c.trace->diagnostics, c.error);
}

bool read_export_meta(Context& c) {
  TraceFacts& f = c.trace->facts;
  if (!c.db.has_table("META_DATA_EXPORT")) {
    c.table_missing("META_DATA_EXPORT");
    return true;
  }
  RowReader r;
  if (!r.prepare(c.db, "META_DATA_EXPORT", {"name", "value"}, &c.trace->diagnostics, c.error))
    return false;
  std::string major;
  while (r.next()) {
    std::string_view name = r.text(0), value = r.text(1);
    if (name == "EXPORT_SCHEMA_VERSION") f.schema_version.assign(value);
    if (name == "EXPORT_SCHEMA_VERSION_MAJOR") major.assign(value);
    if (name == "EXPORT_PRODUCT_VERSION") f.trace_name = "Nsight Systems " + std::string(value);
  }
  if (r.failed()) return false;
  if (major.empty()) major = f.schema_version.substr(0, f.schema_version.find('.'));
  if (major.empty() || std::atoi(major.c_str()) != kSchemaMajor) {
    const std::string version = f.schema_version.empty() ? "(none)" : f.schema_version;
    c.trace->diagnostics.add(Diag::kNsysSchemaVersion, 0, version);
    // Which version, and which this reader follows: a user can tell a newer nsys (4.x: read by
    // the tables and columns it shares with 3.x) from an older one (2.x).
    c.trace->diagnostics.set_detail(
        Diag::kNsysSchemaVersion,
        "Schema " + version + "; this reader follows " + std::to_string(kSchemaMajor) + ".x.");
  }
  return true;
}

// The capture's duration and the command it profiled, for the report's header: what run the
// export is of. Absent from some versions; no note then.
bool read_capture_meta(Context& c) {
  TraceFacts& f = c.trace->facts;
  if (c.db.has_table("ANALYSIS_DETAILS")) {
    RowReader r;
    if (!r.prepare(c.db, "ANALYSIS_DETAILS", {"?duration"}, &c.trace->diagnostics, c.error))
      return false;
    if (r.next() && r.i64(0, 0) > 0) f.capture_ns = r.i64(0, 0);
    if (r.failed()) return false;
  }
  if (!c.db.has_table("META_DATA_CAPTURE")) return true;
  RowReader r;
  if (!r.prepare(c.db, "META_DATA_CAPTURE", {"name", "value"}, &c.trace->diagnostics, c.error))
    return false;
  // The first process nsys launched: PROCESS_0:COMMAND, then its ARGUMENT_0, ARGUMENT_1, ...
  std::string command, args;
  while (r.next()) {
    const std::string_view name = r.text(0);
    if (name == "PROCESS_0:COMMAND") command.assign(r.text(1));
    if (name.substr(0, 19) == "PROCESS_0:ARGUMENT_") args += " " + std::string(r.text(1));
  }
  if (r.failed()) return false;
  if (!command.empty()) f.capture_command = command + args;
  return true;
}

bool read_session_start(Context& c) {
  const char* table = "TARGET_INFO_SESSION_START_TIME";
  if (!c.db.has_table(table)) {
    c.table_missing(table);
    return true;
  }
  RowReader r;
  if (!r.prepare(c.db, table, {"utcEpochNs"}, &c.trace->diagnostics, c.error)) return false;
  if (r.next() && !r.null(0) && r.i64(0) > 0) {
    c.trace->facts.has_base_time = true;
    c.trace->facts.base_time_ns = r.i64(0);
  }
  return !r.failed();
}

bool read_names(Context& c) {
  if (c.db.has_table("PROCESSES")) {
    RowReader r;
    if (!r.prepare(c.db, "PROCESSES", {"globalPid", "name"}, &c.trace->diagnostics, c.error))
      return false;
    while (r.next())
      if (!r.null(0)) c.process_names[r.i64(0) & ~int64_t{0xFFFFFF}].assign(r.text(1));
    if (r.failed()) return false;
  } else {
    c.table_missing("PROCESSES");
  }
  if (c.db.has_table("ThreadNames")) {
    RowReader r;
    if (!r.prepare(c.db, "ThreadNames", {"globalTid", "nameId"}, &c.trace->diagnostics, c.error))
      return false;
    while (r.next())
      if (!r.null(0)) c.thread_names[r.i64(0)].assign(c.strings.get(r.i64(1)));
    if (r.failed()) return false;
  } else {
    c.table_missing("ThreadNames");
  }
  return true;
}

bool read_devices(Context& c) {
  // Exports before mid-2021 name the GPUs in TARGET_INFO_CUDA_GPU, keyed by the CUDA ordinal
  // (deviceId) and with CUDA's property names (numMultiprocessors, computeCapabilityMajor).
  const bool early = !c.db.has_table("TARGET_INFO_GPU") && c.db.has_table("TARGET_INFO_CUDA_GPU");
  const char* table = early ? "TARGET_INFO_CUDA_GPU" : "TARGET_INFO_GPU";
  if (!c.db.has_table(table)) {
    c.table_missing(table);
    return true;
  }
  RowReader r;
  enum { kId, kName, kMem, kSms, kMajor, kMinor, kCuDevice, kBus };
  const bool ok = early ? r.prepare(c.db, table,
                                    {"deviceId", "name", "?totalMemory", "numMultiprocessors",
                                     "computeCapabilityMajor", "?computeCapabilityMinor",
                                     "?cuDevice", "?busLocation"},
                                    &c.trace->diagnostics, c.error)
                        : r.prepare(c.db, table,
                                    {"id", "name", "totalMemory", "smCount", "computeMajor",
                                     "computeMinor", "?cuDevice", "?busLocation"},
                                    &c.trace->diagnostics, c.error);
  if (!ok) return false;
  std::vector<int64_t> cuda_ordinals;
  std::vector<std::string> labels;  // "MODEL (BUS)", per row
  std::unordered_set<int64_t> distinct;
  auto& devices = c.trace->devices;
  const size_t first = devices.size();
  while (r.next()) {
    DeviceProperties d;
    d.id = r.i64(kId, 0);
    d.name.assign(r.text(kName));
    const std::string_view bus = r.text(kBus);
    labels.push_back(d.name.empty() ? std::string(bus)
                     : bus.empty()  ? d.name
                                    : d.name + " (" + std::string(bus) + ")");
    d.total_memory = r.i64(kMem);
    d.num_sms = r.i64(kSms);
    d.compute_major = r.i64(kMajor);
    d.compute_minor = r.i64(kMinor);
    const int64_t ordinal = r.i64(kCuDevice, RowReader::kNull);
    cuda_ordinals.push_back(ordinal);
    if (ordinal >= 0) distinct.insert(ordinal);
    devices.push_back(std::move(d));
  }
  if (r.failed()) return false;
  // Kernel and copy rows name a GPU by its CUDA ordinal (`deviceId`, cuda:N), and nsys numbers
  // its GPUs in its own order: the real export's GPU ids 0-3 are CUDA devices 3, 0, 1, 2. When
  // every GPU row gives a distinct `cuDevice`, the devices are keyed by it, so a mixed node's
  // cuda:0 gets cuda:0's name, SMs and memory; GPU metrics, which name nsys' id, follow. When
  // processes' ordinals name different GPUs (a CUDA_VISIBLE_DEVICES per rank), no ordinal is one
  // GPU: devices and rows are keyed by nsys' GPU id instead (Context::row_device).
  c.gpu_of_process_ordinal = nsys_sqlite::cuda_device_gpus(c.db);
  const bool by_ordinal = distinct.size() == cuda_ordinals.size() && !cuda_ordinals.empty() &&
                          c.gpu_of_process_ordinal.empty();
  for (size_t k = first; k < devices.size(); ++k) {
    DeviceProperties& d = devices[k];
    if (by_ordinal) {
      c.device_of_gpu_id[d.id] = cuda_ordinals[k - first];
      d.id = cuda_ordinals[k - first];
    }
    if (d.num_sms > 0) c.device_sms[d.id] = d.num_sms;
    if (!labels[k - first].empty()) c.device_labels[d.id] = labels[k - first];
  }
  // By id, as Kineto lists deviceProperties: the report names the first, cuda:0.
  std::stable_sort(
      devices.begin() + static_cast<std::ptrdiff_t>(first), devices.end(),
      [](const DeviceProperties& a, const DeviceProperties& b) { return a.id < b.id; });
  return true;
}

// The rank as the job launcher set it in the environment nsys recorded (TARGET_INFO_SYSTEM_ENV,
// "DeviceEnvironment": NAME=value;NAME=value...). With `srun nsys profile` or `mpirun nsys
// profile`, each rank's nsys runs in that rank's environment.
bool read_rank_from_env(Context& c) {
  const char* table = "TARGET_INFO_SYSTEM_ENV";
  if (!c.db.has_table(table)) return true;
  RowReader r;
  if (!r.prepare(c.db, table, {"name", "value"}, &c.trace->diagnostics, c.error)) return false;
  std::string env;
  while (r.next())
    if (r.text(0) == "DeviceEnvironment") env.assign(r.text(1));
  if (r.failed()) return false;
  if (env.empty()) return true;
  auto lookup = [&env](std::string_view key) -> int64_t {
    size_t at = 0;
    while (at < env.size()) {
      size_t end = env.find(';', at);
      if (end == std::string::npos) end = env.size();
      std::string_view item(env.data() + at, end - at);
      if (item.size() > key.size() && item.compare(0, key.size(), key) == 0 &&
          item[key.size()] == '=') {
        std::string_view v = item.substr(key.size() + 1);
        if (v.empty() || v.size() > 9) return -1;
        int64_t n = 0;
        for (char ch : v) {
          if (ch < '0' || ch > '9') return -1;
          n = n * 10 + (ch - '0');
        }
        return n;
      }
      at = end + 1;
    }
    return -1;
  };
  // torchrun / PyTorch, Open MPI, MPICH/PMI, PMIx, Slurm: the first one set wins.
  static const char* const kRank[] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                      "SLURM_PROCID"};
  static const char* const kSize[] = {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                      "SLURM_NTASKS"};
  for (const char* key : kRank) {
    int64_t rank = lookup(key);
    if (rank < 0) continue;
    DistributedInfo& d = c.trace->distributed;
    d.present = true;
    d.from_environment = true;
    d.rank = rank;
    for (const char* size_key : kSize) {
      int64_t size = lookup(size_key);
      if (size > 0) {
        d.world_size = size;
        break;
      }
    }
    c.trace->diagnostics.add(Diag::kNsysRankFromEnv, 0,
                             std::string(key) + "=" + std::to_string(rank));
    break;
  }
  return true;
}

// The data tables an export has, with row counts, for "what it has instead".
std::string describe_contents(const NsysDatabase& db) {
  std::string out;
  size_t shown = 0;
  for (const std::string& t : db.tables()) {
    if (t.rfind("ENUM_", 0) == 0 || t.rfind("TARGET_INFO_", 0) == 0 ||
        t.rfind("META_DATA_", 0) == 0 || t == "StringIds" || t == "ThreadNames" ||
        t == "PROCESSES" || t.rfind("ANALYSIS_", 0) == 0)
      continue;
    if (shown == 6) {
      out += ", ...";
      break;
    }
    std::string count = "?";
    sqlite3_stmt* st = nullptr;
    db.begin_query();
    std::string sql = "SELECT count(*) FROM \"" + t + "\"";
    if (t.find('"') == std::string::npos &&
        sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
      count = std::to_string(sqlite3_column_int64(st, 0));
    sqlite3_finalize(st);
    out += (shown++ ? ", " : "") + t + " (" + count + " rows)";
  }
  return out.empty() ? "no data tables" : out;
}

// The slices and flows a large export will add, reserved before reading it: the columns then hold
// what they use instead of up to twice that (push_back doubles), and no doubling briefly holds
// old and new. Only files of kReserveFromBytes or more are probed: the probe reads pages, which
// would change the "last page read" a small damaged file's error names.
// The GPU a process worked on: the most op time, the lowest of equals (device_ns is ordered);
// kNoDevice when no row named one.
int64_t main_device(const std::map<int64_t, int64_t>& device_ns) {
  int64_t best = Context::kNoDevice, most = -1;
  for (const auto& kv : device_ns)
    if (kv.second > most) best = kv.first, most = kv.second;
  return best;
}

// Processes by their GPU (a process without one first, read as device 0, as before the rows named
// devices), then pid: nsys_gpu_processes()'s order.
void sort_by_device(std::vector<NsysGpuProcess>* procs) {
  std::vector<std::pair<int64_t, size_t>> order;
  for (size_t i = 0; i < procs->size(); ++i) {
    const int64_t d = (*procs)[i].device;
    order.emplace_back(d == Context::kNoDevice ? INT64_MIN : d, i);
  }
  std::sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : (*procs)[a.second].pid < (*procs)[b.second].pid;
  });
  std::vector<NsysGpuProcess> out;
  for (const auto& o : order) {
    out.push_back((*procs)[o.second]);
    if (out.back().device == Context::kNoDevice) out.back().device = 0;
  }
  procs->swap(out);
}

// nsys_gpu_processes()'s answer from the rows read.
void gpu_processes_seen(const Context& c, std::vector<NsysGpuProcess>* out) {
  out->clear();
  for (const auto& kv : c.gpu_process_devices) {
    NsysGpuProcess p = kv.second;
    auto it = c.gpu_process_device_ns.find(kv.first);
    p.device = it == c.gpu_process_device_ns.end() ? Context::kNoDevice : main_device(it->second);
    out->push_back(p);
  }
  sort_by_device(out);
}

// "pid 4300 with pid 100 (GPU 0)": the first helper a diagnostic names.
std::string helper_text(const NsysRank& r) {
  return "pid " + std::to_string(r.helpers.front()) + " with pid " + std::to_string(r.pid) +
         " (GPU " + std::to_string(r.device) + ")";
}

// What the rank plan did to the export, in the whole export's diagnostics: helpers read with
// the main process, or too many rank-like processes to read one by one.
void note_plan(const NsysRankPlan& plan, Diagnostics* diag) {
  if (plan.too_many) {
    diag->add(Diag::kNsysTooManyRanks, 0,
              std::to_string(plan.rank_like) + " processes look like ranks; at most " +
                  std::to_string(kMaxExportRanks) + " are read one by one");
    return;
  }
  for (const NsysRank& r : plan.ranks)
    if (!r.helpers.empty())
      diag->add(Diag::kNsysHelperProcess, 0, helper_text(r), r.helpers.size());
}

// A rank's read: its own processes, the GPUs it shares with other ranks.
void filter_to_rank(Context& c, const NsysImportOptions& o) {
  c.filtered = true;
  c.pids = {o.only_pid};
  const NsysRank* rank = o.plan ? o.plan->find(o.only_pid) : nullptr;
  if (!rank) return;
  c.pids.insert(c.pids.end(), rank->helpers.begin(), rank->helpers.end());
  std::sort(c.pids.begin(), c.pids.end());
  c.shared_devices = o.plan->shared_devices;
  if (!rank->helpers.empty())
    c.trace->diagnostics.add(Diag::kNsysHelperProcess, 0, helper_text(*rank), rank->helpers.size());
}

// The other processes' GPU work on the GPUs this rank used, merged, in the trace's times (the
// session's start added when the builder added it to every time).
void keep_other_work(Context& c, int64_t shift) {
  std::vector<TraceFacts::Span> spans;
  for (const Context::OtherWork& w : c.other_work)
    if (c.works_on(w.device)) spans.push_back({w.begin + shift, w.end + shift});
  std::vector<Context::OtherWork>().swap(c.other_work);
  std::sort(spans.begin(), spans.end(),
            [](const TraceFacts::Span& a, const TraceFacts::Span& b) { return a.begin < b.begin; });
  auto& out = c.trace->facts.other_processes_gpu_work;
  for (const TraceFacts::Span& s : spans) {
    if (!out.empty() && s.begin <= out.back().end)
      out.back().end = std::max(out.back().end, s.end);
    else
      out.push_back(s);
  }
}

void reserve_rows(Context& c) {
  static constexpr uint64_t kReserveFromBytes = uint64_t{64} << 20;
  if (c.db.file_size() < kReserveFromBytes) return;
  const NsysRowBound n = nsys_row_bound(c.db);
  c.b.reserve(n.slices, n.flows, n.launch_infos);  // finalize() gives back what was not used
  c.launches.reserve(n.calls);
}

}  // namespace

NsysRowBound nsys_row_bound(const NsysDatabase& db) {
  const uint64_t size = db.file_size();
  auto rows = [&](const char* table) -> uint64_t {
    if (!db.has_table(table)) return 0;
    sqlite3_stmt* st = nullptr;
    uint64_t n = 0;
    db.begin_query();
    const std::string sql = std::string("SELECT max(rowid) FROM \"") + table + "\"";
    if (sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
      n = static_cast<uint64_t>(std::max<sqlite3_int64>(0, sqlite3_column_int64(st, 0)));
    sqlite3_finalize(st);  // a failure here is the table reader's to report, with its context
    return std::min(n, size / 16);
  };
  const uint64_t gpu_ops = rows("CUPTI_ACTIVITY_KIND_KERNEL") +
                           rows("CUPTI_ACTIVITY_KIND_GRAPH_TRACE") +
                           rows("CUPTI_ACTIVITY_KIND_MEMCPY") + rows("CUPTI_ACTIVITY_KIND_MEMSET");
  const uint64_t calls = rows("CUPTI_ACTIVITY_KIND_RUNTIME");
  const uint64_t slices = gpu_ops + calls + rows("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION") +
                          rows("NVTX_EVENTS") + rows("OSRT_API") + rows("PROFILER_OVERHEAD") +
                          rows("CUDNN_EVENTS") + rows("CUBLAS_EVENTS") + rows("MPI_P2P_EVENTS") +
                          rows("MPI_COLLECTIVES_EVENTS") + rows("MPI_START_WAIT_EVENTS") +
                          rows("MPI_OTHER_EVENTS") + (rows("SCHED_EVENTS") + 1) / 2;
  // Each GPU op with a launch gets a flow pair.
  return {std::min(slices, size / 16), std::min(2 * gpu_ops, size / 8),
          std::min(gpu_ops, size / 16), calls};
}

std::vector<NsysGpuProcess> nsys_gpu_processes(const NsysDatabase& db) {
  std::vector<NsysGpuProcess> out;
  std::string sql;
  // As the importer reads them: a row's time counts when both ends are there and in order (a
  // graph replay CUPTI could not time has both 0); a kernel's name is its demangled one if any.
  const bool names = db.has_table("StringIds");
  for (const char* t : {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_GRAPH_TRACE",
                        "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"}) {
    if (!db.has_table(t) || !db.has_column(t, "globalPid") || !db.has_column(t, "deviceId"))
      continue;
    const bool timed = db.has_column(t, "start") && db.has_column(t, "end");
    const bool kernel = std::string(t) == "CUPTI_ACTIVITY_KIND_KERNEL" && names;
    std::string name = "NULL";
    if (kernel && db.has_column(t, "demangledName") && db.has_column(t, "shortName"))
      name = "coalesce(demangledName, shortName)";
    else if (kernel && db.has_column(t, "shortName"))
      name = "shortName";
    sql += std::string(sql.empty() ? "" : " UNION ALL ") +
           "SELECT globalPid AS g, deviceId AS d, " + (timed ? "start" : "NULL") + " AS s, " +
           (timed ? "\"end\"" : "NULL") + " AS e, " + name + " AS n FROM \"" + t + "\"";
  }
  if (sql.empty()) return out;
  const std::string ok = "(s IS NOT NULL AND e IS NOT NULL AND e >= s AND NOT (s = 0 AND e = 0))";
  // One row per (process, device): the process's GPU is the device it spent the most op time on.
  sql = "SELECT (g >> 24) & 16777215 AS p, d, min(CASE WHEN " + ok +
        " THEN s END), max(CASE WHEN " + ok + " THEN e END), total(CASE WHEN " + ok +
        " THEN e - s END), group_concat(DISTINCT n) FROM (" + sql +
        ") WHERE g IS NOT NULL GROUP BY p, d ORDER BY p, d";
  sqlite3_stmt* st = nullptr;
  db.begin_query();
  // Devices keyed as the importer keys them (Context::row_device).
  const std::map<std::pair<int64_t, int64_t>, int64_t> gpus = nsys_sqlite::cuda_device_gpus(db);
  auto device_of = [&gpus](int64_t pid, int64_t ordinal) {
    auto it = gpus.find({pid, ordinal});
    return it == gpus.end() ? ordinal : it->second;
  };
  std::vector<std::string> kernel_names;  // per process: its kernels' name ids, comma-separated
  std::map<int64_t, int64_t> device_ns;   // the current process's op time by device
  double op_total = 0;
  bool timed = false;  // the current process has a timed op
  auto close_process = [&] {
    if (out.empty()) return;
    out.back().device = main_device(device_ns);
    out.back().op_ns = op_total >= 9.2e18 ? INT64_MAX : static_cast<int64_t>(op_total);
    device_ns.clear();
    op_total = 0;
    timed = false;
  };
  if (sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &st, nullptr) == SQLITE_OK) {
    while (sqlite3_step(st) == SQLITE_ROW) {
      const int64_t pid = sqlite3_column_int64(st, 0);
      if (out.empty() || out.back().pid != pid) {
        close_process();
        out.emplace_back();
        out.back().pid = pid;
        kernel_names.emplace_back();
      }
      NsysGpuProcess& p = out.back();
      const double total = sqlite3_column_double(st, 4);
      if (sqlite3_column_type(st, 1) != SQLITE_NULL)
        device_ns[device_of(pid, sqlite3_column_int64(st, 1))] =
            total >= 9.2e18 ? INT64_MAX : static_cast<int64_t>(total);
      if (sqlite3_column_type(st, 2) != SQLITE_NULL) {  // a timed op on this device
        const int64_t first = sqlite3_column_int64(st, 2), last = sqlite3_column_int64(st, 3);
        p.first_ns = timed ? std::min(p.first_ns, first) : first;
        p.last_ns = timed ? std::max(p.last_ns, last) : last;
        timed = true;
      }
      op_total += total;
      const unsigned char* n = sqlite3_column_text(st, 5);
      if (n)
        kernel_names.back() += (kernel_names.back().empty() ? "" : ",") +
                               std::string(reinterpret_cast<const char*>(n));
    }
  }
  close_process();
  sqlite3_finalize(st);  // a failure here is the importer's to report, with its context
  // By device, then pid; each process's kernel names go with it.
  std::map<int64_t, std::string> names_of;
  for (size_t i = 0; i < out.size(); ++i) names_of[out[i].pid] = std::move(kernel_names[i]);
  sort_by_device(&out);
  for (size_t i = 0; i < out.size(); ++i) kernel_names[i] = std::move(names_of[out[i].pid]);
  if (!names) return out;
  // Whether any of a process's kernel names is a collective's, by the analyses' own rule.
  st = nullptr;
  db.begin_query();
  if (sqlite3_prepare_v2(db.handle(), "SELECT value FROM StringIds WHERE id = ?", -1, &st,
                         nullptr) != SQLITE_OK) {
    sqlite3_finalize(st);
    return out;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    const std::string& ids = kernel_names[i];
    for (size_t at = 0; at < ids.size() && !out[i].collective;) {
      size_t end = ids.find(',', at);
      if (end == std::string::npos) end = ids.size();
      sqlite3_reset(st);
      sqlite3_bind_int64(st, 1, std::atoll(ids.c_str() + at));
      if (sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char* v = sqlite3_column_text(st, 0);
        const std::string_view name(v ? reinterpret_cast<const char*>(v) : "",
                                    static_cast<size_t>(sqlite3_column_bytes(st, 0)));
        out[i].collective = hta_category(SliceKind::kKernel, name) == HtaCategory::kCommunication;
      }
      at = end + 1;
    }
  }
  sqlite3_finalize(st);
  return out;
}

const NsysRank* NsysRankPlan::find(int64_t pid) const {
  for (const NsysRank& r : ranks)
    if (r.pid == pid) return &r;
  return nullptr;
}

NsysRankPlan nsys_rank_plan(const std::vector<NsysGpuProcess>& procs) {
  NsysRankPlan plan;
  // The export's GPU span: a rank of the job works through most of it, a helper for a moment.
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (const NsysGpuProcess& p : procs) {
    if (p.last_ns <= p.first_ns && p.op_ns == 0) continue;  // no timed op
    first = std::min(first, p.first_ns), last = std::max(last, p.last_ns);
  }
  const double span = last > first ? static_cast<double>(last) - static_cast<double>(first) : 0;
  // procs is ordered by device, then pid: each GPU's processes are one run of it.
  for (size_t i = 0; i < procs.size();) {
    size_t j = i;
    while (j < procs.size() && procs[j].device == procs[i].device) ++j;
    size_t main = i;
    for (size_t k = i + 1; k < j; ++k)
      if (procs[k].op_ns > procs[main].op_ns) main = k;
    const size_t first_rank = plan.ranks.size();
    for (size_t k = i; k < j; ++k) {
      const NsysGpuProcess& p = procs[k];
      const double own = static_cast<double>(p.last_ns) - static_cast<double>(p.first_ns);
      if (k == main || p.collective || (span > 0 && 2 * own >= span))
        plan.ranks.push_back({p.pid, p.device, {}});
    }
    NsysRank* owner = nullptr;  // the helpers' rank: the main process's
    for (size_t r = first_rank; r < plan.ranks.size(); ++r)
      if (plan.ranks[r].pid == procs[main].pid) owner = &plan.ranks[r];
    for (size_t k = i; k < j; ++k) {
      bool rank = false;
      for (size_t r = first_rank; r < plan.ranks.size(); ++r)
        rank = rank || plan.ranks[r].pid == procs[k].pid;
      if (rank) continue;
      owner->helpers.push_back(procs[k].pid);
      ++plan.helpers;
    }
    if (plan.ranks.size() - first_rank >= 2) plan.shared_devices.push_back(procs[i].device);
    i = j;
  }
  plan.rank_like = plan.ranks.size();
  if (plan.ranks.size() > kMaxExportRanks) {
    plan.too_many = true;
    plan.ranks.clear();
    plan.shared_devices.clear();
  }
  return plan;
}

std::unique_ptr<Trace> import_nsys(const NsysDatabase& db, const NsysImportOptions& options,
                                   ImportError* error) {
  auto trace = std::make_unique<Trace>();
  TraceFacts& f = trace->facts;
  f.format = TraceFormat::kNsysSqlite;
  f.source_name = options.source_name;
  f.json_bytes = db.file_size();
  for (const std::string& o : db.ignored_objects())
    trace->diagnostics.add(Diag::kNsysObjectIgnored, 0, o);
  if (db.wal_mode()) trace->diagnostics.add(Diag::kNsysWalMode, 18);

  const bool gpu_side = db.has_table("CUPTI_ACTIVITY_KIND_KERNEL") ||
                        db.has_table("CUPTI_ACTIVITY_KIND_GRAPH_TRACE") ||
                        db.has_table("CUPTI_ACTIVITY_KIND_MEMCPY") ||
                        db.has_table("CUPTI_ACTIVITY_KIND_MEMSET");
  if (!gpu_side && !db.has_table("CUPTI_ACTIVITY_KIND_RUNTIME")) {
    error->code = ImportErrorCode::kNoCudaTrace;
    error->message =
        "no CUPTI_ACTIVITY_KIND_KERNEL table: was the capture run with --trace=cuda (and, with "
        "--capture-range=cudaProfilerApi or nvtx, did the range ever open)? The export has: " +
        describe_contents(db) +
        (db.ignored_objects().empty() ? std::string()
                                      : "; not read: " + db.ignored_objects().front());
    error->offset = 0;
    return nullptr;
  }
  if (!db.has_table("CUPTI_ACTIVITY_KIND_KERNEL"))
    trace->diagnostics.add(Diag::kNsysTableMissing, 0, "CUPTI_ACTIVITY_KIND_KERNEL");

  Context c(db, trace.get(), error);
  if (options.only_pid >= 0) filter_to_rank(c, options);
  bool ok = read_export_meta(c) && read_capture_meta(c) && read_session_start(c) &&
            read_strings(c) && read_names(c) && nsys_sqlite::read_nvtx_thread_names(c) &&
            read_devices(c) && read_rank_from_env(c) && (reserve_rows(c), true) &&
            nsys_sqlite::read_callchains(c) && nsys_sqlite::read_runtime(c) &&
            nsys_sqlite::read_kernels(c) && nsys_sqlite::read_graph_trace(c) &&
            nsys_sqlite::read_memcpy(c) && nsys_sqlite::read_memset(c) &&
            nsys_sqlite::read_sync(c) && nsys_sqlite::read_memory_usage(c) &&
            nsys_sqlite::read_um_page_faults(c) && nsys_sqlite::read_nvtx(c) &&
            nsys_sqlite::read_osrt(c) && nsys_sqlite::read_library_calls(c) &&
            nsys_sqlite::read_mpi(c) && nsys_sqlite::read_gpu_metrics(c) &&
            nsys_sqlite::read_profiler_diagnostics(c) && nsys_sqlite::read_profiler_overhead(c) &&
            nsys_sqlite::read_sched(c);
  if (!ok) return nullptr;
  // The launches by correlation id (an entry per CUDA API call) are done with: freed before
  // finalize() sorts, the peak of the import.
  c.launches.clear();
  if (!c.filtered) {
    std::vector<NsysGpuProcess> seen;
    gpu_processes_seen(c, &seen);
    note_plan(nsys_rank_plan(seen), &trace->diagnostics);
    if (options.gpu_processes) *options.gpu_processes = std::move(seen);
  }
  c.flush_counts();
  c.strings.report(&trace->diagnostics);
  c.b.finalize();
  keep_other_work(
      c, trace->diagnostics.get(Diag::kBaseTimeApplied).count ? trace->facts.base_time_ns : 0);
  // Times are shown from the session start, Nsight Systems' zero: the start itself when the
  // builder added it to every time (not when a hostile start would overflow them), else 0.
  trace->facts.has_session_start = true;
  trace->facts.session_start_ns =
      trace->diagnostics.get(Diag::kBaseTimeApplied).count ? trace->facts.base_time_ns : 0;
  // Tables are read one after another, so the rows are never in one time order: not news. Nor
  // is the session's start added to every time (read_session_start): every export is read so,
  // and "relative to baseTimeNanoseconds" speaks of Kineto's JSON.
  trace->diagnostics.clear(Diag::kTimestampsOutOfOrder);
  trace->diagnostics.clear(Diag::kBaseTimeApplied);
  return trace;
}

}  // namespace ks
