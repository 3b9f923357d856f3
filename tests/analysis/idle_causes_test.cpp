// idle_causes (src/analysis/idle_causes.h, our rule): every cause, and each threshold on both of
// its sides, on small traces without steps (the window is the GPU span). One stream; each kernel
// launched by a 1 us cudaLaunchKernel on thread 1 (or by none); DataLoader ranges and sync calls
// on thread 2.
#include "analysis/idle_causes.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "analysis/gpu_idle.h"
#include "helpers.h"

namespace {

struct K {
  int begin, end;  // on the GPU, us
  int launch;      // the launch call's start, us; -1: not in the trace
};

std::string trace_of(const std::vector<K>& kernels, const std::string& extra = "") {
  std::string t = "[";
  int corr = 1;
  for (const K& k : kernels) {
    if (corr > 1) t += ",";
    t += R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + std::to_string(k.begin) +
         ",\"dur\":" + std::to_string(k.end - k.begin) + R"(,"args":{"stream":7,"correlation":)" +
         std::to_string(k.launch >= 0 ? corr : 0) + "}}";
    if (k.launch >= 0)
      t += R"(,{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" +
           std::to_string(k.launch) + R"(,"dur":1,"args":{"correlation":)" + std::to_string(corr) +
           "}}";
    ++corr;
  }
  if (!extra.empty()) t += "," + extra;
  return t + "]";
}

std::string loader(int begin, int end) {
  return R"({"ph":"X","cat":"cpu_op","name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__","pid":1,"tid":2,"ts":)" +
         std::to_string(begin) + ",\"dur\":" + std::to_string(end - begin) + "}";
}

std::string sync_call(int begin, int end, const char* name = "cudaStreamSynchronize") {
  return R"({"ph":"X","cat":"cuda_runtime","name":")" + std::string(name) +
         R"(","pid":1,"tid":2,"ts":)" + std::to_string(begin) +
         ",\"dur\":" + std::to_string(end - begin) + "}";
}

ks::IdleCauses causes_of(const std::string& json) {
  auto t = ks_test::load(json);
  ks::LaunchJoin join = ks::build_launch_join(*t);
  ks::StepsResult steps = ks::find_steps(*t, join, false);
  ks::GpuIdleResult idle = ks::compute_gpu_idle(*t, join, steps);
  return ks::compute_idle_causes(*t, join, steps, idle);
}

int gaps(const ks::IdleCauses& c, ks::GapCause cause) {
  return static_cast<int>(c.gaps[static_cast<int>(cause)]);
}
int64_t idle_us(const ks::IdleCauses& c, ks::GapCause cause) {
  return c.idle_ns[static_cast<int>(cause)] / 1000;
}

using ks::GapCause;

// One gap [100, 200) us before a kernel launched at 180 (not queued ahead: the CPU never gets
// ahead here, so no refill rule applies): a host wait unless something else explains it.
const std::vector<K> kOneGap = {{0, 100, 0}, {200, 300, 180}};

}  // namespace

TEST_CASE("idle_causes: a gap is DataLoader time when loading covers half of it or more",
          "[analysis][idle_causes]") {
  ks::IdleCauses half = causes_of(trace_of(kOneGap, loader(100, 150)));
  CHECK(gaps(half, GapCause::kDataLoader) == 1);
  CHECK(idle_us(half, GapCause::kDataLoader) == 100);
  CHECK(half.window_ns == 300000);
  ks::IdleCauses less = causes_of(trace_of(kOneGap, loader(100, 149)));
  CHECK(gaps(less, GapCause::kDataLoader) == 0);
  CHECK(gaps(less, GapCause::kHostWait) == 1);
  // DataLoader wins over a sync that covers the gap too (the order of the rules).
  ks::IdleCauses both = causes_of(trace_of(kOneGap, loader(100, 200) + "," + sync_call(100, 200)));
  CHECK(gaps(both, GapCause::kDataLoader) == 1);
  CHECK(gaps(both, GapCause::kSync) == 0);
}

