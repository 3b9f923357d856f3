// The columnar model of one trace: parallel vectors, integer nanoseconds, interned strings.
// Slices are sorted by (track, ts, longer first) after import, with depth and parent filled in.
// Full event args are not kept: each slice remembers its byte range in the input so a details
// view can re-read and parse just that event on demand.
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/diagnostics.h"
#include "model/slice_kind.h"
#include "model/source_spans.h"
#include "model/string_pool.h"

namespace ks {

using TrackId = uint32_t;
constexpr int64_t kNoValue = -1;  // for ids/args that are absent (they are never negative)

struct Process {
  StringId pid_text = 0;  // pid as written (number or string)
  std::string name;       // from process_name metadata
  std::string labels;     // from process_labels
  int64_t sort_index = 0;
  bool has_sort_index = false;
  bool has_gpu_ops = false;
  // The metadata events (ph M) given this pid, repeats included: a trace cut down to some
  // processes (model/trace_subset.h) counts its own events.
  uint32_t metadata_events = 0;
};

enum class TrackKind : uint8_t { kCpuThread, kGpuStream, kAsync };

struct Track {
  uint32_t process = 0;
  StringId tid_text = 0;
  std::string name;  // from thread_name metadata (or "stream N" for GPU streams)
  int64_t sort_index = 0;
  bool has_sort_index = false;
  TrackKind kind = TrackKind::kCpuThread;
  int64_t stream = kNoValue;  // for GPU streams
  int64_t device = kNoValue;
  // Carries kernels/memcpys/memsets. Kineto's device-wide cuda_sync lane (tid -1) is drawn on
  // the GPU side but is not a stream.
  bool has_gpu_ops = false;
};

// Launch configuration and occupancy of a kernel, kept only for slices that have them.
struct KernelLaunchInfo {
  uint32_t grid[3] = {0, 0, 0};
  uint32_t block[3] = {0, 0, 0};
  float blocks_per_sm = -1;
  float warps_per_sm = -1;
  float occupancy_pct = -1;   // "est. achieved occupancy %"
  float bandwidth_gbps = -1;  // memcpy/memset "memory bandwidth (GB/s)"
};

// What Kineto writes about a collective on its NCCL kernel and on the record_param_comms CPU op
// ("Collective name", "In msg nelems", "Out msg nelems", "Group size", "dtype",
// "Process Group Name", "Process Group Ranks"; a send's "Dst Rank", a receive's "Src Rank"), kept
// only for slices that carry it.
struct CollectiveArgs {
  int64_t in_nelems = kNoValue;
  int64_t out_nelems = kNoValue;
  int64_t group_size = kNoValue;
  int64_t peer = kNoValue;  // the global rank a send goes to / a receive comes from
  StringId collective = 0;  // "" when absent
  StringId dtype = 0;
  StringId process_group = 0;
  StringId group_ranks = 0;  // "Process Group Ranks" as written: "[0, 1, 2, 3]", "[0, ..., 63]"
};

// The shape args Kineto writes with record_shapes=True, as their raw JSON text ("[[2, 3], [3]]"),
// kept only for the ops src/model/math_op_names.h names; parsed on demand by
// src/analysis/op_flops.cpp. 0 ("") when absent.
struct OpShapeArgs {
  StringId dims = 0;      // "Input Dims"
  StringId types = 0;     // "Input type"
  StringId concrete = 0;  // "Concrete Inputs" (scalars and int lists: stride, padding, flags)
};

// What Kineto writes on a cuda_sync "Event Sync" / "Stream Wait Event" slice about the CUDA
// event it waits on: the stream the event was recorded on and the correlation id of the
// cudaEventRecord call that recorded it. Kept only for slices that carry a stream >= 0 (the
// critical path follows them from the waiting side back to the GPU op the event marks).
struct SyncWaitArgs {
  int64_t wait_on_stream = kNoValue;
  int64_t record_correlation = kNoValue;
};

struct SliceTable {
  std::vector<int64_t> ts;
  std::vector<int64_t> dur;
  std::vector<TrackId> track;
  std::vector<StringId> name;
  std::vector<StringId> cat;
  std::vector<SliceKind> kind;
  std::vector<uint16_t> depth;
  std::vector<int32_t> parent;       // index of the enclosing slice on the track, -1 at the top
  std::vector<int64_t> correlation;  // joins a runtime call to its GPU op
  std::vector<int32_t> launch_info;  // index into launch_infos, -1 when absent
  SourceSpans source;  // where each slice's event lies in the input: file_offset, byte_len
  std::vector<KernelLaunchInfo> launch_infos;
  // "Call stack" args (with_stack in older Kineto), sparse: (slice, string), sorted by slice.
  std::vector<std::pair<uint32_t, StringId>> call_stacks;
  // Collective args, sparse: (slice, args), sorted by slice.
  std::vector<std::pair<uint32_t, CollectiveArgs>> collective_args;
  // Shape args of math ops, sparse: (slice, args), sorted by slice.
  std::vector<std::pair<uint32_t, OpShapeArgs>> op_shapes;
  // cuda_sync wait args, sparse: (slice, args), sorted by slice.
  std::vector<std::pair<uint32_t, SyncWaitArgs>> sync_waits;
  // A memcpy/memset's size in bytes, sparse: (slice, bytes), sorted by slice. Only copies and
  // sets carry one, so a column of 8 bytes on every slice was ~8% of the model (issue #19).
  std::vector<std::pair<uint32_t, int64_t>> copy_sizes;
  // Kineto's "External id" (call order, parent first), sparse: (slice, id), sorted by slice.
  // Only the load uses it (sort_slices breaks ties on ts and dur by it), then it is freed.
  std::vector<std::pair<uint32_t, int64_t>> external_ids;

