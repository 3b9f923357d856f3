// Steps from NVTX / user annotation ranges when a trace has no ProfilerStep#N (Nsight Systems
// exports, PyTorch runs without prof.step()), and from a user-named range (--step-range).
// Traces BUILT here as Kineto-style JSON, read through the importer's TraceBuilder; the ranges
// carry cat "user_annotation", as NVTX ranges land in the model (docs/report-schema.md).
#include <catch2/catch.hpp>

#include "analysis/analyze.h"
#include "analysis/steps.h"
#include "helpers.h"

namespace {

ks::StepsResult steps_of(const ks::Trace& t, const std::string& range = "") {
  return ks::find_steps(t, ks::build_launch_join(t), false, range);
}

// Three "train_step" ranges of 100 us on thread 1; step 1 launches a kernel that runs past the
// range's end, step 2 a device-to-host copy; a "forward" range inside each step.
const char* kNvtxSteps = R"JSON([
  {"ph":"X","cat":"user_annotation","name":"train_step","pid":1,"tid":1,"ts":0,"dur":100},
  {"ph":"X","cat":"user_annotation","name":"train_step","pid":1,"tid":1,"ts":100,"dur":100},
  {"ph":"X","cat":"user_annotation","name":"train_step","pid":1,"tid":1,"ts":200,"dur":100},
  {"ph":"X","cat":"user_annotation","name":"forward","pid":1,"tid":1,"ts":5,"dur":50},
  {"ph":"X","cat":"user_annotation","name":"forward","pid":1,"tid":1,"ts":105,"dur":50},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":5,
   "args":{"correlation":1}},
  {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":20,"dur":130,
   "args":{"correlation":1,"stream":7,"device":0}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":160,"dur":5,
   "args":{"correlation":2}},
  {"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoH (Device -> Pageable)","pid":0,"tid":7,
   "ts":165,"dur":10,"args":{"correlation":2,"stream":7,"device":0,"bytes":4096}}
])JSON";

}  // namespace

TEST_CASE("Step-like range names: the documented patterns, case-insensitive, numbered or not",
          "[analysis][steps][nvtx_steps]") {
  std::string base;
  int64_t n = 0;
  for (const char* yes : {"train_step", "step", "Step", "iteration", "iter", "TRAIN_STEP",
                          "training_step", "train-step", "train_iter"}) {
    INFO(yes);
    CHECK(ks::is_step_like_name(yes, &base, &n));
    CHECK(n == -1);
  }
  CHECK(ks::is_step_like_name("Step 12", &base, &n));
  CHECK(base == "step");
  CHECK(n == 12);
  CHECK(ks::is_step_like_name("train_step_3", &base, &n));
  CHECK(base == "train_step");
  CHECK(n == 3);
  CHECK(ks::is_step_like_name("iteration#7", &base, &n));
  CHECK(n == 7);
  for (const char* no : {"forward", "ProfilerStep#1", "steps", "stepper", "aten::step", "12",
                         "optimizer.step", "step_back"}) {
    INFO(no);
    CHECK_FALSE(ks::is_step_like_name(no, &base, &n));
  }
}

TEST_CASE("Without ProfilerStep, NVTX ranges named like a step are the steps",
          "[analysis][steps][nvtx_steps]") {
  auto t = ks_test::load(kNvtxSteps);
  ks::StepsResult r = steps_of(*t);
  REQUIRE(r.steps.size() == 3);
  CHECK(r.source == ks::StepSource::kStepLikeRange);
  CHECK(r.range_name == "train_step");
  CHECK(r.steps[0].number == 0);
  CHECK(r.steps[2].number == 2);
  // Device-adjusted as for ProfilerStep: k1 (launched in step 0) ends at 150 us.
  CHECK(r.steps[0].end == 150000);
  CHECK(r.steps[1].begin == 150000);
  CHECK(ks::steps_note(r, true).find("train_step") != std::string::npos);

  // The analyses that need steps now run on them: GPU idle within steps, DtoH inside a step.
  ks::Analyses a = ks::analyze(*t, ks::AnalysisOptions{});
  CHECK(a.steps.steps.size() == 3);
  CHECK(a.gpu_idle.window_is_steps);
  CHECK(a.sync.dtoh_in_steps_count == 1);
}

