// Rows on the CPU side and beside the GPU: NVTX ranges and marks (the user's steps), OS runtime
// calls, and GPU metrics samples as counters under the GPU's process.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "import/nsys_sqlite/nsys_rows.h"

namespace ks::nsys_sqlite {

namespace {

// The NVTX event kinds by ENUM_NSYS_EVENT_TYPE: the codes the export itself names, else those of
// schema 3.x. A kind is read by its name's form, not a fixed list (NVTX and NVTXT, the nvtx text
// file, already write two families: NvtxPushPopRange and NvtxtPushPopRange), so a further
// family a newer nsys names the same way is read too. Every other code the enum names (domains,
// categories, thread and device names) is no range and is skipped quietly; a code it does not
// name at all is a kind this reader cannot know, counted (nsys_unknown_enum_value).
struct NvtxKinds {
  std::unordered_map<int64_t, char> kind;  // 'p' push/pop, 's' start/end, 'm' mark
  std::unordered_set<int64_t> named;       // every code the enum names
  explicit NvtxKinds(Context& c) {
    auto ends = [](const std::string& n, std::string_view tail) {
      return n.size() >= tail.size() && n.compare(n.size() - tail.size(), tail.size(), tail) == 0;
    };
    for (const auto& kv : read_enum(c, "ENUM_NSYS_EVENT_TYPE", "name")) {
      const std::string& n = kv.second;
      named.insert(kv.first);
      if (n.rfind("Nvtx", 0) != 0) continue;
      if (ends(n, "PushPopRange")) kind[kv.first] = 'p';
      if (ends(n, "StartEndRange")) kind[kv.first] = 's';
      if (ends(n, "Mark")) kind[kv.first] = 'm';
    }
    if (named.empty()) {
      kind = {{59, 'p'}, {70, 'p'}, {60, 's'}, {71, 's'}, {34, 'm'}, {65, 'm'}};
      // The NVTX codes of schema 3.x (the 2024.5 export's ENUM_NSYS_EVENT_TYPE): NvtxEvents ..
      // NvtxThread, the push/pop and start/end ranges, the NVTXT family and the domains, the
      // CUDA device, context and stream names.
      for (int64_t t = 32; t <= 39; ++t) named.insert(t);
      for (int64_t t = 64; t <= 76; ++t) named.insert(t);
      for (int64_t t : {59, 60, 97, 98, 99}) named.insert(t);
    }
  }
  char of(int64_t type) const {
    auto it = kind.find(type);
    return it == kind.end() ? 0 : it->second;
  }
  bool known(int64_t type) const { return named.count(type) != 0; }
};

// The tensor sizes in a range PyTorch's emit_nvtx(record_shapes=True) pushed (also nsys
// --pytorch=autograd-shapes-nvtx): "aten::addmm, seq = 3, op_id = 7, sizes = [[16], [16, 32],
// [32, 16]], input_op_ids = [...]" (torch/csrc/profiler/util.cpp getNvtxStr) gives
// "[[16], [16, 32], [32, 16]]", the form of a Kineto trace's "Input Dims"; "" for any other.
std::string_view emit_nvtx_sizes(std::string_view name) {
  const std::string_view key = ", sizes = [";
  const size_t at = name.find(key);
  if (at == std::string_view::npos) return {};
  const size_t begin = at + key.size() - 1;
  int depth = 0;
  for (size_t k = begin; k < name.size(); ++k) {
    if (name[k] == '[') ++depth;
    if (name[k] == ']' && --depth == 0) return name.substr(begin, k + 1 - begin);
  }
  return {};  // cut off
}

}  // namespace

// nvtxNameOsThread(tid, name) is written to NVTX_EVENTS as an event of type NvtxThread (39 in
// ENUM_NSYS_EVENT_TYPE; the export's own enum wins), its text the name, its globalTid the thread
// named. ThreadNames lacks such a name when the OS knew the thread by none of its own (or by
// the process's): the program's name is the one to show then.
bool read_nvtx_thread_names(Context& c) {
  const char* table = "NVTX_EVENTS";
  if (!c.db.has_table(table)) return true;  // read_nvtx notes it
  int64_t thread_type = 39;
  for (const auto& kv : read_enum(c, "ENUM_NSYS_EVENT_TYPE", "name"))
    if (kv.second == "NvtxThread") thread_type = kv.first;
  RowReader r;
  enum { kType, kText, kTextId, kTid };
  if (!r.prepare(c.db, table, {"eventType", "text", "textId", "globalTid"}, &c.trace->diagnostics,
                 c.error))
    return false;
  while (r.next()) {
    if (r.null(kType) || r.i64(kType) != thread_type || r.null(kTid)) continue;
    std::string& name = c.thread_names[r.i64(kTid)];
    if (!name.empty()) continue;  // ThreadNames' name stands
    if (!r.null(kText))
      name.assign(r.text(kText));
    else if (!r.null(kTextId))
      name.assign(c.strings.get(r.i64(kTextId)));
  }
  return !r.failed();
}

bool read_nvtx(Context& c) {
  const char* table = "NVTX_EVENTS";
  if (!c.db.has_table(table)) {
    c.table_missing(table);
    return true;
  }
  RowReader r;
  enum { kStart, kEnd, kType, kText, kTextId, kTid };
  if (!r.prepare(c.db, table, {"start", "end", "eventType", "text", "textId", "globalTid"},
                 &c.trace->diagnostics, c.error))
    return false;
  const NvtxKinds kinds(c);
  std::string name;
  while (r.next()) {
    if (c.skip_global(r.i64(kTid, 0))) continue;
    const char kind = r.null(kType) ? 'p' : kinds.of(r.i64(kType));
    if (kind == 0) {  // domains, categories, names; or a kind this reader cannot know
      if (!kinds.known(r.i64(kType)))
        c.unknown_enum(Table::kNvtx, table, "eventType", r.i64(kType), r.row());
      continue;
    }
    const int64_t start = r.i64(kStart, RowReader::kNull);
    const int64_t end = r.i64(kEnd, RowReader::kNull);
    if (start == RowReader::kNull) {
      c.trace->diagnostics.add(Diag::kNsysBadRow, row_source(Table::kNvtx, r.row()).offset);
      continue;
    }
    if (!r.null(kText)) {
      name.assign(r.text(kText));
    } else if (!r.null(kTextId)) {
      name.assign(c.strings.get(r.i64(kTextId)));
    } else {
      name.assign("(unnamed)");
    }
    const int64_t gtid = r.i64(kTid, 0);
    const EventSource src = row_source(Table::kNvtx, r.row());
    if (kind == 'm') {
      TrackId tr = c.cpu_track(gtid, Row::kNvtx);
      c.b.add_instant(tr, start, name, "user_annotation", 't', -1, -1, -1, -1);
      c.count("user_annotation", start, start, "i");
      continue;
    }
    TrackId tr = kind == 'p' ? c.cpu_track(gtid, Row::kNvtx) : c.nvtx_async_track(gtid);
    if (end == RowReader::kNull) {
      // A range still open when the capture stopped: closed at the end of its track.
      c.b.add_begin(tr, start, name, "user_annotation", SliceArgs(), src);
      c.count("user_annotation", start, start, "B");
      continue;
    }
    if (!c.usable_times(start, end, Table::kNvtx, r.row())) continue;
    SliceArgs args;
    args.input_dims = emit_nvtx_sizes(name);
    args.has_shapes = !args.input_dims.empty();  // no types: the math reads them off the kernels
    if (args.has_shapes) c.trace->facts.saw_input_dims = true;
    c.b.add_complete(tr, start, end - start, name, "user_annotation", args, src);
    c.count("user_annotation", start, end);
  }
  return !r.failed();
}

namespace {

// A table of calls made on a thread, (start, end, globalTid, nameId) a row: each call a slice of
// `cat` (kind other) on the thread's `row`.
bool read_thread_calls(Context& c, const char* table, Row row, Context::Cat cat, Table code) {
  RowReader r;
  enum { kStart, kEnd, kTid, kName };
  if (!r.prepare(c.db, table, {"start", "end", "globalTid", "nameId"}, &c.trace->diagnostics,
                 c.error))
    return false;
  while (r.next()) {
    const int64_t start = r.i64(kStart, RowReader::kNull), end = r.i64(kEnd, RowReader::kNull);
    if (!c.usable_times(start, end, code, r.row())) continue;
    const int64_t gtid = r.i64(kTid, 0);
    // Thread id 0 is no thread of the program (Linux's idle task): nsys writes its own
    // zero-length "OS runtime libraries profiling started/finished" rows there. Read as calls,
    // they made a "thread 0" and stretched the capture's span (the real export's first event at
    // 56.57 ms instead of 78.29 ms, its span 830 ms instead of 805 ms).
    if (Context::tid_of(gtid) == 0 || c.skip_global(gtid)) continue;
    TrackId tr = c.cpu_track(gtid, row);
    c.add(tr, start, end, c.strings.interned(r.i64(kName), &c.trace->strings), cat,
          SliceKind::kOther, SliceArgs(), row_source(code, r.row()));
  }
  return !r.failed();
}

}  // namespace

bool read_osrt(Context& c) {
  const char* table = "OSRT_API";
  if (!c.db.has_table(table)) {
    c.table_missing(table);
    return true;
  }
  return read_thread_calls(c, table, Row::kOsRuntime, Context::kCatOsrt, Table::kOsrt);
}

// CUDNN_EVENTS, CUBLAS_EVENTS (nsys profile --trace=cudnn,cublas, off by default, so their absence
// is not noted): the libraries' API calls, on the thread's "cuDNN" and "cuBLAS" rows as the GUI
// draws them. The CUDA calls they make are the CUDA API row's; what they add is the library's
// own time (cuDNN's autotuning, cudnnFind*, in the from-process-start finding) and what a thread
// was inside while the GPU waited (analysis/gap_activity.h).
bool read_library_calls(Context& c) {
  if (c.db.has_table("CUDNN_EVENTS") &&
      !read_thread_calls(c, "CUDNN_EVENTS", Row::kCudnn, Context::kCatCudnn, Table::kCudnn))
    return false;
  if (c.db.has_table("CUBLAS_EVENTS") &&
      !read_thread_calls(c, "CUBLAS_EVENTS", Row::kCublas, Context::kCatCublas, Table::kCublas))
    return false;
  return true;
}

// PROFILER_OVERHEAD: Nsight Systems' own work on the program's threads (flushing CUPTI's buffers,
// instrumenting CUDA calls), drawn as nsys' GUI draws it: a "Profiler overhead" row under the
// thread. The analyses read it as a call, so a GPU wait spent in it is put down to the profiler
// (analysis/gap_activity.h), not to the program. Only threads with rows of the program (NVTX,
// CUDA API, OS runtime, cuDNN, cuBLAS, MPI) get it, and only within the span of those rows: nsys'
// own threads, its start-up before the program's first call and its final flush are not the
// program's, so they change neither the thread count nor the capture's span. Read after the
// program's rows, so the span is known; rows without a thread (a NULL globalTid) are left out.
bool read_profiler_overhead(Context& c) {
  const char* table = "PROFILER_OVERHEAD";
  if (!c.db.has_table(table)) return true;  // nothing to note: nsys writes it when it has rows
  RowReader r;
  enum { kStart, kEnd, kTid, kName };
  if (!r.prepare(c.db, table, {"start", "end", "globalTid", "nameId"}, &c.trace->diagnostics,
                 c.error))
    return false;
  auto program_thread = [&c](int64_t gtid) {
    for (Row row :
         {Row::kNvtx, Row::kCudaApi, Row::kOsRuntime, Row::kCudnn, Row::kCublas, Row::kMpi})
      if (c.cpu_tracks[static_cast<int>(row)].count(gtid)) return true;
    return false;
  };
  const TraceFacts& f = c.trace->facts;
  while (r.next()) {
    const int64_t start = r.i64(kStart, RowReader::kNull), end = r.i64(kEnd, RowReader::kNull);
    const int64_t gtid = r.i64(kTid, RowReader::kNull);
    if (gtid == RowReader::kNull || c.skip_global(gtid) || !program_thread(gtid)) continue;
    if (!c.usable_times(start, end, Table::kProfilerOverhead, r.row())) continue;
    const int64_t b = std::max(start, f.start_ns), e = std::min(end, f.end_ns);
    if (e <= b) continue;
    c.add(c.cpu_track(gtid, Row::kProfilerOverhead), b, e,
          c.strings.interned(r.i64(kName), &c.trace->strings), Context::kCatProfilerOverhead,
          SliceKind::kOther, SliceArgs(), row_source(Table::kProfilerOverhead, r.row()));
  }
  return !r.failed();
}

// SCHED_EVENTS (--cpuctxsw, on by default on Linux): each thread's switches onto and off a core.
// For the threads that have rows here (CUDA API, NVTX, OS runtime), each time off the CPU is an
// "off CPU" slice on the thread's "CPU state" row, as nsys' GUI draws thread state; the analyses
// read it for what a launching thread did in a GPU wait when it had no call recorded
// (analysis/gap_activity.h). Read after every other row, so the span is known: the slices are
// clipped to it. A thread's switches are paired in time order, whatever order the rows come in
// (nsys 2025.6 and later no longer promise time order in any table); rows at one time keep the
// table's order. A switch out with no switch back in the capture stays open: its end is not known.
bool read_sched(Context& c) {
  if (!c.db.has_table("SCHED_EVENTS")) return true;  // --cpuctxsw=none, or not Linux: no note
  RowReader r;
  enum { kStart, kIn, kTid };
  if (!r.prepare(c.db, "SCHED_EVENTS", {"start", "isSchedIn", "globalTid"}, &c.trace->diagnostics,
                 c.error))
    return false;
  struct Switch {  // 16 bytes a row: a busy thread has millions
    int64_t ts;
    uint64_t row_in;  // the row's number << 1, | 1 for a switch in
    bool in() const { return row_in & 1; }
    uint64_t row() const { return row_in >> 1; }
  };
  struct Thread {
    bool kept = false;  // the thread has other rows
    std::vector<Switch> switches;
  };
  std::unordered_map<int64_t, Thread> threads;  // by globalTid
  while (r.next()) {
    const int64_t ts = r.i64(kStart, RowReader::kNull), gtid = r.i64(kTid, 0);
    if (ts == RowReader::kNull || c.skip_global(gtid)) continue;
    auto [it, added] = threads.try_emplace(gtid);
    Thread& th = it->second;
    if (added)
      for (const auto& rows : c.cpu_tracks) th.kept = th.kept || rows.count(gtid);
    if (th.kept) th.switches.push_back({ts, r.row() << 1 | (r.i64(kIn, 0) != 0 ? 1u : 0u)});
  }
  if (r.failed()) return false;
  // In thread order, so the tracks are numbered the same on every run.
  std::vector<int64_t> order;
  for (const auto& kv : threads)
    if (kv.second.kept && !kv.second.switches.empty()) order.push_back(kv.first);
  std::sort(order.begin(), order.end());
  const TraceFacts& f = c.trace->facts;
  const StringId off_cpu = c.trace->strings.intern("off CPU");
  for (int64_t gtid : order) {
    std::vector<Switch>& sw = threads[gtid].switches;
    const auto earlier = [](const Switch& a, const Switch& b) { return a.ts < b.ts; };
    if (!std::is_sorted(sw.begin(), sw.end(), earlier))
      std::stable_sort(sw.begin(), sw.end(), earlier);
    TrackId track{};
    bool have_track = false;  // made on the first slice, as a thread without one has no row
    int64_t out = RowReader::kNull;
    uint64_t out_row = 0;
    for (const Switch& s : sw) {
      if (!s.in()) {
        if (out == RowReader::kNull) out = s.ts, out_row = s.row();
        continue;
      }
      if (out == RowReader::kNull) continue;
      const int64_t b = std::max(out, f.start_ns), e = std::min(s.ts, f.end_ns);
      out = RowReader::kNull;
      if (e <= b) continue;
      if (!have_track) track = c.cpu_track(gtid, Row::kCpuState), have_track = true;
      c.add(track, b, e, off_cpu, Context::kCatCpuState, SliceKind::kOther, SliceArgs(),
            row_source(Table::kSched, out_row));
    }
    std::vector<Switch>().swap(sw);
  }
  return true;
}

// GPU_METRICS (nsys profile --gpu-metrics-devices): one row per (sample, metric); the metric's
// name from TARGET_INFO_GPU_METRICS by (typeId, metricId); the GPU is typeId & 0xFF.
bool read_gpu_metrics(Context& c) {
  if (!c.db.has_table("GPU_METRICS")) return true;  // only with --gpu-metrics-devices: no note
  std::unordered_map<uint64_t, std::string> names;
  auto key = [](int64_t type, int64_t metric) {
    return (static_cast<uint64_t>(type) << 32) ^ static_cast<uint64_t>(metric);
  };
  if (c.db.has_table("TARGET_INFO_GPU_METRICS")) {
    RowReader m;
    if (!m.prepare(c.db, "TARGET_INFO_GPU_METRICS", {"typeId", "metricId", "metricName"},
                   &c.trace->diagnostics, c.error))
      return false;
    while (m.next()) names[key(m.i64(0, 0), m.i64(1, 0))] = std::string(m.text(2));
    if (m.failed()) return false;
  } else {
    c.table_missing("TARGET_INFO_GPU_METRICS");
  }
  RowReader r;
  enum { kType, kTs, kMetric, kValue };
  if (!r.prepare(c.db, "GPU_METRICS", {"typeId", "timestamp", "metricId", "value"},
                 &c.trace->diagnostics, c.error))
    return false;
  std::unordered_map<int64_t, std::string> pids;
  while (r.next()) {
    const int64_t ts = r.i64(kTs, RowReader::kNull);
    if (ts == RowReader::kNull || r.null(kValue)) continue;
    const int64_t type = r.i64(kType, 0), metric = r.i64(kMetric, 0);
    auto nit = names.find(key(type, metric));
    if (nit == names.end())
      nit = names.emplace(key(type, metric), "metric " + std::to_string(metric)).first;
    int64_t device = type & 0xFF;
    auto mapped = c.device_of_gpu_id.find(device);
    if (mapped != c.device_of_gpu_id.end()) device = mapped->second;
    if (c.filtered && !c.works_on(device)) continue;  // another rank's GPU
    auto pit = pids.find(device);
    if (pit == pids.end()) pit = pids.emplace(device, c.gpu_process(device)).first;
    c.b.add_counter(pit->second, ts, nit->second, r.f64(kValue));
    ++c.trace->facts.events_total;
    ++c.trace->facts.events_by_phase["C"];
    c.b.observe_time(ts, ts);
  }
  return !r.failed();
}

namespace {

// The earliest hundred messages tell; a hostile file may hold millions.
constexpr size_t kKept = 100;
void keep_earliest(std::vector<TraceFacts::ProfilerMessage>* out) {
  std::stable_sort(out->begin(), out->end(),
                   [](const auto& a, const auto& b) { return a.ts < b.ts; });
  if (out->size() > kKept) out->resize(kKept);
}

}  // namespace

// DIAGNOSTIC_EVENT: Nsight Systems' own messages (the GUI's Diagnostics Summary). Kept: warnings
// and errors about the capture itself. Left out: "No NVTX events collected" and the like (an
// option that found nothing, which the findings say in their own words) and CPU sampling's
// settings (perf_event_paranoid, IP samples), which no analysis here reads.
bool read_profiler_diagnostics(Context& c) {
  const char* table = "DIAGNOSTIC_EVENT";
  if (!c.db.has_table(table)) return true;  // older exports: no note
  int64_t warning = 2, error = 3;
  for (const auto& kv : read_enum(c, "ENUM_DIAGNOSTIC_SEVERITY_LEVEL", "name")) {
    if (kv.second == "Warning") warning = kv.first;
    if (kv.second == "Error") error = kv.first;
  }
  RowReader r;
  enum { kTs, kSeverity, kText };
  if (!r.prepare(c.db, table, {"timestamp", "severity", "text"}, &c.trace->diagnostics, c.error))
    return false;
  auto has = [](std::string_view text, std::string_view what) {
    return text.find(what) != std::string_view::npos;
  };
  auto& out = c.trace->facts.profiler_warnings;
  while (r.next()) {
    const int64_t severity = r.i64(kSeverity, 0);
    if (severity != warning && severity != error) continue;
    std::string_view text = r.text(kText);
    if ((text.substr(0, 3) == "No " && has(text, " collected")) || has(text, "paranoid") ||
        has(text, "IP sample"))
      continue;
    out.push_back({r.i64(kTs, 0), severity == error, std::string(text.substr(0, 1000))});
    if (out.size() == 2 * kKept) keep_earliest(&out);  // a file can hold any number of rows
  }
  keep_earliest(&out);
  return !r.failed();
}

}  // namespace ks::nsys_sqlite
