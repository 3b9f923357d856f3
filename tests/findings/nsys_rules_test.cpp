// The Nsight Systems capture-mistake rules (src/findings/nsys_capture_rules.cpp) on small BUILT
// traces: Kineto-style JSON read through the importer, then marked as an nsys export
// (TraceFacts.format kNsysSqlite, as the nsys importer marks its traces), each with a clean twin;
// and no nsys finding on any real PyTorch trace of ../shared/traces.
#include <catch2/catch.hpp>

#include "corpus/shared_traces.h"
#include "findings/finding_run.h"

namespace {

using Run = ks_test::FindingRun;
constexpr auto find = ks_test::find_finding;
constexpr auto num = ks_test::evidence_number;

Run run_nsys(const std::string& json, bool nsys = true) {
  auto t = ks_test::load(json);
  REQUIRE(t);
  if (nsys) t->facts.format = ks::TraceFormat::kNsysSqlite;
  return ks_test::analyze_findings(std::move(t));
}

std::string ev(const char* cat, const std::string& name, int ts, int dur, int tid = 1,
               const std::string& args = "") {
  return std::string(R"({"ph":"X","cat":")") + cat + R"(","name":")" + name +
         R"(","pid":1,"tid":)" + std::to_string(tid) + R"(,"ts":)" + std::to_string(ts) +
         R"(,"dur":)" + std::to_string(dur) + (args.empty() ? "" : R"(,"args":)" + args) + "}";
}

// A kernel launched at `ts` us, running 10 us later for `dur` us.
std::string kernel(int ts, int dur, int corr) {
  return ev("cuda_runtime", "cudaLaunchKernel", ts, 5, 1,
            R"({"correlation":)" + std::to_string(corr) + "}") +
         "," + R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" +
         std::to_string(ts + 10) + R"(,"dur":)" + std::to_string(dur) +
         R"(,"args":{"correlation":)" + std::to_string(corr) + R"(,"stream":7,"device":0}})";
}

// `n` train_step NVTX ranges of 1000 us, each launching one kernel.
std::string nvtx_steps(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    out += ev("user_annotation", "train_step", i * 1000, 1000) + ",";
    out += kernel(i * 1000 + 100, 500, i + 1) + ",";
  }
  return out;
}

bool any_nsys_finding(const Run& r) {
  return r.ids.find("nsys.") != std::string::npos;
}

}  // namespace

TEST_CASE("nsys.empty_capture: CUDA API calls but no GPU work in the window",
          "[findings][nsys_rules]") {
  const std::string launcher = "[" + ev("cuda_runtime", "cudaGetDeviceCount", 0, 5) + "," +
                               ev("cuda_runtime", "cudaProfilerStart", 10, 5) + "]";
  Run r = run_nsys(launcher);
  const ks::Finding* f = find(r, "nsys.empty_capture");
  REQUIRE(f);
  CHECK(f->severity == ks::Severity::kCritical);
  CHECK(num(*f, "cuda_api_calls") == 2);
  CHECK(f->fix_code.find("--capture-range=cudaProfilerApi") != std::string::npos);
  // Said once, with nsys's words: the PyTorch rule stays quiet on exports.
  CHECK(find(r, "capture.no_gpu_activity") == nullptr);
  SECTION("clean twin: a kernel ran") {
    Run c = run_nsys("[" + kernel(0, 100, 1) + "]");
    CHECK(find(c, "nsys.empty_capture") == nullptr);
  }
  SECTION("the same calls in a PyTorch trace: no nsys finding") {
    Run p = run_nsys(launcher, false);
    CHECK_FALSE(any_nsys_finding(p));
  }
}

