// Steps from ProfilerStep#N markers with the TB plugin's device-adjusted bounds
// (src/analysis/steps.cpp).
#include "analysis/steps.h"

#include <catch2/catch.hpp>

#include "helpers.h"

namespace {

ks::StepsResult steps_of(const ks::Trace& t, bool drop_last = false) {
  return ks::find_steps(t, ks::build_launch_join(t), drop_last);
}

// Three host steps of 100, 100 and 50 us. Step 1 launches k1 at 10 us, which runs [20, 150):
// past the host step's end at 100. Step 2 launches k2, which runs [160, 180). Step 3 launches
// nothing.
const char* kThreeSteps = R"([
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
])";

}  // namespace

TEST_CASE("ProfilerStep names parse to step numbers", "[analysis][steps]") {
  int64_t n = -1;
  CHECK(ks::parse_profiler_step("ProfilerStep#12", &n));
  CHECK(n == 12);
  CHECK(ks::parse_profiler_step("ProfilerStep#0", &n));
  CHECK(n == 0);
  CHECK_FALSE(ks::parse_profiler_step("ProfilerStep#", &n));
  CHECK_FALSE(ks::parse_profiler_step("ProfilerStep#1a", &n));
  CHECK_FALSE(ks::parse_profiler_step("ProfilerStep", &n));
  CHECK_FALSE(ks::parse_profiler_step("MyProfilerStep#1", &n));
}

TEST_CASE("Steps get device-adjusted bounds as the TB plugin computes them", "[analysis][steps]") {
  auto t = ks_test::load(kThreeSteps);
  ks::StepsResult r = steps_of(*t);
  REQUIRE(r.steps.size() == 3);
  CHECK(r.found == 3);
  CHECK_FALSE(r.dropped_last);
  SECTION("a kernel launched in step 1 that ends after the host step extends the step") {
    // end = max(host end 100, k1 end 150) = 150.
    CHECK(r.steps[0].number == 1);
    CHECK(r.steps[0].host_begin == 0);
    CHECK(r.steps[0].host_end == 100000);
    CHECK(r.steps[0].begin == 0);
    CHECK(r.steps[0].end == 150000);
    CHECK(r.steps[0].slice == ks_test::slice_named(*t, "ProfilerStep#1"));
  }
  SECTION("the next step starts at max(previous end, host start)") {
    // Step 2: start = max(150, 100) = 150; end = max(200, k2 end 180) = 200.
    CHECK(r.steps[1].begin == 150000);
    CHECK(r.steps[1].end == 200000);
    CHECK(r.steps[1].dur() == 50000);
    // Step 3 launches nothing: its host bounds, start = max(200, 200).
    CHECK(r.steps[2].begin == 200000);
    CHECK(r.steps[2].end == 250000);
  }
  SECTION("stats are over the adjusted durations 150, 50, 50 us") {
    CHECK(r.stats.count == 3);
    CHECK(r.stats.total_ns == 250000);
    CHECK(r.stats.min_ns == 50000);
    CHECK(r.stats.max_ns == 150000);
    CHECK(r.stats.median_ns == 50000.0);
    // Mean 83333.3 ns; deviations 66666.7, -33333.3, -33333.3 ns: sample variance
    // (4.444e9 + 1.111e9 + 1.111e9) / 2 = 3.333e9, stddev 57735.03 ns.
    CHECK(r.stats.avg_ns == Approx(250000.0 / 3));
    CHECK(r.stats.stddev_ns == Approx(57735.026918962576));
    // spread = (150 - 50) / 50 = 200 %; CV = 57735.03 / 83333.33 = 69.28 %.
    CHECK(r.spread_pct == 200.0);
    CHECK(r.cv_pct == Approx(69.28203230275509));
  }
}

TEST_CASE("A launch at the very start of the next step belongs to the next step",
          "[analysis][steps]") {
  // Contiguous steps [0, 100) and [100, 200). The launch at 100 is in step 2 (TB plugin: a call
  // inside the step span, start >= step start and end <= step end); its kernel [150, 250)
  // extends step 2, not step 1.
  auto t = ks_test::load(R"([
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":100,"dur":100},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":100,"dur":5,
     "args":{"correlation":3}},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":150,"dur":100,
     "args":{"correlation":3,"stream":7}}
  ])");
  ks::StepsResult r = steps_of(*t);
  REQUIRE(r.steps.size() == 2);
  CHECK(r.steps[0].begin == 0);
  CHECK(r.steps[0].end == 100000);
  CHECK(r.steps[1].begin == 100000);
  CHECK(r.steps[1].end == 250000);
}

