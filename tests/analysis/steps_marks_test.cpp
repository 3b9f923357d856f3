// Steps between NVTX marks (nvtxMark("train_step") at each iteration: instants, no length) when a
// trace has no step range (src/analysis/steps.h). Traces BUILT here as Kineto-style JSON with
// "i" events of cat "user_annotation", as the nsys importer stores a mark.
#include <catch2/catch.hpp>

#include "analysis/analyze.h"
#include "analysis/steps.h"
#include "helpers.h"

namespace {

ks::StepsResult steps_of(const ks::Trace& t, const std::string& range = "") {
  return ks::find_steps(t, ks::build_launch_join(t), false, range);
}

// Four "train_step" marks 100 us apart on thread 1 (written out of time order, as nsys 2025.6+
// may); step 0 launches a kernel that runs to 150 us, past the next mark; a "loss" mark per step
// is no step.
const char* kMarkSteps = R"JSON([
  {"ph":"i","s":"t","cat":"user_annotation","name":"train_step","pid":1,"tid":1,"ts":200},
  {"ph":"i","s":"t","cat":"user_annotation","name":"train_step","pid":1,"tid":1,"ts":0},
  {"ph":"i","s":"t","cat":"user_annotation","name":"train_step","pid":1,"tid":1,"ts":100},
  {"ph":"i","s":"t","cat":"user_annotation","name":"train_step","pid":1,"tid":1,"ts":300},
  {"ph":"i","s":"t","cat":"user_annotation","name":"loss 0","pid":1,"tid":1,"ts":90},
  {"ph":"i","s":"t","cat":"user_annotation","name":"loss 1","pid":1,"tid":1,"ts":190},
  {"ph":"i","s":"t","cat":"user_annotation","name":"loss 2","pid":1,"tid":1,"ts":290},
  {"ph":"X","cat":"user_annotation","name":"forward","pid":1,"tid":1,"ts":5,"dur":50},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":5,
   "args":{"correlation":1}},
  {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":20,"dur":130,
   "args":{"correlation":1,"stream":7,"device":0}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":210,"dur":5,
   "args":{"correlation":2}},
  {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":220,"dur":30,
   "args":{"correlation":2,"stream":7,"device":0}}
])JSON";

}  // namespace

TEST_CASE("Without step ranges, NVTX marks named like a step make a step from each to the next",
          "[analysis][steps][nvtx_marks]") {
  auto t = ks_test::load(kMarkSteps);
  ks::StepsResult r = steps_of(*t);
  // Four marks, three steps: the time after the last mark has no end in the trace.
  REQUIRE(r.steps.size() == 3);
  CHECK(r.source == ks::StepSource::kNvtxMarks);
  CHECK(r.range_name == "train_step");
  CHECK(std::string(ks::step_source_name(r.source)) == "nvtx_marks");
  for (const ks::Step& st : r.steps) {
    CHECK_FALSE(st.has_slice());  // no slice of its own: findings point at its time range
    CHECK(ks::step_name(*t, st) == "train_step");
  }
  CHECK(r.steps[0].number == 0);
  CHECK(r.steps[2].number == 2);
  CHECK(r.steps[0].host_begin == 0);
  CHECK(r.steps[0].host_end == 100000);
  // Device-adjusted as for ranges: k1, launched in step 0, ends at 150 us.
  CHECK(r.steps[0].end == 150000);
  CHECK(r.steps[1].begin == 150000);
  const std::string note = ks::steps_note(r, true);
  CHECK(note.find("NVTX marks \"train_step\"") != std::string::npos);
  CHECK(note.find("4 marks, 3 steps") != std::string::npos);

  // The whole analysis runs on them: GPU idle within the steps, the critical path by its step's
  // time range (no slice to name it): step 1, as step 0 (150 us, 2x the others) is a warm-up.
  ks::Analyses a = ks::analyze(*t, ks::AnalysisOptions{});
  CHECK(a.steps.steps.size() == 3);
  CHECK(a.gpu_idle.window_is_steps);
  CHECK(a.critical_path.window_label == "train_step #1");
  CHECK(a.critical_path.window_begin == 100000);
}