TEST_CASE("Step-like ranges count only when repeated, on one thread, without overlaps",
          "[analysis][steps][nvtx_steps]") {
  SECTION("one instance holding less than half the capture is no series of steps") {
    auto t = ks_test::load(R"([
      {"ph":"X","cat":"user_annotation","name":"train_step","pid":1,"tid":1,"ts":0,"dur":100},
      {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":150,"dur":60}
    ])");
    CHECK(steps_of(*t).steps.empty());
  }
  SECTION("one instance holding the capture is its one step (steps_test.cpp has more)") {
    auto t = ks_test::load(R"([
      {"ph":"X","cat":"user_annotation","name":"train_step","pid":1,"tid":1,"ts":0,"dur":100}
    ])");
    CHECK(steps_of(*t).steps.size() == 1);
  }
  SECTION("overlapping instances are not steps") {
    auto t = ks_test::load(R"([
      {"ph":"X","cat":"user_annotation","name":"step","pid":1,"tid":1,"ts":0,"dur":100},
      {"ph":"X","cat":"user_annotation","name":"step","pid":1,"tid":1,"ts":50,"dur":20},
      {"ph":"X","cat":"user_annotation","name":"step","pid":1,"tid":1,"ts":200,"dur":100}
    ])");
    CHECK(steps_of(*t).steps.empty());
  }
  SECTION("instances split over two threads are not one series") {
    auto t = ks_test::load(R"([
      {"ph":"X","cat":"user_annotation","name":"iteration","pid":1,"tid":1,"ts":0,"dur":100},
      {"ph":"X","cat":"user_annotation","name":"iteration","pid":1,"tid":2,"ts":200,"dur":100}
    ])");
    CHECK(steps_of(*t).steps.empty());
  }
  SECTION("numbered names are one series, numbered by their names") {
    auto t = ks_test::load(R"([
      {"ph":"X","cat":"user_annotation","name":"Step 4","pid":1,"tid":1,"ts":0,"dur":100},
      {"ph":"X","cat":"user_annotation","name":"Step 5","pid":1,"tid":1,"ts":100,"dur":100}
    ])");
    ks::StepsResult r = steps_of(*t);
    REQUIRE(r.steps.size() == 2);
    CHECK(r.steps[0].number == 4);
    CHECK(r.steps[1].number == 5);
    CHECK(r.range_name == "step");
  }
  SECTION("ProfilerStep wins when it exists") {
    auto t = ks_test::load(R"([
      {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":300},
      {"ph":"X","cat":"user_annotation","name":"step","pid":1,"tid":1,"ts":0,"dur":100},
      {"ph":"X","cat":"user_annotation","name":"step","pid":1,"tid":1,"ts":100,"dur":100}
    ])");
    ks::StepsResult r = steps_of(*t);
    REQUIRE(r.steps.size() == 1);
    CHECK(r.source == ks::StepSource::kProfilerStep);
    CHECK(ks::steps_note(r, true).empty());
  }
}

TEST_CASE("--step-range names the steps' range, even over ProfilerStep",
          "[analysis][steps][nvtx_steps]") {
  auto t = ks_test::load(R"([
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":400},
    {"ph":"X","cat":"user_annotation","name":"fwd_bwd","pid":1,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"user_annotation","name":"fwd_bwd","pid":1,"tid":1,"ts":100,"dur":120},
    {"ph":"X","cat":"user_annotation","name":"fwd_bwd","pid":1,"tid":1,"ts":10,"dur":20},
    {"ph":"X","cat":"user_annotation","name":"fwd_bwd","pid":1,"tid":2,"ts":0,"dur":100}
  ])");
  ks::StepsResult r = steps_of(*t, "fwd_bwd");
  // Thread 1 has three; the one nested in the first is dropped.
  REQUIRE(r.steps.size() == 2);
  CHECK(r.source == ks::StepSource::kUserRange);
  CHECK(r.steps[1].host_end - r.steps[1].host_begin == 120000);
  CHECK(ks::steps_note(r, false).find("--step-range") != std::string::npos);

  ks::StepsResult none = steps_of(*t, "train");
  CHECK(none.steps.empty());
  CHECK(ks::steps_note(none, false).find("no CPU-side range named \"train\"") != std::string::npos);

  ks::AnalysisOptions o;
  o.step_range = "fwd_bwd";
  CHECK(ks::analyze(*t, o).steps.steps.size() == 2);
}

