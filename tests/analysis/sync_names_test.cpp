// The synchronizing-call families (src/analysis/sync_names.h), on names from the CUDA runtime,
// the CUDA driver, HIP and Nsight Systems, and on the real MI300 traces (ROCm's blocking copy is
// hipMemcpyWithStream, which the exact-name list of before missed).
#include "analysis/sync_names.h"

#include <catch2/catch.hpp>
#include <map>

#include "analysis/sync_events.h"
#include "corpus/shared_traces.h"
#include "helpers.h"

using ks::SyncFamily;

TEST_CASE("Synchronizing calls are recognised by family, not by exact name", "[analysis][sync]") {
  const std::map<std::string, SyncFamily> kNames = {
      // CUDA runtime
      {"cudaDeviceSynchronize", SyncFamily::kSynchronize},
      {"cudaStreamSynchronize", SyncFamily::kSynchronize},
      {"cudaEventSynchronize", SyncFamily::kSynchronize},
      {"cudaThreadSynchronize", SyncFamily::kSynchronize},
      {"cudaMemcpy", SyncFamily::kCopy},
      {"cudaMemcpy2D", SyncFamily::kCopy},
      {"cudaMemcpy3D", SyncFamily::kCopy},
      {"cudaMemcpyToSymbol", SyncFamily::kCopy},
      {"cudaMemcpyFromSymbol", SyncFamily::kCopy},
      {"cudaMemcpyPeer", SyncFamily::kCopy},
      {"cudaMemcpy2DToArray", SyncFamily::kCopy},
      {"cudaMemset", SyncFamily::kSet},
      {"cudaMemset2D", SyncFamily::kSet},
      // CUDA driver
      {"cuCtxSynchronize", SyncFamily::kSynchronize},
      {"cuStreamSynchronize", SyncFamily::kSynchronize},
      {"cuEventSynchronize", SyncFamily::kSynchronize},
      {"cuMemcpy", SyncFamily::kCopy},
      {"cuMemcpyHtoD_v2", SyncFamily::kCopy},
      {"cuMemcpyDtoH_v2", SyncFamily::kCopy},
      {"cuMemcpyDtoD", SyncFamily::kCopy},
      {"cuMemcpy2D_v2", SyncFamily::kCopy},
      {"cuMemcpyPeer", SyncFamily::kCopy},
      {"cuMemsetD32_v2", SyncFamily::kSet},
      // HIP
      {"hipDeviceSynchronize", SyncFamily::kSynchronize},
      {"hipStreamSynchronize", SyncFamily::kSynchronize},
      {"hipEventSynchronize", SyncFamily::kSynchronize},
      {"hipCtxSynchronize", SyncFamily::kSynchronize},
      {"hipMemcpy", SyncFamily::kCopy},
      {"hipMemcpyWithStream", SyncFamily::kCopy},
      {"hipMemcpyDtoH", SyncFamily::kCopy},
      {"hipMemcpy2D", SyncFamily::kCopy},
      {"hipMemcpyToSymbol", SyncFamily::kCopy},
      {"hipMemset", SyncFamily::kSet},
      // Intel XPU: Unified Runtime, PI and Level Zero host waits
      {"urQueueFinish", SyncFamily::kSynchronize},
      {"urEventWait", SyncFamily::kSynchronize},
      {"piQueueFinish", SyncFamily::kSynchronize},
      {"piEventsWait", SyncFamily::kSynchronize},
      {"zeCommandQueueSynchronize", SyncFamily::kSynchronize},
      {"zeCommandListHostSynchronize", SyncFamily::kSynchronize},
      {"zeEventHostSynchronize", SyncFamily::kSynchronize},
      {"zeFenceHostSynchronize", SyncFamily::kSynchronize},
      // XPU enqueues: the GPU waits (urEnqueueEventsWait), launches, copies whose blocking
      // argument the trace does not keep
      {"urEnqueueEventsWait", SyncFamily::kNone},
      {"urEnqueueKernelLaunch", SyncFamily::kNone},
      {"urEnqueueUSMMemcpy", SyncFamily::kNone},
      {"zeCommandListAppendLaunchKernel", SyncFamily::kNone},
      {"zeCommandListAppendMemoryCopy", SyncFamily::kNone},
      // Nsight Systems' versioned names and per-thread default stream variants
      {"cudaStreamSynchronize_v3020", SyncFamily::kSynchronize},
      {"cudaDeviceSynchronize_v3020", SyncFamily::kSynchronize},
      {"cudaMemcpy_v3020", SyncFamily::kCopy},
      {"cudaMemcpy_ptds_v7000", SyncFamily::kCopy},
      {"cudaStreamSynchronize_ptsz_v7000", SyncFamily::kSynchronize},
      // Not synchronizing: the asynchronous variants, launches, queries, waits on the GPU side
      {"cudaMemcpyAsync", SyncFamily::kNone},
      {"cudaMemcpyAsync_v3020", SyncFamily::kNone},
      {"cudaMemcpy2DAsync", SyncFamily::kNone},
      {"cudaMemcpyToSymbolAsync", SyncFamily::kNone},
      {"cudaMemcpyPeerAsync", SyncFamily::kNone},
      {"cudaMemsetAsync", SyncFamily::kNone},
      {"cuMemcpyHtoDAsync_v2", SyncFamily::kNone},
      {"cuMemsetD32Async", SyncFamily::kNone},
      {"hipMemcpyAsync", SyncFamily::kNone},
      {"hipMemsetAsync", SyncFamily::kNone},
      {"cudaLaunchKernel", SyncFamily::kNone},
      {"cuLaunchKernel", SyncFamily::kNone},
      {"hipLaunchKernel", SyncFamily::kNone},
      {"cudaStreamWaitEvent", SyncFamily::kNone},
      {"cudaStreamQuery", SyncFamily::kNone},
      {"cudaEventQuery", SyncFamily::kNone},
      {"cudaMemPrefetchAsync", SyncFamily::kNone},
      {"cudaStreamSynchronizeX", SyncFamily::kNone},
      {"Memcpy DtoH (Device -> Pageable)", SyncFamily::kNone},
      {"aten::copy_", SyncFamily::kNone},
      {"cudaify", SyncFamily::kNone},
      {"", SyncFamily::kNone},
  };
  for (const auto& kv : kNames) {
    INFO(kv.first);
    CHECK(ks::sync_family(kv.first) == kv.second);
    CHECK(ks::is_sync_runtime_call(kv.first) == (kv.second != SyncFamily::kNone));
  }
  CHECK(std::string(ks::sync_api("hipMemcpyWithStream")) == "HIP");
  CHECK(std::string(ks::sync_api("cuCtxSynchronize")) == "CUDA driver");
  CHECK(std::string(ks::sync_api("cudaMemcpy2D")) == "CUDA");
  CHECK(std::string(ks::sync_api("cudaLaunchKernel")).empty());
  CHECK(std::string(ks::sync_api("urQueueFinish")) == "XPU");
  CHECK(std::string(ks::sync_api("zeEventHostSynchronize")) == "XPU");
  CHECK(ks::sync_base_name("cudaStreamSynchronize_v3020") == "cudaStreamSynchronize");
  CHECK(ks::sync_base_name("cuMemcpyHtoD_v2") == "cuMemcpyHtoD");
  CHECK(ks::sync_base_name("cudaMemcpy_ptds_v7000") == "cudaMemcpy");
  CHECK(ks::sync_base_name("name_v") == "name_v");
  CHECK(ks::sync_base_name("_v1") == "_v1");
}

