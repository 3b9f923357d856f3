// The critical path (analysis/critical_path.h) on small hand-made traces, each path worked out
// in the comments (times in us). The HTA agreement on real traces is
// tests/corpus/hta_critical_path_test.cpp.
#include <catch2/catch.hpp>

#include "analysis/critical_path.h"
#include "helpers.h"

namespace {

// aten::op [10, 90] launches a kernel from cudaLaunchKernel [20, 30]; the kernel runs [35, 40].
const char* const kOneLaunchStep = R"J([
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
  {"ph":"X","cat":"cpu_op","name":"aten::op","pid":1,"tid":1,"ts":10,"dur":80},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":20,"dur":10,"args":{"correlation":1}},
  {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":35,"dur":5,"args":{"correlation":1,"stream":7,"device":0}}
])J";

ks::CriticalPathResult path_of(const ks::Trace& t, ks::CriticalPathOptions o = {}) {
  return ks::critical_path(t, ks::build_launch_join(t), o);
}

int64_t us(const ks::CriticalPathResult& r, ks::CpBound b) {
  return r.bound[static_cast<int>(b)] / 1000;
}

}  // namespace

// kOneLaunchStep.
// CPU: op.start -> launch.start (10) -> launch.end (10) -> op.end (60) = 80.
// GPU: op.start -> launch.start (10) -> kernel.start (launch delay 15) -> kernel.end (5) = 30.
TEST_CASE("Critical path: a CPU-bound step", "[analysis][critical_path]") {
  auto t = ks_test::load(kOneLaunchStep);
  ks::CriticalPathResult r = path_of(*t);
  REQUIRE(r.ok);
  CHECK(r.window_label == "ProfilerStep#1");
  CHECK(r.total == 80000);
  CHECK(us(r, ks::CpBound::kCpu) == 80);
  CHECK(r.dominant() == ks::CpBound::kCpu);
  REQUIRE(r.path.size() == 3);
  CHECK(t->str(t->slices.name[static_cast<size_t>(r.path[0].slice)]) == "aten::op");
  CHECK(t->str(t->slices.name[static_cast<size_t>(r.path[1].slice)]) == "cudaLaunchKernel");
  CHECK(t->str(t->slices.name[static_cast<size_t>(r.path[2].slice)]) == "aten::op");
  CHECK(r.path[2].weight == 60000);
}

// The graph's nodes are counted before they are made: their vector holds exactly them (grown by
// doubling it held up to twice as many, the largest step of a report on many tiny kernels).
TEST_CASE("Critical path: the graph's nodes take no more room than they need",
          "[analysis][critical_path]") {
  auto t = ks_test::load(kOneLaunchStep);
  ks::CpGraph g = ks::build_cp_graph(*t, ks::build_launch_join(*t), 0, 100000, false);
  CHECK(g.nodes.size() == 6);  // a start and an end for the op, the call and the kernel
  CHECK(g.nodes.capacity() == g.nodes.size());
}

// The edges are counted before they are made, as the nodes are (2N - 1 on a thread with N nodes,
// the GPU side walked once to count): grown by doubling they held up to twice as many.
TEST_CASE("Critical path: the graph's edges take no more room than they need",
          "[analysis][critical_path]") {
  auto one = ks_test::load(kOneLaunchStep);
  ks::CpGraph g = ks::build_cp_graph(*one, ks::build_launch_join(*one), 0, 100000, true);
  CHECK(g.edges.size() == 5);  // op -> call -> call end -> op end; the kernel; its launch
  CHECK(g.edges.capacity() == g.edges.size());
  // Two threads, syncs, queued kernels: every kind of edge but the cross-stream one.
  auto t = ks_test::load(R"J([
    {"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":0,"dur":20},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":5,"args":{"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":7,"dur":4,"args":{"correlation":2}},
    {"ph":"X","cat":"cpu_op","name":"b","pid":1,"tid":2,"ts":2,"dur":30},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":2,"ts":3,"dur":3,"args":{"correlation":3}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":1,"tid":2,"ts":8,"dur":90,"args":{"correlation":4}},
    {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":10,"dur":40,"args":{"correlation":1,"stream":7}},
    {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":52,"dur":40,"args":{"correlation":2,"stream":7}},
    {"ph":"X","cat":"kernel","name":"k3","pid":0,"tid":8,"ts":12,"dur":5,"args":{"correlation":3,"stream":8}},
    {"ph":"X","cat":"cuda_sync","name":"Context Sync","pid":0,"tid":-1,"ts":8,"dur":90,"args":{"correlation":4,"stream":-1}}
  ])J");
  for (bool zero_launch : {true, false}) {
    ks::CpGraph h = ks::build_cp_graph(*t, ks::build_launch_join(*t), 0, 200000, zero_launch);
    CHECK(h.edges.size() > 10);
    CHECK(h.edges.capacity() == h.edges.size());
  }
}