TEST_CASE("An nsys export without steps says how to add them; a PyTorch trace reads as before",
          "[analysis][steps][nvtx_steps]") {
  ks::StepsResult none;
  CHECK(ks::steps_note(none, false).empty());
  std::string how = ks::steps_note(none, true);
  CHECK(how.find("torch.cuda.nvtx.range(\"train_step\")") != std::string::npos);
  CHECK(how.find("nvtx.annotate") != std::string::npos);
  CHECK(how.find("--step-range") != std::string::npos);
}

TEST_CASE("nsys: ranges libraries push are never steps; the program's own loop is",
          "[analysis][steps][nvtx_steps]") {
  // Thread 1 of an export without step-like names: NCCL's own ranges around each all-reduce
  // call and emit_nvtx-style operator ranges, repeated at the outermost level, and (in the
  // second trace) the program's loop, "fwd_bwd_opt", around them.
  std::string library;
  for (int i = 0; i < 6; ++i) {
    const int at = i * 300;
    library += R"({"ph":"X","cat":"user_annotation","name":"ncclAllReduce","pid":1,"tid":1,"ts":)" +
               std::to_string(at + 250) + R"(,"dur":20},)";
    library += R"({"ph":"X","cat":"user_annotation","name":"aten::empty","pid":1,"tid":1,"ts":)" +
               std::to_string(at + 10) + R"(,"dur":200},)";
  }
  const std::string kernel =
      R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":0,"dur":1800,)"
      R"("args":{"stream":7,"device":0}})";
  auto as_nsys = [](const std::string& json) {
    auto t = ks_test::load(json);
    t->facts.format = ks::TraceFormat::kNsysSqlite;
    return t;
  };
  auto only_library = as_nsys("[" + library + kernel + "]");
  CHECK(steps_of(*only_library).steps.empty());
  std::string loop;
  for (int i = 0; i < 6; ++i)
    loop += R"({"ph":"X","cat":"user_annotation","name":"fwd_bwd_opt","pid":1,"tid":1,"ts":)" +
            std::to_string(i * 300) + R"(,"dur":290},)";
  auto with_loop = as_nsys("[" + loop + library + kernel + "]");
  ks::StepsResult r = steps_of(*with_loop);
  CHECK(r.steps.size() == 6);
  CHECK(r.range_name == "fwd_bwd_opt");
  // A repeated range of the program's own that covers a sliver of the trace is not the loop.
  std::string sliver;
  for (int i = 0; i < 6; ++i)
    sliver += R"({"ph":"X","cat":"user_annotation","name":"log_metrics","pid":1,"tid":1,"ts":)" +
              std::to_string(i * 300) + R"(,"dur":5},)";
  CHECK(steps_of(*as_nsys("[" + sliver + kernel + "]")).steps.empty());
}

