// The TB plugin's views on hand-made traces: the per-step breakdown (step_breakdown.cpp), the
// GPU metrics (gpu_metrics.cpp) and peak memory (memory_usage.cpp).
#include "analysis/step_breakdown.h"

#include <catch2/catch.hpp>

#include "analysis/gpu_metrics.h"
#include "analysis/memory_usage.h"
#include "helpers.h"

namespace {

ks::StepsResult steps_of(const ks::Trace& t) {
  return ks::find_steps(t, ks::build_launch_join(t), false);
}

}  // namespace

TEST_CASE("Step breakdown: parts claimed in priority order, summing to the step",
          "[analysis][step_breakdown]") {
  // One step [0, 100) us (its launched kernel ends at 50, inside it). Times in us.
  // CPU thread 1: DataLoader __next__ [0, 20); aten::linear [20, 60); a launch [30, 35);
  //   nccl:all_reduce [50, 58).  Thread 2: aten::add [70, 80).
  // GPU: kernel [32, 50), Memcpy [45, 55), Memset [55, 56), ncclKernel [58, 75), kernel [90, 100).
  auto t = ks_test::load(R"J([
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"user_annotation","name":"enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__","pid":1,"tid":1,"ts":0,"dur":20},
    {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":20,"dur":40},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":30,"dur":5,"args":{"correlation":1}},
    {"ph":"X","cat":"cpu_op","name":"nccl:all_reduce","pid":1,"tid":1,"ts":50,"dur":8},
    {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":2,"ts":70,"dur":10},
    {"ph":"X","cat":"kernel","name":"sm90_gemm","pid":0,"tid":7,"ts":32,"dur":18,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pinned -> Device)","pid":0,"tid":8,"ts":45,"dur":10,"args":{"stream":8}},
    {"ph":"X","cat":"gpu_memset","name":"Memset (Device)","pid":0,"tid":8,"ts":55,"dur":1,"args":{"stream":8}},
    {"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce","pid":0,"tid":9,"ts":58,"dur":17,"args":{"stream":9}},
    {"ph":"X","cat":"kernel","name":"late","pid":0,"tid":7,"ts":90,"dur":10,"args":{"stream":7}}
  ])J");
  ks::StepBreakdown b = ks::compute_step_breakdown(*t, steps_of(*t));
  REQUIRE(b.steps.size() == 1);
  const ks::StepParts& p = b.steps[0];
  CHECK(p.step_number == 1);
  CHECK(p.end_ns - p.begin_ns == 100000);
  // Kernel:        [32,50) + [90,100)                                   = 28
  // Memcpy:        [45,55) minus the kernel -> [50,55)                  =  5
  // Memset:        [55,56)                                              =  1
  // Communication: nccl:all_reduce [50,58) + ncclKernel [58,75) -> [56,75) = 19
  // Runtime:       [30,35) minus the kernel -> [30,32)                  =  2
  // DataLoader:    [0,20)                                               = 20
  // CPU Exec:      linear [20,60) -> [20,30); add [70,80) -> [75,80)    = 15
  // Other:         nothing recorded in [80,90)                          = 10   (sum 100)
  CHECK(p.ns[static_cast<int>(ks::StepRole::kKernel)] == 28000);
  CHECK(p.ns[static_cast<int>(ks::StepRole::kMemcpy)] == 5000);
  CHECK(p.ns[static_cast<int>(ks::StepRole::kMemset)] == 1000);
  CHECK(p.ns[static_cast<int>(ks::StepRole::kCommunication)] == 19000);
  CHECK(p.ns[static_cast<int>(ks::StepRole::kRuntime)] == 2000);
  CHECK(p.ns[static_cast<int>(ks::StepRole::kDataLoader)] == 20000);
  CHECK(p.ns[static_cast<int>(ks::StepRole::kCpuExec)] == 15000);
  CHECK(p.ns[static_cast<int>(ks::StepRole::kOther)] == 10000);
  int64_t sum = 0;
  for (int k = 0; k < ks::kStepRoles; ++k) sum += p.ns[k];
  CHECK(sum == 100000);
  CHECK(b.window_ns == 100000);
  CHECK(b.pct(ks::StepRole::kDataLoader) == 20.0);
  CHECK_FALSE(b.whole_trace);
}

