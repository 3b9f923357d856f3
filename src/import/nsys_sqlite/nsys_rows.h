// Internal to the nsys importer: one prepared SELECT per table by column name (columns an older
// export lacks read as their default, with a diagnostic), the StringIds cache, and the state the
// table readers share (tracks by thread and row, launches by correlation id).
#pragma once
#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "import/nsys_sqlite/nsys_database.h"
#include "import/nsys_sqlite/nsys_importer.h"
#include "model/export_row.h"
#include "model/string_pool.h"
#include "model/trace_builder.h"
#include "util/flat_u64_map.h"

namespace ks::nsys_sqlite {

// A SELECT of the wanted columns of one table; absent columns are left out of the statement and
// read as "absent" (the caller's default).
class RowReader {
 public:
  RowReader() = default;
  RowReader(const RowReader&) = delete;
  RowReader& operator=(const RowReader&) = delete;
  ~RowReader();
  // An absent column is noted in Diagnostics (when required_note), unless its name is written
  // "?name": a column some versions lack, whose absence is no news. Returns false (and fills
  // *error) only on a SQLite failure; an absent table is the caller's to check first.
  bool prepare(const NsysDatabase& db, const char* table, std::initializer_list<const char*> cols,
               Diagnostics* diag, ImportError* error, bool required_note = true);
  // SQLITE_ROW, SQLITE_DONE, or an error code (then *error is filled).
  bool next();
  bool failed() const { return failed_; }
  bool has(int k) const { return index_[k] >= 0; }
  bool null(int k) const {
    return index_[k] < 0 || sqlite3_column_type(st_, index_[k]) == SQLITE_NULL;
  }
  // kNull: what i64() returns for NULL/absent when the caller must tell it from any value.
  static constexpr int64_t kNull = INT64_MIN;
  // Not a number (TEXT or BLOB) reads as `def` too: nsys writes its integers as INTEGER, and
  // SQLite turns text into 0 or its leading digits ("ninety" was a kernel at time 0).
  int64_t i64(int k, int64_t def = kNoValue) const {
    if (null(k)) return def;
    const int type = sqlite3_column_type(st_, index_[k]);
    return type == SQLITE_TEXT || type == SQLITE_BLOB ? def : sqlite3_column_int64(st_, index_[k]);
  }
  double f64(int k, double def = 0) const {
    return null(k) ? def : sqlite3_column_double(st_, index_[k]);
  }
  std::string_view text(int k) const;
  uint64_t row() const { return row_; }

 private:
  const NsysDatabase* db_ = nullptr;
  ImportError* error_ = nullptr;
  sqlite3_stmt* st_ = nullptr;
  std::string table_;
  std::vector<int> index_;
  uint64_t row_ = 0;
  bool failed_ = false;
};

// StringIds, loaded once: id -> text. Dense ids (the usual 0..N) in a vector, others in a map.
class StringCache {
 public:
  StringCache() = default;
  StringCache(const StringCache&) = delete;
  StringCache& operator=(const StringCache&) = delete;
  ~StringCache();
  // Reads the table once. Texts longer than kHeldBytes are not kept: get() reads one again (by
  // its rowid, one B-tree descent) when a row names it, so memory holds the texts used, not the
  // table (10^6 rows of 64 KiB held 64 GB; 4,000 unused ones, 250 MB).
  static constexpr size_t kHeldBytes = 4096;
  bool load(const NsysDatabase& db, Diagnostics* diag, ImportError* error);
  // The text of `id`; "<unknown>" (counted) when there is no such row. The view stays valid
  // while the cache lives (another get() does not move it).
  std::string_view get(int64_t id);
  // The id's text interned in `pool` (once per id: rows then cost no hashing), optionally
  // without nsys's version suffix (the CUDA API names).
  StringId interned(int64_t id, StringPool* pool, bool strip_version = false);
  void report(Diagnostics* diag) const;
  // The bytes of text held now (the texts read, not those left in the file).
  size_t held_bytes() const;

 private:
  struct Text {
    std::string text;
    int64_t rowid = -1;  // >= 0: a long text not read yet, at this rowid
  };
  std::string_view held(Text* t);  // the text, read now if it was left in the file