TEST_CASE("idle_causes: a gap is sync time when a synchronizing call covers half of it",
          "[analysis][idle_causes]") {
  ks::IdleCauses half = causes_of(trace_of(kOneGap, sync_call(120, 170)));
  CHECK(gaps(half, GapCause::kSync) == 1);
  CHECK(idle_us(half, GapCause::kSync) == 100);
  REQUIRE(half.largest.size() == 1);
  CHECK(half.largest[0].sync_call >= 0);
  // 49 us of the 100: not the sync (and the CPU never gets ahead here, so no refill either).
  ks::IdleCauses less = causes_of(trace_of(kOneGap, sync_call(120, 169)));
  CHECK(gaps(less, GapCause::kSync) == 0);
  CHECK(gaps(less, GapCause::kHostWait) == 1);
  // The families of sync_names.h count: the driver's, HIP's, Nsight's versioned names, a
  // synchronous cudaMemcpy2D; an asynchronous copy does not.
  for (const char* name : {"cuCtxSynchronize", "hipDeviceSynchronize", "cudaMemcpy2D",
                           "cudaStreamSynchronize_v3020", "hipMemcpyWithStream"}) {
    INFO(name);
    CHECK(gaps(causes_of(trace_of(kOneGap, sync_call(100, 200, name))), GapCause::kSync) == 1);
  }
  CHECK(gaps(causes_of(trace_of(kOneGap, sync_call(100, 200, "cudaMemcpyAsync"))),
             GapCause::kSync) == 0);
}

TEST_CASE("idle_causes: a copy from pageable memory blocks like a sync",
          "[analysis][idle_causes]") {
  // The kernel after the gap is a pageable HtoD copy whose cudaMemcpyAsync spans the gap.
  std::string json = R"J([
  {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":0,"dur":100,"args":{"stream":7}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":100,"dur":100,
   "args":{"correlation":5}},
  {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,"ts":200,
   "dur":10,"args":{"stream":7,"correlation":5}}
])J";
  ks::IdleCauses c = causes_of(json);
  CHECK(gaps(c, GapCause::kSync) == 1);
  std::string pinned = json;
  pinned.replace(pinned.find("Pageable"), 8, "Pinned");
  CHECK(gaps(causes_of(pinned), GapCause::kSync) == 0);
}

TEST_CASE("idle_causes: host waits, and the short ones under 100 us", "[analysis][idle_causes]") {
  // Gaps of 99 us and 100 us, each before a kernel launched inside the gap.
  ks::IdleCauses c = causes_of(trace_of({{0, 100, 0}, {199, 300, 150}, {400, 500, 350}}));
  CHECK(gaps(c, GapCause::kHostWait) == 2);
  CHECK(idle_us(c, GapCause::kHostWait) == 199);
  CHECK(c.short_host_wait_gaps == 1);
  CHECK(c.short_host_wait_ns == 99000);
  // A launch at the gap's very start is not after it: other.
  ks::IdleCauses at_start = causes_of(trace_of({{0, 100, 0}, {200, 300, 100}}));
  CHECK(gaps(at_start, GapCause::kHostWait) == 0);
  CHECK(gaps(at_start, GapCause::kOther) == 1);
}

TEST_CASE("idle_causes: other, when the next op was queued before the gap or has no launch",
          "[analysis][idle_causes]") {
  ks::IdleCauses queued = causes_of(trace_of({{0, 100, 0}, {200, 300, 50}}));
  CHECK(gaps(queued, GapCause::kOther) == 1);
  CHECK(idle_us(queued, GapCause::kOther) == 100);
  ks::IdleCauses unlaunched = causes_of(trace_of({{0, 100, 0}, {200, 300, -1}}));
  CHECK(gaps(unlaunched, GapCause::kOther) == 1);
  CHECK(unlaunched.idle_total_ns() == 100000);
  REQUIRE(unlaunched.largest.size() == 1);
  CHECK(unlaunched.largest[0].next_op >= 0);
}

