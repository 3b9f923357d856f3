// The rules without a planted pathology trace, on small hand-made traces: capture mistakes
// (capture_mistake_rules.cpp), step numbering (step_rules.cpp), long GPU gaps, memory, the
// multi-GPU strategy (workload_rules.cpp), SM efficiency, and the Python line of a sync.
#include <catch2/catch.hpp>

#include "analysis/python_source.h"
#include "findings/finding_run.h"

namespace {

using Run = ks_test::FindingRun;
constexpr auto run = ks_test::run_findings_on;
constexpr auto find = ks_test::find_finding;
constexpr auto num = ks_test::evidence_number;
constexpr auto text = ks_test::evidence_text;

// `n` steps of 100 us each, ProfilerStep#first.., on pid 1 tid 1.
std::string steps(int n, int first = 1, int gap_after = -1) {
  std::string out;
  int number = first;
  for (int i = 0; i < n; ++i, ++number) {
    if (i == gap_after) number += 3;
    out += R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#)" + std::to_string(number) +
           R"(","pid":1,"tid":1,"ts":)" + std::to_string(i * 100) + R"(,"dur":100},)";
  }
  return out;
}

// Three steps and one plain aten::mm, in an object whose top level sets `flag` to 1.
std::string mm_with_top_level_flag(const std::string& flag) {
  return R"J({")J" + flag + R"J(":1,"traceEvents":[)J" + steps(3) +
         R"J({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":5,"dur":5}]})J";
}

}  // namespace

TEST_CASE("capture.diagnostic_flags: stacks, shapes or memory events seen", "[findings][capture]") {
  SECTION("a Call stack arg and [memory] events") {
    Run r = run("[" + steps(3) + R"J(
      {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":5,"dur":5,
       "args":{"Call stack":"train.py(12): step;torch/nn/modules/module.py(1501): _call_impl"}},
      {"ph":"i","cat":"[memory]","name":"[memory]","pid":1,"tid":1,"ts":6,"s":"t",
       "args":{"Device Id":0,"Bytes":4,"Total Allocated":4,"Total Reserved":8}}
    ])J");
    const ks::Finding* f = find(r, "capture.diagnostic_flags");
    REQUIRE(f);
    CHECK(text(*f, "flags") == "with_stack, profile_memory");
    CHECK(num(*f, "memory_events") == 1);
  }
  SECTION("the top-level record_shapes flag") {
    Run r = run(mm_with_top_level_flag("record_shapes"));
    const ks::Finding* f = find(r, "capture.diagnostic_flags");
    REQUIRE(f);
    CHECK(text(*f, "flags") == "record_shapes");
  }
  SECTION("clean twin: no flags") {
    Run r = run("[" + steps(3) +
                R"J({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":5,"dur":5}])J");
    CHECK(find(r, "capture.diagnostic_flags") == nullptr);
  }
  // Each flag on its own: the rule used to say nothing unless stacks, shapes or memory were seen.
  SECTION("a flops arg (with_flops)") {
    Run r = run("[" + steps(3) + R"J({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,
        "tid":1,"ts":5,"dur":5,"args":{"flops":12288}}])J");
    const ks::Finding* f = find(r, "capture.diagnostic_flags");
    REQUIRE(f);
    CHECK(text(*f, "flags") == "with_flops");
  }
  SECTION("the top-level with_modules flag alone") {
    Run r = run(mm_with_top_level_flag("with_modules"));
    const ks::Finding* f = find(r, "capture.diagnostic_flags");
    REQUIRE(f);
    CHECK(text(*f, "flags") == "with_modules");
  }
  SECTION("CUPTI metrics: cuda_profiler_range slices in place of kernels") {
    Run r = run("[" + steps(3) + R"J(
      {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":5,"dur":5},
      {"ph":"X","cat":"cuda_profiler_range","name":"ampere_sgemm_128x64_nn","pid":0,"tid":0,
       "ts":0,"dur":150,"args":{"sm__inst_executed_pipe_tensor.sum":0.0}},
      {"ph":"X","cat":"cuda_profiler_range","name":"ampere_sgemm_128x64_nn","pid":0,"tid":0,
       "ts":150,"dur":150,"args":{"sm__inst_executed_pipe_tensor.sum":0.0}}
    ])J");
    const ks::Finding* f = find(r, "capture.diagnostic_flags");
    REQUIRE(f);
    CHECK(text(*f, "flags") == "profiler_metrics");
    CHECK(num(*f, "metric_ranges") == 2);
    CHECK_FALSE(r.analyses.gpu_idle.has_gpu_ops);
  }
}

