// A schedule with too short a warm-up captures several slow steps at the start: they are one
// warm-up run, each compared with the steady steps after it (not with a median the later
// warm-up steps pull up), left out of steps.unstable, and the critical path takes the first
// steady step.
#include <catch2/catch.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "findings/finding_run.h"

namespace {

// Steps 1..n back to back, step i lasting durs[i-1] us, each with one launch at its start and
// a 100 us kernel.
std::string steps_of(const std::vector<int>& durs) {
  std::string j = "[";
  int ts = 0;
  for (size_t i = 0; i < durs.size(); ++i) {
    const std::string n = std::to_string(i + 1), t = std::to_string(ts);
    if (i) j += ",";
    j += R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#)" + n +
         R"(","pid":1,"tid":1,"ts":)" + t + R"(,"dur":)" + std::to_string(durs[i]) + "},";
    j += R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" +
         std::to_string(ts + 10) + R"(,"dur":10,"args":{"correlation":)" + n + "}},";
    j += R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + std::to_string(ts + 30) +
         R"(,"dur":100,"args":{"correlation":)" + n + R"(,"device":0,"stream":7}})";
    ts += durs[i];
  }
  return j + "]";
}

constexpr auto num = ks_test::evidence_number;

// The finding `id`, which the run must have.
const ks::Finding& required(const ks_test::FindingRun& r, std::string_view id) {
  INFO("findings: " << r.ids);
  const ks::Finding* f = ks_test::find_finding(r, id);
  REQUIRE(f);
  return *f;
}

}  // namespace

TEST_CASE("steps.warmup_in_window: several warm-up steps", "[findings][warmup]") {
  SECTION("two leading 3 ms steps before four 1 ms ones: both are warm-up") {
    const auto r = ks_test::run_findings_on(steps_of({3000, 3000, 1000, 1000, 1000, 1000}));
    const ks::Finding& f = required(r, "steps.warmup_in_window");
    CHECK(num(f, "warmup_steps") == 2);
    CHECK(num(f, "last_warmup_step") == 2);
    CHECK(num(f, "others_median_us") == Approx(1000));
    CHECK(num(f, "ratio") == Approx(3.0).epsilon(0.01));
    CHECK(ks_test::find_finding(r, "steps.unstable") == nullptr);
    CHECK(r.analyses.critical_path.window_label == "ProfilerStep#3");
  }
  SECTION("a slow third step after one warm-up step is no warm-up: it is the unstable one") {
    const auto r = ks_test::run_findings_on(steps_of({3000, 1000, 3000, 1000, 1000, 1000}));
    const ks::Finding& f = required(r, "steps.warmup_in_window");
    CHECK(num(f, "first_step") == 1);
    for (const ks::Evidence& e : f.evidence) CHECK(e.key != "warmup_steps");
    CHECK(num(required(r, "steps.unstable"), "slowest_step") == 3);
    CHECK(r.analyses.critical_path.window_label == "ProfilerStep#2");
  }
}
