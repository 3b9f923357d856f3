// Real captures on an NVIDIA H200 (torch 2.11, Kineto/CUPTI) of examples/capture/gpu_nvtx.py,
// one per switch (examples/pathologies/README.md, "H200 captures"): each planted problem is
// named, and the clean run is not blamed for problems it does not have. A tiny model on an H200
// is launch-bound, honestly: that finding is expected on every capture.
#include <catch2/catch.hpp>
#include <string>

#include <cmath>

#include "analysis/kernel_class.h"
#include "analysis/math_efficiency.h"
#include "findings/finding_run.h"
#include "source_dir.h"

namespace {

using Run = ks_test::FindingRun;
constexpr auto num = ks_test::evidence_number;

Run run_capture(const std::string& name) {
  std::string json;
  const std::string path =
      ks_test::source_dir() + "/examples/pathologies/h200/h200_" + name + ".pt.trace.json.gz";
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

TEST_CASE(
    "H200 GPU-bound capture: the first step's backlog is not a warm-up, blocking costs "
    "nothing",
    "[findings][h200]") {
  // gpu_nvtx.py with 8 layers of d_model 2048 over 64 x 512 tokens: the GPU is 99% busy and the
  // CPU runs ahead of it, so the first recorded step starts with 165 ms of the warm-up steps'
  // kernels still running (1106 GPU ops with no launch in the capture).
  Run r = run_capture("big");
  INFO("findings: " << r.ids);
  const ks::StepsResult& st = r.analyses.steps;
  REQUIRE(st.steps.size() == 3);
  CHECK(st.steps[0].queued_ns > 100000000);
  CHECK(st.steps[1].queued_ns == 0);
  CHECK(st.steps[0].own_dur() < 1.2 * st.stats.median_ns);
  // The statistics are of own times (spread 8.7%; 76% with the backlog counted), and the window
  // the rules divide by is still the steps' whole span.
  CHECK(st.spread_pct < 15.0);
  CHECK(st.stats.max_ns < st.steps[0].dur());
  CHECK(st.stats.total_ns == st.steps.back().end - st.steps.front().begin);
  CHECK_FALSE(fired(r, "steps.warmup_in_window"));
  CHECK_FALSE(fired(r, "steps.unstable"));
  CHECK_FALSE(fired(r, "kernels.launch_bound"));
  CHECK_FALSE(fired(r, "gpu.idle"));
  // The final torch.cuda.synchronize() blocks the CPU for 255 ms (33% of step time) while the
  // GPU finishes queued work: for information, not a warning.
  const ks::Finding& f = require(r, "sync.runtime_calls");
  CHECK(f.severity == ks::Severity::kInfo);
  CHECK(r.analyses.sync.gpu_busy_while_blocked_ns > 0.95 * r.analyses.sync.blocked_ns);
}

TEST_CASE("H200 GPU-bound capture with loss.item(): named, for information", "[findings][h200]") {
  Run r = run_capture("big_item");
  const ks::Finding& f = require(r, "sync.dtoh_in_step");
  CHECK(f.severity == ks::Severity::kInfo);
  CHECK(num(f, "gpu_idle_after_sync_pct") < 1.0);
}

TEST_CASE("H200 MFU from recorded shapes agrees with the model's arithmetic", "[findings][h200]") {
  // The GPU-bound model with --record-shapes. Per step, per layer: QKV 2*T*d*3d, out 2*T*d*d,
  // FF 2 x 2*T*d*4d (T = 64 x 512 tokens, d = 2048) and attention 2 x 2*B*H*S*S*dh forward;
  // backward twice the GEMMs and 2.5x the attention (flash recomputes the scores): 83.0 TFLOP
  // for 8 layers; the classifier head and LayerNorms are left out of both.
  std::string json;
  REQUIRE(ks_test::read_file_maybe_gzip(
      ks_test::source_dir() + "/examples/pathologies/h200/h200_big_shapes.pt.trace.json.gz",
      &json));
  Run r = ks_test::run_findings_on(json);
  const ks::MathEfficiency m =
      ks::compute_math_efficiency(*r.trace, r.analyses.join, r.analyses.steps);
  REQUIRE(m.steps.size() == 3);
  const double T = 64.0 * 512, d = 2048, B = 64, H = 16, S = 512, dh = 128;
  const double gemm = 2 * T * d * 3 * d + 2 * T * d * d + 2 * (2 * T * d * 4 * d);
  const double attn = 2 * (2 * B * H * S * S * dh);
  const double expected = 8 * (3 * gemm + 3.5 * attn);
  for (const ks::MathStepRow& row : m.steps) {
    INFO("step " << row.number << ": " << row.flops << " FLOPs, expected " << expected);
    CHECK(std::abs(row.flops - expected) < 0.02 * expected);
    // bf16 on an H200 (989.5 TFLOP/s dense): 41-44% in every step, the first one included,
    // once its 165 ms of queued warm-up work is not counted as its time.
    CHECK(row.mfu_pct > 38.0);
    CHECK(row.mfu_pct < 48.0);
  }
}

TEST_CASE("H200 GPU-bound capture with pageable batches: the copies' own cost, not the queue's",
          "[findings][h200]") {
  // 256 MiB of pageable HtoD per step at 6 GB/s (44 ms). Their cudaMemcpyAsync calls block the
  // CPU 196 ms per step, most of it while the GPU finishes the work queued before them: that
  // wait costs nothing. The share is the copies' GPU time, 14% of step time, not 63%.
  Run r = run_capture("big_pageable");
  const ks::Finding& f = require(r, "memcpy.pageable");
  CHECK(f.severity == ks::Severity::kWarning);
  CHECK(num(f, "launch_blocked_us") > 4 * num(f, "copy_us"));
  CHECK(num(f, "launch_blocked_gpu_idle_us") < 0.1 * num(f, "copy_us"));
  CHECK(num(f, "share_pct") > 10.0);
  CHECK(num(f, "share_pct") < 20.0);
}