TEST_CASE("capture.warmup_ops: allocator and module loading inside the steps",
          "[findings][capture]") {
  // Inside steps [0, 300): cudaMalloc 20 us, cuModuleLoadData 10 us; a cudaMalloc at 400 us is
  // outside the steps and does not count.
  Run r = run("[" + steps(3) + R"J(
    {"ph":"X","cat":"cuda_runtime","name":"cudaMalloc","pid":1,"tid":1,"ts":10,"dur":20},
    {"ph":"X","cat":"cuda_driver","name":"cuModuleLoadData","pid":1,"tid":1,"ts":150,"dur":10},
    {"ph":"X","cat":"cuda_runtime","name":"cudaMalloc","pid":1,"tid":1,"ts":400,"dur":20}
  ])J");
  const ks::Finding* f = find(r, "capture.warmup_ops");
  REQUIRE(f);
  CHECK(num(*f, "calls") == 2);
  CHECK(num(*f, "total_us") == 30);
  CHECK(num(*f, "share_pct") == 10);  // 30 of 300 us
  CHECK(f->severity == ks::Severity::kWarning);
  CHECK(num(*f, "allocator (cudaMalloc/cudaFree)") == 1);
  CHECK(num(*f, "module loading / JIT") == 1);
  Run clean = run(
      "[" + steps(3) +
      R"J({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":2}])J");
  CHECK(find(clean, "capture.warmup_ops") == nullptr);
  // CUDA's lazy loading as CUPTI reports it (Kineto's "overhead" records, on pid -1).
  Run lazy = run("[" + steps(3) + R"J(
    {"ph":"X","cat":"overhead","name":"Lazy Function Loading","pid":-1,"tid":0,"ts":10,"dur":40},
    {"ph":"X","cat":"overhead","name":"Runtime Triggered Module Loading","pid":-1,"tid":0,"ts":60,"dur":20},
    {"ph":"X","cat":"overhead","name":"Activity Buffer Request","pid":-1,"tid":0,"ts":90,"dur":50}
  ])J");
  const ks::Finding* g = find(lazy, "capture.warmup_ops");
  REQUIRE(g);
  CHECK(num(*g, "module loading / JIT") == 2);
  CHECK(num(*g, "total_us") == 60);
}

TEST_CASE("memory.alloc_every_step: allocator calls in nearly every step are churn, not warm-up",
          "[findings][capture]") {
  // Four steps [0, 400): cudaFree + cudaMalloc (10 us each) in steps 1, 2 and 3 of 4 (three
  // quarters), and a module load in step 1, which stays warm-up.
  std::string calls;
  for (int st : {0, 1, 2}) {
    const std::string at = std::to_string(st * 100 + 20);
    const std::string then = std::to_string(st * 100 + 40);
    calls +=
        R"({"ph":"X","cat":"cuda_runtime","name":"cudaFree","pid":1,"tid":1,"ts":)" + at +
        R"(,"dur":10},{"ph":"X","cat":"cuda_runtime","name":"cudaMalloc","pid":1,"tid":1,"ts":)" +
        then + R"(,"dur":10},)";
  }
  Run r = run(
      "[" + steps(4) + calls +
      R"J({"ph":"X","cat":"cuda_driver","name":"cuModuleLoadData","pid":1,"tid":1,"ts":60,"dur":10}])J");
  const ks::Finding* churn = find(r, "memory.alloc_every_step");
  REQUIRE(churn);
  CHECK(num(*churn, "steps_with_calls") == 3);
  CHECK(num(*churn, "steps") == 4);
  CHECK(num(*churn, "calls") == 6);
  CHECK(num(*churn, "total_us") == 60);
  CHECK(churn->severity == ks::Severity::kWarning);  // 60 of 400 us
  CHECK(churn->ranges.at(0).begin_ns == 20000);      // the first call: cudaFree at 20 us
  // The warm-up finding keeps the module load only.
  const ks::Finding* warmup = find(r, "capture.warmup_ops");
  REQUIRE(warmup);
  CHECK(num(*warmup, "calls") == 1);
  CHECK(warmup->title.find("allocator") == std::string::npos);
  CHECK(warmup->ranges.at(0).begin_ns == 60000);
  // In half of the steps only: warm-up, as before.
  std::string half = calls.substr(0, calls.find("{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":"
                                                "\"cudaFree\",\"pid\":1,\"tid\":1,\"ts\":220"));
  Run early = run("[" + steps(4) + half.substr(0, half.size() - 1) + "]");
  CHECK(find(early, "memory.alloc_every_step") == nullptr);
  REQUIRE(find(early, "capture.warmup_ops"));
  CHECK(num(*find(early, "capture.warmup_ops"), "calls") == 4);
}

