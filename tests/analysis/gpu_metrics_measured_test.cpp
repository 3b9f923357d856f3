// Measured GPU metrics (gpu_metrics.cpp, add_measured): on an Nsight Systems export the
// `SM Active` / `Tensor Active` counters (GPU_METRICS samples, as the nsys importer puts them
// under the GPU's process) give per-device means over the capture and within steps. Hand-made
// traces marked as nsys exports; the same trace as a PyTorch trace stays estimated only.
#include <catch2/catch.hpp>

#include "analysis/gpu_metrics.h"
#include "helpers.h"

namespace {

ks::StepsResult steps_of(const ks::Trace& t) {
  return ks::find_steps(t, ks::build_launch_join(t), false);
}

// Two train_step ranges [0, 100) and [200, 300) us, one kernel each on device 0; device 1 runs a
// kernel outside the steps. Samples (us: value) on device 0:
//   SM Active:     50: 80, 150: 10, 250: 60, 400: 10    -> capture 40, steps (80+60)/2 = 70
//   Tensor Active: 50: 30, 150: 0,  250: 10             -> capture 40/3, steps 20
// Device 1: `SM Active [Throughput %]` (older nsys's name) 100 at 150 (outside the steps);
// device 2 has samples but no kernels (no row); a DRAM series is not read.
const char* kTrace = R"J([
  {"ph":"X","cat":"user_annotation","name":"train_step","pid":100,"tid":1,"ts":0,"dur":100},
  {"ph":"X","cat":"user_annotation","name":"train_step","pid":100,"tid":1,"ts":200,"dur":100},
  {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":50,"args":{"device":0,"stream":7}},
  {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":210,"dur":50,"args":{"device":0,"stream":7}},
  {"ph":"X","cat":"kernel","name":"k","pid":1,"tid":7,"ts":140,"dur":20,"args":{"device":1,"stream":7}},
  {"ph":"C","name":"SM Active","pid":0,"ts":50,"args":{"value":80}},
  {"ph":"C","name":"SM Active","pid":0,"ts":150,"args":{"value":10}},
  {"ph":"C","name":"SM Active","pid":0,"ts":250,"args":{"value":60}},
  {"ph":"C","name":"SM Active","pid":0,"ts":400,"args":{"value":10}},
  {"ph":"C","name":"Tensor Active","pid":0,"ts":50,"args":{"value":30}},
  {"ph":"C","name":"Tensor Active","pid":0,"ts":150,"args":{"value":0}},
  {"ph":"C","name":"Tensor Active","pid":0,"ts":250,"args":{"value":10}},
  {"ph":"C","name":"DRAM Bandwidth","pid":0,"ts":250,"args":{"value":99}},
  {"ph":"C","name":"SM Active [Throughput %]","pid":1,"ts":150,"args":{"value":100}},
  {"ph":"C","name":"SM Active","pid":2,"ts":150,"args":{"value":5}}
])J";

}  // namespace

TEST_CASE("GPU metrics: measured SM/Tensor Active on an nsys export, per device",
          "[analysis][gpu_metrics][nsys]") {
  auto t = ks_test::load(kTrace);
  REQUIRE(t);
  t->facts.format = ks::TraceFormat::kNsysSqlite;
  ks::StepsResult steps = steps_of(*t);
  REQUIRE(steps.steps.size() == 2);
  ks::GpuMetrics g = ks::compute_gpu_metrics(*t, steps);
  CHECK(g.measured);
  REQUIRE(g.devices.size() == 2);
  const ks::DeviceMetrics& d0 = g.devices[0];
  CHECK(d0.device == 0);
  CHECK(d0.measured());
  CHECK(d0.sm_active_samples == 4);
  CHECK(d0.sm_active_pct == Approx(40.0));
  CHECK(d0.sm_active_step_samples == 2);
  CHECK(d0.sm_active_steps_pct == Approx(70.0));
  CHECK(d0.tensor_active_samples == 3);
  CHECK(d0.tensor_active_pct == Approx(40.0 / 3));
  CHECK(d0.tensor_active_step_samples == 2);
  CHECK(d0.tensor_active_steps_pct == Approx(20.0));
  const ks::DeviceMetrics& d1 = g.devices[1];
  CHECK(d1.device == 1);
  CHECK(d1.sm_active_samples == 1);
  CHECK(d1.sm_active_pct == Approx(100.0));
  CHECK(d1.sm_active_step_samples == 0);  // sampled outside the steps only
  CHECK(d1.tensor_active_samples == 0);
}

TEST_CASE("GPU metrics: the same counters in a PyTorch trace are not read as measured",
          "[analysis][gpu_metrics][nsys]") {
  auto t = ks_test::load(kTrace);
  REQUIRE(t);
  ks::GpuMetrics g = ks::compute_gpu_metrics(*t, steps_of(*t));
  CHECK_FALSE(g.measured);
  for (const ks::DeviceMetrics& d : g.devices) {
    CHECK_FALSE(d.measured());
    CHECK(d.sm_active_samples == 0);
  }
}