// The builder's tables hold the slices with nodes, the window's: one step of many costs one
// step's rows, not the trace's (each row was 17 bytes on every slice).
TEST_CASE("Critical path: the graph's tables are the window's", "[analysis][critical_path]") {
  auto t = ks_test::load(R"J([
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"cpu_op","name":"aten::op","pid":1,"tid":1,"ts":10,"dur":80},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":20,"dur":10,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":35,"dur":5,"args":{"correlation":1,"stream":7,"device":0}},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":100,"dur":100},
    {"ph":"X","cat":"cpu_op","name":"aten::op","pid":1,"tid":1,"ts":110,"dur":80},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":120,"dur":10,"args":{"correlation":2}},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":135,"dur":5,"args":{"correlation":2,"stream":7,"device":0}},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":200,"dur":100},
    {"ph":"X","cat":"cpu_op","name":"aten::op","pid":1,"tid":1,"ts":210,"dur":80}
  ])J");
  ks::CpGraph g = ks::build_cp_graph(*t, ks::build_launch_join(*t), 100000, 200000, false);
  CHECK(g.nodes.size() == 6);  // the second step's op, call and kernel
  CHECK(g.table_rows == 3);
  CHECK(t->slices.size() == 10);
}

// The report's limit (analyze.cpp sets max_window_slices): a window holding more events than it
// is left to the command, with a sentence saying so; at the limit the path is computed.
TEST_CASE("Critical path: a window over the event limit is not computed",
          "[analysis][critical_path]") {
  auto t = ks_test::load(kOneLaunchStep);
  ks::CriticalPathOptions o;
  o.max_window_slices = 3;
  ks::CriticalPathResult r = path_of(*t, o);
  CHECK_FALSE(r.ok);
  CHECK(r.error.find("holds 4 events") != std::string::npos);
  CHECK(r.error.find("kinetoscope critical-path") != std::string::npos);
  o.max_window_slices = 4;
  CHECK(path_of(*t, o).ok);
}

// cudaLaunchKernel [10, 15] -> kernel [20, 150]; cudaDeviceSynchronize [20, 160] waits for it
// (Context Sync), then aten::add [165, 185] runs. The blocking call adds nothing itself; the sync
// edge joins the kernel's end to its end: launch.start -> kernel.start (launch delay 10) ->
// kernel.end (130) -> sync.end (0) -> add.start (dependency, 0) -> add.end (20) = 160.
// Without the sync edge the path would be the kernel's 140.
TEST_CASE("Critical path: a GPU-bound step ends in a device sync", "[analysis][critical_path]") {
  auto t = ks_test::load(R"J([
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":200},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":5,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":20,"dur":130,"args":{"correlation":1,"stream":7,"device":0}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":1,"tid":1,"ts":20,"dur":140,"args":{"correlation":2}},
    {"ph":"X","cat":"cuda_sync","name":"Context Sync","pid":0,"tid":-1,"ts":20,"dur":140,"args":{"correlation":2,"stream":-1,"device":0}},
    {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":165,"dur":20}
  ])J");
  ks::CriticalPathResult r = path_of(*t);
  REQUIRE(r.ok);
  CHECK(r.total == 160000);
  CHECK(us(r, ks::CpBound::kGpuCompute) == 130);
  CHECK(us(r, ks::CpBound::kGpuLaunch) == 10);
  CHECK(us(r, ks::CpBound::kCpu) == 20);
  CHECK(r.dominant() == ks::CpBound::kGpuCompute);
  REQUIRE(r.path.size() == 5);
  CHECK(r.path[2].type == ks::CpEdgeType::kSyncDependency);
  CHECK(t->str(t->slices.name[static_cast<size_t>(r.path[2].slice)]) == "cudaDeviceSynchronize");
  CHECK(r.path[3].type == ks::CpEdgeType::kDependency);
  CHECK(r.blocking_zeroed == 1);
}