TEST_CASE("steps.few_active: step numbers missing, not one step", "[findings][steps]") {
  Run one = run("[" + steps(1) + "]");
  CHECK(find(one, "steps.few_active") == nullptr);
  // Steps #1, #2, then #6, #7 (#3..#5 missing).
  Run gap = run("[" + steps(4, 1, 2) + "]");
  const ks::Finding* f = find(gap, "steps.few_active");
  REQUIRE(f);
  CHECK(num(*f, "missing_numbers") == 3);
  CHECK(f->title == "3 step numbers are missing inside the capture (after ProfilerStep#2)");
  Run clean = run("[" + steps(4) + "]");
  CHECK(find(clean, "steps.few_active") == nullptr);
}

TEST_CASE("capture.too_long: more than 20 steps", "[findings][capture]") {
  Run r = run("[" + steps(21) + "]");
  const ks::Finding* f = find(r, "capture.too_long");
  REQUIRE(f);
  CHECK(num(*f, "steps") == 21);
  CHECK(find(run("[" + steps(20) + "]"), "capture.too_long") == nullptr);
}

TEST_CASE("capture.errors, capture.no_distributed_info, capture.clock_oddities",
          "[findings][capture]") {
  SECTION("an exception recorded as an annotation") {
    Run r = run(
        "[" + steps(3) +
        R"J({"ph":"X","cat":"user_annotation","name":"retry_after_RuntimeError","pid":1,"tid":1,"ts":5,"dur":5}])J");
    const ks::Finding* f = find(r, "capture.errors");
    REQUIRE(f);
    CHECK(num(*f, "events") == 1);
  }
  SECTION("collectives without distributedInfo, and with it") {
    const std::string events =
        steps(3) +
        R"J({"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce","pid":0,"tid":7,"ts":5,"dur":5,"args":{"stream":7}}])J";
    Run r = run("[" + events);
    REQUIRE(find(r, "capture.no_distributed_info"));
    Run with =
        run(R"J({"distributedInfo":{"rank":0,"world_size":2},"traceEvents":[)J" + events + "}");
    CHECK(find(with, "capture.no_distributed_info") == nullptr);
  }
  SECTION("GPU ops that start before their launch began") {
    // 10 launches at 10 + 20 i us whose kernels start 5 us earlier.
    std::string events = steps(3);
    for (int i = 0; i < 10; ++i) {
      const int corr = i + 1, ts = 10 + 20 * i;
      events +=
          R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" +
          std::to_string(ts) + R"(,"dur":2,"args":{"correlation":)" + std::to_string(corr) + "}},";
      events += R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" +
                std::to_string(ts - 5) + R"(,"dur":1,"args":{"stream":7,"correlation":)" +
                std::to_string(corr) + "}}" + (i < 9 ? "," : "");
    }
    Run r = run("[" + events + "]");
    const ks::Finding* f = find(r, "capture.clock_oddities");
    REQUIRE(f);
    CHECK(num(*f, "ops_before_launch") == 10);
    // The first of them on the timeline: kernel at 5 us, its launch [10, 12) us.
    REQUIRE(f->ranges.size() == 1);
    CHECK(f->ranges[0].end_ns - f->ranges[0].begin_ns == 7000);
    CHECK(f->events.size() == 2);
  }
}

TEST_CASE("gpu.long_gaps: more than 500 ms without GPU work between GPU ops", "[findings][gpu]") {
  // Kernels at 0 and 600 ms (gap 600 ms) and 700 ms (gap 100 ms).
  Run r = run(R"J([
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":0,"dur":10,"args":{"stream":7}},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":600000,"dur":10,"args":{"stream":7}},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":700000,"dur":10,"args":{"stream":7}}
  ])J");
  const ks::Finding* f = find(r, "gpu.long_gaps");
  REQUIRE(f);
  CHECK(num(*f, "gaps") == 1);
  CHECK(num(*f, "longest_us") == 599990);
  REQUIRE(f->ranges.size() == 1);
  CHECK(f->ranges[0].begin_ns - r.trace->facts.start_ns == 10000);
}

