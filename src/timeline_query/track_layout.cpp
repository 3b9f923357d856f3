#include "timeline_query/track_layout.h"

#include <algorithm>
#include <cstdlib>

#include "util/json_writer.h"

namespace ks::timeline_query {

namespace {

// Numeric ids sort as numbers ("9" before "10"); other text after them, as text.
bool id_less(std::string_view a, std::string_view b) {
  auto numeric = [](std::string_view s, long long* v) {
    if (s.empty() || s.size() > 18) return false;
    size_t k = s[0] == '-' ? 1 : 0;
    if (k == s.size()) return false;
    for (size_t i = k; i < s.size(); ++i)
      if (s[i] < '0' || s[i] > '9') return false;
    *v = std::strtoll(std::string(s).c_str(), nullptr, 10);
    return true;
  };
  long long x, y;
  bool nx = numeric(a, &x), ny = numeric(b, &y);
  if (nx && ny) return x < y;
  if (nx != ny) return nx;
  return a < b;
}

const char* kind_name(TrackKind k) {
  switch (k) {
    case TrackKind::kGpuStream:
      return "stream";
    case TrackKind::kAsync:
      return "async";
    default:
      return "thread";
  }
}

}  // namespace

bool sparse_track(const TrackRows& rows, size_t instants, int64_t span_ns) {
  if (rows.slices == 0) return instants <= 2;
  if (rows.slices != 1 || instants > 2 || rows.rows.empty() || rows.rows[0].size() != 1)
    return false;
  // 90%: the profiler's own span starts and ends a little inside the first and last events.
  return span_ns > 0 && rows.rows[0].dur[0] * 10 >= span_ns * 9;
}

std::vector<LayoutGroup> track_layout(const ViewIndex& index) {
  const Trace& t = index.trace();
  std::vector<LayoutGroup> groups(t.processes.size());
  for (uint32_t p = 0; p < t.processes.size(); ++p) {
    const Process& proc = t.processes[p];
    LayoutGroup& g = groups[p];
    g.process = p;
    g.pid = std::string(t.str(proc.pid_text));
    // A GPU named after its own pid ("GPU 0", "GPU 0: NVIDIA A100-SXM4-80GB (0000:c1:00.0)", an
    // export's) says its number already: "GPU 0 (0)" repeated it.
    const std::string own = "GPU " + g.pid;
    const bool says_pid = proc.name.compare(0, own.size(), own) == 0 &&
                          (proc.name.size() == own.size() || proc.name[own.size()] == ':');
    g.name = proc.name.empty() ? "Process " + g.pid
             : says_pid        ? proc.name
                               : proc.name + " (" + g.pid + ")";
    if (!proc.labels.empty()) g.name += " " + proc.labels;
    g.gpu = proc.has_gpu_ops;
  }
  std::vector<TrackId> order(t.tracks.size());
  for (TrackId i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&t](TrackId a, TrackId b) {
    const Track& x = t.tracks[a];
    const Track& y = t.tracks[b];
    if (x.has_sort_index != y.has_sort_index) return x.has_sort_index;
    if (x.has_sort_index && x.sort_index != y.sort_index) return x.sort_index < y.sort_index;
    // GPU streams after the device-wide lanes, CPU threads by tid.
    return id_less(t.str(x.tid_text), t.str(y.tid_text));
  });
  for (TrackId id : order) {
    const Track& tr = t.tracks[id];
    const TrackRows& rows = index.tracks()[id];
    const size_t instants = index.instants()[id].ts.size();
    if (rows.slices == 0 && instants == 0) continue;
    LayoutTrack lt;
    lt.id = id;
    lt.name = tr.name.empty() ? "thread " + std::string(t.str(tr.tid_text)) : tr.name;
    lt.kind = kind_name(tr.kind);
    lt.rows = static_cast<uint32_t>(rows.rows.size());
    lt.slices = rows.slices;
    lt.instants = instants;
    lt.sparse = sparse_track(rows, instants, index.span());
    if (tr.kind == TrackKind::kGpuStream) groups[tr.process].gpu = true;
    groups[tr.process].tracks.push_back(std::move(lt));
  }
  for (uint32_t c = 0; c < index.counters().size(); ++c) {
    const CounterSeries& cs = index.counters()[c];
    LayoutCounter lc;
    lc.id = c;
    lc.name = std::string(t.str(cs.series));
    lc.min = cs.min;
    lc.max = cs.max;
    lc.samples = cs.ts.size();
    groups[cs.process].counters.push_back(std::move(lc));
  }
  for (LayoutGroup& g : groups)
    std::stable_sort(
        g.counters.begin(), g.counters.end(),
        [](const LayoutCounter& a, const LayoutCounter& b) { return a.name < b.name; });
  std::vector<LayoutGroup> kept;
  for (LayoutGroup& g : groups)
    if (!g.tracks.empty() || !g.counters.empty()) kept.push_back(std::move(g));
  std::stable_sort(kept.begin(), kept.end(), [&t](const LayoutGroup& a, const LayoutGroup& b) {
    const Process& x = t.processes[a.process];
    const Process& y = t.processes[b.process];
    if (x.has_sort_index && y.has_sort_index && x.sort_index != y.sort_index)
      return x.sort_index < y.sort_index;
    if (x.has_sort_index != y.has_sort_index) return x.has_sort_index;
    if (a.gpu != b.gpu) return !a.gpu;  // CPU processes first, as Kineto's sort indices put them
    return id_less(a.pid, b.pid);
  });
  return kept;
}

std::string track_layout_json(const ViewIndex& index) {
  JsonWriter w;
  w.begin_object();
  w.field("origin_ns", std::string_view(std::to_string(index.origin())));
  w.field("time_zero", index.trace().facts.has_session_start ? "session start" : "first event");
  w.field("start_ns", index.first_event());
  w.field("span_ns", index.span());
  w.field("index_bytes", static_cast<uint64_t>(index.memory_bytes()));
  w.key("groups").begin_array();
  for (const LayoutGroup& g : track_layout(index)) {
    w.begin_object();
    w.field("process", static_cast<uint64_t>(g.process));
    w.field("name", std::string_view(g.name));
    w.field("pid", std::string_view(g.pid));
    w.field("gpu", g.gpu);
    w.key("tracks").begin_array();
    for (const LayoutTrack& lt : g.tracks) {
      w.begin_object();
      w.field("id", static_cast<uint64_t>(lt.id));
      w.field("name", std::string_view(lt.name));
      w.field("kind", std::string_view(lt.kind));
      w.field("rows", static_cast<uint64_t>(lt.rows));
      w.field("slices", lt.slices);
      w.field("instants", lt.instants);
      if (lt.sparse) w.field("sparse", true);
      w.end_object();
    }
    w.end_array();
    w.key("counters").begin_array();
    for (const LayoutCounter& lc : g.counters) {
      w.begin_object();
      w.field("id", static_cast<uint64_t>(lc.id));
      w.field("name", std::string_view(lc.name));
      w.field("min", lc.min, 6);
      w.field("max", lc.max, 6);
      w.field("samples", lc.samples);
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.key("steps").begin_array();
  for (const StepBand& s : index.steps()) {
    w.begin_object();
    w.field("number", s.number);
    w.field("start_ns", s.start);
    w.field("end_ns", s.end);
    if (s.inferred) w.field("inferred", true);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.take();
}

}  // namespace ks::timeline_query