TEST_CASE("Step breakdown without steps is one window over the trace",
          "[analysis][step_breakdown]") {
  auto t = ks_test::load(R"J([
    {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":0,"dur":10},
    {"ph":"X","cat":"python_function","name":"train.py(12): step","pid":1,"tid":1,"ts":0,"dur":40}
  ])J");
  ks::StepBreakdown b = ks::compute_step_breakdown(*t, steps_of(*t));
  CHECK(b.whole_trace);
  REQUIRE(b.steps.size() == 1);
  CHECK(b.steps[0].step_number == -1);
  CHECK(b.window_ns == 40000);
  // python_function frames are not ops: only aten::add counts as CPU Exec.
  CHECK(b.total_ns[static_cast<int>(ks::StepRole::kCpuExec)] == 10000);
  CHECK(b.total_ns[static_cast<int>(ks::StepRole::kOther)] == 30000);
}

TEST_CASE("DataLoader and communication names", "[analysis][step_breakdown]") {
  CHECK(ks::is_dataloader_range("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"));
  CHECK(ks::is_dataloader_range("enumerate(DataPipe)#ShardingFilterIterDataPipe"));
  CHECK_FALSE(
      ks::is_dataloader_range("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__iter__"));
  // Ranges the program named for loading its input (NVTX, record_function), however spelled.
  for (const char* n : {"data_loading", "DataLoad", "load_batch", "Load Data", "next-batch",
                        "get_batch", "fetch_batch 12", "wait_for_data", "data.wait"})
    CHECK(ks::is_dataloader_range(n));
  for (const char* n : {"train_step", "forward", "load_checkpoint", "upload_metrics", "batchnorm",
                        "torch/utils/data/dataloader.py(630): __next__", "optimizer.step"})
    CHECK_FALSE(ks::is_dataloader_range(n));
  CHECK(ks::is_communication_cpu_op("nccl:all_reduce"));
  CHECK(ks::is_communication_cpu_op("gloo:broadcast"));
  CHECK_FALSE(ks::is_communication_cpu_op("c10d::allreduce_"));
}

TEST_CASE("GPU metrics: utilization, SM efficiency, occupancy, tensor cores",
          "[analysis][gpu_metrics]") {
  // Step [0, 100) us. Device 0 has 4 SMs (deviceProperties).
  //   k1 [0, 40): blocks per SM 0.5, occupancy 20 %, fp32 sgemm
  //   k2 [20, 60): no blocks-per-SM arg; grid 2x1x1 on 4 SMs -> 0.5; occupancy 60 %, tensor core
  //   k3 [80, 90): blocks per SM 3 (capped at 1), no occupancy
  // Utilization: union [0,60) + [80,90) = 70 / 100 = 70 %.
  // SM efficiency: [0,20) 0.5, [20,40) 1.0, [40,60) 0.5, [80,90) 1.0 -> 10+20+10+10 = 50 / 100.
  // Occupancy: (20*40 + 60*40) / 80 = 40 %. Tensor cores: 40 of 90 us of kernels = 44.4 %.
  auto t = ks_test::load(
      R"J({"deviceProperties":[{"id":0,"name":"GPU","numSms":4,"computeMajor":8,"computeMinor":0,"totalGlobalMem":1000}],
   "traceEvents":[
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":5},
    {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":10,"dur":8},
    {"ph":"X","cat":"kernel","name":"ampere_sgemm_128x64_nn","pid":0,"tid":7,"ts":0,"dur":40,"args":{"device":0,"stream":7,"blocks per SM":0.5,"est. achieved occupancy %":20}},
    {"ph":"X","cat":"kernel","name":"sm80_xmma_gemm_f16f16","pid":0,"tid":8,"ts":20,"dur":40,"args":{"device":0,"stream":8,"grid":[2,1,1],"block":[128,1,1],"est. achieved occupancy %":60}},
    {"ph":"X","cat":"kernel","name":"elementwise","pid":0,"tid":7,"ts":80,"dur":10,"args":{"device":0,"stream":7,"blocks per SM":3}}
  ]})J");
  ks::GpuMetrics g = ks::compute_gpu_metrics(*t, steps_of(*t));
  CHECK(g.window_is_steps);
  CHECK(g.window_end_ns - g.window_begin_ns == 100000);
  CHECK(g.compute_major == 8);
  CHECK(g.eligible_ops == 2);
  CHECK(g.eligible_ops_ns == 13000);
  CHECK(g.top_eligible_op == "aten::linear");
  REQUIRE(g.devices.size() == 1);
  const ks::DeviceMetrics& d = g.devices[0];
  CHECK(d.device == 0);
  CHECK(d.kernels == 3);
  CHECK(d.utilization_pct == Approx(70.0));
  CHECK(d.has_sm_efficiency);
  CHECK(d.sm_efficiency_pct == Approx(50.0));
  CHECK(d.has_occupancy);
  CHECK(d.occupancy_pct == Approx(40.0));
  CHECK(d.tensor_core_ns == 40000);
  CHECK(d.tensor_core_pct == Approx(100.0 * 40 / 90));
}

