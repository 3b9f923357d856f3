// The math-efficiency pipeline (import, launch join, steps, compute_math_efficiency, its text
// and JSON) on the degenerate shapes of tests/report/scaling_test.cpp, with shapes, at N and 4N
// events; the bound and the timing are in tests/scaling.h.
#include <functional>
#include <string>

#include "analysis/launch_join.h"
#include "analysis/math_efficiency.h"
#include "analysis/steps.h"
#include "helpers.h"
#include "report/math_report.h"
#include "scaling.h"

namespace {

std::string mm(long long ts, long long dur, long long m) {
  return "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":" +
         std::to_string(ts) + ",\"dur\":" + std::to_string(dur) + ",\"args\":{\"Input Dims\":[[" +
         std::to_string(m) +
         ", 64], [64, 64]],\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\"]}}";
}

std::string launch(size_t corr, long long ts) {
  const std::string c = std::to_string(corr);
  return "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
         "\"tid\":1,\"ts\":" +
         std::to_string(ts) + ",\"dur\":1,\"args\":{\"correlation\":" + c +
         "}},{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":" +
         std::to_string(ts + 1) + ",\"dur\":1,\"args\":{\"correlation\":" + c +
         ",\"stream\":7,\"device\":0}}";
}

const char kHead[] =
    "{\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA H100 80GB HBM3\"}],\"traceEvents\":[";

// N/2 aten::mm nested each in the previous one, N/2 kernels launched from the bottom of the
// stack: every launch's owner is found without walking up the stack.
std::string deep_mm_stack(size_t n) {
  const size_t d = n / 2;
  const long long span = 10 * static_cast<long long>(n);
  std::string ev = kHead;
  ev +=
      "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,"
      "\"tid\":1,\"ts\":0,\"dur\":" +
      std::to_string(span + 100) + "}";
  for (size_t i = 0; i < d; ++i)
    ev += "," + mm(1 + static_cast<long long>(i), span - 2 * static_cast<long long>(i), 8);
  for (size_t j = 0; j < n - d; ++j)
    ev += "," + launch(j, static_cast<long long>(d) + 10 + 2 * static_cast<long long>(j));
  return ev + "]}";
}

// N ops, each with its own shape and one kernel: N groups, N distinct interned shape strings.
std::string distinct_shapes(size_t n) {
  std::string ev = kHead;
  for (size_t i = 0; i < n / 2; ++i) {
    const long long at = 4 * static_cast<long long>(i);
    if (i) ev += ",";
    ev += mm(at, 3, static_cast<long long>(i) + 1) + "," + launch(i, at + 1);
  }
  return ev + "]}";
}

// Every op at one timestamp, all in one step.
std::string one_timestamp(size_t n) {
  std::string ev = kHead;
  ev +=
      "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,"
      "\"tid\":1,\"ts\":5,\"dur\":1}";
  for (size_t i = 0; i < n / 2; ++i) ev += "," + mm(5, 1, 16) + "," + launch(i, 5);
  return ev + "]}";
}

ks_test::ScalingRun run_once(const std::string& json) {
  auto t = ks_test::load(json, 1 << 20);
  ks::LaunchJoin join = ks::build_launch_join(*t);
  ks::StepsResult steps = ks::find_steps(*t, join, false);
  ks::MathEfficiency m = ks::compute_math_efficiency(*t, join, steps);
  ks_test::ScalingRun r;
  r.json_bytes = ks::math_json(m, "x").size() + ks::math_text(m, "x").size();
  return r;
}

std::pair<ks_test::ScalingRun, ks_test::ScalingRun> check_scaling(const ks_test::ScalingGen& gen,
                                                                  size_t n) {
  return ks_test::check_scaling(gen, n, run_once);
}

}  // namespace

TEST_CASE("math efficiency: a deep stack of shaped ops scales linearly", "[scaling][math]") {
  check_scaling(deep_mm_stack, 50000);
}

TEST_CASE("math efficiency: distinct shapes scale and the output stays bounded",
          "[scaling][math]") {
  const auto runs = check_scaling(distinct_shapes, 50000);
  INFO("output " << runs.first.json_bytes << " -> " << runs.second.json_bytes << " bytes");
  CHECK(runs.second.json_bytes < runs.first.json_bytes * 11 / 10);
}

TEST_CASE("math efficiency: every op at one timestamp scales linearly", "[scaling][math]") {
  check_scaling(one_timestamp, 50000);
}