  const NsysDatabase* db_ = nullptr;
  sqlite3_stmt* by_rowid_ = nullptr;  // SELECT value ... WHERE rowid = ?
  std::vector<Text> dense_;
  std::vector<bool> present_;
  std::unordered_map<int64_t, Text> sparse_;
  std::vector<StringId> interned_[2];                         // dense ids, 0 = not yet
  std::unordered_map<int64_t, StringId> interned_sparse_[2];  // others
  uint64_t unknown_ = 0;
  int64_t first_unknown_ = 0;
};

// The rows of a thread, drawn like Nsight's GUI: one track each.
// "CPU state": when the thread was switched out (SCHED_EVENTS), as nsys' thread state row;
// "Profiler overhead": nsys' own work on the thread (PROFILER_OVERHEAD); "cuDNN", "cuBLAS": the
// libraries' API calls (--trace=cudnn,cublas); "MPI": the MPI calls (--trace=mpi). The names are
// kExportThreadRows
// (model/export_row.h), in this order.
enum class Row : int {
  kNvtx = 0,
  kCudaApi = 1,
  kOsRuntime = 2,
  kCpuState = 3,
  kProfilerOverhead = 4,
  kCudnn = 5,
  kCublas = 6,
  kMpi = 7,
  kRowCount
};
static_assert(std::size(kExportThreadRows) == static_cast<size_t>(Row::kRowCount),
              "a row name for every Row");

// Where a slice came from (model/export_row.h): its table and row, in EventSource.offset.
using Table = ExportTable;
inline EventSource row_source(Table t, uint64_t row) {
  return EventSource{export_row_offset(t, row), 0};
}

// A CUDA API call that GPU ops may name by correlation id: its slice, whose track and start the
// flow from it needs (an index, not the two values: 16 bytes a map slot instead of 32, for one
// slot per call).
struct Launch {
  uint32_t slice = 0;
};

struct Context {
  const NsysDatabase& db;
  Trace* trace;
  TraceBuilder b;
  ImportError* error;
  StringCache strings;
  std::unordered_map<int64_t, std::string> process_names;  // by globalPid (tid bits zero)
  std::unordered_map<int64_t, std::string> thread_names;   // by globalTid
  // How many threads of a process bear each name (pid, then the name), counted on first use: a
  // name several threads share gets the thread id on its rows, as Nsight Systems shows them.
  std::unordered_map<std::string, int> thread_name_uses;
  std::unordered_map<int64_t, TrackId>
      cpu_tracks[static_cast<int>(Row::kRowCount)];        // by globalTid, per Row
  std::unordered_map<int64_t, TrackId> nvtx_async_tracks;  // by globalPid
  std::unordered_map<uint64_t, TrackId> gpu_tracks;        // by device << 32 | stream
  FlatU64Map<Launch> launches;                             // by launch_key: pid, correlationId
  // The launches (launch_key) whose kernels were traced one by one: a graph-trace row of the
  // same launch is then not counted again.
  std::unordered_set<uint64_t> launches_with_kernels;
  std::unordered_map<int64_t, int64_t> device_sms;  // device id -> SM count
  // device id -> "NVIDIA A100-SXM4-80GB (0000:c1:00.0)": the model and PCI bus the nsys GUI
  // names a GPU's rows by (TARGET_INFO_GPU.name, busLocation), for the GPU's process name.
  std::unordered_map<int64_t, std::string> device_labels;
  // CUDA_CALLCHAINS id -> the call's caller, "symbol in module" interned (read_callchains),
  // until the runtime calls are read.
  std::unordered_map<int64_t, StringId> callers;
  // nsys' GPU id (TARGET_INFO_GPU.id, GPU_METRICS' typeId) -> the CUDA ordinal the device is
  // keyed by, when the export gives every GPU's (read_devices); absent ids map to themselves.
  std::unordered_map<int64_t, int64_t> device_of_gpu_id;
  // (pid, CUDA ordinal) -> nsys' GPU id, when processes' ordinals name different GPUs
  // (cuda_device_gpus): GPU rows are then keyed by nsys' GPU id (row_device).
  std::map<std::pair<int64_t, int64_t>, int64_t> gpu_of_process_ordinal;
  // The device a GPU row's `deviceId` names, as the trace keys its GPUs: the ordinal itself, or
  // the GPU it is in its process when gpu_of_process_ordinal is in use. kNull stays kNull.
  int64_t row_device(int64_t global_pid, int64_t device) const {
    if (gpu_of_process_ordinal.empty() || device == RowReader::kNull ||
        global_pid == RowReader::kNull)
      return device;
    auto it = gpu_of_process_ordinal.find({pid_of(global_pid), device});
    return it == gpu_of_process_ordinal.end() ? device : it->second;
  }
  std::string scratch;
  // Only these processes' rows (pids, not globalPids, sorted), or all when `filtered` is false:
  // one rank of a report that profiled several (nsys profile torchrun ...), with its helpers.
  bool filtered = false;
  std::vector<int64_t> pids;
  // Devices this process's GPU ops ran on (or it synchronized with), with the ops' summed time.
  std::unordered_map<int64_t, int64_t> used_devices;
  void note_used(int64_t device, int64_t begin, int64_t end) {
    used_devices[device] += end - begin;
  }
  // Whether this process's work runs on `device`: it used it for 1% or more of the op time of
  // the device it used most. A device barely touched (a tensor made on cuda:0 before
  // set_device: analysis/gpu_idle.h's stray device) is another rank's GPU, not a shared one.
  bool works_on(int64_t device) const;
  // GPUs this rank shares with other ranks (sorted): the GPU ops of other processes on them are
  // kept as (device, begin, end), for facts.other_processes_gpu_work.
  std::vector<int64_t> shared_devices;
  struct OtherWork {
    int64_t device, begin, end;
  };
  std::vector<OtherWork> other_work;
  // A GPU op row of a process not read: kept when it ran on a shared GPU.
  void note_other_work(int64_t device, int64_t begin, int64_t end);
  // Every GPU op row's process and device, as nsys_gpu_processes() reads them (before any row is
  // skipped): pid -> from the rows with usable times, their span, summed time and whether one was
  // a collective; and pid -> each non-NULL device it named -> the usable rows' summed time there,
  // whose most is the process's GPU (its device is filled from it when the reading is done).
  std::map<int64_t, NsysGpuProcess> gpu_process_devices;
  std::unordered_map<int64_t, std::map<int64_t, int64_t>> gpu_process_device_ns;
  static constexpr int64_t kNoDevice = INT64_MAX;
  void note_gpu_op(int64_t global_pid, int64_t device);
  void note_gpu_time(int64_t global_pid, int64_t device, int64_t start, int64_t end,
                     bool collective);
  // Whether a kernel's name is a collective's (analysis/kernel_class.h), once per name.
  bool collective(StringId name);
  std::vector<int8_t> collective_names;  // by StringId: 0 unknown, 1 no, 2 yes
  bool skip_global(int64_t global) const {
    return filtered && !std::binary_search(pids.begin(), pids.end(), pid_of(global));
  }
  StringId ac2g = 0;  // the flows' category, interned
  uint64_t flows =
      0;  // ac2g flow pairs added  // slices added by add(), by Cat (facts filled by flush_counts)

