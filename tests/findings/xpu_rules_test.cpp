// Intel XPU traces (Kineto's XPUPTI plugin: xpu_runtime calls named after the SYCL backends'
// Unified Runtime / Level Zero functions, copies named in PTI's letters, "Memcpy M2D"): the
// synchronizing calls are recognised and the findings name the API the trace used, not CUDA's.
#include <catch2/catch.hpp>
#include <string>

#include "analysis/gpu_op_summary.h"
#include "findings/finding_run.h"

namespace {

std::string x_event(const std::string& cat, const std::string& name, int pid, int tid, int64_t ts,
                    int64_t dur, const std::string& args) {
  return R"({"ph":"X","cat":")" + cat + R"(","name":")" + name + R"(","pid":)" +
         std::to_string(pid) + R"(,"tid":)" + std::to_string(tid) + R"(,"ts":)" +
         std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) + R"(,"args":{)" + args + "}}";
}

// Five 10 ms training steps on an XPU: each copies 8 MB from pageable host memory (a blocking
// urEnqueueUSMMemcpy, 2 ms on the GPU), runs a 1 ms kernel, then waits for the queue with
// urQueueFinish (4 ms) before the next step.
std::string xpu_trace() {
  std::string out = R"({"deviceProperties":[{"id":0,"name":"Intel(R) Data Center GPU Max 1550"}],)"
                    R"("traceEvents":[)";
  int corr = 1;
  for (int step = 0; step < 5; ++step) {
    const int64_t t0 = 1000 + step * 10000;
    if (step) out += ",";
    out +=
        x_event("user_annotation", "ProfilerStep#" + std::to_string(step), 100, 100, t0, 9990, "");
    const std::string copy = std::to_string(corr++), kernel = std::to_string(corr++);
    out += "," + x_event("xpu_runtime", "urEnqueueUSMMemcpy", 100, 100, t0 + 10, 2100,
                         R"("correlation":)" + copy);
    out += "," + x_event("gpu_memcpy", "Memcpy M2D", 0, 1, t0 + 50, 2000,
                         R"("device":0,"bytes":8388608,"correlation":)" + copy);
    out += "," + x_event("xpu_runtime", "urEnqueueKernelLaunch", 100, 100, t0 + 2200, 20,
                         R"("correlation":)" + kernel);
    out += "," + x_event("kernel", "gemm_kernel", 0, 1, t0 + 2250, 1000,
                         R"("device":0,"correlation":)" + kernel);
    out += "," + x_event("xpu_runtime", "urQueueFinish", 100, 100, t0 + 2300, 4000, "");
  }
  return out + "]}";
}

}  // namespace

TEST_CASE("XPU copies in PTI's letters: M is pageable host memory", "[findings][xpu]") {
  using ks::MemoryOpKind;
  using ks::SliceKind;
  CHECK(ks::memory_op_kind(SliceKind::kMemcpy, "Memcpy M2D") == MemoryOpKind::kHtoD);
  CHECK(ks::memory_op_kind(SliceKind::kMemcpy, "Memcpy H2D") == MemoryOpKind::kHtoD);
  CHECK(ks::memory_op_kind(SliceKind::kMemcpy, "Memcpy D2M") == MemoryOpKind::kDtoH);
  CHECK(ks::memory_op_kind(SliceKind::kMemcpy, "Memcpy D2H") == MemoryOpKind::kDtoH);
  CHECK(ks::memory_op_kind(SliceKind::kMemcpy, "Memcpy D2D") == MemoryOpKind::kDtoD);
  CHECK(ks::memory_op_kind(SliceKind::kMemcpy, "Memcpy S2D") == MemoryOpKind::kDtoD);
  CHECK(ks::memory_op_kind(SliceKind::kMemcpy, "Memcpy D2D - P2P") == MemoryOpKind::kPtoP);
  CHECK(ks::memory_op_kind(SliceKind::kMemcpy, "Memcpy M2M") == MemoryOpKind::kHtoH);
  CHECK(ks::is_pageable_copy("Memcpy M2D"));
  CHECK(ks::is_pageable_copy("Memcpy D2M"));
  CHECK_FALSE(ks::is_pageable_copy("Memcpy H2D"));  // host USM: pinned
  CHECK_FALSE(ks::is_pageable_copy("Memcpy D2H"));
  CHECK_FALSE(ks::is_pageable_copy("Memcpy M2M"));  // no device side
  // Not PTI's shape: CUDA's names keep their reading.
  CHECK(ks::memory_op_kind(SliceKind::kMemcpy, "Memcpy HtoD (Pageable -> Device)") ==
        MemoryOpKind::kHtoD);
  CHECK(ks::memory_op_kind(SliceKind::kMemcpy, "Memcpy M2Dx") == MemoryOpKind::kOther);
}

