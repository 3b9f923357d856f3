// HTA's analyses on small hand-made traces, each answer worked out in the comments:
// temporal breakdown, kernel types with overlaps, comm/comp overlap (gpu_intervals.h users),
// idle time per stream by cause (idle_breakdown.cpp) and launch statistics (launch_stats.cpp).
#include <catch2/catch.hpp>

#include "analysis/comm_overlap.h"
#include "analysis/idle_breakdown.h"
#include "analysis/kernel_type_breakdown.h"
#include "analysis/launch_stats.h"
#include "analysis/temporal_breakdown.h"
#include "helpers.h"

namespace {

// Three streams of one GPU, times in us:
//   stream 7: gemm [0, 40), elementwise [50, 60)          (computation)
//   stream 8: Memcpy HtoD [30, 45)                          (memory)
//   stream 9: ncclKernel_AllReduce [35, 55), [70, 80)       (communication)
// Union of all: [0, 60) + [70, 80) = 70; span [0, 80) = 80 -> idle 10.
// Computation union: [0, 40) + [50, 60) = 50 -> compute 50, non-compute 80 - 50 - 10 = 20.
const char* kThreeStreams = R"J([
  {"ph":"X","cat":"kernel","name":"sm90_gemm","pid":0,"tid":7,"ts":0,"dur":40,"args":{"stream":7}},
  {"ph":"X","cat":"kernel","name":"elementwise_kernel","pid":0,"tid":7,"ts":50,"dur":10,"args":{"stream":7}},
  {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pinned -> Device)","pid":0,"tid":8,"ts":30,"dur":15,"args":{"stream":8}},
  {"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce_RING_LL_Sum_float","pid":0,"tid":9,"ts":35,"dur":20,"args":{"stream":9}},
  {"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce_RING_LL_Sum_float","pid":0,"tid":9,"ts":70,"dur":10,"args":{"stream":9}}
])J";

ks::GpuIntervals intervals_of(const ks::Trace& t) {
  return ks::collect_gpu_intervals(t, ks::build_launch_join(t), nullptr);
}

std::string types(const ks::KernelTypeBreakdown& k) {
  std::string out;
  for (const ks::KernelTypeRow& r : k.rows)
    out += r.label + "=" + std::to_string(r.ns / 1000) + ";";
  return out;
}

}  // namespace

TEST_CASE("Temporal breakdown: idle, compute and non-compute over the GPU span",
          "[analysis][hta][temporal]") {
  auto t = ks_test::load(kThreeStreams);
  ks::TemporalBreakdown b = ks::compute_temporal_breakdown(intervals_of(*t));
  CHECK(b.has_gpu_ops);
  CHECK(b.span_ns == 80000);
  CHECK(b.idle_ns == 10000);
  CHECK(b.compute_ns == 50000);
  CHECK(b.non_compute_ns == 20000);
  CHECK(b.idle_pct == 12.5);
  CHECK(b.compute_pct == 62.5);
  CHECK(b.non_compute_pct == 25.0);

  SECTION("a trace without GPU ops has no breakdown") {
    auto cpu = ks_test::load(
        R"J([{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":0,"dur":5}])J");
    ks::TemporalBreakdown none = ks::compute_temporal_breakdown(intervals_of(*cpu));
    CHECK_FALSE(none.has_gpu_ops);
    CHECK(none.span_ns == 0);
  }
}

TEST_CASE("Kernel types: every stretch of time goes to the set of types running",
          "[analysis][hta][kernel_types]") {
  auto t = ks_test::load(kThreeStreams);
  // Sweep: [0,30) comp 30; [30,35) comp+mem 5; [35,40) comp+comm+mem 5; [40,45) comm+mem 5;
  // [45,50) comm 5; [50,55) comp+comm 5; [55,60) comp 5; [70,80) comm 10.
  // comp 35, comm 15, comp+comm 5, comp+mem 5, comm+mem 5, all three 5: total 70.
  ks::KernelTypeBreakdown k = ks::compute_kernel_type_breakdown(intervals_of(*t));
  CHECK(k.total_ns == 70000);
  CHECK(types(k) ==
        "computation=35;communication=15;communication overlapping memory=5;"
        "computation overlapping communication=5;"
        "computation overlapping communication overlapping memory=5;"
        "computation overlapping memory=5;");
  CHECK(k.rows[0].percent == 50.0);
}