TEST_CASE("A launch that begins in a step and returns after its end extends that step",
          "[analysis][steps]") {
  // Steps [0, 100) and [100, 200) on thread 1. Thread 2 (a backward or comm thread) calls
  // cudaLaunchKernel at 95, returning at 105: the call began in step 1, so its kernel [110, 160)
  // is step 1's work, as the multi-rank table puts a collective in the step its launch began in
  // (multi_rank.cpp CommKernel::step_time_ns). Step 1 ends at 160, step 2 runs [160, 200).
  auto t = ks_test::load(R"([
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":100,"dur":100},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":2,"ts":95,"dur":10,
     "args":{"correlation":4}},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":110,"dur":50,
     "args":{"correlation":4,"stream":7}}
  ])");
  ks::StepsResult r = steps_of(*t);
  REQUIRE(r.steps.size() == 2);
  CHECK(r.steps[0].end == 160000);
  CHECK(r.steps[1].begin == 160000);
  CHECK(r.steps[1].end == 200000);
}

TEST_CASE("A step overtaken by the previous step's GPU work is empty, never negative",
          "[analysis][steps]") {
  // Step 1 [0, 100) launches a kernel that runs [20, 400): past steps 2 [100, 200) and
  // 3 [200, 300), which launch nothing. Step 2 starts at max(400, 100) = 400 and would end at
  // its host end 200; the TB plugin clamps the end to the start.
  auto t = ks_test::load(R"([
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":100,"dur":100},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":200,"dur":100},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":5,
     "args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":20,"dur":380,
     "args":{"correlation":1,"stream":7}}
  ])");
  ks::StepsResult r = steps_of(*t);
  REQUIRE(r.steps.size() == 3);
  CHECK(r.steps[0].end == 400000);
  CHECK(r.steps[1].begin == 400000);
  CHECK(r.steps[1].end == 400000);
  CHECK(r.steps[2].begin == 400000);
  CHECK(r.steps[2].end == 400000);
  CHECK(r.stats.min_ns == 0);
  CHECK(r.stats.total_ns == 400000);
}

TEST_CASE("drop_last leaves out the last step, as HTA does by default", "[analysis][steps]") {
  auto t = ks_test::load(kThreeSteps);
  SECTION("three steps: the last is dropped, the count of found markers stays") {
    ks::StepsResult r = steps_of(*t, true);
    REQUIRE(r.steps.size() == 2);
    CHECK(r.found == 3);
    CHECK(r.dropped_last);
    CHECK(r.steps.back().number == 2);
    CHECK(r.stats.count == 2);
    CHECK(r.stats.total_ns == 200000);  // 150 + 50
  }
  SECTION("a single step is kept") {
    auto one = ks_test::load(R"([
      {"ph":"X","cat":"user_annotation","name":"ProfilerStep#4","pid":1,"tid":1,"ts":0,"dur":9}
    ])");
    ks::StepsResult r = steps_of(*one, true);
    CHECK(r.steps.size() == 1);
    CHECK_FALSE(r.dropped_last);
  }
}

