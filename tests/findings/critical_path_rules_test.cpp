// The critical-path finding (src/findings/critical_path_rules.cpp): a CPU-bound step on a GPU run
// raises critical_path.cpu_bound with the path's heaviest CPU events; a GPU-bound step and a
// CPU-only trace raise nothing. The planted launch-bound trace (examples/pathologies) is 99.9%
// CPU-bound on its critical path.
#include <catch2/catch.hpp>

#include "findings/finding_run.h"
#include "source_dir.h"

namespace {

// aten::op [10, 90] launches a 5 us kernel: the path is the op's 80 us (CPU-bound).
const char* kCpuBound = R"J([
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
  {"ph":"X","cat":"cpu_op","name":"aten::op","pid":1,"tid":1,"ts":10,"dur":80},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":20,"dur":10,"args":{"correlation":1}},
  {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":35,"dur":5,"args":{"correlation":1,"stream":7,"device":0}}
])J";

// A 130 us kernel the step waits for: GPU-bound.
const char* kGpuBound = R"J([
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":200},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":5,"args":{"correlation":1}},
  {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":20,"dur":130,"args":{"correlation":1,"stream":7,"device":0}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":1,"tid":1,"ts":20,"dur":140,"args":{"correlation":2}},
  {"ph":"X","cat":"cuda_sync","name":"Context Sync","pid":0,"tid":-1,"ts":20,"dur":140,"args":{"correlation":2,"stream":-1,"device":0}}
])J";

}  // namespace

TEST_CASE("critical_path.cpu_bound: the step's critical path is CPU time",
          "[findings][critical_path]") {
  ks_test::FindingRun r = ks_test::run_findings_on(kCpuBound);
  INFO("findings: " << r.ids);
  const ks::Finding* f = ks_test::find_finding(r, "critical_path.cpu_bound");
  REQUIRE(f);
  CHECK(f->severity == ks::Severity::kInfo);
  CHECK(ks_test::evidence_number(*f, "cpu_bound_pct") == 100.0);
  CHECK(ks_test::evidence_number(*f, "path_total_us") == 80.0);
  CHECK(ks_test::evidence_text(*f, "window") == "ProfilerStep#1");
  REQUIRE(!f->events.empty());
  CHECK(r.trace->str(r.trace->slices.name[f->events[0]]) == "aten::op");
  REQUIRE(f->ranges.size() == 1);
  CHECK(f->ranges[0].begin_ns == 0);
  CHECK(f->ranges[0].end_ns == 100000);
}

TEST_CASE("critical_path: a GPU-bound step and a CPU-only trace raise nothing",
          "[findings][critical_path]") {
  ks_test::FindingRun gpu = ks_test::run_findings_on(kGpuBound);
  REQUIRE(gpu.analyses.critical_path.ok);
  CHECK(gpu.analyses.critical_path.dominant() == ks::CpBound::kGpuCompute);
  CHECK_FALSE(ks_test::find_finding(gpu, "critical_path.cpu_bound"));
  CHECK_FALSE(ks_test::find_finding(gpu, "critical_path.gpu_overhead"));
  ks_test::FindingRun cpu = ks_test::run_findings_on(R"J([
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"cpu_op","name":"aten::op","pid":1,"tid":1,"ts":10,"dur":80}
  ])J");
  REQUIRE(cpu.analyses.critical_path.ok);
  CHECK(cpu.analyses.critical_path.share(ks::CpBound::kCpu) == 1.0);
  CHECK_FALSE(ks_test::find_finding(cpu, "critical_path.cpu_bound"));
}

TEST_CASE("critical_path.cpu_bound on the planted launch-bound trace",
          "[findings][critical_path][pathologies]") {
  std::string json;
  REQUIRE(ks_test::read_file_maybe_gzip(
      ks_test::source_dir() + "/examples/pathologies/gpu/gpu_launch_bound.pt.trace.json.gz",
      &json));
  ks_test::FindingRun r = ks_test::run_findings_on(json);
  INFO("findings: " << r.ids);
  const ks::Finding* f = ks_test::find_finding(r, "critical_path.cpu_bound");
  REQUIRE(f);
  CHECK(ks_test::evidence_number(*f, "cpu_bound_pct") > 99.0);
}