TEST_CASE("nsys: a loop dispatched asynchronously (JAX/XLA) covers the capture with its GPU work",
          "[analysis][steps][nvtx_steps]") {
  // XLA's NVTX ranges (domain TSL) around each jit_train_step execution: the host range covers
  // the dispatch only (20 us of every 300 us: 7% of the capture), the kernels it launched run
  // after it and fill the capture. No step-like name; the module's range is the loop.
  std::string ev;
  for (int i = 0; i < 6; ++i) {
    const int at = i * 300;
    const std::string c = std::to_string(i + 1);
    ev += R"({"ph":"X","cat":"user_annotation","name":"XlaModule:#hlo_module=jit_train_step,)"
          R"(program_id=17#","pid":1,"tid":1,"ts":)" +
          std::to_string(at) + R"(,"dur":20},)";
    ev += R"({"ph":"X","cat":"user_annotation","name":"Thunk:#hlo_op=fusion.12#","pid":1,"tid":1,)"
          R"("ts":)" +
          std::to_string(at + 5) + R"(,"dur":10},)";
    ev += R"({"ph":"X","cat":"cuda_driver","name":"cuLaunchKernel","pid":1,"tid":1,"ts":)" +
          std::to_string(at + 6) + R"(,"dur":5,"args":{"correlation":)" + c + "}},";
    ev += R"({"ph":"X","cat":"kernel","name":"fusion_12","pid":0,"tid":7,"ts":)" +
          std::to_string(at + 15) + R"(,"dur":280,"args":{"correlation":)" + c +
          R"(,"stream":7,"device":0}},)";
  }
  ev.pop_back();
  auto t = ks_test::load("[" + ev + "]");
  t->facts.format = ks::TraceFormat::kNsysSqlite;
  ks::StepsResult r = steps_of(*t);
  REQUIRE(r.steps.size() == 6);
  CHECK(r.range_name == "XlaModule:#hlo_module=jit_train_step,program_id=17#");
  CHECK(r.repeated_range);
  // Each step runs to the end of the GPU work it launched.
  CHECK(r.steps[0].end == 295000);
  CHECK(r.steps[5].end == 1795000);
  // The same ranges launching nothing are still a sliver of the capture: no steps.
  std::string idle;
  for (int i = 0; i < 6; ++i)
    idle += R"({"ph":"X","cat":"user_annotation","name":"jit_step","pid":1,"tid":1,"ts":)" +
            std::to_string(i * 300) + R"(,"dur":20},)";
  auto bare =
      ks_test::load("[" + idle +
                    R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":0,"dur":1800,)"
                    R"("args":{"stream":7,"device":0}}])");
  bare->facts.format = ks::TraceFormat::kNsysSqlite;
  CHECK(steps_of(*bare).steps.empty());
}

TEST_CASE("nsys: a phase of the loop is not its step", "[analysis][steps][nvtx_steps]") {
  // forward / backward / optimizer ranges, each once per iteration, nothing around them: no one
  // of them is the step (backward had been taken, a third of the loop as its whole). Named
  // "fwd_pass" / "bwd_pass" / "update" (no phase name), they are phases by their interleaving.
  const std::string kernel =
      R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":0,"dur":1800,)"
      R"("args":{"stream":7,"device":0}})";
  auto phases = [&kernel](const char* a, const char* b, const char* c) {
    std::string ev;
    for (int i = 0; i < 6; ++i) {
      const int at = i * 300;
      const char* names[] = {a, b, c};
      for (int p = 0; p < 3; ++p)
        ev += std::string(R"({"ph":"X","cat":"user_annotation","name":")") + names[p] +
              R"(","pid":1,"tid":1,"ts":)" + std::to_string(at + p * 100) + R"(,"dur":95},)";
    }
    auto t = ks_test::load("[" + ev + kernel + "]");
    t->facts.format = ks::TraceFormat::kNsysSqlite;
    return t;
  };
  CHECK(steps_of(*phases("forward", "backward", "optimizer")).steps.empty());
  CHECK(steps_of(*phases("fwd_pass", "bwd_pass", "update")).steps.empty());
  // Alone on its thread (autograd's backward thread), a phase's name still says what it is.
  std::string alone;
  for (int i = 0; i < 6; ++i)
    alone += R"({"ph":"X","cat":"user_annotation","name":"backward","pid":1,"tid":2,"ts":)" +
             std::to_string(i * 300 + 150) + R"(,"dur":140},)";
  auto t = ks_test::load("[" + alone + kernel + "]");
  t->facts.format = ks::TraceFormat::kNsysSqlite;
  CHECK(steps_of(*t).steps.empty());
}