TEST_CASE("A last step cut by the capture's end is left out of the step times",
          "[analysis][steps]") {
  // Three steps of 8 ms and a fourth: torch.profiler without a schedule ends on a step the last
  // prof.step() opened and the profiler's exit closed (40 us, no GPU work); a B event never
  // closed is a range the capture stopped inside.
  auto with_last = [](const char* last) {
    return ks_test::load(std::string(R"([
      {"ph":"X","cat":"user_annotation","name":"ProfilerStep#0","pid":1,"tid":1,"ts":0,"dur":8000},
      {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":8000,"dur":8000},
      {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":16000,"dur":8000},
      {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":24000,"dur":3000},
      )") + last + "]");
  };
  SECTION("a step under a quarter of the others' median") {
    auto t = with_last(
        R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":24000,"dur":40})");
    ks::StepsResult r = steps_of(*t);
    CHECK(r.found == 4);
    REQUIRE(r.steps.size() == 3);
    CHECK(r.last_cut == ks::StepsResult::LastStepCut::kShort);
    CHECK(r.last_cut_dur == 40000);
    CHECK(r.stats.max_ns == r.stats.min_ns);
    CHECK_FALSE(r.dropped_last);
    // drop_last does not drop a second one: the cut step was the incomplete last step.
    CHECK(steps_of(*t, true).steps.size() == 3);
  }
  SECTION("a step half as long as the others is the loop's own") {
    auto t = with_last(
        R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":24000,"dur":4000})");
    ks::StepsResult r = steps_of(*t);
    CHECK(r.steps.size() == 4);
    CHECK(r.last_cut == ks::StepsResult::LastStepCut::kNone);
  }
  SECTION("a step range still open when the capture stopped, however long") {
    auto t = with_last(
        R"({"ph":"B","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":24000})");
    ks::StepsResult r = steps_of(*t);
    REQUIRE(r.steps.size() == 3);
    CHECK(r.last_cut == ks::StepsResult::LastStepCut::kOpen);
    CHECK(r.last_cut_dur == 3000000);  // closed at the thread's last timestamp
    CHECK(ks_test::report_of(*t).find("open_at_capture_end") != std::string::npos);
  }
}

TEST_CASE("A step that replays a CUDA graph ends with the graph's last kernel",
          "[analysis][steps]") {
  // One cudaGraphLaunch per step; its three kernels all carry the launch's correlation id (as
  // Kineto writes a replay). The step ends when the last of them does, not the first.
  std::string events;
  for (int step = 0; step < 2; ++step) {
    const int t0 = step * 1000;
    events += R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#)" + std::to_string(step) +
              R"(","pid":1,"tid":1,"ts":)" + std::to_string(t0) + R"(,"dur":50},)";
    events += R"({"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":1,"tid":1,"ts":)" +
              std::to_string(t0 + 10) + R"(,"dur":5,"args":{"correlation":)" +
              std::to_string(step + 1) + "}},";
    for (int k = 0; k < 3; ++k)
      events += R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" +
                std::to_string(t0 + 20 + k * 300) + R"(,"dur":300,"args":{"correlation":)" +
                std::to_string(step + 1) + R"(,"stream":7}},)";
  }
  events.pop_back();
  auto t = ks_test::load("[" + events + "]");
  ks::StepsResult r = steps_of(*t);
  REQUIRE(r.steps.size() == 2);
  CHECK(r.steps[0].end == 920000);  // the third kernel's end, not the first's (320 us)
  CHECK(r.steps[1].begin == 1000000);
  CHECK(r.steps[1].end == 1920000);
}

TEST_CASE("Step markers: one per number, host side only, in time order", "[analysis][steps]") {
  // ProfilerStep#8 appears on two threads: the longer marker wins. #7 starts later than #8 in
  // this trace: steps are ordered by time, not number. A GPU-side range named like a step is not
  // a marker.
  auto t = ks_test::load(R"([
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#8","pid":1,"tid":1,"ts":0,"dur":40},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#8","pid":1,"tid":2,"ts":0,"dur":60},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#7","pid":1,"tid":1,"ts":60,"dur":30},
    {"ph":"X","cat":"gpu_user_annotation","name":"ProfilerStep#9","pid":0,"tid":7,"ts":0,"dur":5}
  ])");
  ks::StepsResult r = steps_of(*t);
  REQUIRE(r.steps.size() == 2);
  CHECK(r.steps[0].number == 8);
  CHECK(r.steps[0].host_end == 60000);
  CHECK(r.steps[1].number == 7);
  CHECK(r.steps[1].begin == 60000);
}

TEST_CASE("Nested or overlapping ProfilerSteps: only steps that follow one another are kept",
          "[analysis][steps]") {
  // #2 is nested in #1 and #3 starts inside #1: both are dropped, as repeats of a range are.
  // #4 starts where #1 ends and is kept.
  auto t = ks_test::load(R"([
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":10,"dur":20},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":90,"dur":40},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#4","pid":1,"tid":1,"ts":100,"dur":50}
  ])");
  ks::StepsResult r = steps_of(*t);
  REQUIRE(r.steps.size() == 2);
  CHECK(r.found == 2);
  CHECK(r.steps[0].number == 1);
  CHECK(r.steps[0].host_end == 100000);
  CHECK(r.steps[1].number == 4);
  CHECK(r.steps[1].begin == 100000);
  // The two left out are counted for the report's note (they were dropped without a word).
  CHECK(r.overlapping_left_out == 2);
  CHECK(r.first_overlapping_name == "ProfilerStep#2");
  CHECK(r.first_overlapping_begin == 10000);
}