TEST_CASE("memory.peak_high: peak over 90% of the device", "[findings][memory]") {
  const std::string device =
      R"J({"deviceProperties":[{"id":0,"name":"GPU","totalGlobalMem":1000}],"traceEvents":[)J";
  auto mem = [](int ts, int bytes, int allocated, int reserved) {
    return R"({"ph":"i","cat":"[memory]","name":"[memory]","pid":1,"tid":1,"ts":)" +
           std::to_string(ts) + R"(,"s":"t","args":{"Device Id":0,"Bytes":)" +
           std::to_string(bytes) + R"(,"Total Allocated":)" + std::to_string(allocated) +
           R"(,"Total Reserved":)" + std::to_string(reserved) + "}}";
  };
  SECTION("many allocations up to 95%: a warning") {
    std::string events;
    for (int i = 0; i < 10; ++i)
      events += mem(i, 90, 90 * (i + 1), 95 * (i + 1)) + (i < 9 ? "," : "");
    Run r = run(device + events + "]}");
    const ks::Finding* f = find(r, "memory.peak_high");
    REQUIRE(f);
    CHECK(f->severity == ks::Severity::kWarning);
    CHECK(num(*f, "peak_pct") == 95.0);
  }
  SECTION("one allocation of 92% (a pre-allocated cache): for information") {
    Run r = run(device + mem(1, 920, 920, 930) + "]}");
    const ks::Finding* f = find(r, "memory.peak_high");
    REQUIRE(f);
    CHECK(f->severity == ks::Severity::kInfo);
  }
  SECTION("92% allocated before the capture, 1% allocated in it: reserved up front, silent") {
    Run r = run(device + mem(1, 10, 930, 950) + "," + mem(2, -10, 920, 950) + "]}");
    CHECK(find(r, "memory.peak_high") == nullptr);
  }
  SECTION("92% allocated before the capture, and 6% more in it (headroom 1%): a warning") {
    Run r = run(device + mem(1, 60, 980, 990) + "]}");
    const ks::Finding* f = find(r, "memory.peak_high");
    REQUIRE(f);
    CHECK(num(*f, "allocated_before_capture_bytes") == 920);
  }
  SECTION("80%: silent") {
    Run r = run(device + mem(1, 100, 800, 800) + "]}");
    CHECK(find(r, "memory.peak_high") == nullptr);
  }
}

TEST_CASE("parallel.data_parallel: DataParallel on two GPUs", "[findings][parallel]") {
  const std::string events = R"J([
    {"ph":"X","cat":"cpu_op","name":"DataParallel.forward","pid":1,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":10,"args":{"device":0,"stream":7}})J";
  Run two = run(events + R"J(,
    {"ph":"X","cat":"kernel","name":"k","pid":1,"tid":7,"ts":10,"dur":10,"args":{"device":1,"stream":7}}])J");
  const ks::Finding* f = find(two, "parallel.data_parallel");
  REQUIRE(f);
  CHECK(num(*f, "gpus") == 2);
  Run one = run(events + "]");
  CHECK(find(one, "parallel.data_parallel") == nullptr);
}

TEST_CASE("The Python line of a CPU op: Call stack arg or python_function frames",
          "[findings][python_source]") {
  CHECK(ks::user_frame("train.py(57): train_step") == "train.py:57 (train_step)");
  CHECK(ks::user_frame(
            "/usr/lib/python3/dist-packages/torch/nn/modules/module.py(1501): _call_impl") == "");
  CHECK(ks::user_frame("<built-in method item>") == "");
  auto t = ks_test::load(R"J([
    {"ph":"X","cat":"python_function","name":"train.py(57): train_step","pid":1,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"python_function","name":"torch/_tensor.py(900): item","pid":1,"tid":1,"ts":10,"dur":50},
    {"ph":"X","cat":"cpu_op","name":"aten::item","pid":1,"tid":1,"ts":20,"dur":30},
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":2,"ts":0,"dur":30,
     "args":{"Call stack":"/site-packages/torch/functional.py(10): f;model.py(33): forward;train.py(9): <module>"}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":2,"ts":5,"dur":3}
  ])J");
  CHECK(ks::python_source_of(*t, ks_test::slice_named(*t, "aten::item")) ==
        "train.py:57 (train_step)");
  CHECK(ks::python_source_of(*t, ks_test::slice_named(*t, "cudaLaunchKernel")) ==
        "model.py:33 (forward)");
}
