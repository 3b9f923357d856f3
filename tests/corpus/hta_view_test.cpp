// The rules of corpus/hta_view.h fire from the data, on small traces with the properties of the
// trace classes of issue 16 that are in none of our folders: an MTIA device op without a stream
// arg (pe_exe) and device ops HTA types OTHER (names with Sync, Memcpy inside), Triton's
// launcher cpu_op with args.stream, cuda_sync events, a GPU-side ProfilerStep without a stream.
// What Kinetoscope itself reports for them is checked too.
#include "corpus/hta_view.h"

#include <catch2/catch.hpp>
#include <map>

#include "analysis/analyze.h"
#include "helpers.h"

using namespace ks_test;

namespace {

// Loads `json` and returns HTA's view of it (the JSON text is what the slices point into).
struct Viewed {
  std::unique_ptr<ks::Trace> trace;
  HtaView view;
};
Viewed view_of(const std::string& json) {
  Viewed v;
  v.trace = load(json);
  v.view = hta_view(*v.trace, json);
  return v;
}

std::string name_of(const Viewed& v, uint32_t slice) {
  return std::string(v.trace->str(v.trace->slices.name[slice]));
}

}  // namespace

TEST_CASE("HTA's kernel types by name", "[corpus][hta_view]") {
  CHECK(hta_type("ncclDevKernel_AllReduce_Sum_f32_RING_LL") == HtaType::kCommunication);
  CHECK(hta_type("ncclKernel_AllGather_RING_LL_Sum_int8_t") == HtaType::kCommunication);
  CHECK(hta_type("hcclAllReduce") == HtaType::kComputation);  // ours: communication
  CHECK(hta_type("Memcpy DtoH (Device -> Pinned)") == HtaType::kMemory);
  CHECK(hta_type("Memset (Device)") == HtaType::kMemory);
  CHECK(hta_type("dma_request") == HtaType::kMemory);
  CHECK(hta_type("pe_exe") == HtaType::kComputation);
  CHECK(hta_type("Stream Sync") == HtaType::kOther);
  CHECK(hta_type("wait_Sync_pe") == HtaType::kOther);
  CHECK(hta_type("aten::copy_-Memcpy") == HtaType::kOther);
  CHECK(hta_type("xMemset") == HtaType::kComputation);  // ^Memset only
  CHECK(hta_type("sm90_xmma_gemm_bf16") == HtaType::kComputation);
}

TEST_CASE("An MTIA-like trace: device ops without a stream arg and ones HTA types OTHER",
          "[corpus][hta_view]") {
  // MTIA device ops: pe_exe on a lane with a stream arg (1) and on one without (cat "kernel",
  // as a vendor's exporter may write it), a sync and a copy whose names HTA types OTHER.
  Viewed v = view_of(R"J({"traceEvents":[
  {"ph":"X","cat":"mtia_ccp_events","name":"pe_exe","pid":9,"tid":408,"ts":100,"dur":50,
   "args":{"stream":1}},
  {"ph":"X","cat":"kernel","name":"pe_exe","pid":9,"tid":801,"ts":100,"dur":40},
  {"ph":"X","cat":"mtia_ccp_events","name":"wait_Sync_pe","pid":9,"tid":408,"ts":200,"dur":30,
   "args":{"stream":1}},
  {"ph":"X","cat":"mtia_ccp_events","name":"aten::copy_-Memcpy","pid":9,"tid":408,"ts":300,
   "dur":20,"args":{"stream":1}}
]})J");
  const ks::Trace& t = *v.trace;
  REQUIRE(v.view.unseen_gpu_ops.size() == 1);
  CHECK(name_of(v, v.view.unseen_gpu_ops[0]) == "pe_exe");
  CHECK(v.view.retyped_ops.size() == 2);
  CHECK(v.view.extra_ops.empty());
  CHECK_FALSE(v.view.same_as_ours());
  // Kinetoscope: every one of them is GPU work, three of them computation (pe_exe twice and the
  // sync, which our rules do not single out), the copy too (its name does not start Memcpy).
  ks::Analyses a = ks::analyze(t, {});
  CHECK(a.kernels.count == 4);
  CHECK(a.temporal.compute_ns == 50000 + 30000 + 20000);
}