  enum Cat {
    kCatRuntime,
    kCatDriver,
    kCatKernel,
    kCatMemcpy,
    kCatMemset,
    kCatSync,
    kCatOsrt,
    kCatGraph,
    kCatCpuState,
    kCatProfilerOverhead,
    kCatCudnn,
    kCatCublas,
    kCatMpi,
    kCatCount
  };
  StringId cat_ids[kCatCount] = {};  // interned categories, by Cat
  uint64_t cat_counts[kCatCount] = {};

  StringId cat(Cat c);
  // A slice whose name and category are interned already; counted like count(). Returns its
  // index until finalize().
  uint32_t add(TrackId track, int64_t ts, int64_t end, StringId name, Cat c, SliceKind kind,
               const SliceArgs& args, EventSource src);
  // Adds add()'s counts to the trace's facts (categories, events_total, phase X).
  void flush_counts();

  Context(const NsysDatabase& d, Trace* t, ImportError* e) : db(d), trace(t), b(t), error(e) {}
  // A table this reader uses is absent: one nsys_table_missing diagnostic, whose detail names
  // them all ("Absent: OSRT_API, CUPTI_ACTIVITY_KIND_MEMSET."), so the user sees what was not
  // traced instead of the first table alone.
  void table_missing(const char* table);

  static int64_t pid_of(int64_t global) { return (global >> 24) & 0xFFFFFF; }
  static int64_t tid_of(int64_t global) { return global & 0xFFFFFF; }
  std::string process_text(int64_t global);  // creates and names the process on first use
  TrackId cpu_track(int64_t global_tid, Row row);
  bool thread_name_shared(int64_t global_tid, const std::string& name);
  TrackId nvtx_async_track(int64_t global_tid);
  TrackId gpu_track(int64_t device, int64_t stream);
  // "0" for device 0, named on first use "GPU 0", or "GPU 0: MODEL (BUS)" when the export names it.
  std::string gpu_process(int64_t device);
  static uint64_t launch_key(int64_t global, int64_t correlation) {
    return (static_cast<uint64_t>(pid_of(global)) << 40) ^ static_cast<uint64_t>(correlation);
  }
  // Counts the slice for the trace's facts and span.
  void count(std::string_view cat, int64_t ts, int64_t end, const char* phase = "X");
  // A row with a NULL or reversed time: counted and skipped.
  bool usable_times(int64_t start, int64_t end, Table t, uint64_t row);
  // A row's enum column holds a value its enum does not name (a kind a newer nsys added):
  // counted, and each distinct TABLE.column = value named with its first row, so the user
  // learns what was read as unknown instead of the rows vanishing or being miscounted quietly.
  void unknown_enum(Table t, const char* table, const char* column, int64_t value, uint64_t row);
  std::unordered_set<std::string> unknown_enum_named;
};

// The table families (nsys_cuda_rows.cpp, nsys_cpu_rows.cpp). Each returns false on a SQLite
// failure (context.error filled).
// The longest symbol (and module) a call stack's frame keeps: real C++ symbols run to a few KB.
constexpr size_t kMaxFrameBytes = 8192;
bool read_callchains(Context& c);  // nsys_callchains.cpp; before read_runtime
bool read_runtime(Context& c);
bool read_kernels(Context& c);
bool read_memcpy(Context& c);
bool read_memset(Context& c);
bool read_sync(Context& c);
bool read_graph_trace(Context& c);
bool read_nvtx(Context& c);
bool read_nvtx_thread_names(Context& c);  // nvtxNameOsThread names; before any track
bool read_osrt(Context& c);
bool read_library_calls(Context& c);  // CUDNN_EVENTS, CUBLAS_EVENTS
bool read_mpi(Context& c);            // MPI_*_EVENTS (nsys_mpi_rows.cpp)
bool read_profiler_overhead(Context& c);
bool read_gpu_metrics(Context& c);
bool read_sched(Context& c);
bool read_profiler_diagnostics(Context& c);
bool read_memory_usage(Context& c);    // nsys_memory_rows.cpp
bool read_um_page_faults(Context& c);  // nsys_um_faults.cpp

// TARGET_INFO_CUDA_DEVICE (gpuId, cudaId, pid: "GPU ID", "CUDA device ID", "Process ID" in
// NVIDIA's schema reference): which GPU each process's CUDA ordinal is. GPU rows name a device by
// that ordinal (`deviceId`), and with a per-process CUDA_VISIBLE_DEVICES (srun --gpus-per-task=1,
// --gpu-bind) every rank's one GPU is its cuda:0. Returns (pid, ordinal) -> GPU id only when
// some ordinal is different GPUs in different processes, else empty (ordinals are then the
// export's GPUs, as the readers key them). Empty too when the table is absent (nsys writes
// tables lazily; the real 2024.5 export has none).
std::map<std::pair<int64_t, int64_t>, int64_t> cuda_device_gpus(const NsysDatabase& db);

// An ENUM_* table as id -> `column` (name or label); empty when the table or column is absent.
std::unordered_map<int64_t, std::string> read_enum(Context& c, const char* table,
                                                   const char* column);

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel": Nsight's GUI drops the version suffix.
std::string_view strip_version_suffix(std::string_view name);

}  // namespace ks::nsys_sqlite
