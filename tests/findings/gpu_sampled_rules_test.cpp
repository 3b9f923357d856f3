// The rules on nsys' sampled DRAM bandwidth, SM Issue and warps
// (src/findings/gpu_sampled_rules.cpp) on small built traces: Kineto-style JSON whose counters are
// named as GPU_METRICS' series, marked as an nsys export (as the importer marks its traces); each
// with clean twins.
#include <catch2/catch.hpp>

#include <map>

#include "findings/finding_run.h"

namespace {

using Run = ks_test::FindingRun;
constexpr auto find = ks_test::find_finding;
constexpr auto num = ks_test::evidence_number;
using Samples = std::map<std::string, double>;

Run run_nsys(const std::string& json, bool nsys = true) {
  auto t = ks_test::load(json);
  REQUIRE(t);
  if (nsys) t->facts.format = ks::TraceFormat::kNsysSqlite;
  return ks_test::analyze_findings(std::move(t));
}

// Three train_steps of 1000 us on device 0, each with a 600 us `kernel` and one sample of each
// series at 50 us into the step.
std::string sampled_steps(const Samples& samples,
                          const std::string& kernel = "vectorized_elementwise_kernel") {
  std::string out;
  for (int i = 0; i < 3; ++i) {
    const int t0 = i * 1000;
    out += R"({"ph":"X","cat":"user_annotation","name":"train_step","pid":1,"tid":1,"ts":)" +
           std::to_string(t0) + R"(,"dur":1000},)";
    out += R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" +
           std::to_string(t0 + 10) + R"(,"dur":5,"args":{"correlation":)" + std::to_string(i + 1) +
           "}},";
    out += R"({"ph":"X","cat":"kernel","name":")" + kernel + R"(","pid":0,"tid":7,"ts":)" +
           std::to_string(t0 + 20) + R"(,"dur":600,"args":{"correlation":)" +
           std::to_string(i + 1) + R"(,"stream":7,"device":0}},)";
    for (const auto& kv : samples)
      out += R"({"ph":"C","name":")" + kv.first + R"(","pid":0,"ts":)" + std::to_string(t0 + 50) +
             R"(,"args":{"value":)" + std::to_string(kv.second) + "}},";
  }
  return "[" + out + R"({"ph":"X","cat":"cpu_op","name":"x","pid":1,"tid":1,"ts":0,"dur":1}])";
}

// A memory-bound loop as a Hopper capture samples it: busy 80%, DRAM 50 + 22 of peak (90% of
// the busy time), SM Issue 8% (10% of the busy time).
Samples memory_bound() {
  return {{"GR Active [Throughput %]", 80},
          {"SMs Active [Throughput %]", 75},
          {"SM Issue [Throughput %]", 8},
          {"Tensor Active [Throughput %]", 0},
          {"DRAM Read Bandwidth [Throughput %]", 50},
          {"DRAM Write Bandwidth [Throughput %]", 22}};
}

// A latency-bound loop: busy 80%, SMs active 72 (90% of busy) holding 8% of all warp slots
// (11% of the active SMs' slots), nothing near its limit.
Samples latency_bound() {
  return {{"GR Active [Throughput %]", 80},
          {"SMs Active [Throughput %]", 72},
          {"SM Issue [Throughput %]", 10},
          {"Tensor Active [Throughput %]", 2},
          {"Compute Warps in Flight [Throughput %]", 8},
          {"Unallocated Warps in Active SMs [Throughput %]", 64},
          {"DRAM Read Bandwidth [Throughput %]", 12},
          {"DRAM Write Bandwidth [Throughput %]", 4}};
}

}  // namespace