TEST_CASE("nsys.from_process_start: context creation, allocations, cuDNN autotuning",
          "[findings][nsys_rules]") {
  SECTION("a 200 ms first CUDA call (the lazy context creation) and an allocation storm") {
    std::string j = "[" + ev("cuda_runtime", "cudaFree_v3020", 0, 200000) + ",";
    for (int i = 0; i < 20; ++i)
      j += ev("cuda_runtime", "cudaMalloc_v3020", 200100 + i * 100, 50) + ",";
    j += kernel(210000, 100, 1) + "]";
    Run r = run_nsys(j);
    const ks::Finding* f = find(r, "nsys.from_process_start");
    REQUIRE(f);
    CHECK(num(*f, "longest_early_cuda_call_us") == Approx(200000));
    CHECK(num(*f, "alloc_calls") == 21);
    CHECK(f->fix.find("--capture-range=cudaProfilerApi") != std::string::npos);
  }
  SECTION("cuDNN autotuning inside the window") {
    Run r = run_nsys("[" + ev("cpu_op", "cudnnFindConvolutionForwardAlgorithmEx", 0, 3000) + "," +
                     kernel(5000, 100, 1) + "]");
    const ks::Finding* f = find(r, "nsys.from_process_start");
    REQUIRE(f);
    CHECK(num(*f, "cudnn_find_calls") == 1);
  }
  SECTION("clean twin: short calls, no autotuning") {
    Run r = run_nsys("[" + ev("cuda_runtime", "cudaMalloc_v3020", 0, 20) + "," +
                     kernel(100, 100, 1) + "]");
    CHECK(find(r, "nsys.from_process_start") == nullptr);
  }
}

TEST_CASE("nsys.long_capture: many steps or a long window, with nsys's flags",
          "[findings][nsys_rules]") {
  Run many = run_nsys("[" + nvtx_steps(25) + ev("cpu_op", "x", 0, 1) + "]");
  const ks::Finding* f = find(many, "nsys.long_capture");
  REQUIRE(f);
  CHECK(num(*f, "steps") == 25);
  CHECK(f->fix.find("-d SECONDS") != std::string::npos);
  CHECK(find(many, "capture.too_long") == nullptr);  // the PyTorch wording stays off exports
  Run span = run_nsys("[" + kernel(0, 100, 1) + "," + ev("cpu_op", "x", 70000000, 10) + "]");
  REQUIRE(find(span, "nsys.long_capture"));
  Run few = run_nsys("[" + nvtx_steps(5) + ev("cpu_op", "x", 0, 1) + "]");
  CHECK(find(few, "nsys.long_capture") == nullptr);
}

TEST_CASE("nsys.emit_nvtx: an NVTX range for every op", "[findings][nsys_rules]") {
  auto with_ranges = [](int n) {
    std::string j = "[" + kernel(0, 100, 1);
    for (int i = 0; i < n; ++i) j += "," + ev("user_annotation", "aten::add, seq = 1", i * 2, 1);
    return j + "]";
  };
  Run r = run_nsys(with_ranges(1000));
  const ks::Finding* f = find(r, "nsys.emit_nvtx");
  REQUIRE(f);
  CHECK(num(*f, "aten_ranges") == 1000);
  Run twin = run_nsys(with_ranges(999));
  CHECK(find(twin, "nsys.emit_nvtx") == nullptr);
}

TEST_CASE("nsys.metrics_sampling: GPU metrics sampled while steps were timed",
          "[findings][nsys_rules]") {
  std::string counters;
  for (int i = 0; i < 10; ++i)
    counters += R"(,{"ph":"C","name":"SM Active","pid":0,"ts":)" + std::to_string(i * 500) +
                R"(,"args":{"value":50}})";
  Run r = run_nsys("[" + nvtx_steps(3) + ev("cpu_op", "x", 0, 1) + counters + "]");
  const ks::Finding* f = find(r, "nsys.metrics_sampling");
  REQUIRE(f);
  CHECK(num(*f, "samples") == 10);
  Run no_steps = run_nsys("[" + kernel(0, 100, 1) + counters + "]");
  CHECK(find(no_steps, "nsys.metrics_sampling") == nullptr);
  Run no_metrics = run_nsys("[" + nvtx_steps(3) + ev("cpu_op", "x", 0, 1) + "]");
  CHECK(find(no_metrics, "nsys.metrics_sampling") == nullptr);
}