TEST_CASE("The driver's and the other families' sync calls are found in a trace",
          "[analysis][sync]") {
  auto t = ks_test::load(R"J([
  {"ph":"X","cat":"cuda_runtime","name":"cuCtxSynchronize","pid":1,"tid":1,"ts":10,"dur":5},
  {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpy2D","pid":1,"tid":1,"ts":20,"dur":7},
  {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyToSymbol","pid":1,"tid":1,"ts":30,"dur":3},
  {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":40,"dur":2},
  {"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize_v3020","pid":1,"tid":1,"ts":50,
   "dur":4}
])J");
  ks::LaunchJoin join = ks::build_launch_join(*t);
  ks::SyncResult r = ks::find_sync_events(*t, join, ks::find_steps(*t, join, false));
  CHECK(r.count == 4);
  CHECK(r.total_ns == 19000);
  REQUIRE(r.calls.size() == 4);
  CHECK(t->str(r.calls[0].name) == "cudaMemcpy2D");
}

TEST_CASE("HIP's synchronizing calls are found on the MI300 traces", "[analysis][sync][corpus]") {
  // Counted with zcat | grep: hipDeviceSynchronize and ROCm's blocking copy hipMemcpyWithStream
  // (the hipMemcpyAsync and hipMemsetAsync calls are not synchronizing).
  struct Case {
    const char* trace;
    uint64_t device_sync, memcpy_with_stream;
  };
  const Case kCases[] = {
      {"tracelens__mi300__google_owlv2-large-patch14-ensemble__1016001.json.gz", 2, 80},
      {"tracelens__mi300__ddp_resnet18__train_resnet18.json.gz", 1, 5},
      {"tracelens__mi300__resnet_act_checkpoint.json.gz", 1, 0},
      {"hta__mi250_minitoy_train_ROCm6_2_kineto.json.gz", 1, 2},
  };
  for (const Case& c : kCases) {
    const std::string path = ks_test::shared_trace(c.trace);
    if (!ks_test::file_exists(path)) {
      WARN("SKIPPED: " << path << " is absent");
      continue;
    }
    INFO(c.trace);
    ks_test::Loaded l = ks_test::load_file(path);
    REQUIRE(l.ok);
    const ks::Trace& t = *l.trace;
    ks::LaunchJoin join = ks::build_launch_join(t);
    ks::SyncResult r = ks::find_sync_events(t, join, ks::find_steps(t, join, false));
    std::map<std::string, uint64_t> by_name;
    for (const ks::SyncCallRow& row : r.calls) by_name[std::string(t.str(row.name))] = row.count;
    CHECK(by_name["hipDeviceSynchronize"] == c.device_sync);
    CHECK(by_name["hipMemcpyWithStream"] == c.memcpy_with_stream);
    CHECK(by_name.count("hipMemcpyAsync") == 0);
    CHECK(by_name.count("hipMemsetAsync") == 0);
    CHECK(r.count == c.device_sync + c.memcpy_with_stream);
  }
}