namespace {

// A Kineto trace without prof.step(): `loops` top-level record_function ranges named `name`,
// 290 us every 300 us on thread 1, each launching a 200 us kernel from inside an aten op.
std::string top_level_loop(const std::string& name, int loops) {
  std::string ev;
  for (int i = 0; i < loops; ++i) {
    const std::string at = std::to_string(i * 300), c = std::to_string(i + 1);
    ev += R"({"ph":"X","cat":"user_annotation","name":")" + name + R"(","pid":1,"tid":1,"ts":)" +
          at + R"(,"dur":290},)";
    ev += R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":)" +
          std::to_string(i * 300 + 5) + R"(,"dur":20},)";
    ev += R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" +
          std::to_string(i * 300 + 10) + R"(,"dur":5,"args":{"correlation":)" + c + "}},";
    ev += R"({"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":)" +
          std::to_string(i * 300 + 20) + R"(,"dur":200,"args":{"correlation":)" + c +
          R"(,"stream":7,"device":0}},)";
  }
  ev.pop_back();
  return "[" + ev + "]";
}

}  // namespace

TEST_CASE("Kineto without ProfilerStep: a top-level annotation that repeats is the iteration",
          "[analysis][steps][nvtx_steps]") {
  // An inference server profiles a window of execute_model calls, no prof.step().
  auto t = ks_test::load(top_level_loop("execute_model", 5));
  ks::StepsResult r = steps_of(*t);
  REQUIRE(r.steps.size() == 5);
  CHECK(r.source == ks::StepSource::kStepLikeRange);
  CHECK(r.range_name == "execute_model");
  CHECK(r.steps[1].host_begin == 300000);
  const std::string note = ks::steps_note(r, false);
  INFO(note);
  CHECK(note.find("\"execute_model\"") != std::string::npos);
  CHECK(note.find("repeated 5 times at the top level") != std::string::npos);
  // Twice, unnumbered, is no loop yet.
  CHECK(steps_of(*ks_test::load(top_level_loop("execute_model", 2))).steps.empty());
  // PyTorch's own ranges repeat once per iteration too, but are a phase of it.
  CHECK(steps_of(*ks_test::load(top_level_loop("Optimizer.step#SGD.step", 5))).steps.empty());
  CHECK(steps_of(*ks_test::load(top_level_loop(
                     "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 5)))
            .steps.empty());
}

TEST_CASE("A real trace with its ProfilerSteps renamed execute_model keeps its 5 steps",
          "[analysis][steps][nvtx_steps][corpus]") {
  std::string json;
  const std::string path = ks_test::shared_trace_path("hta__negative_queue_length__rank0.json.gz");
  if (!ks_test::read_file_maybe_gzip(path, &json)) {
    WARN("shared trace absent: " << path);
    return;
  }
  auto original = ks_test::load(json);
  const ks::StepsResult want = steps_of(*original);
  REQUIRE(want.steps.size() == 5);
  // "ProfilerStep#550" -> "execute_model", every occurrence.
  std::string renamed;
  for (size_t at = 0;;) {
    const size_t hit = json.find("\"ProfilerStep#", at);
    if (hit == std::string::npos) {
      renamed.append(json, at, std::string::npos);
      break;
    }
    renamed.append(json, at, hit - at);
    renamed += "\"execute_model\"";
    at = json.find('"', hit + 1) + 1;
  }
  auto t = ks_test::load(renamed);
  const ks::StepsResult r = steps_of(*t);
  REQUIRE(r.steps.size() == want.steps.size());
  CHECK(r.range_name == "execute_model");
  for (size_t i = 0; i < r.steps.size(); ++i) {
    CHECK(r.steps[i].host_begin == want.steps[i].host_begin);
    CHECK(r.steps[i].host_end == want.steps[i].host_end);
    CHECK(r.steps[i].end == want.steps[i].end);
  }
}