// Three launches queue up on stream 7 before the first kernel starts, so the second and third
// kernels wait for the previous one (queue length 2 at their launch): kernel-kernel gaps.
// K1 [10, 50], K2 [52, 92], K3 [95, 100]; the stream sync ends at 101.
// Path: L1.start -> K1.start (zero-weight launch edge) -> 40 -> gap 2 -> 40 -> gap 3 -> 5 -> sync.
TEST_CASE("Critical path: kernel-kernel gaps on a busy stream", "[analysis][critical_path]") {
  auto t = ks_test::load(R"J([
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":5,"args":{"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":6,"dur":4,"args":{"correlation":2}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":11,"dur":3,"args":{"correlation":3}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":1,"tid":1,"ts":15,"dur":86,"args":{"correlation":4}},
    {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":10,"dur":40,"args":{"correlation":1,"stream":7}},
    {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":52,"dur":40,"args":{"correlation":2,"stream":7}},
    {"ph":"X","cat":"kernel","name":"k3","pid":0,"tid":7,"ts":95,"dur":5,"args":{"correlation":3,"stream":7}},
    {"ph":"X","cat":"cuda_sync","name":"Stream Sync","pid":0,"tid":7,"ts":15,"dur":86,"args":{"correlation":4,"stream":7}}
  ])J");
  ks::CriticalPathResult r = path_of(*t);  // no ProfilerStep: the whole trace
  REQUIRE(r.ok);
  CHECK(r.window_label == "whole trace");
  CHECK(r.total == 90000);
  CHECK(us(r, ks::CpBound::kGpuCompute) == 85);
  CHECK(us(r, ks::CpBound::kGpuKernelKernel) == 5);
  CHECK(us(r, ks::CpBound::kGpuLaunch) == 0);

  SECTION("without the zero-weight launch edges the path starts at the first kernel") {
    ks::CriticalPathOptions o;
    o.zero_weight_launch_edges = false;
    ks::CriticalPathResult r2 = path_of(*t, o);
    CHECK(r2.total == 90000);
    CHECK(r2.path.front().type == ks::CpEdgeType::kOperator);
  }
}

// cudaEventSynchronize waits on the event recorded after K1's launch: the Event Sync names the
// cudaEventRecord (correlation 2) and the stream (7); the last launch on stream 7 before that
// record is K1's; aten::add [71, 91] follows the wait. Path: L1.start -> K1.start (10) -> K1.end
// (50) -> eventSynchronize.end (sync) -> add (dependency, then 20) = 80. Without the sync edge
// the path would be the kernel's 60.
TEST_CASE("Critical path: cudaEventSynchronize waits for the recorded kernel",
          "[analysis][critical_path]") {
  auto t = ks_test::load(R"J([
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":5,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":10,"dur":50,"args":{"correlation":1,"stream":7}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaEventRecord","pid":1,"tid":1,"ts":6,"dur":2,"args":{"correlation":2}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaEventSynchronize","pid":1,"tid":1,"ts":9,"dur":61,"args":{"correlation":3}},
    {"ph":"X","cat":"cuda_sync","name":"Event Sync","pid":0,"tid":-1,"ts":9,"dur":52,"args":{"correlation":3,"stream":-1,"wait_on_stream":7,"wait_on_cuda_event_record_corr_id":2}},
    {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":71,"dur":20}
  ])J");
  ks::CriticalPathResult r = path_of(*t);
  REQUIRE(r.ok);
  CHECK(r.total == 80000);
  CHECK(us(r, ks::CpBound::kGpuLaunch) == 10);
  CHECK(us(r, ks::CpBound::kGpuCompute) == 50);
  CHECK(us(r, ks::CpBound::kCpu) == 20);
  REQUIRE(r.path.size() == 5);
  CHECK(r.path[2].type == ks::CpEdgeType::kSyncDependency);
  CHECK(t->str(t->slices.name[static_cast<size_t>(r.path[2].slice)]) == "cudaEventSynchronize");
}

