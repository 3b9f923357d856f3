// The planted-pathology traces (examples/pathologies/, evidence in its README.md): each rule
// fires on the trace that has its pathology, with the evidence the README names, and the clean
// twins raise no finding at all. The CPU traces are real captures (their README numbers are from
// the checked-in files); the GPU ones are generated (generate.py prints the same numbers).
// The straggler sets are multi-rank and checked by the multi-rank tests.
#include <catch2/catch.hpp>
#include <cmath>

#include "analysis/idle_causes.h"
#include "findings/finding_run.h"
#include "source_dir.h"

namespace {

using Run = ks_test::FindingRun;
constexpr auto num = ks_test::evidence_number;
constexpr auto text = ks_test::evidence_text;

Run run_file(const std::string& relative) {
  std::string json;
  const std::string path = ks_test::source_dir() + "/examples/pathologies/" + relative;
  INFO("trace " << path);
  REQUIRE(ks_test::read_file_maybe_gzip(path, &json));
  return ks_test::run_findings_on(json);
}

const ks::Finding& require(const Run& r, std::string_view id) {
  INFO("findings: " << r.ids << "; wanted " << id);
  const ks::Finding* found = ks_test::find_finding(r, id);
  REQUIRE(found);
  return *found;
}

bool fired(const Run& r, std::string_view id) {
  return ks_test::find_finding(r, id) != nullptr;
}

// `value` within `rel` (relative) of the README's `expected`.
void check_near(const char* what, double value, double expected, double rel) {
  INFO(what << ": " << value << ", README " << expected);
  CHECK(std::fabs(value - expected) <= rel * std::fabs(expected));
}

void check_clean(const char* file) {
  Run r = run_file(file);
  INFO(file << " findings: " << r.ids);
  CHECK(r.findings.empty());
}

}  // namespace

TEST_CASE("Clean twins raise no finding", "[findings][pathologies]") {
  check_clean("gpu/gpu_clean.pt.trace.json.gz");
  check_clean("gpu/gpu_clean_foreach.pt.trace.json.gz");
  check_clean("gpu/gpu_clean_ddp_overlap.pt.trace.json.gz");
  check_clean("cpu/cpu_clean.pt.trace.json.gz");
}

TEST_CASE("DataLoader stall: dataloader.slow and GPU idle waiting for data",
          "[findings][pathologies]") {
  // README: __next__ 2.3 ms = 30% of each host step; the GPU is idle 56% of that time.
  Run r = run_file("gpu/gpu_dataloader_stall.pt.trace.json.gz");
  const ks::Finding& d = require(r, "dataloader.slow");
  CHECK(d.severity == ks::Severity::kWarning);
  check_near("__next__ per step (us)", num(d, "next_us_per_step"), 2300, 0.02);
  check_near("share of the host step (%)", num(d, "next_pct_of_host_step"), 30, 0.02);
  check_near("GPU idle during __next__ (%)", num(d, "gpu_idle_during_next_pct"), 56, 0.02);
  CHECK(num(d, "dataloader_pct") > 5.0);
  CHECK(text(d, "iterator") == "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__");
  const ks::Finding& g = require(r, "gpu.idle");
  CHECK(g.title.find("mostly waiting for the DataLoader") != std::string::npos);
  CHECK(num(g, "dataloader_us") > num(g, "host_wait_us"));
  // GPU busy 74% (twin 97%).
  check_near("GPU idle (%)", num(g, "idle_pct"), 26, 0.02);
}