namespace {

// Three train_steps of 1000 us on device 0, each with a `gemm_us` GEMM (`gemm`) and a 100 us
// elementwise kernel, and one Tensor Active / SM Active sample per step.
std::string gemm_steps(const std::string& gemm, double tensor_active, int gemm_us = 600,
                       double sm_active = 85) {
  std::string out;
  for (int i = 0; i < 3; ++i) {
    const std::string at = std::to_string(i * 1000 + 50);
    out += ev("user_annotation", "train_step", i * 1000, 1000) + ",";
    out += ev("cuda_runtime", "cudaLaunchKernel", i * 1000 + 10, 5, 1,
              R"({"correlation":)" + std::to_string(2 * i + 1) + "}") +
           ",";
    out += R"({"ph":"X","cat":"kernel","name":")" + gemm + R"(","pid":0,"tid":7,"ts":)" +
           std::to_string(i * 1000 + 20) + R"(,"dur":)" + std::to_string(gemm_us) +
           R"(,"args":{"correlation":)" + std::to_string(2 * i + 1) +
           R"(,"stream":7,"device":0}},)";
    out +=
        R"({"ph":"X","cat":"kernel","name":"vectorized_elementwise_kernel","pid":0,"tid":7,"ts":)" +
        std::to_string(i * 1000 + 700) + R"(,"dur":100,"args":{"stream":7,"device":0}},)";
    out += R"({"ph":"C","name":"Tensor Active","pid":0,"ts":)" + at + R"(,"args":{"value":)" +
           std::to_string(tensor_active) + "}},";
    out += R"({"ph":"C","name":"SM Active","pid":0,"ts":)" + at + R"(,"args":{"value":)" +
           std::to_string(sm_active) + "}},";
  }
  return out;
}

}  // namespace

TEST_CASE("gpu.low_tensor_active: measured tensor-core activity low on a GEMM-heavy run",
          "[findings][nsys_rules][gpu_metrics]") {
  const std::string sgemm = "ampere_sgemm_128x64_tn";
  Run r = run_nsys("[" + gemm_steps(sgemm, 2.0) + ev("cpu_op", "x", 0, 1) + "]");
  const ks::Finding* f = find(r, "gpu.low_tensor_active");
  INFO(r.ids);
  REQUIRE(f);
  CHECK(f->severity == ks::Severity::kWarning);
  CHECK(num(*f, "tensor_active_pct") == Approx(2.0));
  CHECK(ks_test::evidence_text(*f, "tensor_active_over") == "steps");
  CHECK(num(*f, "gemm_share_pct") == Approx(600.0 / 700 * 100).epsilon(0.01));
  CHECK(num(*f, "sm_active_pct") == Approx(85.0));
  CHECK(ks_test::evidence_text(*f, "longest_gemm_kernel") == sgemm);
  CHECK(f->fix.find("allow_tf32") != std::string::npos);
  SECTION("clean twin: the tensor cores are busy") {
    Run c = run_nsys("[" + gemm_steps(sgemm, 40.0) + ev("cpu_op", "x", 0, 1) + "]");
    CHECK(find(c, "gpu.low_tensor_active") == nullptr);
  }
  SECTION("clean twin: not GEMM-heavy (low tensor activity is expected)") {
    Run c = run_nsys("[" + gemm_steps("my_reduce_kernel", 2.0) + ev("cpu_op", "x", 0, 1) + "]");
    CHECK(find(c, "gpu.low_tensor_active") == nullptr);
  }
  SECTION("the same trace as a PyTorch trace: counters are not measured GPU metrics") {
    Run p = run_nsys("[" + gemm_steps(sgemm, 2.0) + ev("cpu_op", "x", 0, 1) + "]", false);
    CHECK(find(p, "gpu.low_tensor_active") == nullptr);
  }
  SECTION("clean twin: a mostly idle GPU whose GEMMs run on the tensor cores") {
    // Tensor Active counts the idle time too: 4% of the steps is 25% of the 16% the GPU is
    // busy (the BERT-small export with metrics: 4.5% measured, 64% tensor-core kernel time).
    const std::string tc = "cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4";
    Run c = run_nsys("[" + gemm_steps(tc, 4.0, 60) + ev("cpu_op", "x", 0, 1) + "]");
    INFO(c.ids);
    CHECK(find(c, "gpu.low_tensor_active") == nullptr);
    // The same idle GPU with its tensor cores idle while busy too (0.5% of 16%) still fires.
    Run low = run_nsys("[" + gemm_steps(sgemm, 0.5, 60) + ev("cpu_op", "x", 0, 1) + "]");
    const ks::Finding* g = find(low, "gpu.low_tensor_active");
    REQUIRE(g);
    CHECK(num(*g, "tensor_active_of_busy_pct") == Approx(0.5 / 16 * 100).epsilon(0.01));
  }
}