TEST_CASE("idle_causes: after a sync, host waits under 1 ms are the queue refilling",
          "[analysis][idle_causes]") {
  // Ten kernels queued ahead (launched at 0..9 us, run from 100 us): the CPU gets ahead in this
  // window. Then a sync [1100, 1200) covering the gap [1100, 1200); after it, host-wait gaps of
  // 100 us, 999 us and 1000 us; then a kernel queued 30 us before its gap (the CPU is ahead
  // again, the refill is over) and one more host wait.
  std::vector<K> k;
  for (int i = 0; i < 10; ++i) k.push_back({100 + 100 * i, 200 + 100 * i, i});
  k.push_back({1200, 1300, 1150});       // after the sync's gap; launched inside it
  k.push_back({1400, 1500, 1350});       // refill: 100 us host wait
  k.push_back({2499, 2600, 2000});       // refill: 999 us
  k.push_back({3600, 3700, 3000});       // 1000 us: the CPU away, host wait
  k.push_back({3800, 3900, 3700 - 31});  // queued 30 us (end of launch + 30) before the gap
  k.push_back({4000, 4100, 3950});       // a host wait again
  ks::IdleCauses c = causes_of(trace_of(k, sync_call(1100, 1200)));
  // Sync: the covered gap [1100,1200) (100) + [1300,1400) (100) + [1500,2499) (999).
  CHECK(gaps(c, GapCause::kSync) == 3);
  CHECK(idle_us(c, GapCause::kSync) == 1199);
  // Host wait: [2600,3600) (1000) and [3900,4000) (100).
  CHECK(gaps(c, GapCause::kHostWait) == 2);
  CHECK(idle_us(c, GapCause::kHostWait) == 1100);
  // [3700,3800): queued ahead, other.
  CHECK(gaps(c, GapCause::kOther) == 1);

  SECTION("not where the CPU never gets ahead (under 10% of the ops queued 30 us ahead)") {
    // 1 op queued ahead of 16 (6%): every other kernel launched 5-10 us before it starts. The
    // waits after the sync are then the CPU's own.
    std::vector<K> few = k;
    for (size_t i = 1; i < few.size(); ++i) few[i].launch = few[i].begin - (i < 10 ? 5 : 10);
    ks::IdleCauses h = causes_of(trace_of(few, sync_call(1100, 1200)));
    CHECK(gaps(h, GapCause::kSync) == 1);  // only the gap the call covers
    CHECK(gaps(h, GapCause::kHostWait) == 5);
  }
}

TEST_CASE("idle_causes: what the launching thread did in a long host wait, innermost first",
          "[analysis][idle_causes]") {
  // A 300 us gap [100, 400) before a kernel launched at 380 on thread 1, where a record_function
  // range "log" [110, 390) holds a CPU op [120, 200); Kineto's "PyTorch Profiler" range over the
  // whole capture is no call.
  const std::string extra =
      R"({"ph":"X","cat":"user_annotation","name":"log","pid":1,"tid":1,"ts":110,"dur":280},)"
      R"({"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":1,"tid":1,"ts":120,"dur":80},)"
      R"j({"ph":"X","cat":"Trace","name":"PyTorch Profiler (0)","pid":1,"tid":1,"ts":0,"dur":500})j";
  ks::IdleCauses c = causes_of(trace_of({{0, 100, 0}, {400, 500, 380}}, extra));
  const ks::GapActivity& a = c.host_wait_activity;
  CHECK(a.gaps == 1);
  CHECK(a.total_ns == 300000);
  REQUIRE(a.top.size() == 4);
  CHECK(a.top[0].label == "log");  // [110, 120) + [200, 380) + [381, 390)
  CHECK(a.top[0].ns == 199000);
  CHECK(a.top[0].kind == ks::HostActivityKind::kCpuWork);
  CHECK(a.top[1].label == "log > aten::copy_");
  CHECK(a.top[1].ns == 80000);
  CHECK(a.top[1].call == "aten::copy_");
  CHECK(a.top[2].label == "nothing recorded");  // [100, 110) + [390, 400)
  CHECK(a.top[2].ns == 20000);
  CHECK(a.top[2].kind == ks::HostActivityKind::kNothingRecorded);
  CHECK(a.top[3].label == "log > cudaLaunchKernel");  // the launch itself, 1 us
  CHECK(a.top[3].kind == ks::HostActivityKind::kLaunch);
  // Short host waits (launch overhead) are not followed.
  ks::IdleCauses short_wait = causes_of(trace_of({{0, 100, 0}, {150, 200, 120}}, extra));
  CHECK(short_wait.host_wait_activity.gaps == 0);
}

