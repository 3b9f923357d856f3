// A capture of two steps whose first is the warm-up: one comparison alone cannot say which step
// is the odd one, so the first step's one-time work (cudaMalloc here) that the second lacks is
// the evidence; the critical path then takes the steady second step as its window.
#include <catch2/catch.hpp>
#include <string>

#include "findings/finding_run.h"

namespace {

// Step 1 [0, 3000) us: a cudaMalloc of `malloc1` us when > 0, then a launch; step 2
// [3000, 4000): a cudaMalloc of `malloc2` us when > 0, then a launch. Each kernel runs 500 us.
std::string two_steps(int malloc1, int malloc2) {
  std::string j = R"([
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":3000},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":3000,"dur":1000},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2400,"dur":10,
     "args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":2420,"dur":500,
     "args":{"correlation":1,"device":0,"stream":7}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":3400,"dur":10,
     "args":{"correlation":2}},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":3420,"dur":500,
     "args":{"correlation":2,"device":0,"stream":7}})";
  if (malloc1 > 0)
    j += R"(,{"ph":"X","cat":"cuda_runtime","name":"cudaMalloc","pid":1,"tid":1,"ts":10,"dur":)" +
         std::to_string(malloc1) + "}";
  if (malloc2 > 0)
    j += R"(,{"ph":"X","cat":"cuda_runtime","name":"cudaMalloc","pid":1,"tid":1,"ts":3010,)"
         R"("dur":)" +
         std::to_string(malloc2) + "}";
  return j + "]";
}

}  // namespace

TEST_CASE("steps.warmup_in_window: two steps, the first with one-time work", "[findings][warmup]") {
  SECTION("cudaMalloc in the first step only: a warm-up, the critical path on step 2") {
    ks_test::FindingRun r = ks_test::run_findings_on(two_steps(2000, 0));
    INFO("findings: " << r.ids);
    const ks::Finding* f = ks_test::find_finding(r, "steps.warmup_in_window");
    REQUIRE(f);
    CHECK(ks_test::evidence_number(*f, "ratio") == Approx(3.0).epsilon(0.01));
    CHECK(r.analyses.steps.one_time_calls == std::vector<uint32_t>{1, 0});
    CHECK(r.analyses.critical_path.window_label == "ProfilerStep#2");
  }
  SECTION("clean twin: the same step times without one-time work") {
    ks_test::FindingRun r = ks_test::run_findings_on(two_steps(0, 0));
    CHECK(ks_test::find_finding(r, "steps.warmup_in_window") == nullptr);
    CHECK(r.analyses.critical_path.window_label == "ProfilerStep#1");
  }
  SECTION("clean twin: the second step allocates too (churn, not warm-up)") {
    ks_test::FindingRun r = ks_test::run_findings_on(two_steps(2000, 100));
    CHECK(ks_test::find_finding(r, "steps.warmup_in_window") == nullptr);
  }
}