TEST_CASE("Marks make steps only as a series: named like a step, three or more, one thread",
          "[analysis][steps][nvtx_marks]") {
  SECTION("two marks are one interval, nothing to compare") {
    auto t = ks_test::load(R"([
      {"ph":"i","s":"t","cat":"user_annotation","name":"step","pid":1,"tid":1,"ts":0},
      {"ph":"i","s":"t","cat":"user_annotation","name":"step","pid":1,"tid":1,"ts":100}
    ])");
    CHECK(steps_of(*t).steps.empty());
  }
  SECTION("marks of other names are not steps") {
    auto t = ks_test::load(R"([
      {"ph":"i","s":"t","cat":"user_annotation","name":"loss 1","pid":1,"tid":1,"ts":0},
      {"ph":"i","s":"t","cat":"user_annotation","name":"loss 2","pid":1,"tid":1,"ts":100},
      {"ph":"i","s":"t","cat":"user_annotation","name":"loss 3","pid":1,"tid":1,"ts":200}
    ])");
    CHECK(steps_of(*t).steps.empty());
  }
  SECTION("marks split over threads are not one series") {
    auto t = ks_test::load(R"([
      {"ph":"i","s":"t","cat":"user_annotation","name":"step","pid":1,"tid":1,"ts":0},
      {"ph":"i","s":"t","cat":"user_annotation","name":"step","pid":1,"tid":2,"ts":100},
      {"ph":"i","s":"t","cat":"user_annotation","name":"step","pid":1,"tid":1,"ts":200}
    ])");
    CHECK(steps_of(*t).steps.empty());
  }
  SECTION("numbered marks number their steps; ranges named like a step win") {
    auto t = ks_test::load(R"([
      {"ph":"i","s":"t","cat":"user_annotation","name":"iteration 12","pid":1,"tid":1,"ts":0},
      {"ph":"i","s":"t","cat":"user_annotation","name":"iteration 13","pid":1,"tid":1,"ts":100},
      {"ph":"i","s":"t","cat":"user_annotation","name":"iteration 14","pid":1,"tid":1,"ts":200}
    ])");
    ks::StepsResult r = steps_of(*t);
    REQUIRE(r.steps.size() == 2);
    CHECK(r.range_name == "iteration");
    CHECK(r.steps[0].number == 12);
    CHECK(r.steps[1].number == 13);
    auto both = ks_test::load(R"([
      {"ph":"i","s":"t","cat":"user_annotation","name":"step","pid":1,"tid":1,"ts":0},
      {"ph":"i","s":"t","cat":"user_annotation","name":"step","pid":1,"tid":1,"ts":100},
      {"ph":"i","s":"t","cat":"user_annotation","name":"step","pid":1,"tid":1,"ts":200},
      {"ph":"X","cat":"user_annotation","name":"train_step","pid":1,"tid":1,"ts":0,"dur":90},
      {"ph":"X","cat":"user_annotation","name":"train_step","pid":1,"tid":1,"ts":100,"dur":90}
    ])");
    CHECK(steps_of(*both).source == ks::StepSource::kStepLikeRange);
  }
}

TEST_CASE("--step-range NAME takes the marks named NAME when no range is",
          "[analysis][steps][nvtx_marks]") {
  auto t = ks_test::load(R"([
    {"ph":"i","s":"t","cat":"user_annotation","name":"next_batch 7","pid":1,"tid":1,"ts":0},
    {"ph":"i","s":"t","cat":"user_annotation","name":"next_batch 8","pid":1,"tid":1,"ts":100},
    {"ph":"i","s":"t","cat":"user_annotation","name":"next_batch 9","pid":1,"tid":1,"ts":250}
  ])");
  CHECK(steps_of(*t).steps.empty());  // not named like a step
  ks::StepsResult r = steps_of(*t, "next_batch");
  REQUIRE(r.steps.size() == 2);
  CHECK(r.source == ks::StepSource::kNvtxMarks);
  CHECK(r.steps[0].number == 7);
  CHECK(r.steps[1].host_end - r.steps[1].host_begin == 150000);
  CHECK(ks::steps_note(r, true).find("(--step-range)") != std::string::npos);
}