TEST_CASE("idle_causes: overlapping (not nested) slices still share out each wait exactly",
          "[analysis][idle_causes]") {
  // Two waits, [100, 400) and [500, 800), before kernels launched at 380 and 780; on thread 1
  // CPU ops that overlap without nesting, one across both waits, one starting before the first.
  const std::string extra =
      R"({"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":50,"dur":200},)"
      R"({"ph":"X","cat":"cpu_op","name":"b","pid":1,"tid":1,"ts":150,"dur":500},)"
      R"({"ph":"X","cat":"cpu_op","name":"c","pid":1,"tid":1,"ts":600,"dur":0},)"
      R"({"ph":"X","cat":"user_annotation","name":"r","pid":1,"tid":1,"ts":300,"dur":450})";
  ks::IdleCauses c = causes_of(trace_of({{0, 100, 0}, {400, 500, 380}, {800, 900, 780}}, extra));
  const ks::GapActivity& a = c.host_wait_activity;
  CHECK(a.gaps == 2);
  CHECK(a.total_ns == 600000);
  // Wait 1: a [100, 150), b [150, 300), r > b [300, 380) and [381, 400), r > the launch.
  // Wait 2: r > b [500, 650) (c lasts 0 ns), r [650, 750), nothing [750, 780) and [781, 800), the
  // launch. Seven activities, the top five shown; all seven sum to the two waits.
  REQUIRE(a.top.size() == 5);
  CHECK(a.top[0].label == "r > b");
  CHECK(a.top[0].ns == 249000);
  CHECK(a.top[1].label == "b");
  CHECK(a.top[1].ns == 150000);
  CHECK(a.top[2].label == "r");
  CHECK(a.top[2].ns == 100000);
  CHECK(a.top[3].label == "a");
  CHECK(a.top[3].ns == 50000);
  CHECK(a.top[4].label == "nothing recorded");
  CHECK(a.top[4].ns == 49000);
}

TEST_CASE("idle_causes: a gap at a step's end waits for the next step's first launch",
          "[analysis][idle_causes]") {
  // Steps [0, 200) and [200, 400); a kernel [0, 100) launched at 0, the next [250, 300) launched
  // at 240. Step 1's last 100 us the CPU is still in the step: the GPU waits for its next
  // launch, a host wait, as is [200, 250) in step 2.
  const std::string steps =
      R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":200},)"
      R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":200,"dur":200})";
  ks::IdleCauses c = causes_of(trace_of({{0, 100, 0}, {250, 300, 240}}, steps));
  CHECK(gaps(c, GapCause::kHostWait) == 2);  // [100, 200) and [200, 250)
  CHECK(idle_us(c, GapCause::kHostWait) == 150);
  // Step 2's last 100 us: nothing comes after it in the trace.
  CHECK(gaps(c, GapCause::kOther) == 1);
  CHECK(idle_us(c, GapCause::kOther) == 100);
}