TEST_CASE("XPU: urQueueFinish and pageable M2D copies, named as the trace names them",
          "[findings][xpu]") {
  const ks_test::FindingRun r = ks_test::run_findings_on(xpu_trace());
  INFO("findings: " << r.ids);
  REQUIRE(r.analyses.steps.steps.size() == 5);

  const ks::Finding* sync = ks_test::find_finding(r, "sync.runtime_calls");
  REQUIRE(sync);
  INFO(sync->title << " / " << sync->meaning << " / " << sync->fix_code);
  CHECK(sync->title.find("5 synchronizing XPU calls") == 0);
  CHECK(sync->meaning.find("urQueueFinish") != std::string::npos);
  CHECK(sync->meaning.find("cuda") == std::string::npos);
  CHECK(sync->fix_code.find("'xpu'") != std::string::npos);

  const ks::Finding* copies = ks_test::find_finding(r, "memcpy.pageable");
  REQUIRE(copies);
  INFO(copies->title << " / " << copies->meaning << " / " << copies->fix_code);
  CHECK(ks_test::evidence_number(*copies, "copies") == 5);
  CHECK(ks_test::evidence_number(*copies, "htod") == 5);
  CHECK(copies->meaning.find("urEnqueueUSMMemcpy blocks the CPU") != std::string::npos);
  CHECK(copies->meaning.find("cuda") == std::string::npos);
  CHECK(copies->fix_code.find("'xpu'") != std::string::npos);
}

namespace {

// Five launch-bound steps of 20 tiny kernels (a 10 us launch call, a 2 us kernel each) and a
// queue wait at the end, written by `api`'s names: the CUDA trace and its XPU twin, whose
// critical path and findings must read the same (tests/corpus/unseen_shapes2.py, "xpu").
struct Api {
  const char* runtime_cat;
  const char* launch;
  const char* finish;
  const char* device;
};
constexpr Api kCuda{"cuda_runtime", "cudaLaunchKernel", "cudaStreamSynchronize",
                    "NVIDIA A100-SXM4-80GB"};
constexpr Api kXpu{"xpu_runtime", "urEnqueueKernelLaunch", "urQueueFinish",
                   "Intel(R) Data Center GPU Max 1550"};

std::string launch_bound_trace(const Api& api) {
  std::string out = std::string(R"({"deviceProperties":[{"id":0,"name":")") + api.device +
                    R"("}],"traceEvents":[)";
  int corr = 1;
  for (int step = 0; step < 5; ++step) {
    const int64_t t0 = 1000 + step * 300;
    if (step) out += ",";
    out +=
        x_event("user_annotation", "ProfilerStep#" + std::to_string(step), 100, 100, t0, 290, "");
    for (int k = 0; k < 20; ++k) {
      const std::string c = std::to_string(corr++);
      const int64_t at = t0 + 5 + 12 * k;
      out += "," + x_event(api.runtime_cat, api.launch, 100, 100, at, 10, R"("correlation":)" + c);
      out += "," + x_event("kernel", "elementwise_kernel", 0, 7, at + 11, 2,
                           R"("device":0,"stream":7,"correlation":)" + c);
    }
    out += "," + x_event(api.runtime_cat, api.finish, 100, 100, t0 + 250, 30, "");
  }
  return out + "]}";
}

}  // namespace

TEST_CASE("XPU: urEnqueueKernelLaunch launches and urQueueFinish blocks on the critical path",
          "[findings][xpu]") {
  const ks_test::FindingRun cuda = ks_test::run_findings_on(launch_bound_trace(kCuda));
  const ks_test::FindingRun xpu = ks_test::run_findings_on(launch_bound_trace(kXpu));
  const ks::CriticalPathResult& c = cuda.analyses.critical_path;
  const ks::CriticalPathResult& x = xpu.analyses.critical_path;
  REQUIRE(c.ok);
  REQUIRE(x.ok);
  // Before: the XPU launches were no launch calls, so no kernel had a launch edge and the path
  // ran from kernel to kernel through the gaps between them (kernel-kernel overhead), where the
  // CUDA twin's is the CPU's launches.
  CHECK(x.total == c.total);
  for (int b = 0; b < ks::kCpBoundCount; ++b) {
    INFO("bound " << b);
    CHECK(x.bound[b] == c.bound[b]);
  }
  CHECK(x.dominant() == c.dominant());
  // The critical-path finding is the twin's (the kernel-class rules stay off on Intel: its
  // kernel names are not CUDA's, kernel_rules.cpp).
  for (const char* id : {"critical_path.cpu_bound", "critical_path.gpu_overhead"}) {
    INFO(id << ": " << cuda.ids << " / " << xpu.ids);
    CHECK((ks_test::find_finding(xpu, id) != nullptr) ==
          (ks_test::find_finding(cuda, id) != nullptr));
  }
}

TEST_CASE("XPU: launch-overhead fixes name torch.xpu.graph, never CUDA graphs", "[findings][xpu]") {
  const ks_test::FindingRun cuda = ks_test::run_findings_on(launch_bound_trace(kCuda));
  const ks_test::FindingRun xpu = ks_test::run_findings_on(launch_bound_trace(kXpu));
  INFO("findings: " << xpu.ids);
  bool cuda_says_graphs = false, xpu_says_graphs = false;
  for (const ks::Finding& f : cuda.findings)
    cuda_says_graphs |= (f.fix + f.fix_code).find("CUDA graph") != std::string::npos;
  for (const ks::Finding& f : xpu.findings) {
    const std::string fix = f.fix + "\n" + f.fix_code;
    INFO(f.id << ": " << fix);
    CHECK(fix.find("CUDA graph") == std::string::npos);
    CHECK(fix.find("torch.cuda") == std::string::npos);
    // torch.compile's reduce-overhead mode graphs CUDA devices only: never the XPU's fix.
    CHECK(fix.find("torch.compile(model, mode=\"reduce-overhead\")") == std::string::npos);
    xpu_says_graphs |= fix.find("torch.xpu.graph") != std::string::npos;
  }
  CHECK(cuda_says_graphs);  // the twin's advice had graphs in it: the XPU's must too
  CHECK(xpu_says_graphs);
}
