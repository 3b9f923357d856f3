// Splitting a merged file into ranks (src/analysis/merged_ranks.cpp) on its worst shape: one
// correlation id on every launch and every kernel of two processes (a converter that writes one
// id), at N and 4N; the bound and the timing are in tests/scaling.h. Each kernel was compared
// with every call of its id: ops x calls, 0.86 s for 20,000 of each, ~90 s for 200,000.
#include <string>

#include "analysis/merged_ranks.h"
#include "helpers.h"
#include "scaling.h"

namespace {

// n launches alternating between pids 10 and 20, each kernel 5 us after its launch, all id 1.
std::string one_id(size_t n) {
  std::string ev;
  for (size_t k = 0; k < n; ++k) {
    const std::string pid = k % 2 ? "20" : "10", t = std::to_string(10 * k);
    ev += R"(,{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":)" + pid +
          R"(,"tid":1,"ts":)" + t + R"(,"dur":4,"args":{"correlation":1}})";
    ev += R"(,{"ph":"X","cat":"kernel","name":"k)" + pid + R"(","pid":0,"tid":7,"ts":)" + t +
          R"(.005,"dur":1,"args":{"stream":7,"device":0,"correlation":1}})";
  }
  return "[" + ev.substr(1) + "]";
}

size_t kernels_named(const ks::Trace& t, const std::string& name) {
  size_t n = 0;
  for (uint32_t i = 0; i < t.slices.size(); ++i)
    if (t.slices.kind[i] == ks::SliceKind::kKernel && t.str(t.slices.name[i]) == name) ++n;
  return n;
}

ks_test::ScalingRun split(const std::string& json) {
  ks_test::ScalingRun run;
  const auto t = ks_test::load(json);
  const auto parts = ks::split_merged_ranks(*t);
  // Each kernel goes to the latest launch before it: its own process's.
  run.ok = parts.size() == 2 && kernels_named(*parts[0], "k10") > 0 &&
           kernels_named(*parts[0], "k20") == 0 && kernels_named(*parts[1], "k10") == 0;
  return run;
}

}  // namespace

TEST_CASE("merged ranks: one correlation id on every launch splits in N log N",
          "[scaling][merged_ranks]") {
  ks_test::check_scaling(one_id, 20000, split);
}