TEST_CASE("The first step's backlog is the GPU's busy time on earlier work, not its extent",
          "[analysis][steps]") {
  // Two steps of 10 ms. Kernels q1, q2 (2 ms each) have no launch in the capture (queued before
  // it began); k1 and k2 are launched in steps 1 and 2. Running from the step's start, q1 and q2
  // keep the GPU busy with earlier work for 4 ms. Moved 5 ms later (the CPU spent the step's
  // first 5 ms on one-time work while the GPU sat idle), they are still 4 ms of backlog, and
  // the 5 idle ms are the step's own time. A 1 ms idle stretch between them is the step's too.
  auto trace_with_queued_at = [](int q1_us, int q2_us) {
    return ks_test::load(R"([
      {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":10000},
      {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":10000,"dur":10000},
      {"ph":"X","cat":"kernel","name":"q1","pid":0,"tid":7,"ts":)" +
                         std::to_string(q1_us) +
                         R"(,"dur":2000,"args":{"stream":7}},
      {"ph":"X","cat":"kernel","name":"q2","pid":0,"tid":7,"ts":)" +
                         std::to_string(q2_us) +
                         R"(,"dur":2000,"args":{"stream":7}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":7000,"dur":5,
       "args":{"correlation":1}},
      {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":9000,"dur":500,
       "args":{"correlation":1,"stream":7}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":17000,"dur":5,
       "args":{"correlation":2}},
      {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":18000,"dur":1000,
       "args":{"correlation":2,"stream":7}}
    ])");
  };
  SECTION("running from the step's start") {
    auto t = trace_with_queued_at(0, 2000);
    ks::StepsResult r = steps_of(*t);
    REQUIRE(r.steps.size() == 2);
    CHECK(r.steps[0].queued_ns == 4000000);
    CHECK(r.steps[1].queued_ns == 0);
  }
  SECTION("reached after the GPU sat idle 5 ms: the idle time is the step's own") {
    auto t = trace_with_queued_at(5000, 7000);
    ks::StepsResult r = steps_of(*t);
    REQUIRE(r.steps.size() == 2);
    CHECK(r.steps[0].queued_ns == 4000000);
    CHECK(r.steps[0].own_dur() == r.steps[0].dur() - 4000000);
  }
  SECTION("an idle millisecond inside the backlog") {
    auto t = trace_with_queued_at(0, 3000);
    ks::StepsResult r = steps_of(*t);
    REQUIRE(r.steps.size() == 2);
    CHECK(r.steps[0].queued_ns == 4000000);
  }
}

TEST_CASE("A trace without markers has no steps", "[analysis][steps]") {
  auto t = ks_test::load(R"([{"ph":"X","name":"op","pid":1,"tid":1,"ts":0,"dur":5}])");
  ks::StepsResult r = steps_of(*t);
  CHECK(r.steps.empty());
  CHECK(r.found == 0);
  CHECK(r.stats.count == 0);
  CHECK(r.cv_pct == 0.0);
}

TEST_CASE("One range named like a step is the step when it holds most of the capture",
          "[analysis][steps]") {
  // nsys --capture-range=nvtx -p train_step: the capture is one train_step range.
  auto one = ks_test::load(R"([
    {"ph":"X","cat":"user_annotation","name":"train_step","pid":1,"tid":1,"ts":10,"dur":180},
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":20,"dur":50},
    {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":150,"dur":30}
  ])");
  ks::StepsResult r = steps_of(*one);
  REQUIRE(r.steps.size() == 1);
  CHECK(r.source == ks::StepSource::kStepLikeRange);
  CHECK(r.range_name == "train_step");
  // A lone optimizer_step inside a loop holds a sliver of the capture: not a step.
  auto sliver = ks_test::load(R"([
    {"ph":"X","cat":"user_annotation","name":"forward","pid":1,"tid":1,"ts":0,"dur":150},
    {"ph":"X","cat":"user_annotation","name":"optimizer_step","pid":1,"tid":1,"ts":160,"dur":20},
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":180,"dur":20}
  ])");
  CHECK(steps_of(*sliver).steps.empty());
}

