// GPU busy and idle time within the steps or the GPU span (src/analysis/gpu_idle.cpp).
#include "analysis/gpu_idle.h"

#include <catch2/catch.hpp>

#include "helpers.h"

namespace {

ks::GpuIdleResult idle_of(const ks::Trace& t) {
  ks::LaunchJoin join = ks::build_launch_join(t);
  return ks::compute_gpu_idle(t, join, ks::find_steps(t, join, false));
}

std::string show(const std::vector<ks::Interval>& v) {
  std::string out;
  for (const ks::Interval& iv : v)
    out += "[" + std::to_string(iv.begin / 1000) + "," + std::to_string(iv.end / 1000) + ")";
  return out;
}

}  // namespace

TEST_CASE("GPU idle within steps: a worked example", "[analysis][gpu_idle]") {
  // Steps (device-adjusted, see steps_test): [0, 150), [150, 200), [200, 250) us.
  // Kernels: k1 [20, 150) launched in step 1, k2 [160, 180) launched in step 2.
  //   step 1: busy 130 of 150 -> idle 20 / 150  = 13.33 %
  //   step 2: busy  20 of  50 -> idle 30 / 50   = 60 %
  //   step 3: busy   0 of  50 -> idle 50 / 50   = 100 %
  //   all:    busy 150 of 250 -> idle 100 / 250 = 40 %
  auto t = ks_test::load(R"([
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":100,"dur":100},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":200,"dur":50},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":5,
     "args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":20,"dur":130,
     "args":{"correlation":1,"stream":7}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":110,"dur":5,
     "args":{"correlation":2}},
    {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":160,"dur":20,
     "args":{"correlation":2,"stream":7}}
  ])");
  ks::GpuIdleResult g = idle_of(*t);
  CHECK(g.has_gpu_ops);
  CHECK(g.window_is_steps);
  CHECK(g.window_ns == 250000);
  CHECK(g.busy_ns == 150000);
  CHECK(g.idle_pct == 40.0);
  REQUIRE(g.idle_pct_per_step.size() == 3);
  CHECK(g.idle_pct_per_step[0] == Approx(100.0 * 20 / 150));
  CHECK(g.idle_pct_per_step[1] == 60.0);
  CHECK(g.idle_pct_per_step[2] == 100.0);
  // Gaps per step window, longest first (ties keep time order):
  // [200,250) 50, [0,20) 20, [180,200) 20, [150,160) 10.
  CHECK(show(g.largest_gaps) == "[200,250)[0,20)[180,200)[150,160)");
  CHECK(show(g.busy) == "[20,150)[160,180)");
}

TEST_CASE("GPU idle without steps uses the GPU span", "[analysis][gpu_idle]") {
  // GPU ops on two streams: a kernel [20, 60) on 7, a memcpy [40, 80) on 8 (overlapping: counted
  // once), a memset [100, 110) on 7. A GPU-side annotation [0, 200) is not GPU activity.
  // Span [20, 110) = 90 us; busy [20, 80) + [100, 110) = 70 us; idle 20 / 90 = 22.2 %.
  auto t = ks_test::load(R"J([
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":20,"dur":40,"args":{"stream":7}},
    {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pinned -> Device)","pid":0,"tid":8,
     "ts":40,"dur":40,"args":{"stream":8}},
    {"ph":"X","cat":"gpu_memset","name":"Memset (Device)","pid":0,"tid":7,"ts":100,"dur":10,
     "args":{"stream":7}},
    {"ph":"X","cat":"gpu_user_annotation","name":"range","pid":0,"tid":9,"ts":0,"dur":200}
  ])J");
  ks::GpuIdleResult g = idle_of(*t);
  CHECK(g.has_gpu_ops);
  CHECK_FALSE(g.window_is_steps);
  CHECK(g.window_ns == 90000);
  CHECK(g.busy_ns == 70000);
  CHECK(g.idle_pct == Approx(100.0 * 20 / 90));
  CHECK(g.idle_pct_per_step.empty());
  CHECK(show(g.largest_gaps) == "[80,100)");
}

TEST_CASE("GPU idle of a CPU-only trace is not computed", "[analysis][gpu_idle]") {
  auto t =
      ks_test::load(R"([{"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":0,"dur":5}])");
  ks::GpuIdleResult g = idle_of(*t);
  CHECK_FALSE(g.has_gpu_ops);
  CHECK(g.window_ns == 0);
  CHECK(g.idle_pct == 0.0);
}