TEST_CASE("loss.item() every step: the DtoH copy, the sync, and the idle after it",
          "[findings][pathologies]") {
  // README: 1 Memcpy DtoH (Device -> Pageable) of 4 B per step under aten::item >
  // aten::_local_scalar_dense, then cudaStreamSynchronize 1.26 ms; GPU busy 85%.
  Run r = run_file("gpu/gpu_item_sync.pt.trace.json.gz");
  const ks::Finding& d = require(r, "sync.dtoh_in_step");
  CHECK(num(d, "copies") == 6);
  CHECK(num(d, "steps_with_copies") == 6);
  CHECK(text(d, "issued_by") == "aten::item > aten::_local_scalar_dense");
  CHECK(num(d, "bytes") == 24);  // 4 B per step
  const ks::Finding& s = require(r, "sync.runtime_calls");
  CHECK(text(s, "top_call") == "cudaStreamSynchronize");
  CHECK(num(s, "top_call_count") == 6);
  check_near("mean sync (us)", num(s, "total_us") / num(s, "calls"), 1260, 0.02);
  CHECK(text(s, "called_from") == "aten::item > aten::_local_scalar_dense");
  const ks::Finding& g = require(r, "gpu.idle");
  CHECK(g.title.find("after a CPU/GPU synchronization") != std::string::npos);
  check_near("GPU idle (%)", num(g, "idle_pct"), 15, 0.05);
  CHECK_FALSE(fired(r, "kernels.launch_bound"));
}

TEST_CASE("Launch-bound optimizer: thousands of tiny kernels, the GPU waiting for launches",
          "[findings][pathologies]") {
  // README: 1770 kernels of <= 4 us (3080 kernels in 5 steps); host-wait gaps 7.4 ms per step;
  // GPU busy 62%.
  Run r = run_file("gpu/gpu_launch_bound.pt.trace.json.gz");
  const ks::Finding& l = require(r, "kernels.launch_bound");
  CHECK(num(l, "kernels_le_4us") == 1770);
  CHECK(num(l, "kernels") == 3080);
  CHECK(num(l, "short_kernels_pct") > 50);
  const ks::Finding& g = require(r, "gpu.idle");
  CHECK(g.title.find("host wait") != std::string::npos);
  check_near("host wait per step (us)", num(g, "host_wait_us") / 5, 7400, 0.02);
  check_near("GPU idle (%)", num(g, "idle_pct"), 38, 0.02);
  // Its ranges are examples of that cause, short host waits (issue 18), not the longest gaps of
  // the trace (285 us ones at the step starts, waiting for the next step's input copy).
  REQUIRE(g.ranges.size() == 5);
  for (const ks::TimeRange& range : g.ranges) {
    CHECK(range.end_ns - range.begin_ns < ks::kLaunchGapNs);
    CHECK(range.label.find("(host_wait)") != std::string::npos);
  }
}

TEST_CASE("Pageable HtoD copies: slow copies that block the CPU", "[findings][pathologies]") {
  // README: Memcpy HtoD (Pageable -> Device) of 16 MiB per step at 5.5 GB/s (3.05 ms); its
  // cudaMemcpyAsync blocks the CPU 3.91 ms.
  Run r = run_file("gpu/gpu_pageable_htod.pt.trace.json.gz");
  const ks::Finding& p = require(r, "memcpy.pageable");
  CHECK(p.severity == ks::Severity::kWarning);
  CHECK(num(p, "htod") == 12);
  check_near("bytes per step", num(p, "bytes_per_step"), 16 << 20, 0.01);
  check_near("GB/s", num(p, "gb_per_s"), 5.5, 0.01);
  check_near("copy per step (us)", num(p, "copy_us_per_step"), 3050, 0.01);
  check_near("blocked per step (us)", num(p, "launch_blocked_us_per_step"), 3910, 0.01);
}