TEST_CASE("Comm/compute overlap: share of communication time under computation",
          "[analysis][hta][overlap]") {
  auto t = ks_test::load(kThreeStreams);
  // comm [35,55) + [70,80) = 30; comp [0,40) + [50,60); overlap [35,40) + [50,55) = 10.
  ks::CommOverlap o = ks::compute_comm_overlap(intervals_of(*t));
  CHECK(o.has_communication);
  CHECK(o.communication_ns == 30000);
  CHECK(o.computation_ns == 50000);
  CHECK(o.overlap_ns == 10000);
  CHECK(o.overlap_pct == Approx(100.0 / 3));

  SECTION("without communication kernels there is no overlap value") {
    auto one = ks_test::load(
        R"J([{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":0,"dur":5,"args":{"stream":7}}])J");
    ks::CommOverlap none = ks::compute_comm_overlap(intervals_of(*one));
    CHECK_FALSE(none.has_communication);
    CHECK(none.overlap_ns == 0);
  }
}

TEST_CASE("Idle time per stream: host wait, kernel wait, other", "[analysis][hta][idle]") {
  // Stream 7, ops in start order (us), each launched by a runtime call on the CPU:
  //   k1 [0, 10)    launch at -5
  //   k2 [15, 20)   launch at 2 (before k1 ended at 10): gap 5 < 30      -> kernel wait 5
  //   k3 [70, 80)   launch at 8 (before k2 ended at 20): gap 50 >= 30    -> other 50
  //   k4 [100, 110) launch at 90 (after k3 ended at 80): gap 20          -> host wait 20
  //   k5 [200, 210) launch at 195 (after k4 ended at 110): gap 90        -> host wait 90
  //   m  [212, 213) a memset with no launch in the trace: gap 2          -> kernel wait 2
  // Stream 8 has a single op: no gaps.
  auto t = ks_test::load(R"J([
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":-5,"dur":1,"args":{"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":1,"args":{"correlation":2}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":8,"dur":1,"args":{"correlation":3}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":90,"dur":1,"args":{"correlation":4}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":195,"dur":1,"args":{"correlation":5}},
    {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":0,"dur":10,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":15,"dur":5,"args":{"stream":7,"correlation":2}},
    {"ph":"X","cat":"kernel","name":"k3","pid":0,"tid":7,"ts":70,"dur":10,"args":{"stream":7,"correlation":3}},
    {"ph":"X","cat":"kernel","name":"k4","pid":0,"tid":7,"ts":100,"dur":10,"args":{"stream":7,"correlation":4}},
    {"ph":"X","cat":"kernel","name":"k5","pid":0,"tid":7,"ts":200,"dur":10,"args":{"stream":7,"correlation":5}},
    {"ph":"X","cat":"gpu_memset","name":"Memset (Device)","pid":0,"tid":7,"ts":212,"dur":1,"args":{"stream":7}},
    {"ph":"X","cat":"kernel","name":"other","pid":0,"tid":8,"ts":0,"dur":10,"args":{"stream":8}}
  ])J");
  ks::LaunchJoin join = ks::build_launch_join(*t);
  ks::IdleBreakdown b = ks::compute_idle_breakdown(*t, join, nullptr);
  REQUIRE(b.streams.size() == 2);
  const ks::StreamIdle& s7 = b.streams[0];
  CHECK(s7.stream == 7);
  CHECK(s7.device == ks::kNoValue);  // no "device" arg
  CHECK(s7.ops == 6);
  CHECK(s7.idle_ns[0] == 110000);  // host wait 20 + 90
  CHECK(s7.idle_ns[1] == 7000);    // kernel wait 5 + 2
  CHECK(s7.idle_ns[2] == 50000);   // other
  CHECK(s7.gaps[0].count == 2);
  CHECK(s7.gaps[0].max_ns == 90000);
  CHECK(s7.gaps[0].median_ns == 55000);
  CHECK(s7.gaps[1].count == 2);
  CHECK(s7.gaps[2].count == 1);
  CHECK(s7.idle_total_ns() == 167000);
  CHECK(b.streams[1].stream == 8);
  CHECK(b.streams[1].idle_total_ns() == 0);
  CHECK(b.idle_ns[0] == 110000);

  SECTION("an op excluded by the op set opens no gap") {
    std::vector<bool> included(t->slices.size(), true);
    for (uint32_t i : ks_test::slices_named(*t, "k3")) included[i] = false;
    // k2 [15,20) -> k4 [100,110): launch at 90 after 20 -> host wait 80.
    ks::IdleBreakdown f = ks::compute_idle_breakdown(*t, join, &included);
    CHECK(f.streams[0].idle_ns[0] == 170000);
    CHECK(f.streams[0].idle_ns[2] == 0);
  }
}

