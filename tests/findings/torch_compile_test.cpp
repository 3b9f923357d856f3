// torch.compile's phases inside the capture (findings/torch_compile_rules.cpp), on hand-made
// traces: nested phases count once, cudagraph recording is not compilation, a compile in most
// steps is recompilation. tests/corpus/planted.py plants both into a real trace.
#include <catch2/catch.hpp>

#include "findings/finding_run.h"

namespace {

constexpr auto find = ks_test::find_finding;
constexpr auto num = ks_test::evidence_number;

std::string slice(const char* cat, const std::string& name, long ts, long dur) {
  return std::string(R"({"ph":"X","cat":")") + cat + R"(","name":")" + name +
         R"(","pid":1,"tid":1,"ts":)" + std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) +
         "}";
}

// `steps` ProfilerSteps of 10 ms from t=0, each with a 1 ms op; `compile_in(k)` adds a phase
// of `us` at the step's 2 ms.
template <typename CompileIn>
std::string steps_trace(int steps, long us, CompileIn compile_in) {
  std::string ev;
  for (int k = 0; k < steps; ++k) {
    const long t = k * 10000L;
    ev += (ev.empty() ? "" : ",") +
          slice("user_annotation", "ProfilerStep#" + std::to_string(k), t, 9990);
    ev += "," + slice("cpu_op", "aten::mm", t + 100, 1000);
    if (compile_in(k))
      ev += "," + slice("user_annotation", "_compile.compile_inner (dynamo_timed)", t + 2000, us);
  }
  return "[" + ev + "]";
}

}  // namespace

TEST_CASE("torch.compile: first-call compilation, nested phases once, no cudagraph",
          "[findings][torch_compile]") {
  // No steps: 400 ms of Dynamo holding 300 ms of Inductor, and 100 ms of cudagraph recording,
  // in a 1 s capture.
  const std::string ev =
      slice("user_annotation", "_compile.compile_inner (dynamo_timed)", 0, 400000) + "," +
      slice("user_annotation", "compile_fx_inner (dynamo_timed)", 50000, 300000) + "," +
      slice("user_annotation", "CUDAGraphNode.record (dynamo_timed)", 500000, 100000) + "," +
      slice("cpu_op", "aten::mm", 999000, 1000);
  ks_test::FindingRun r = ks_test::run_findings_on("[" + ev + "]");
  INFO("findings: " << r.ids);
  const ks::Finding* f = find(r, "capture.torch_compile");
  REQUIRE(f);
  CHECK(num(*f, "compile_us") == Approx(400000));
  CHECK(num(*f, "share_pct") == Approx(40.0));
  CHECK(num(*f, "compilations") == 1);
  CHECK(f->severity == ks::Severity::kWarning);
  CHECK(f->title.find("compiled inside the capture") != std::string::npos);
  REQUIRE(f->events.size() == 1);
  CHECK(r.trace->str(r.trace->slices.name[f->events[0]]) ==
        "_compile.compile_inner (dynamo_timed)");
}

TEST_CASE("torch.compile: compiling in most steps is recompilation; once is warm-up",
          "[findings][torch_compile]") {
  ks_test::FindingRun every =
      ks_test::run_findings_on(steps_trace(4, 3000, [](int) { return true; }));
  INFO("findings: " << every.ids);
  const ks::Finding* f = find(every, "capture.torch_compile");
  REQUIRE(f);
  CHECK(f->title.rfind("torch.compile recompiled in 4 of 4 steps", 0) == 0);
  CHECK(num(*f, "steps_with_compile") == 4);
  CHECK(f->fix_code == "TORCH_LOGS=recompiles python train.py");

  ks_test::FindingRun once =
      ks_test::run_findings_on(steps_trace(4, 3000, [](int k) { return k == 0; }));
  const ks::Finding* g = find(once, "capture.torch_compile");
  REQUIRE(g);
  CHECK(g->title.find("compiled inside the steps") != std::string::npos);
  CHECK(num(*g, "steps_with_compile") == 1);

  // 50 us in one of 4 steps of 10 ms: under 1%, nothing said.
  ks_test::FindingRun tiny =
      ks_test::run_findings_on(steps_trace(4, 50, [](int k) { return k == 0; }));
  CHECK(find(tiny, "capture.torch_compile") == nullptr);
}