TEST_CASE("All-reduce after backward: communication not overlapped", "[findings][pathologies]") {
  // README: ncclDevKernel_AllReduce_Sum_f32_RING_LL on stream 20, 1.63 ms per step, 0%
  // overlapped; the twin (all-reduce during backward) is 85% overlapped.
  Run r = run_file("gpu/gpu_nccl_not_overlapped.pt.trace.json.gz");
  const ks::Finding& c = require(r, "comm.not_overlapped");
  CHECK(num(c, "overlap_pct") == 0);
  check_near("communication per step (us)", num(c, "comm_kernel_us_per_step"), 1630, 0.01);
  CHECK(num(c, "top_comm_stream") == 20);
  CHECK(text(c, "top_comm_kernel").rfind("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 0) == 0);
  Run twin = run_file("gpu/gpu_clean_ddp_overlap.pt.trace.json.gz");
  check_near("twin overlap (%)", twin.analyses.comm_overlap.overlap_pct, 85, 0.01);
}

TEST_CASE("fp32 GEMMs on an H100: no tensor cores", "[findings][pathologies]") {
  // README: compute capability 9.0, aten::linear/addmm/mm ran, 162 GEMM kernels all fp32 SIMT,
  // GEMM 14.6 ms per step.
  Run r = run_file("gpu/gpu_no_tensor_cores.pt.trace.json.gz");
  const ks::Finding& t = require(r, "kernels.no_tensor_cores");
  CHECK(text(t, "compute_capability") == "9.0");
  CHECK(num(t, "gemm_conv_kernels") == 162);
  check_near("GEMM per step (us)", num(t, "gemm_conv_us_per_step"), 14600, 0.01);
  CHECK(num(t, "eligible_ops") > 0);
  CHECK(text(t, "top_math_kernels").find("ampere_sgemm") != std::string::npos);
  // On the timeline: the longest fp32 GEMM, with the launch and the kernel to jump to.
  REQUIRE(t.ranges.size() == 1);
  CHECK(t.ranges[0].label.find("longest fp32 ") == 0);
  REQUIRE(t.events.size() == 1);
  CHECK(r.trace->str(r.trace->slices.name[t.events[0]]).find("sgemm") != std::string_view::npos);
}

TEST_CASE("CPU: DataLoader without workers", "[findings][pathologies]") {
  // README: _SingleProcessDataLoaderIter.__next__ 83.6 ms per step = 23-26% of the step.
  Run r = run_file("cpu/cpu_dataloader_no_workers.pt.trace.json.gz");
  const ks::Finding& d = require(r, "dataloader.slow");
  check_near("__next__ per step (us)", num(d, "next_us_per_step"), 83600, 0.01);
  CHECK(num(d, "next_pct_of_host_step") >= 23);
  CHECK(num(d, "next_pct_of_host_step") <= 26);
  CHECK(text(d, "iterator").find("_SingleProcessDataLoaderIter") != std::string::npos);
  CHECK(d.meaning.find("num_workers=0") != std::string::npos);
}

TEST_CASE("CPU: loss.item() every step", "[findings][pathologies]") {
  // README: one aten::item > aten::_local_scalar_dense per ProfilerStep (3 steps).
  Run r = run_file("cpu/cpu_item_per_step.pt.trace.json.gz");
  const ks::Finding& i = require(r, "sync.item_per_step");
  CHECK(i.severity == ks::Severity::kInfo);  // free on a CPU; a sync on a GPU
  CHECK(num(i, "calls") == 3);
  CHECK(num(i, "steps_with_calls") == 3);
}

TEST_CASE("CPU: warm-up captured without a schedule", "[findings][pathologies]") {
  // README: ProfilerStep#0..#3; step 0 900 ms against 272 / 249 / 246 ms.
  Run r = run_file("cpu/cpu_warmup_captured.pt.trace.json.gz");
  const ks::Finding& w = require(r, "steps.warmup_in_window");
  CHECK(num(w, "first_step") == 0);
  check_near("step 0 (us)", num(w, "first_step_us"), 900000, 0.01);
  check_near("median of the others (us)", num(w, "others_median_us"), 249000, 0.01);
  // The warm-up step is reported once: not again as unstable steps or a slow DataLoader.
  CHECK_FALSE(fired(r, "steps.unstable"));
  CHECK_FALSE(fired(r, "dataloader.slow"));
}

TEST_CASE("CPU: heavy flags leave nothing in a legacy trace", "[findings][pathologies]") {
  // README: the legacy exporter writes "args": {} and no memory events, so nothing in the file
  // shows the flags: the rule must stay silent rather than guess (hand-made traces with the
  // flags' traces are in capture_rules_test.cpp).
  Run r = run_file("cpu/cpu_heavy_flags.pt.trace.json.gz");
  INFO("findings: " << r.ids);
  CHECK_FALSE(fired(r, "capture.diagnostic_flags"));
}
