// Kernel launch statistics (HTA, hta/analyzers/cuda_kernel_analysis.py,
// cuda_kernel_launch_stats; ANALYSES.md "Launch statistics"). Each GPU op is joined to the
// runtime call that launched it (by correlation), and per launch:
//   launch delay      = GPU op start - (launch start + launch duration), floored at 0 (as
//                       HTA does: an op may start before its launch call returns). An op
//                       that starts before its launch call even began is impossible: the CPU
//                       and GPU clocks disagree, and those are counted;
//   short kernel      = launch duration <= 50 us and GPU duration < launch duration (the CPU
//                       spent longer launching it than the GPU running it);
//   runtime outlier   = launch duration > 50 us;
//   launch-delay outlier = launch delay > 100 us.
// Rows are per launching API (HTA looks at cudaLaunchKernel, cudaMemcpyAsync and
// cudaMemsetAsync only; here every API that launched a GPU op has a row).
// Queue length per stream (HTA trace_counters): +1 at each launch that has a GPU op, -1 when
// that op starts; the time spent at >= 1024 queued launches is time the CPU could not queue
// more (CUDA's launch queue is full and the launch call blocks).
#pragma once
#include <cstdint>
#include <vector>

#include "analysis/duration_stats.h"
#include "analysis/gpu_intervals.h"

namespace ks {

constexpr int64_t kShortLaunchCpuNs = 50000;       // 50 us
constexpr int64_t kLaunchDelayOutlierNs = 100000;  // 100 us
constexpr int64_t kFullLaunchQueue = 1024;

struct LaunchApiRow {
  StringId api = 0;
  uint64_t launches = 0;
  uint64_t short_kernels = 0;
  uint64_t runtime_outliers = 0;
  uint64_t delay_outliers = 0;
  int64_t cpu_ns = 0, gpu_ns = 0;
  uint64_t before_launch = 0;  // GPU op started before its launch call began (clock skew)
  // GPU ops after the first of one launch call (a CUDA graph's kernels share the
  // cudaGraphLaunch's correlation id): their GPU time counts, not as launches or delays.
  uint64_t graph_ops = 0;
  DurationStats delay;  // launch delays floored at 0
};

struct QueuePoint {
  int64_t ts_ns;
  int64_t max_len;  // the longest queue in the bucket starting at ts_ns
};

struct StreamQueue {
  TrackId track = 0;
  int64_t device = kNoValue, stream = kNoValue;
  int64_t max_len = 0;
  double mean_len = 0;     // time-weighted, from the first launch to the last op start
  int64_t blocked_ns = 0;  // time at >= kFullLaunchQueue
  uint64_t launches = 0;   // launches with a GPU op on the stream
  // Up to kQueueSeriesPoints buckets, for the kMaxQueueSeries busiest streams (the longest
  // queue, then the most launches); empty for the others.
  std::vector<QueuePoint> series;
};
constexpr size_t kQueueSeriesPoints = 100;
constexpr size_t kMaxQueueSeries = 32;

struct LaunchStats {
  std::vector<LaunchApiRow> apis;   // by launches descending, then name
  LaunchApiRow total;               // every API together (api = 0)
  std::vector<StreamQueue> queues;  // by device, then stream
};

// The order of the streams most worth showing: the longest queue, then the most launches, then
// the track. The series and the report's table (past kMaxTableRows streams) keep the first.
bool busier_queue(const StreamQueue& a, const StreamQueue& b);

LaunchStats compute_launch_stats(const Trace& trace, const LaunchJoin& join,
                                 const std::vector<bool>* included);

}  // namespace ks
