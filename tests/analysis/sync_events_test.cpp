// Synchronizing runtime calls and device-to-host copies inside steps, with the CPU ops that
// issued them (src/analysis/sync_events.cpp).
#include "analysis/sync_events.h"

#include <catch2/catch.hpp>

#include "helpers.h"

namespace {

// One step, host [100, 200) us. Inside it:
//   - two .item() calls, each aten::item > aten::_local_scalar_dense > aten::copy_ >
//     cudaMemcpyAsync, whose DtoH copies run [116, 117) (4 B) and [146, 148) (8 B);
//   - a cudaStreamSynchronize [117, 127) inside the first aten::copy_;
//   - a cudaMemcpyAsync with no CPU op around it (only the step marker): DtoH [173, 174), 16 B;
//   - a DtoH [180, 181) whose launch is not in the trace (correlation 99), 2 B;
//   - an HtoD copy (not a DtoH) and a cudaDeviceSynchronize [190, 195).
// Outside the step: a DtoH [20, 21) launched at 10 and a cudaDeviceSynchronize [50, 60).
const char* kTrace = R"J([
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":100,"dur":100},
  {"ph":"X","cat":"cpu_op","name":"aten::item","pid":1,"tid":1,"ts":110,"dur":20},
  {"ph":"X","cat":"cpu_op","name":"aten::_local_scalar_dense","pid":1,"tid":1,"ts":111,"dur":18},
  {"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":1,"tid":1,"ts":112,"dur":16},
  {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":113,"dur":2,
   "args":{"correlation":10}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":1,"tid":1,"ts":117,"dur":10},
  {"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoH (Device -> Pageable)","pid":0,"tid":7,
   "ts":116,"dur":1,"args":{"correlation":10,"bytes":4,"stream":7}},
  {"ph":"X","cat":"cpu_op","name":"aten::item","pid":1,"tid":1,"ts":140,"dur":20},
  {"ph":"X","cat":"cpu_op","name":"aten::_local_scalar_dense","pid":1,"tid":1,"ts":141,"dur":18},
  {"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":1,"tid":1,"ts":142,"dur":16},
  {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":143,"dur":2,
   "args":{"correlation":11}},
  {"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoH (Device -> Pageable)","pid":0,"tid":7,
   "ts":146,"dur":2,"args":{"correlation":11,"bytes":8,"stream":7}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":170,"dur":2,
   "args":{"correlation":12}},
  {"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoH (Device -> Pinned)","pid":0,"tid":7,
   "ts":173,"dur":1,"args":{"correlation":12,"bytes":16,"stream":7}},
  {"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoH (Device -> Pinned)","pid":0,"tid":7,
   "ts":180,"dur":1,"args":{"correlation":99,"bytes":2,"stream":7}},
  {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pinned -> Device)","pid":0,"tid":7,
   "ts":185,"dur":1,"args":{"bytes":64,"stream":7}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":1,"tid":1,"ts":190,"dur":5},
  {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":2,"ts":10,"dur":2,
   "args":{"correlation":13}},
  {"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoH (Device -> Pageable)","pid":0,"tid":7,
   "ts":20,"dur":1,"args":{"correlation":13,"bytes":4,"stream":7}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":1,"tid":2,"ts":50,"dur":10}
])J";

ks::SyncResult sync_of(const ks::Trace& t) {
  ks::LaunchJoin join = ks::build_launch_join(t);
  return ks::find_sync_events(t, join, ks::find_steps(t, join, false));
}

}  // namespace

TEST_CASE("Synchronizing runtime calls are summed by name", "[analysis][sync]") {
  auto t = ks_test::load(kTrace);
  ks::SyncResult r = sync_of(*t);
  // cudaDeviceSynchronize: 5 + 10 = 15 us in 2 calls; cudaStreamSynchronize: 10 us in 1.
  // cudaMemcpyAsync does not synchronize.
  CHECK(r.count == 3);
  CHECK(r.total_ns == 25000);
  REQUIRE(r.calls.size() == 2);
  CHECK(t->str(r.calls[0].name) == "cudaDeviceSynchronize");
  CHECK(r.calls[0].count == 2);
  CHECK(r.calls[0].total_ns == 15000);
  CHECK(r.calls[0].max_ns == 10000);
  REQUIRE(r.calls[0].longest.size() == 2);
  CHECK(t->slices.dur[r.calls[0].longest[0]] == 10000);  // longest first
  CHECK(t->slices.dur[r.calls[0].longest[1]] == 5000);
  CHECK(t->str(r.calls[1].name) == "cudaStreamSynchronize");
  CHECK(r.calls[1].total_ns == 10000);
}

TEST_CASE("Device-to-host copies in steps are grouped by the CPU ops that issued them",
          "[analysis][sync]") {
  auto t = ks_test::load(kTrace);
  ks::SyncResult r = sync_of(*t);
  // In the step: 2 from .item(), 1 with no CPU op, 1 whose launch is missing. The copy at 20 us
  // is outside every step and the HtoD copy is not device-to-host.
  CHECK(r.dtoh_in_steps_count == 4);
  CHECK(r.steps_with_dtoh == 1);
  REQUIRE(r.dtoh_in_steps.size() == 3);
  const ks::CopyOrigin& item = r.dtoh_in_steps[0];
  CHECK(item.cpu_ops == "aten::item > aten::_local_scalar_dense > aten::copy_");
  CHECK(item.count == 2);
  CHECK(item.bytes == 4 + 8);
  CHECK(item.gpu_ns == 1000 + 2000);
  REQUIRE(item.examples.size() == 2);
  CHECK(t->slices.ts[item.examples[0]] == 116000);
  CHECK(t->slices.ts[item.examples[1]] == 146000);
  // Equal counts keep the text order of the origins.
  CHECK(r.dtoh_in_steps[1].cpu_ops == "(launch not recorded)");
  CHECK(r.dtoh_in_steps[1].bytes == 2);
  CHECK(r.dtoh_in_steps[2].cpu_ops == "(no enclosing CPU op)");
  CHECK(r.dtoh_in_steps[2].bytes == 16);
}

TEST_CASE("Without steps, device-to-host copies are not attributed", "[analysis][sync]") {
  auto t = ks_test::load(R"J([
    {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":10,"dur":2,
     "args":{"correlation":13}},
    {"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoH (Device -> Pageable)","pid":0,"tid":7,
     "ts":20,"dur":1,"args":{"correlation":13,"bytes":4}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpy","pid":1,"tid":1,"ts":30,"dur":3}
  ])J");
  ks::SyncResult r = sync_of(*t);
  CHECK(r.dtoh_in_steps_count == 0);
  CHECK(r.dtoh_in_steps.empty());
  // The synchronous cudaMemcpy still counts as a synchronizing call.
  CHECK(r.count == 1);
  CHECK(r.total_ns == 3000);
}

TEST_CASE("Synchronizing call names, CUDA and HIP", "[analysis][sync]") {
  for (const char* n :
       {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaMemcpy",
        "cudaMemset", "hipDeviceSynchronize", "hipMemcpy", "cuCtxSynchronize"})
    CHECK(ks::is_sync_runtime_call(n));
  for (const char* n :
       {"cudaMemcpyAsync", "cudaLaunchKernel", "cudaStreamWaitEvent", "cudaEventRecord", ""})
    CHECK_FALSE(ks::is_sync_runtime_call(n));
}
