// Real captures on an NVIDIA H200 (torch 2.11, Kineto/CUPTI) of examples/capture/gpu_nvtx.py,
// one per switch (examples/pathologies/README.md, "H200 captures"): each planted problem is
// named, and the clean run is not blamed for problems it does not have. A tiny model on an H200
// is launch-bound, honestly: that finding is expected on every capture.
#include <catch2/catch.hpp>
#include <string>

#include "analysis/kernel_class.h"
#include "findings/finding_run.h"

namespace {

using Run = ks_test::FindingRun;
constexpr auto num = ks_test::evidence_number;

Run run_capture(const std::string& name) {
  std::string json;
  const std::string path =
      std::string(KS_SOURCE_DIR) + "/examples/pathologies/h200/h200_" + name + ".pt.trace.json.gz";
  INFO("trace " << path);
  REQUIRE(ks_test::read_file_maybe_gzip(path, &json));
  return ks_test::run_findings_on(json);
}

bool fired(const Run& r, std::string_view id) {
  return ks_test::find_finding(r, id) != nullptr;
}

const ks::Finding& require(const Run& r, std::string_view id) {
  INFO("findings: " << r.ids << "; wanted " << id);
  const ks::Finding* found = ks_test::find_finding(r, id);
  REQUIRE(found);
  return *found;
}

// The planted problems' findings; the clean run has none of them.
const char* const kPlanted[] = {"sync.dtoh_in_step",       "dataloader.slow",
                                "kernels.no_tensor_cores", "memcpy.pageable",
                                "steps.warmup_in_window",  "capture.diagnostic_flags"};

}  // namespace

TEST_CASE("H200 clean capture: none of the planted problems", "[findings][h200]") {
  Run r = run_capture("clean");
  INFO("findings: " << r.ids);
  for (const char* id : kPlanted) CHECK_FALSE(fired(r, id));
  CHECK(fired(r, "kernels.launch_bound"));
  // bf16 autocast: cuBLAS's nvjet GEMMs and cuDNN's wgmma attention use the tensor cores.
  REQUIRE(r.analyses.gpu_metrics.devices.size() == 1);
  CHECK(r.analyses.gpu_metrics.devices[0].tensor_core_pct > 30.0);
}

TEST_CASE("H200 capture with loss.item() every step: the DtoH copy in each step",
          "[findings][h200]") {
  Run r = run_capture("item");
  const ks::Finding& f = require(r, "sync.dtoh_in_step");
  CHECK(num(f, "copies") == 3);
  CHECK(num(f, "steps_with_copies") == 3);
}

TEST_CASE("H200 capture with the DataLoader in the training process", "[findings][h200]") {
  Run r = run_capture("loader0");
  const ks::Finding& d = require(r, "dataloader.slow");
  CHECK(d.severity == ks::Severity::kCritical);
  CHECK(num(d, "dataloader_pct") > 50.0);
  CHECK(require(r, "gpu.idle").title.find("waiting for the DataLoader") != std::string::npos);
}

TEST_CASE("H200 capture in fp32 with TF32 off: no tensor cores", "[findings][h200]") {
  // cuBLAS picked sm80_xmma_gemm_f32f32_..._ffma_ kernels and CUTLASS simt sgemms: CUDA cores.
  Run r = run_capture("fp32");
  const ks::Finding& f = require(r, "kernels.no_tensor_cores");
  CHECK(f.severity == ks::Severity::kWarning);
  CHECK(num(f, "gemm_conv_kernels") > 100);
  CHECK(r.analyses.gpu_metrics.devices[0].tensor_core_pct == 0.0);
}

TEST_CASE("H200 capture with pageable host batches", "[findings][h200]") {
  Run r = run_capture("pageable");
  CHECK(fired(r, "memcpy.pageable"));
  CHECK_FALSE(fired(r, "sync.dtoh_in_step"));
}

TEST_CASE("H200 capture without a schedule: the warm-up step is named", "[findings][h200]") {
  Run r = run_capture("nosched");
  const ks::Finding& f = require(r, "steps.warmup_in_window");
  CHECK(f.title.find("ProfilerStep#0") != std::string::npos);
}

TEST_CASE("H200 capture with shapes, stacks and memory on", "[findings][h200]") {
  Run r = run_capture("heavy");
  const ks::Finding& f = require(r, "capture.diagnostic_flags");
  CHECK(f.title.find("with_stack") != std::string::npos);
  CHECK(f.title.find("record_shapes") != std::string::npos);
  CHECK(f.title.find("profile_memory") != std::string::npos);
}

TEST_CASE("H200 torch.compile captures: advice fits what the step already does",
          "[findings][h200]") {
  SECTION("compiled: not told to compile, told to replay CUDA graphs") {
    Run r = run_capture("compile");
    const ks::Finding& f = require(r, "kernels.launch_bound");
    CHECK(f.fix.find("already compiled") != std::string::npos);
    CHECK(f.fix_code.find("reduce-overhead") != std::string::npos);
    for (const char* id : kPlanted) CHECK_FALSE(fired(r, id));
  }
  SECTION("compiled with CUDA graphs: not told to use either") {
    Run r = run_capture("cudagraph");
    INFO("findings: " << r.ids);
    for (const ks::Finding& f : r.findings) {
      INFO(f.id << ": " << f.fix);
      CHECK(f.fix.find("(torch.compile)") == std::string::npos);
      CHECK(f.fix.find("CUDA graphs for a static step") == std::string::npos);
    }
    CHECK(r.analyses.launches.total.graph_ops > 0);
    // cuDNN's SDPA backward casts (cudnn::fusion::convert_dq_to_16bits) are no convolution.
    for (const ks::KernelClassRow& row : r.analyses.kernel_groups.by_class)
      CHECK(row.klass != ks::KernelClass::kConvolution);
  }
}
