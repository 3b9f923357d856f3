#include "analysis/launch_stats.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "util/sort_runs.h"

namespace ks {

namespace {

struct QueueEdge {
  int64_t t;
  int delta;
};

// Launches before starts at the same instant: the op cannot start before it is queued.
// Launches (+1) and arrivals (-1) come in launch order, each side almost sorted by time: split
// into those two runs and merged, O(n) where a sort of millions of edges was not. Equal edges
// are identical values, so the order is the sort's.
void sort_edges(std::vector<QueueEdge>* edges) {
  std::stable_partition(edges->begin(), edges->end(),
                        [](const QueueEdge& e) { return e.delta > 0; });
  sort_runs(edges, [](const QueueEdge& a, const QueueEdge& b) {
    return a.t != b.t ? a.t < b.t : a.delta > b.delta;
  });
}

// The queue's length, mean and time on a full queue, over edges in sort_edges order.
StreamQueue queue_of(const std::vector<QueueEdge>& edges) {
  StreamQueue q;
  q.launches = edges.size() / 2;
  const int64_t span = edges.back().t - edges.front().t;
  int64_t len = 0;
  double weighted = 0;
  for (size_t i = 0; i < edges.size(); ++i) {
    len += edges[i].delta;
    q.max_len = std::max(q.max_len, len);
    if (i + 1 < edges.size()) {
      const int64_t dt = edges[i + 1].t - edges[i].t;
      weighted += static_cast<double>(len) * static_cast<double>(dt);
      if (len >= kFullLaunchQueue) q.blocked_ns += dt;
    }
  }
  q.mean_len = span > 0 ? weighted / static_cast<double>(span) : 0;
  return q;
}

// The longest queue in each of kQueueSeriesPoints buckets over the edges' span (one bucket when
// the span is empty).
std::vector<QueuePoint> queue_series(const std::vector<QueueEdge>& edges) {
  const int64_t first = edges.front().t, last = edges.back().t;
  const int64_t span = last - first;
  const size_t buckets = span > 0 ? kQueueSeriesPoints : 1;
  std::vector<int64_t> bucket_max(buckets, 0);
  auto bucket_of = [&](int64_t t) {
    if (span <= 0) return static_cast<size_t>(0);
    size_t b = static_cast<size_t>((static_cast<double>(t - first) / static_cast<double>(span)) *
                                   static_cast<double>(buckets));
    return std::min(b, buckets - 1);
  };
  int64_t len = 0;
  for (size_t i = 0; i < edges.size(); ++i) {
    len += edges[i].delta;
    size_t b = bucket_of(edges[i].t);
    bucket_max[b] = std::max(bucket_max[b], len);
    // The queue length holds until the next edge: carry it into the buckets it spans.
    if (i + 1 < edges.size())
      for (size_t nb = b + 1; nb <= bucket_of(edges[i + 1].t) && nb < buckets; ++nb)
        bucket_max[nb] = std::max(bucket_max[nb], len);
  }
  std::vector<QueuePoint> series;
  series.reserve(buckets);
  for (size_t b = 0; b < buckets; ++b) {
    int64_t ts = first + static_cast<int64_t>(static_cast<double>(span) * static_cast<double>(b) /
                                              static_cast<double>(buckets));
    series.push_back({ts, bucket_max[b]});
  }
  return series;
}

void add_launch(LaunchApiRow* row, int64_t cpu, int64_t gpu, int64_t delay,
                std::vector<int64_t>* delays) {
  if (delay + cpu < 0) ++row->before_launch;
  ++row->launches;
  row->cpu_ns += cpu;
  row->gpu_ns += gpu;
  if (cpu <= kShortLaunchCpuNs && gpu < cpu) ++row->short_kernels;
  if (cpu > kShortLaunchCpuNs) ++row->runtime_outliers;
  if (delay > kLaunchDelayOutlierNs) ++row->delay_outliers;
  delays->push_back(std::max<int64_t>(0, delay));
}

}  // namespace

bool busier_queue(const StreamQueue& a, const StreamQueue& b) {
  if (a.max_len != b.max_len) return a.max_len > b.max_len;
  if (a.launches != b.launches) return a.launches > b.launches;
  return a.track < b.track;
}

LaunchStats compute_launch_stats(const Trace& t, const LaunchJoin& join,
                                 const std::vector<bool>* included) {
  const SliceTable& s = t.slices;
  LaunchStats r;
  std::unordered_map<StringId, LaunchApiRow> by_api;
  std::unordered_map<StringId, std::vector<int64_t>> delays_by_api;
  std::vector<int64_t> all_delays;
  std::map<TrackId, std::vector<QueueEdge>> edges_by_track;
  // Consecutive ops mostly share their launch API and their stream: the last entries are kept
  // (references into these maps stay valid as they grow) and the maps searched on a change.
  StringId last_api = StringPool::kMissing;
  LaunchApiRow* row = nullptr;
  std::vector<int64_t>* row_delays = nullptr;
  TrackId last_track = 0;
  std::vector<QueueEdge>* edges = nullptr;
  // One launch call may start many GPU ops (cudaGraphLaunch: every kernel of the graph carries
  // its correlation id): the launch is counted once, with the delay to its first op (ops come
  // in start order); the others add GPU time only. Counting each as a launch made a 12-kernel
  // graph 12 launches with delays growing along the graph.
  std::vector<bool> launched(s.dur.size());  // by launch slice: a bit each, no hashing
  // A launch counted short on its first op (its GPU time under the call's) that starts more ops:
  // their GPU time so far, by launch slice. A graph whose first node is a 1.5 us memset launched
  // 370 us of work: no short kernel (it was counted one).
  std::unordered_map<uint32_t, int64_t> short_so_far;
  for (uint32_t g : join.gpu_ops_by_ts) {
    if (!op_counted(included, g)) continue;
    const int32_t l = join.partner[g];
    if (l < 0) continue;
    const uint32_t launch = static_cast<uint32_t>(l);
    const int64_t cpu = s.dur[launch], gpu = s.dur[g];
    const int64_t delay = s.ts[g] - s.end(launch);
    if (s.name[launch] != last_api) {
      last_api = s.name[launch];
      row = &by_api[last_api];
      row->api = last_api;
      row_delays = &delays_by_api[last_api];
    }
    if (launched[launch]) {
      row->gpu_ns += gpu;
      r.total.gpu_ns += gpu;
      ++row->graph_ops;
      ++r.total.graph_ops;
      auto so_far = short_so_far.find(launch);
      if (so_far != short_so_far.end() && (so_far->second += gpu) >= cpu) {
        --row->short_kernels;
        --r.total.short_kernels;
        short_so_far.erase(so_far);
      }
      continue;
    }
    launched[launch] = true;
    add_launch(row, cpu, gpu, delay, row_delays);
    add_launch(&r.total, cpu, gpu, delay, &all_delays);
    if (cpu <= kShortLaunchCpuNs && gpu < cpu) short_so_far[launch] = gpu;
    if (!edges || s.track[g] != last_track) {
      last_track = s.track[g];
      edges = &edges_by_track[last_track];
    }
    edges->push_back({s.ts[launch], +1});
    edges->push_back({s.ts[g], -1});
  }
  for (auto& kv : by_api) {
    kv.second.delay = compute_duration_stats(delays_by_api[kv.first]);
    r.apis.push_back(kv.second);
  }
  r.total.delay = compute_duration_stats(all_delays);
  std::sort(r.apis.begin(), r.apis.end(), [&t](const LaunchApiRow& a, const LaunchApiRow& b) {
    return a.launches != b.launches ? a.launches > b.launches : t.str(a.api) < t.str(b.api);
  });
  r.queues.reserve(edges_by_track.size());
  for (auto& kv : edges_by_track) {
    sort_edges(&kv.second);
    StreamQueue q = queue_of(kv.second);
    q.track = kv.first;
    q.device = t.tracks[kv.first].device;
    q.stream = t.tracks[kv.first].stream;
    r.queues.push_back(std::move(q));
  }
  // A series for the busiest streams only: one for each of 80 k streams (a stream per request)
  // held 128 MB and made a 518 MB JSON report.
  const size_t with_series = std::min(r.queues.size(), kMaxQueueSeries);
  std::partial_sort(r.queues.begin(), r.queues.begin() + static_cast<ptrdiff_t>(with_series),
                    r.queues.end(), busier_queue);
  for (size_t i = 0; i < with_series; ++i)
    r.queues[i].series = queue_series(edges_by_track[r.queues[i].track]);
  std::sort(r.queues.begin(), r.queues.end(), [](const StreamQueue& a, const StreamQueue& b) {
    if (a.device != b.device) return a.device < b.device;
    if (a.stream != b.stream) return a.stream < b.stream;
    return a.track < b.track;
  });
  return r;
}

}  // namespace ks