TEST_CASE("gpu.low_sm_efficiency: measured SM Active where the export sampled it",
          "[findings][nsys_rules][gpu_metrics]") {
  // No grid on the kernels (no estimate), SM Active 20% of the steps while kernels run 70%.
  Run r = run_nsys("[" + gemm_steps("ampere_sgemm_128x64_tn", 40.0, 600, 20) +
                   ev("cpu_op", "x", 0, 1) + "]");
  const ks::Finding* f = find(r, "gpu.low_sm_efficiency");
  INFO(r.ids);
  REQUIRE(f);
  CHECK(f->title.find("SM Active measured 20.0%") != std::string::npos);
  CHECK(num(*f, "sm_active_pct") == Approx(20.0));
  CHECK(num(*f, "utilization_pct") == Approx(70.0));
  SECTION("clean twin: the SMs are busy while kernels run") {
    Run c = run_nsys("[" + gemm_steps("ampere_sgemm_128x64_tn", 40.0, 600, 60) +
                     ev("cpu_op", "x", 0, 1) + "]");
    CHECK(find(c, "gpu.low_sm_efficiency") == nullptr);
  }
}

TEST_CASE("steps.none on an nsys export asks for NVTX step ranges", "[findings][nsys_rules]") {
  Run r = run_nsys("[" + kernel(0, 100, 1) + "]");
  const ks::Finding* f = find(r, "steps.none");
  REQUIRE(f);
  CHECK(f->fix_code.find("torch.cuda.nvtx.range") != std::string::npos);
  Run steps = run_nsys("[" + nvtx_steps(3) + ev("cpu_op", "x", 0, 1) + "]");
  CHECK(find(steps, "steps.none") == nullptr);
}

TEST_CASE("No nsys finding on the real PyTorch traces", "[findings][nsys_rules][false_alarms]") {
  const auto files = ks_test::shared_trace_files();
  if (files.empty()) {
    WARN("SKIPPED: ../shared/traces is absent");
    return;
  }
  for (const std::string& path : files) {
    ks_test::Loaded l = ks_test::load_file(path);
    if (!l.ok) continue;
    Run r = ks_test::analyze_findings(std::move(l.trace));
    INFO(path << ": " << r.ids);
    CHECK_FALSE(any_nsys_finding(r));
  }
}

TEST_CASE("Step findings name NVTX steps by their range, not ProfilerStep",
          "[findings][nsys_rules]") {
  // BUILT: four train_step ranges, the first 3x the others (a warm-up step).
  std::string j = "[" + ev("user_annotation", "train_step", 0, 3000) + ",";
  for (int i = 1; i < 4; ++i) j += ev("user_annotation", "train_step", 2000 + i * 1000, 1000) + ",";
  j += kernel(100, 100, 1) + "]";
  Run r = run_nsys(j);
  const ks::Finding* f = find(r, "steps.warmup_in_window");
  REQUIRE(f);
  CHECK(f->title.find("train_step #0") != std::string::npos);
  CHECK(f->title.find("ProfilerStep") == std::string::npos);
}