namespace {

// The further series as nsys 2023-2025 names them (one step [0, 100) us, device 0; samples at
// 50 us, inside the step, and 150 us, outside it), with the series that are not shares.
const char* kMoreTrace = R"J([
  {"ph":"X","cat":"user_annotation","name":"train_step","pid":100,"tid":1,"ts":0,"dur":100},
  {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":50,"args":{"device":0,"stream":7}},
  {"ph":"C","name":"GR Active [Throughput %]","pid":0,"ts":50,"args":{"value":90}},
  {"ph":"C","name":"GR Active [Throughput %]","pid":0,"ts":150,"args":{"value":10}},
  {"ph":"C","name":"SM Issue [Throughput %]","pid":0,"ts":50,"args":{"value":20}},
  {"ph":"C","name":"compute warps in flight [throughput %]","pid":0,"ts":50,"args":{"value":30}},
  {"ph":"C","name":"Compute Warps in Flight [Avg]","pid":0,"ts":50,"args":{"value":900}},
  {"ph":"C","name":"Compute Warps in Flight [Avg Warps per Cycle]","pid":0,"ts":50,"args":{"value":12}},
  {"ph":"C","name":"Unallocated Warps in Active SMs [Throughput %]","pid":0,"ts":50,"args":{"value":45}},
  {"ph":"C","name":"DRAM Read Bandwidth [Throughput %]","pid":0,"ts":50,"args":{"value":60}},
  {"ph":"C","name":"DRAM Read Bandwidth [Throughput %]","pid":0,"ts":150,"args":{"value":0}},
  {"ph":"C","name":"DRAM Write Throughput [Throughput %]","pid":0,"ts":50,"args":{"value":15}},
  {"ph":"C","name":"PCIe RX Throughput [Throughput %]","pid":0,"ts":150,"args":{"value":5}},
  {"ph":"C","name":"PCIe Read Requests to BAR1 [Requests]","pid":0,"ts":50,"args":{"value":77}},
  {"ph":"C","name":"NVLink RX Requests User Data [Throughput %]","pid":0,"ts":50,"args":{"value":10}},
  {"ph":"C","name":"NVLink RX Responses User Data [Throughput %]","pid":0,"ts":50,"args":{"value":20}},
  {"ph":"C","name":"NVLink RX Responses Protocol Data [Throughput %]","pid":0,"ts":50,"args":{"value":50}},
  {"ph":"C","name":"NVLink TX Bandwidth","pid":0,"ts":50,"args":{"value":7}}
])J";

}  // namespace

TEST_CASE("GPU metrics: SM Issue, warps, DRAM, PCIe and NVLink by name, without the unit",
          "[analysis][gpu_metrics][nsys]") {
  using M = ks::MeasuredMetric;
  auto t = ks_test::load(kMoreTrace);
  REQUIRE(t);
  t->facts.format = ks::TraceFormat::kNsysSqlite;
  ks::GpuMetrics g = ks::compute_gpu_metrics(*t, steps_of(*t));
  CHECK(g.measured);  // no SM/Tensor Active, yet measured
  REQUIRE(g.devices.size() == 1);
  const ks::DeviceMetrics& d = g.devices[0];
  CHECK(d.sm_active_samples == 0);
  CHECK(d.of(M::kGrActive).samples == 2);
  CHECK(d.of(M::kGrActive).pct == Approx(50.0));
  CHECK(d.of(M::kGrActive).steps_pct == Approx(90.0));
  CHECK(d.of(M::kSmIssue).steps_pct == Approx(20.0));
  // Case-insensitive; the [Avg] and [Avg Warps per Cycle] series are not shares.
  CHECK(d.of(M::kWarpsInFlight).samples == 1);
  CHECK(d.of(M::kWarpsInFlight).pct == Approx(30.0));
  CHECK(d.of(M::kUnallocatedWarps).pct == Approx(45.0));
  CHECK(d.of(M::kDramRead).pct == Approx(30.0));
  CHECK(d.of(M::kDramRead).steps_pct == Approx(60.0));
  CHECK(d.of(M::kDramWrite).pct == Approx(15.0));  // "Throughput", Hopper's word
  // Sampled outside the step only: a capture mean, none in the steps.
  CHECK(d.of(M::kPcieRx).samples == 1);
  CHECK(d.of(M::kPcieRx).step_samples == 0);
  CHECK(d.of(M::kPcieRx).best_pct() == Approx(5.0));
  CHECK(d.of(M::kPcieTx).samples == 0);  // BAR1 requests are counts, not PCIe throughput
  // NVLink RX: requests + responses user data; the protocol data left out.
  CHECK(d.of(M::kNvlinkRx).pct == Approx(30.0));
  CHECK(d.of(M::kNvlinkTx).pct == Approx(7.0));  // one series per direction: that one
}

TEST_CASE("GPU metrics: the further series in a PyTorch trace are not read",
          "[analysis][gpu_metrics][nsys]") {
  auto t = ks_test::load(kMoreTrace);
  REQUIRE(t);
  ks::GpuMetrics g = ks::compute_gpu_metrics(*t, steps_of(*t));
  CHECK_FALSE(g.measured);
  REQUIRE(g.devices.size() == 1);
  CHECK_FALSE(g.devices[0].measured());
}