TEST_CASE("Launch statistics: delays, short kernels, outliers, queue length",
          "[analysis][hta][launch]") {
  // Launches (cpu start, cpu dur) -> GPU op (start, dur), us:
  //   A cudaLaunchKernel (0, 10)   -> [15, 18):  delay 5,   short (10 <= 50, 3 < 10)
  //   B cudaLaunchKernel (20, 60)  -> [200, 300): delay 120, runtime outlier, delay outlier
  //   C cudaMemcpyAsync  (90, 5)   -> [93, 94):  delay -2 -> 0 (starts while its call runs), short
  //   D cudaLaunchKernel (100, 4)  -> [400, 410): delay 296, delay outlier, not short (10 > 4)
  auto t = ks_test::load(R"J([
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":10,"args":{"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":20,"dur":60,"args":{"correlation":2}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":90,"dur":5,"args":{"correlation":3}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":100,"dur":4,"args":{"correlation":4}},
    {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":15,"dur":3,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":200,"dur":100,"args":{"stream":7,"correlation":2}},
    {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pinned -> Device)","pid":0,"tid":7,"ts":93,"dur":1,"args":{"stream":7,"correlation":3}},
    {"ph":"X","cat":"kernel","name":"d","pid":0,"tid":7,"ts":400,"dur":10,"args":{"stream":7,"correlation":4}}
  ])J");
  ks::LaunchStats l = ks::compute_launch_stats(*t, ks::build_launch_join(*t), nullptr);
  const ks::LaunchApiRow& all = l.total;
  CHECK(all.launches == 4);
  CHECK(all.short_kernels == 2);
  CHECK(all.runtime_outliers == 1);
  CHECK(all.delay_outliers == 2);
  CHECK(all.before_launch == 0);
  CHECK(all.cpu_ns == 79000);
  CHECK(all.gpu_ns == 114000);
  CHECK(all.delay.total_ns == 421000);  // 5 + 120 + 0 + 296
  CHECK(all.delay.min_ns == 0);
  CHECK(all.delay.max_ns == 296000);
  REQUIRE(l.apis.size() == 2);
  CHECK(t->str(l.apis[0].api) == "cudaLaunchKernel");
  CHECK(l.apis[0].launches == 3);
  CHECK(t->str(l.apis[1].api) == "cudaMemcpyAsync");
  CHECK(l.apis[1].short_kernels == 1);

  // Queue on stream 7 (+1 at a launch, -1 when its op starts):
  //   0 A +1 -> 1; 15 A starts -> 0; 20 B +1 -> 1; 90 C +1 -> 2; 93 C starts -> 1;
  //   100 D +1 -> 2; 200 B starts -> 1; 400 D starts -> 0.
  // Time-weighted mean over [0, 400): 1*15 + 0*5 + 1*70 + 2*3 + 1*7 + 2*100 + 1*200 = 498 / 400.
  REQUIRE(l.queues.size() == 1);
  const ks::StreamQueue& q = l.queues[0];
  CHECK(q.stream == 7);
  CHECK(q.max_len == 2);
  CHECK(q.mean_len == Approx(498.0 / 400));
  CHECK(q.blocked_ns == 0);
  REQUIRE(q.series.size() == ks::kQueueSeriesPoints);
  CHECK(q.series.front().ts_ns == 0);
  CHECK(q.series.front().max_len == 1);  // bucket [0, 4): 1
  CHECK(q.series[25].max_len == 2);      // bucket [100, 104): D queued behind B
  CHECK(q.series[60].max_len == 1);      // bucket [240, 244): only D waits
}

TEST_CASE("Launch queue: time at 1024 queued launches is time blocked", "[analysis][hta][launch]") {
  // 1025 launches at 0..1024 us (1 us each, 1 ns long) of kernels that all start at 2000 us:
  // the queue reaches 1024 at t = 1023 us and stays >= 1024 until 2000 us: 977 us blocked.
  std::string json = "[";
  for (int i = 0; i < 1025; ++i) {
    json += R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" +
            std::to_string(i) + R"(,"dur":0.001,"args":{"correlation":)" + std::to_string(i + 1) +
            "}},";
    json +=
        R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":2000,"dur":0,"args":{"stream":7,"correlation":)" +
        std::to_string(i + 1) + "}}" + (i < 1024 ? "," : "");
  }
  json += "]";
  auto t = ks_test::load(json);
  ks::LaunchStats l = ks::compute_launch_stats(*t, ks::build_launch_join(*t), nullptr);
  REQUIRE(l.queues.size() == 1);
  CHECK(l.queues[0].max_len == 1025);
  CHECK(l.queues[0].blocked_ns == 977000);
}

TEST_CASE("Launch statistics count GPU ops that start before their launch began",
          "[analysis][hta][launch]") {
  // A kernel at 8 us launched by a call at [10, 12): impossible unless the clocks disagree.
  auto t = ks_test::load(R"J([
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":2,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":8,"dur":1,"args":{"stream":7,"correlation":1}}
  ])J");
  ks::LaunchStats l = ks::compute_launch_stats(*t, ks::build_launch_join(*t), nullptr);
  CHECK(l.total.before_launch == 1);
  CHECK(l.total.delay.total_ns == 0);  // floored
}