TEST_CASE(
    "One range named like a step is the step when it holds the GPU's work of a longer capture",
    "[analysis][steps]") {
  // A whole-process capture (nsys profile without --capture-range) of one step: CUDA's context
  // made in the first cudaMalloc (400 us) and a profiler thread's poll before and after the step
  // make the capture four times the step, whose range holds every kernel.
  auto whole = ks_test::load(R"([
    {"ph":"X","cat":"cuda_runtime","name":"cudaMalloc","pid":1,"tid":1,"ts":0,"dur":400},
    {"ph":"X","cat":"user_annotation","name":"step 1","pid":1,"tid":1,"ts":500,"dur":200},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":510,"dur":5,
     "args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":520,"dur":170,
     "args":{"correlation":1,"stream":7,"device":0}},
    {"ph":"X","cat":"cpu_op","name":"poll","pid":1,"tid":9,"ts":50,"dur":750}
  ])");
  ks::StepsResult r = steps_of(*whole);
  REQUIRE(r.steps.size() == 1);
  CHECK(r.range_name == "step");
  // A lone optimizer_step holds a sliver of the GPU's work too: still not a step.
  auto sliver = ks_test::load(R"([
    {"ph":"X","cat":"cuda_runtime","name":"cudaMalloc","pid":1,"tid":1,"ts":0,"dur":400},
    {"ph":"X","cat":"user_annotation","name":"optimizer_step","pid":1,"tid":1,"ts":650,"dur":20},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":510,"dur":5,
     "args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":520,"dur":170,
     "args":{"correlation":1,"stream":7,"device":0}},
    {"ph":"X","cat":"cpu_op","name":"poll","pid":1,"tid":9,"ts":50,"dur":750}
  ])");
  CHECK(steps_of(*sliver).steps.empty());
}

TEST_CASE("ProfilerSteps of several processes (ranks merged into one file): one process's steps",
          "[analysis][steps]") {
  // Two ranks, pids 20 and 10, each with steps 1..3 of 100 us, rank 20's 30 us later (its
  // clock); rank 20 launches a kernel in its step 2. The longest marker per number across both
  // mixed them (#1 of pid 20, #2 of pid 10, which begins inside it and was left out, ...). Both
  // have 3 numbers and pid 10's first marker is the earlier: its steps are kept, whichever process
  // the file names first.
  const char* kMerged = R"([
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":20,"tid":2,"ts":30,"dur":101},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":20,"tid":2,"ts":131,"dur":99},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":20,"tid":2,"ts":230,"dur":101},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":10,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":10,"tid":1,"ts":100,"dur":100},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":10,"tid":1,"ts":200,"dur":100},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":20,"tid":2,"ts":240,"dur":5,
     "args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"k","pid":1,"tid":7,"ts":250,"dur":200,
     "args":{"correlation":1,"stream":7,"device":1}}
  ])";
  auto t = ks_test::load(kMerged);
  ks::StepsResult r = steps_of(*t);
  REQUIRE(r.steps.size() == 3);
  CHECK(r.overlapping_left_out == 0);
  for (int i = 0; i < 3; ++i) {
    CHECK(r.steps[i].number == i + 1);
    CHECK(r.steps[i].host_begin == i * 100000);
    CHECK(r.steps[i].host_end == (i + 1) * 100000);
  }
  // Pid 20's kernel, running to 450 us, does not stretch pid 10's last step.
  CHECK(r.steps[2].end == 300000);
  CHECK(r.step_processes == 2);
  CHECK(r.step_process_pid == "10");
  CHECK(ks::steps_note(r, false).find("of process 10, one of 2 processes") == 0);
  // One process, as Kineto writes a rank: no note, the report's bytes as before.
  auto one = ks_test::load(kThreeSteps);
  ks::StepsResult r1 = steps_of(*one);
  CHECK(r1.step_processes == 0);
  CHECK(ks::steps_note(r1, false).empty());
}