TEST_CASE("SM efficiency when a stream's kernels touch, overlap or last 0 ns",
          "[analysis][gpu_metrics]") {
  // capped_integral merges each stream's edges as a sorted run (util/sort_runs.h): a stream whose
  // kernels end where the next starts is one run, an overlap or a 0 ns kernel breaks it. Step
  // [0, 100) us; blocks per SM: stream 7 [0,10) 0.5, [10,20) 0.5, [15,25) 0.25, [30,30) 1;
  // stream 8 [5,15) 3 (capped at 1). Capped level x time: [0,5) 0.5 -> 2.5, [5,15) 1.5 -> 1 ->
  // 10, [15,20) 0.75 -> 3.75, [20,25) 0.25 -> 1.25: 17.5 of 100 us.
  auto t = ks_test::load(
      R"J({"deviceProperties":[{"id":0,"name":"GPU","numSms":4,"computeMajor":8,"computeMinor":0,"totalGlobalMem":1000}],
   "traceEvents":[
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":0,"dur":10,"args":{"device":0,"stream":7,"blocks per SM":0.5}},
    {"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":10,"dur":10,"args":{"device":0,"stream":7,"blocks per SM":0.5}},
    {"ph":"X","cat":"kernel","name":"c","pid":0,"tid":7,"ts":15,"dur":10,"args":{"device":0,"stream":7,"blocks per SM":0.25}},
    {"ph":"X","cat":"kernel","name":"d","pid":0,"tid":7,"ts":30,"dur":0,"args":{"device":0,"stream":7,"blocks per SM":1}},
    {"ph":"X","cat":"kernel","name":"e","pid":0,"tid":8,"ts":5,"dur":10,"args":{"device":0,"stream":8,"blocks per SM":3}}
  ]})J");
  ks::GpuMetrics g = ks::compute_gpu_metrics(*t, steps_of(*t));
  REQUIRE(g.devices.size() == 1);
  CHECK(g.devices[0].has_sm_efficiency);
  CHECK(g.devices[0].sm_efficiency_pct == Approx(17.5));
}

TEST_CASE("SM efficiency of a device the properties do not list (ROCm's agent numbering)",
          "[analysis][gpu_metrics]") {
  // The MI300X traces: kernels on device 2 (ROCm counts the CPU agents first), deviceProperties
  // with id 0 only. Every listed GPU has 4 SMs, so device 2 has too: 2 blocks on 4 SMs for 50 of
  // 100 us is 25%. Listed GPUs that differ tell nothing.
  const std::string events = R"J("traceEvents":[
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"kernel","name":"a","pid":2,"tid":7,"ts":0,"dur":50,"args":{"device":2,"stream":7,"grid":[2,1,1],"block":[256,1,1]}}
  ]})J";
  auto one = ks_test::load(
      R"J({"deviceProperties":[{"id":0,"name":"GPU","numSms":4},{"id":1,"name":"GPU","numSms":4}],)J" +
      events);
  ks::GpuMetrics g = ks::compute_gpu_metrics(*one, steps_of(*one));
  REQUIRE(g.devices.size() == 1);
  CHECK(g.devices[0].device == 2);
  CHECK(g.devices[0].has_sm_efficiency);
  CHECK(g.devices[0].sm_efficiency_pct == Approx(25.0));
  auto mixed = ks_test::load(
      R"J({"deviceProperties":[{"id":0,"name":"GPU","numSms":4},{"id":1,"name":"Other","numSms":8}],)J" +
      events);
  g = ks::compute_gpu_metrics(*mixed, steps_of(*mixed));
  REQUIRE(g.devices.size() == 1);
  CHECK_FALSE(g.devices[0].has_sm_efficiency);
}