// K2 on stream 8 waits (cudaStreamWaitEvent) for the event recorded after K1 on stream 7:
// K1 [5, 105], K2 [106, 116]. Path: L1.start -> K1.start (launch 5) -> K1.end (100) -> K2.start
// (sync, 0) -> K2.end (10) = 115. Without the wait, K2's start would count as a 99 us launch delay.
TEST_CASE("Critical path: cudaStreamWaitEvent orders kernels across streams",
          "[analysis][critical_path]") {
  auto t = ks_test::load(R"J([
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":2,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":5,"dur":100,"args":{"correlation":1,"stream":7}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaEventRecord","pid":1,"tid":1,"ts":3,"dur":1,"args":{"correlation":2}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaStreamWaitEvent","pid":1,"tid":1,"ts":5,"dur":1,"args":{"correlation":3}},
    {"ph":"X","cat":"cuda_sync","name":"Stream Wait Event","pid":0,"tid":8,"ts":6,"dur":1,"args":{"correlation":3,"stream":8,"wait_on_stream":7,"wait_on_cuda_event_record_corr_id":2}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":7,"dur":2,"args":{"correlation":4}},
    {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":8,"ts":106,"dur":10,"args":{"correlation":4,"stream":8}}
  ])J");
  ks::CriticalPathResult r = path_of(*t);
  REQUIRE(r.ok);
  CHECK(r.total == 115000);
  CHECK(us(r, ks::CpBound::kGpuLaunch) == 5);
  CHECK(us(r, ks::CpBound::kGpuCompute) == 110);
}

TEST_CASE("Critical path: windows by annotation and instance, and clear errors",
          "[analysis][critical_path]") {
  auto t = ks_test::load(R"J([
    {"ph":"X","cat":"user_annotation","name":"fwd","pid":1,"tid":1,"ts":0,"dur":50},
    {"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":20},
    {"ph":"X","cat":"user_annotation","name":"fwd","pid":1,"tid":1,"ts":100,"dur":50},
    {"ph":"X","cat":"cpu_op","name":"b","pid":1,"tid":1,"ts":101,"dur":30}
  ])J");
  ks::CriticalPathOptions o;
  o.annotation = "fwd";
  o.instance = 1;
  ks::CriticalPathResult r = path_of(*t, o);
  REQUIRE(r.ok);
  CHECK(r.total == 30000);
  o.instance = 0;
  CHECK(path_of(*t, o).total == 20000);
  o.whole_trace = true;  // both ops, joined by a weight-0 dependency
  CHECK(path_of(*t, o).total == 50000);
  o.whole_trace = false;
  o.instance = 2;
  ks::CriticalPathResult none = path_of(*t, o);
  CHECK_FALSE(none.ok);
  CHECK(none.error == "\"fwd\" has 2 instance(s); instance 2 asked for");
  o.annotation = "bwd";
  CHECK(path_of(*t, o).error == "no event's name contains \"bwd\"");
}

TEST_CASE("Critical path: the longest path of a graph, and a cycle", "[analysis][critical_path]") {
  ks::CpGraph g;
  for (int i = 0; i < 4; ++i) g.nodes.push_back({i * 10, 0, true});
  g.edges.push_back({0, 1, 10});
  g.edges.push_back({1, 3, 5});
  g.edges.push_back({0, 2, 3});
  g.edges.push_back({2, 3, 30});
  std::vector<uint32_t> p;
  REQUIRE(ks::longest_path(g, &p));
  CHECK(p == std::vector<uint32_t>{2, 3});
  g.edges.push_back({3, 0, 0});
  CHECK_FALSE(ks::longest_path(g, &p));
}