TEST_CASE("A Triton launcher cpu_op and cuda_sync events carry a stream: HTA's GPU ops",
          "[corpus][hta_view]") {
  Viewed v = view_of(R"J({"traceEvents":[
  {"ph":"X","cat":"cpu_op","name":"triton_poi_fused_add_0","pid":1,"tid":1,"ts":100,"dur":40,
   "args":{"stream":0,"grid":"grid(1024,)"}},
  {"ph":"X","cat":"cuda_runtime","name":"cuLaunchKernel","pid":1,"tid":1,"ts":130,"dur":5,
   "args":{"correlation":7}},
  {"ph":"X","cat":"kernel","name":"triton_poi_fused_add_0","pid":0,"tid":7,"ts":150,"dur":2,
   "args":{"stream":7,"correlation":7}},
  {"ph":"X","cat":"cuda_sync","name":"Stream Wait Event","pid":0,"tid":7,"ts":160,"dur":1,
   "args":{"stream":7,"correlation":8}},
  {"ph":"X","cat":"cuda_sync","name":"Event Sync","pid":0,"tid":-1,"ts":170,"dur":1,
   "args":{"stream":-1,"correlation":9}},
  {"ph":"X","cat":"cuda_sync","name":"Context Sync","pid":0,"tid":-1,"ts":180,"dur":3,
   "args":{"stream":4294967295,"correlation":10}}
]})J");
  // The launcher (stream 0), Stream Wait Event (7) and Context Sync (4294967295); not Event Sync
  // (stream -1).
  REQUIRE(v.view.extra_ops.size() == 3);
  CHECK(name_of(v, v.view.extra_ops[0]) == "triton_poi_fused_add_0");
  CHECK(v.view.type(v.trace->slices.name[v.view.extra_ops[0]]) == HtaType::kComputation);
  for (uint32_t i : v.view.extra_ops)
    if (name_of(v, i) != "triton_poi_fused_add_0")
      CHECK(v.view.type(v.trace->slices.name[i]) == HtaType::kOther);
  CHECK(v.view.unseen_gpu_ops.empty());
  CHECK(v.view.retyped_ops.empty());
  // No step filter here: HTA's op set has them all.
  ks::LaunchJoin join = ks::build_launch_join(*v.trace);
  std::vector<bool> kept = hta_view_kept(*v.trace, join, v.view, false);
  CHECK(hta_view_extra(v.view, kept).size() == 3);
  // Kinetoscope: one kernel of 2 us.
  ks::Analyses a = ks::analyze(*v.trace, {});
  CHECK(a.kernels.count == 1);
  CHECK(a.kernels.total_ns == 2000);
}

TEST_CASE("GPU-side ProfilerStep annotations without a stream move HTA's last step",
          "[corpus][hta_view]") {
  // Two host steps; the kernel of step 2 launched at 1100. ROCm's GPU-side annotation of step 2
  // starts at 1150 with no stream arg: HTA's last step starts there, after every launch.
  const std::string json = R"J({"traceEvents":[
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":1000},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":1000,"dur":1000},
  {"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":1,"ts":100,"dur":5,
   "args":{"correlation":1}},
  {"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":1,"ts":1100,"dur":5,
   "args":{"correlation":2}},
  {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":150,"dur":10,
   "args":{"stream":7,"correlation":1}},
  {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1150,"dur":10,
   "args":{"stream":7,"correlation":2}},
  {"ph":"X","cat":"gpu_user_annotation","name":"ProfilerStep#1","pid":0,"tid":7,"ts":150,"dur":10},
  {"ph":"X","cat":"gpu_user_annotation","name":"ProfilerStep#2","pid":0,"tid":7,"ts":1150,"dur":10}
]})J";
  Viewed v = view_of(json);
  CHECK(v.view.gpu_side_steps);
  CHECK(v.view.steps == 4);
  CHECK(v.view.last_step_begin == 1150000);
  ks::LaunchJoin join = ks::build_launch_join(*v.trace);
  // Ours (the host steps) drops the kernel launched in step 2; HTA's keeps both.
  std::vector<bool> ours = hta_kept_ops(*v.trace, join, false);
  std::vector<bool> hta = hta_view_kept(*v.trace, join, v.view, false);
  uint64_t n_ours = 0, n_hta = 0;
  for (uint32_t g : join.gpu_ops_by_ts) {
    n_ours += ours[g] ? 1 : 0;
    n_hta += hta[g] ? 1 : 0;
  }
  CHECK(n_ours == 1);
  CHECK(n_hta == 2);
}