TEST_CASE("GPU metrics say why a metric is absent", "[analysis][gpu_metrics]") {
  auto t = ks_test::load(R"J([
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":0,"dur":10,"args":{"device":0,"stream":7}}
  ])J");
  ks::GpuMetrics g = ks::compute_gpu_metrics(*t, steps_of(*t));
  CHECK_FALSE(g.window_is_steps);
  REQUIRE(g.devices.size() == 1);
  CHECK(g.devices[0].utilization_pct == 100.0);
  CHECK_FALSE(g.devices[0].has_sm_efficiency);
  CHECK(std::string(g.devices[0].sm_efficiency_absent).find("blocks per SM") != std::string::npos);
  CHECK_FALSE(g.devices[0].has_occupancy);
  CHECK(std::string(g.devices[0].occupancy_absent).find("occupancy") != std::string::npos);
  auto cpu = ks_test::load(
      R"J([{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":0,"dur":5}])J");
  ks::GpuMetrics none = ks::compute_gpu_metrics(*cpu, steps_of(*cpu));
  CHECK(none.devices.empty());
  CHECK(none.absent == "no kernels in the trace");
}

TEST_CASE("Peak memory from [memory] events", "[analysis][memory]") {
  // Device 0 (1000 bytes): allocated 100, 600, 300; reserved 200, 800 (at 20 us), 800.
  // CPU (Device Id -1): allocated 50.
  auto t = ks_test::load(R"J({"deviceProperties":[{"id":0,"name":"GPU","totalGlobalMem":1000}],
   "traceEvents":[
    {"ph":"i","cat":"[memory]","name":"[memory]","pid":1,"tid":1,"ts":10,"s":"t","args":{"Device Type":1,"Device Id":0,"Bytes":100,"Total Allocated":100,"Total Reserved":200}},
    {"ph":"i","cat":"[memory]","name":"[memory]","pid":1,"tid":1,"ts":20,"s":"t","args":{"Device Type":1,"Device Id":0,"Bytes":500,"Total Allocated":600,"Total Reserved":800}},
    {"ph":"i","cat":"[memory]","name":"[memory]","pid":1,"tid":1,"ts":30,"s":"t","args":{"Device Type":1,"Device Id":0,"Bytes":-300,"Total Allocated":300,"Total Reserved":800}},
    {"ph":"i","cat":"[memory]","name":"[memory]","pid":1,"tid":1,"ts":40,"s":"t","args":{"Device Type":0,"Device Id":-1,"Bytes":50,"Total Allocated":50,"Total Reserved":0}}
  ]})J");
  ks::MemoryUsage m = ks::compute_memory_usage(*t);
  CHECK(m.events == 4);
  REQUIRE(m.devices.size() == 2);
  const ks::DeviceMemory& cpu = m.devices[0];
  CHECK(cpu.device == ks::kNoValue);
  CHECK(cpu.peak_allocated == 50);
  CHECK(cpu.device_total == ks::kNoValue);
  const ks::DeviceMemory& gpu = m.devices[1];
  CHECK(gpu.device == 0);
  CHECK(gpu.events == 3);
  CHECK(gpu.peak_allocated == 600);
  CHECK(gpu.peak_allocated_ns - t->facts.start_ns == 10000);
  CHECK(gpu.peak_reserved == 800);
  CHECK(gpu.device_total == 1000);
}