TEST_CASE("gpu.memory_bound: DRAM near its peak while the SMs seldom issue (measured)",
          "[findings][gpu_metrics][gpu_sampled]") {
  Run r = run_nsys(sampled_steps(memory_bound()));
  const ks::Finding* f = find(r, "gpu.memory_bound");
  INFO(r.ids);
  REQUIRE(f);
  CHECK(f->severity == ks::Severity::kWarning);
  CHECK(num(*f, "dram_of_busy_pct") == Approx(90.0));
  CHECK(num(*f, "dram_read_pct") == Approx(50.0));
  CHECK(num(*f, "dram_write_pct") == Approx(22.0));
  CHECK(num(*f, "sm_issue_of_busy_pct") == Approx(10.0));
  CHECK(num(*f, "busy_pct") == Approx(80.0));
  CHECK(ks_test::evidence_text(*f, "measured_over") == "steps");
  CHECK(ks_test::evidence_text(*f, "top_memory_kernel") == "vectorized_elementwise_kernel");
  CHECK(f->title.find("DRAM bandwidth at 90.0% of its peak") != std::string::npos);
  CHECK(find(r, "gpu.low_occupancy") == nullptr);
  SECTION("clean twin: the SMs issue as they wait less (compute-bound)") {
    Samples s = memory_bound();
    s["SM Issue [Throughput %]"] = 40;
    CHECK(find(run_nsys(sampled_steps(s)), "gpu.memory_bound") == nullptr);
  }
  SECTION("clean twin: DRAM well below its peak") {
    Samples s = memory_bound();
    s["DRAM Read Bandwidth [Throughput %]"] = 20;
    CHECK(find(run_nsys(sampled_steps(s)), "gpu.memory_bound") == nullptr);
  }
  SECTION("clean twin: a mostly idle GPU (busy 20%)") {
    Samples s = memory_bound();
    s["GR Active [Throughput %]"] = 20;
    s["DRAM Read Bandwidth [Throughput %]"] = 12;
    s["DRAM Write Bandwidth [Throughput %]"] = 4;
    s["SM Issue [Throughput %]"] = 2;
    CHECK(find(run_nsys(sampled_steps(s)), "gpu.memory_bound") == nullptr);
  }
  SECTION("no SM Issue sampled: bandwidth alone does not say the SMs wait") {
    Samples s = memory_bound();
    s.erase("SM Issue [Throughput %]");
    CHECK(find(run_nsys(sampled_steps(s)), "gpu.memory_bound") == nullptr);
  }
  SECTION("without GR Active the busy time is the kernels' utilization (60% here)") {
    Samples s = memory_bound();
    s.erase("GR Active [Throughput %]");
    Run u = run_nsys(sampled_steps(s));
    const ks::Finding* g = find(u, "gpu.memory_bound");
    REQUIRE(g);
    CHECK(num(*g, "busy_pct") == Approx(60.0));
    CHECK(num(*g, "dram_of_busy_pct") == Approx(100.0));  // 72 of 60: capped
  }
  SECTION("the same counters in a PyTorch trace are not measured") {
    CHECK(find(run_nsys(sampled_steps(memory_bound()), false), "gpu.memory_bound") == nullptr);
  }
}

TEST_CASE("gpu.low_occupancy: active SMs hold few warps and nothing is near its limit",
          "[findings][gpu_metrics][gpu_sampled]") {
  Run r = run_nsys(sampled_steps(latency_bound(), "my_small_kernel"));
  const ks::Finding* f = find(r, "gpu.low_occupancy");
  INFO(r.ids);
  REQUIRE(f);
  CHECK(f->severity == ks::Severity::kInfo);
  CHECK(num(*f, "warp_occupancy_pct") == Approx(100.0 * 8 / 72));
  CHECK(num(*f, "sm_active_of_busy_pct") == Approx(90.0));
  CHECK(num(*f, "sm_issue_of_busy_pct") == Approx(12.5));
  CHECK(num(*f, "dram_of_busy_pct") == Approx(20.0));
  CHECK(ks_test::evidence_text(*f, "top_kernel") == "my_small_kernel");
  CHECK(find(r, "gpu.memory_bound") == nullptr);
  SECTION("without Unallocated Warps, SM Active gives the active SMs' slots") {
    Samples s = latency_bound();
    s.erase("Unallocated Warps in Active SMs [Throughput %]");
    Run u = run_nsys(sampled_steps(s, "my_small_kernel"));
    const ks::Finding* g = find(u, "gpu.low_occupancy");
    REQUIRE(g);
    CHECK(num(*g, "warp_occupancy_pct") == Approx(100.0 * 8 / 72));
  }
  SECTION("clean twin: the tensor cores are busy (cuBLAS GEMMs run few warps at full speed)") {
    Samples s = latency_bound();
    s["Tensor Active [Throughput %]"] = 60;
    CHECK(find(run_nsys(sampled_steps(s)), "gpu.low_occupancy") == nullptr);
  }
  SECTION("clean twin: the warp slots are filled") {
    Samples s = latency_bound();
    s["Compute Warps in Flight [Throughput %]"] = 50;
    s["Unallocated Warps in Active SMs [Throughput %]"] = 22;
    CHECK(find(run_nsys(sampled_steps(s)), "gpu.low_occupancy") == nullptr);
  }
  SECTION("clean twin: the SMs issue often (few warps suffice)") {
    Samples s = latency_bound();
    s["SM Issue [Throughput %]"] = 50;
    CHECK(find(run_nsys(sampled_steps(s)), "gpu.low_occupancy") == nullptr);
  }
  SECTION("the warps' average count ([Avg]) is not a share and is not read") {
    Samples s = latency_bound();
    s.erase("Compute Warps in Flight [Throughput %]");
    s["Compute Warps in Flight [Avg]"] = 8;
    CHECK(find(run_nsys(sampled_steps(s)), "gpu.low_occupancy") == nullptr);
  }
}