  size_t size() const { return ts.size(); }
  // The byte offset of the slice's event in the input JSON, and its length.
  uint64_t file_offset(size_t i) const { return source.offset(i); }
  uint32_t byte_len(size_t i) const { return source.length(i); }
  // The slice's "Call stack" string, 0 ("") when it has none.
  StringId call_stack(uint32_t i) const {
    auto it =
        std::lower_bound(call_stacks.begin(), call_stacks.end(), std::make_pair(i, StringId{0}));
    return it != call_stacks.end() && it->first == i ? it->second : 0;
  }
  // The slice's collective args, nullptr when it has none.
  const CollectiveArgs* collective(uint32_t i) const {
    auto it = std::lower_bound(
        collective_args.begin(), collective_args.end(), i,
        [](const std::pair<uint32_t, CollectiveArgs>& e, uint32_t k) { return e.first < k; });
    return it != collective_args.end() && it->first == i ? &it->second : nullptr;
  }
  // The slice's shape args, nullptr when it has none.
  const OpShapeArgs* op_shape(uint32_t i) const {
    auto it = std::lower_bound(
        op_shapes.begin(), op_shapes.end(), i,
        [](const std::pair<uint32_t, OpShapeArgs>& e, uint32_t k) { return e.first < k; });
    return it != op_shapes.end() && it->first == i ? &it->second : nullptr;
  }
  // The slice's sync wait args, nullptr when it has none.
  const SyncWaitArgs* sync_wait(uint32_t i) const {
    auto it = std::lower_bound(
        sync_waits.begin(), sync_waits.end(), i,
        [](const std::pair<uint32_t, SyncWaitArgs>& e, uint32_t k) { return e.first < k; });
    return it != sync_waits.end() && it->first == i ? &it->second : nullptr;
  }
  // The slice's memcpy/memset size in bytes, kNoValue when it has none.
  int64_t copy_size(uint32_t i) const {
    auto it = std::lower_bound(
        copy_sizes.begin(), copy_sizes.end(), i,
        [](const std::pair<uint32_t, int64_t>& e, uint32_t k) { return e.first < k; });
    return it != copy_sizes.end() && it->first == i ? it->second : kNoValue;
  }
  int64_t end(size_t i) const { return ts[i] + dur[i]; }
};

// A flow's id as written. Ids are unique per flow (Kineto writes each launch's correlation), so
// interning each would put a string per launch in the pool (a tenth of reading a trace with many
// flows went to it, and ~60 bytes of memory a flow). A decimal integer of up to 18 digits without
// a leading zero is kept as its value; any other text is interned and tagged with kFlowIdText.
using FlowId = uint64_t;
constexpr FlowId kFlowIdText = 1ull << 63;
FlowId flow_id_of(std::string_view text, StringPool* strings);
// The same for an id read as an integer (an nsys correlation): what its decimal text would give.
FlowId flow_id_of(int64_t value, StringPool* strings);

struct FlowTable {  // s/t/f flow events (ac2g launch->kernel, fwdbwd forward->backward)
  std::vector<int64_t> ts;
  std::vector<TrackId> track;
  std::vector<FlowId> id;
  std::vector<StringId> cat;
  std::vector<char> phase;
  std::vector<bool> binds_enclosing;  // bp:"e"
  size_t size() const { return ts.size(); }
};

struct CounterTable {  // C events: one row per (series, ts)
  std::vector<int64_t> ts;
  std::vector<uint32_t> process;
  std::vector<StringId> series;  // "name" or "name.key" when an event has several values
  std::vector<double> value;
  size_t size() const { return ts.size(); }
};

struct InstantTable {  // i/I events, incl. Kineto [memory] allocation records
  std::vector<int64_t> ts;
  std::vector<TrackId> track;
  std::vector<StringId> name;
  std::vector<StringId> cat;
  std::vector<char> scope;
  // [memory] records: -1 when absent.
  std::vector<int64_t> mem_bytes;
  std::vector<int64_t> mem_total_allocated;
  std::vector<int64_t> mem_total_reserved;
  std::vector<int64_t> mem_device;
  size_t size() const { return ts.size(); }
};

struct DeviceProperties {
  int64_t id = 0;
  std::string name;
  int64_t total_memory = kNoValue;
  int64_t num_sms = kNoValue;
  int64_t compute_major = kNoValue;
  int64_t compute_minor = kNoValue;
};

struct DistributedInfo {
  bool present = false;
  int64_t rank = kNoValue;
  int64_t world_size = kNoValue;
  std::string backend;
  // Nsight Systems exports: the rank came from the recorded process environment (RANK,
  // SLURM_PROCID, ...), which a rank in the file name outranks (analysis/rank_identity.h).
  bool from_environment = false;
};

enum class TraceFormat { kUnknown, kChromeArray, kChromeObject, kNsysSqlite };
const char* trace_format_name(TraceFormat f);

struct TraceFacts {
  TraceFormat format = TraceFormat::kUnknown;
  std::string source_name;
  bool source_gzip = false;
  uint64_t json_bytes = 0;
  uint64_t events_total = 0;
  std::map<std::string, uint64_t> events_by_phase;
  std::map<std::string, uint64_t> categories;
  int64_t start_ns = 0;  // first timestamp of a non-metadata event
  int64_t end_ns = 0;    // last end
  bool has_base_time = false;
  int64_t base_time_ns = 0;
  // Time zero of the profiler's own views, where it has one: Nsight Systems counts from the
  // session start (its GUI's ruler, `nsys stats`' "Start (ns)"), so an export's times are shown
  // from there and read the same in both tools. Kineto's JSON has none: times count from the
  // first event, as Perfetto and chrome://tracing show them.
  bool has_session_start = false;
  int64_t session_start_ns = 0;
  // What every time in the report and on the timeline counts from.
  int64_t origin_ns() const { return has_session_start ? session_start_ns : start_ns; }
  // Where the first event lies after that zero (0 but for an export whose session started first).
  int64_t first_event_after_origin_ns() const { return start_ns - origin_ns(); }
  std::string schema_version;
  std::string trace_name;
  // What an Nsight Systems export says of its capture: how long it ran (ANALYSIS_DETAILS
  // duration, 0 when absent) and the command profiled (META_DATA_CAPTURE, "" when absent).
  int64_t capture_ns = 0;
  std::string capture_command;
  std::vector<std::string> top_level_keys;
  // Capture settings Kineto writes at the top level (1/0), -1 when absent.
  int record_shapes = -1, profile_memory = -1, with_stack = -1, with_flops = -1, with_modules = -1;
  bool saw_call_stack = false;  // a slice carried "Call stack" (with_stack)
  bool saw_input_dims = false;  // a slice carried "Input Dims" (record_shapes)
  bool saw_flops = false;       // a slice carried "flops" (with_flops)
  // What the profiler itself reported at warning level or above during the capture (Nsight
  // Systems' DIAGNOSTIC_EVENT: lost events, a driver it does not support...), in time order.
  struct ProfilerMessage {
    int64_t ts = 0;
    bool error = false;
    std::string text;
  };
  std::vector<ProfilerMessage> profiler_warnings;
  // Where the slices that began and never ended lie in the input (their file_offset), sorted:
  // closed at their track's last timestamp, so their length is the capture's cut, not their own
  // (a step range still open when `nsys --duration` stopped the capture).
  std::vector<uint64_t> unclosed_offsets;
  // An Nsight Systems export read one process at a time (ranks that share a GPU): when the
  // kernels, copies and memsets of other processes ran on this one's GPUs, merged, in the
  // trace's times. This process's idle time is then not the device's.
  struct Span {
    int64_t begin = 0, end = 0;
  };
  std::vector<Span> other_processes_gpu_work;
  // Managed memory as Nsight Systems records it (nsys_um_faults.cpp): the page faults of
  // --cuda-um-gpu-page-faults / --cuda-um-cpu-page-faults, and which migrated pages (the
  // Unified HtoD/DtoH copies' virtualAddress) moved both ways: pages that ping-pong between the
  // host and the GPU, the thrashing a prefetch or an advice removes. Zero where not captured.
  struct UnifiedMemory {
    uint64_t gpu_faults = 0;        // summed numberOfPageFaults
    uint64_t gpu_fault_groups = 0;  // rows: each a group of faults on one page
    int64_t gpu_fault_ns = 0;       // the groups' summed time
    uint64_t cpu_faults = 0;
    // Where the host faulted most: "function (file:line)", or "function in module" without a
    // source line; its count.
    std::string cpu_site;
    uint64_t cpu_site_faults = 0;
    uint64_t pages_migrated = 0;   // distinct addresses of the migrations
    uint64_t pages_both_ways = 0;  // of those, moved to the GPU and back to the host
  };
  UnifiedMemory unified_memory;
};

// A device a process's GPU ops use for under this share of the op time of the device it uses
// most is barely touched (a tensor made on cuda:0 before set_device): not where its work runs.
// One bound for the nsys importer (which GPUs a rank shares) and analysis/gpu_idle (stray devices).
constexpr double kStrayDeviceShare = 0.01;

struct Trace {
  StringPool strings;
  std::vector<Process> processes;
  std::vector<Track> tracks;
  SliceTable slices;
  FlowTable flows;
  CounterTable counters;
  InstantTable instants;
  std::vector<DeviceProperties> devices;
  DistributedInfo distributed;
  TraceFacts facts;
  Diagnostics diagnostics;

  std::string_view str(StringId id) const { return strings.get(id); }
  int64_t span_ns() const { return facts.end_ns - facts.start_ns; }
};

}  // namespace ks