namespace {

// The kernel-type breakdown over HTA's ops and types (OTHER ops in no type), as
// hta_breakdown_test computes it: label -> ns.
std::map<std::string, int64_t> hta_kernel_types(const Viewed& v) {
  const ks::Trace& t = *v.trace;
  ks::LaunchJoin join = ks::build_launch_join(t);
  std::vector<ks::Interval> all, typed[3];
  for (uint32_t g : join.gpu_ops_by_ts) {
    if (!v.view.hta_gpu_op(g)) continue;
    const ks::Interval iv{t.slices.ts[g], t.slices.end(g)};
    all.push_back(iv);
    const HtaType type = v.view.type(t.slices.name[g]);
    if (type != HtaType::kOther) typed[static_cast<int>(type)].push_back(iv);
  }
  ks::GpuIntervals gpu;
  gpu.ops = all.size();
  gpu.all = ks::merge_intervals(all);
  gpu.communication = ks::merge_intervals(typed[static_cast<int>(HtaType::kCommunication)]);
  gpu.memory = ks::merge_intervals(typed[static_cast<int>(HtaType::kMemory)]);
  gpu.computation = ks::merge_intervals(typed[static_cast<int>(HtaType::kComputation)]);
  std::map<std::string, int64_t> out;
  for (const ks::KernelTypeRow& r : ks::compute_kernel_type_breakdown(gpu).rows)
    out[r.label] = r.ns;
  return out;
}

}  // namespace

TEST_CASE("MTIA: memory time that overlaps a device op HTA types OTHER is memory-only to HTA",
          "[corpus][hta_view]") {
  // The MTIA inference trace of issue 16: memory 4.4 ms in Kinetoscope, 6.9 ms in HTA. A dma op
  // (stream 2) runs 100-200 beside a device op named with Sync (stream 1, 150-250), which HTA
  // types OTHER (no kernel type) and we type computation. HTA's sweep has no OTHER: the whole
  // dma is "memory" to it; ours splits it into memory only (50 us) and computation
  // overlapping memory (50 us). Both are right by their own typing; the rule that detects it:
  // memory ops overlapping ops that HTA types OTHER (hta_view's retyped ops).
  Viewed v = view_of(R"J({"traceEvents":[
  {"ph":"X","cat":"mtia_ccp_events","name":"wait_Sync_pe","pid":9,"tid":4,"ts":150,"dur":100,
   "args":{"stream":1}},
  {"ph":"X","cat":"mtia_ccp_events","name":"dma_request","pid":9,"tid":408,"ts":100,"dur":100,
   "args":{"stream":2}}
]})J");
  REQUIRE(v.view.retyped_ops.size() == 1);
  std::map<std::string, int64_t> hta = hta_kernel_types(v);
  CHECK(hta["memory"] == 100000);
  CHECK(hta.count("computation overlapping memory") == 0);
  ks::Analyses a = ks::analyze(*v.trace, {});
  std::map<std::string, int64_t> ours;
  for (const ks::KernelTypeRow& r : a.kernel_types.rows) ours[r.label] = r.ns;
  CHECK(ours["memory"] == 50000);
  CHECK(ours["computation overlapping memory"] == 50000);
  CHECK(ours["computation"] == 50000);
}
