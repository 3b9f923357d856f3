// False alarms found by reading every trace in ../shared/traces against its findings, and the
// fix of each at its cause: the real trace that raised it now stays silent (skipped with a WARN
// when ../shared is absent), and a hand-made trace (or a real one) that has the problem still
// raises it. Also the wording and evidence gaps that reading found.
#include <catch2/catch.hpp>

#include "analysis/kernel_class.h"
#include "findings/finding_run.h"

namespace {

using Run = ks_test::FindingRun;
constexpr auto run = ks_test::run_findings_on;
constexpr auto find = ks_test::find_finding;
constexpr auto num = ks_test::evidence_number;
constexpr auto run_shared = ks_test::run_shared_trace;

std::string event(const char* cat, const char* name, int tid, int ts, int dur,
                  const std::string& args = "") {
  return std::string(R"({"ph":"X","cat":")") + cat + R"(","name":")" + name +
         R"(","pid":1,"tid":)" + std::to_string(tid) + R"(,"ts":)" + std::to_string(ts) +
         R"(,"dur":)" + std::to_string(dur) + (args.empty() ? "" : R"(,"args":)" + args) + "}";
}

// A kernel on stream 7 with its launch 2 us before it, joined by `corr`.
std::string launched_kernel(const char* name, int ts, int dur, int corr) {
  const std::string c = std::to_string(corr);
  return event("cuda_runtime", "cudaLaunchKernel", 1, ts - 2, 1, R"({"correlation":)" + c + "}") +
         "," + R"({"ph":"X","cat":"kernel","name":")" + name + R"(","pid":0,"tid":7,"ts":)" +
         std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) +
         R"(,"args":{"stream":7,"correlation":)" + c + "}}";
}

}  // namespace

TEST_CASE("steps.few_active: a one-step capture is a choice, not a fault", "[findings][steps]") {
  // DLRM's 8 ranks were each captured for step 12 only; the inference traces hold one step.
  Run r;
  if (run_shared("param__dlrm_kineto__worker0_step_12.1694128201545.pt.trace.json", &r)) {
    INFO("findings: " << r.ids);
    CHECK(r.analyses.steps.found == 1);
    CHECK(find(r, "steps.few_active") == nullptr);
  }
  // Steps #10, #11, then #14 (#12, #13 not recorded): still reported, with the gap's range.
  std::string events;
  int ts = 0;
  for (int n : {10, 11, 14}) {
    events += (events.empty() ? "" : ",") +
              event("user_annotation", ("ProfilerStep#" + std::to_string(n)).c_str(), 1, ts, 100);
    ts += n == 11 ? 300 : 100;
  }
  Run gap = run("[" + events + "]");
  const ks::Finding* f = find(gap, "steps.few_active");
  REQUIRE(f);
  CHECK(num(*f, "missing_numbers") == 2);
  REQUIRE(f->ranges.size() == 1);
  CHECK(f->ranges[0].end_ns - f->ranges[0].begin_ns == 200000);  // from #11's end to #14's start
}

TEST_CASE("kernels.overhead_dominant: only when overhead kernels outweigh math and the step",
          "[findings][kernels]") {
  // Three 100 us steps; per step an elementwise kernel of `elementwise` us and a GEMM of `gemm`
  // us.
  auto trace = [](int elementwise, int gemm) {
    std::string events;
    for (int i = 0; i < 3; ++i) {
      const int t0 = 100 * i;
      events +=
          event("user_annotation", ("ProfilerStep#" + std::to_string(i + 1)).c_str(), 1, t0, 100) +
          ",";
      events += launched_kernel("void at::native::vectorized_elementwise_kernel<4>", t0 + 5,
                                elementwise, 2 * i + 1) +
                ",";
      events += launched_kernel("sm90_xmma_gemm_bf16bf16_bf16f32", t0 + 6 + elementwise, gemm,
                                2 * i + 2) +
                (i < 2 ? "," : "");
    }
    return run("[" + events + "]");
  };
  SECTION("60 us of elementwise and 20 us of GEMM per 100 us step: reported") {
    Run r = trace(60, 20);
    const ks::Finding* f = find(r, "kernels.overhead_dominant");
    INFO("findings: " << r.ids);
    REQUIRE(f);
    CHECK(num(*f, "math_pct") == 25.0);
    CHECK(num(*f, "overhead_pct_of_window") == 60.0);
    CHECK(f->ranges.size() == 1);
  }
  SECTION("6 us of elementwise and 2 us of GEMM: the same mix, but 6% of the step") {
    CHECK(find(trace(6, 2), "kernels.overhead_dominant") == nullptr);
  }
  SECTION("20 us of elementwise and 60 us of GEMM: math dominates") {
    CHECK(find(trace(20, 60), "kernels.overhead_dominant") == nullptr);
  }
  // Real traces it used to flag: DLRM rank 1 (math 23% of kernel time, but its overhead kernels
  // are 5% of the step, which communication and idle time fill) and the V100 ResNet-50, whose
  // cuDNN convolutions (volta_scudnn_*, winograd) were not counted as math.
  Run r;
  if (run_shared("param__dlrm_kineto__worker1_step_12.1694128201556.pt.trace.json", &r)) {
    INFO("findings: " << r.ids);
    CHECK(find(r, "kernels.overhead_dominant") == nullptr);
  }
  if (run_shared("kineto__resnet50_nw4__worker0.1623212756351.pt.trace.json.gz", &r)) {
    INFO("findings: " << r.ids);
    CHECK(find(r, "kernels.overhead_dominant") == nullptr);
  }
  // Still reported where it holds: ResNet training on MI300 with activation checkpointing,
  // batch-norm reductions and copies 23% of the step, three times the GEMM/convolution time.
  if (run_shared("tracelens__mi300__resnet_act_checkpoint.json.gz", &r)) {
    const ks::Finding* f = find(r, "kernels.overhead_dominant");
    INFO("findings: " << r.ids);
    REQUIRE(f);
    CHECK(num(*f, "math_pct") == Approx(24.1).margin(0.1));
    CHECK(num(*f, "overhead_pct_of_window") == Approx(22.6).margin(0.1));
  }
}

TEST_CASE("comm: CPU collectives hidden by CPU work, and excerpts without steps",
          "[findings][comm]") {
  // One 100 us step on the main thread (tid 1); a gloo all-reduce over [10, 90) on the gloo
  // thread (tid 2); the main thread computes over [10, 10 + compute).
  auto cpu_trace = [](int compute) {
    return run("[" + event("user_annotation", "ProfilerStep#1", 1, 0, 100) + "," +
               event("user_annotation", "gloo:all_reduce", 2, 10, 80) + "," +
               event("cpu_op", "aten::mm", 1, 10, compute) + "]");
  };
  SECTION("the main thread computes through 75 of the 80 us: hidden, silent") {
    Run r = cpu_trace(75);
    INFO("findings: " << r.ids);
    CHECK(find(r, "comm.heavy") == nullptr);
    CHECK(find(r, "comm.not_overlapped") == nullptr);
  }
  SECTION("the main thread computes 5 us, then waits: not overlapped") {
    Run r = cpu_trace(5);
    const ks::Finding* f = find(r, "comm.not_overlapped");
    INFO("findings: " << r.ids);
    REQUIRE(f);
    CHECK(num(*f, "overlap_pct") == 6.25);  // 5 of 80 us
    CHECK(num(*f, "exposed_pct") == 75.0);  // 75 of 100 us
    CHECK(num(*f, "communication_pct") == 75.0);
    REQUIRE(f->ranges.size() == 1);
    CHECK(f->ranges[0].label == "longest gloo:all_reduce");
  }
  Run r;
  // A 2-event excerpt (an NCCL kernel, no steps, no computation): no step to be a share of.
  if (run_shared("hta__rank-70.Mar_25_20_48_12.2861.pt.trace.json.gz", &r)) {
    INFO("findings: " << r.ids);
    CHECK(find(r, "comm.heavy") == nullptr);
    CHECK(find(r, "comm.not_overlapped") == nullptr);
  }
  // 300-rank CPU training over gloo: the all-reduces run on gloo's threads while the training
  // thread computes almost nothing (it waits in backward): not overlapped, the dominant cost.
  if (run_shared("hta__cpu_only_full__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", &r)) {
    const ks::Finding* f = find(r, "comm.not_overlapped");
    INFO("findings: " << r.ids);
    REQUIRE(f);
    CHECK(num(*f, "overlap_pct") == Approx(3.7).margin(0.1));
    CHECK(num(*f, "exposed_pct") == Approx(82.7).margin(0.1));
  }
}

TEST_CASE("comm.not_overlapped: a pipeline stage's exposed sends and receives are its bubbles",
          "[findings][comm]") {
  // One 1000 us step: 200 us of compute, then an NCCL kernel over [300, 900) launched from a
  // record_param_comms op naming its collective. Exposed either way; only the advice differs.
  auto stage = [](const char* collective) {
    const std::string args = std::string(R"({"Collective name":")") + collective +
                             R"(","Group size":2,"In msg nelems":1024,"dtype":"Float"})";
    return run("[" + event("user_annotation", "ProfilerStep#1", 1, 0, 1000) + "," +
               launched_kernel("sm90_xmma_gemm", 50, 200, 1) + "," +
               event("cpu_op", "record_param_comms", 1, 290, 10, args) + "," +
               launched_kernel("ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)",
                               300, 600, 2) +
               "]");
  };
  Run r = stage("recv");
  const ks::Finding* f = find(r, "comm.not_overlapped");
  INFO("findings: " << r.ids);
  REQUIRE(f);
  CHECK(f->title.find("pipeline sends and receives") != std::string::npos);
  CHECK(f->fix.find("micro-batches") != std::string::npos);
  CHECK(f->fix.find("DistributedDataParallel") == std::string::npos);
  CHECK(num(*f, "send_recv_pct") == 100.0);
  // The control: the same kernel as an all-to-all (NCCL runs it as SendRecv too) is DDP's case.
  r = stage("all_to_all");
  f = find(r, "comm.not_overlapped");
  REQUIRE(f);
  CHECK(f->title.find("pipeline") == std::string::npos);
  CHECK(f->fix.find("DistributedDataParallel") != std::string::npos);
  // As an Nsight Systems export holds it: the kernel alone, no op naming its collective. NCCL
  // runs sends/receives and all-to-all as that one kernel: the advice covers both, not DDP's.
  r = run("[" + event("user_annotation", "ProfilerStep#1", 1, 0, 1000) + "," +
          launched_kernel("sm90_xmma_gemm", 50, 200, 1) + "," +
          launched_kernel("ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)", 300,
                          600, 2) +
          "]");
  f = find(r, "comm.not_overlapped");
  REQUIRE(f);
  CHECK(f->title.find("mostly sends and receives") != std::string::npos);
  CHECK(f->fix.find("micro-batches") != std::string::npos);
  CHECK(f->fix.find("all-to-all") != std::string::npos);
  CHECK(f->fix.find("DistributedDataParallel") == std::string::npos);
  CHECK(num(*f, "send_recv_pct") == 100.0);
}

TEST_CASE("comm.not_overlapped: the exposed share counts the communication in the steps",
          "[findings][comm]") {
  // One 1000 us step (200 us of compute, an all-reduce over [300, 900) in it) and, before it,
  // 1000 us of all-reduce in no step: a first step cut by an nsys capture's start and left out.
  // The share is of step time: 600 of 1000 us exposed, not 1600 (160%, over the communication
  // part itself).
  Run r = run("[" + event("user_annotation", "ProfilerStep#1", 1, 2000, 1000) + "," +
              launched_kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 100, 1000, 3) + "," +
              launched_kernel("sm90_xmma_gemm", 2050, 200, 1) + "," +
              launched_kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 2300, 600, 2) + "]");
  const ks::Finding* f = find(r, "comm.not_overlapped");
  INFO("findings: " << r.ids);
  REQUIRE(f);
  CHECK(num(*f, "exposed_pct") == 60.0);
  CHECK(num(*f, "comm_kernel_us") == 600.0);
  CHECK(num(*f, "exposed_pct") <= num(*f, "communication_pct"));
}

TEST_CASE("memory.peak_high: not for memory reserved before the capture", "[findings][memory]") {
  // vLLM reserves its KV cache at start-up: 191.6 GB of 206 GB allocated before the captured
  // graph capture allocates 18 MB more.
  Run r;
  if (run_shared(
          "tracelens__vllm_decode_full__graph_capture_rank_0.1773709742341309550.pt.trace.json.gz",
          &r)) {
    INFO("findings: " << r.ids);
    REQUIRE_FALSE(r.analyses.memory.devices.empty());
    CHECK(find(r, "memory.peak_high") == nullptr);
  }
}
TEST_CASE("sync.runtime_calls names the API the trace used", "[findings][sync]") {
  // MI300 traces synchronize with hipDeviceSynchronize (2) and ROCm's blocking copy
  // hipMemcpyWithStream (1, the .item()): "CUDA" was the wrong word.
  Run r;
  if (run_shared("tracelens__mi300__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", &r)) {
    const ks::Finding* f = find(r, "sync.runtime_calls");
    INFO("findings: " << r.ids);
    REQUIRE(f);
    CHECK(f->title.find("3 synchronizing HIP calls") == 0);
    // Its meaning names the calls a ROCm user sees, not CUDA's.
    INFO(f->meaning);
    CHECK(f->meaning.find("hipDeviceSynchronize") != std::string::npos);
    CHECK(f->meaning.find("cudaDeviceSynchronize") == std::string::npos);
  }
}

TEST_CASE("gpu.low_sm_efficiency points at a small-grid kernel", "[findings][gpu]") {
  // DLRM rank 0 (V100, 80 SMs): est. SM efficiency 5.8% against 45.5% utilization.
  Run r;
  if (run_shared("param__dlrm_kineto__worker0_step_12.1694128201545.pt.trace.json", &r)) {
    const ks::Finding* f = find(r, "gpu.low_sm_efficiency");
    INFO("findings: " << r.ids);
    REQUIRE(f);
    REQUIRE(f->ranges.size() == 1);
    REQUIRE(f->events.size() == 1);
    const uint32_t k = f->events[0];
    const int32_t info = r.trace->slices.launch_info[k];
    REQUIRE(info >= 0);
    CHECK(r.trace->slices.launch_infos[static_cast<size_t>(info)].blocks_per_sm < 1);
    // A computation kernel: NCCL kernels use few blocks by design.
    CHECK(ks::hta_category(ks::SliceKind::kKernel, r.trace->str(r.trace->slices.name[k])) ==
          ks::HtaCategory::kComputation);
  }
}

TEST_CASE("steps.none: only for traces PyTorch wrote", "[findings][steps]") {
  // speedscope's hand-written B/E test trace: no categories, names A..F. "Call prof.step()"
  // does not apply to it.
  Run r;
  if (run_shared("speedscope__bex-interaction.json", &r)) {
    INFO("findings: " << r.ids);
    CHECK(find(r, "steps.none") == nullptr);
  }
  // A PyTorch trace without steps still hears it (the HTA AlexNet benchmark).
  if (run_shared("hta__benchmark_result_2869224_1695835535_trace.json.gz", &r)) {
    INFO("findings: " << r.ids);
    CHECK(find(r, "steps.none"));
  }
}

TEST_CASE("kernels.no_tensor_cores: ranked by what tensor cores can win", "[findings][kernels]") {
  // DLRM rank 0 (V100): 39 fp32 GEMMs, 281 us of a 14.5 ms step (1.9%): for information.
  Run r;
  if (run_shared("param__dlrm_kineto__worker0_step_12.1694128201545.pt.trace.json", &r)) {
    const ks::Finding* f = find(r, "kernels.no_tensor_cores");
    INFO("findings: " << r.ids);
    REQUIRE(f);
    CHECK(f->severity == ks::Severity::kInfo);
    CHECK(num(*f, "gemm_conv_pct_of_window") == Approx(1.9).margin(0.05));
  }
  // ResNet-50 in fp32 on a V100: convolutions are 47% of the steps: a warning.
  if (run_shared("kineto__resnet50_nw4__worker0.1623212756351.pt.trace.json.gz", &r)) {
    const ks::Finding* f = find(r, "kernels.no_tensor_cores");
    INFO("findings: " << r.ids);
    REQUIRE(f);
    CHECK(f->severity == ks::Severity::kWarning);
  }
}

TEST_CASE("sync.runtime_calls: not for syncs that cost nothing", "[findings][sync]") {
  // MI300 BERT-small: two hipDeviceSynchronize, 64 us, and no GPU idle after either (the GPU
  // waits for launches, not for them); but also ROCm's blocking copy hipMemcpyWithStream
  // (25 us, a .item()), after which the GPU idles 20.8 us: 89 us, 2.2% of the step. Under 5%:
  // information only, not a warning.
  Run r;
  if (run_shared("tracelens__mi300__gaunernst_bert-small-uncased__1016001.json.gz", &r)) {
    INFO("findings: " << r.ids);
    CHECK(r.analyses.sync.count == 3);
    const ks::Finding* f = find(r, "sync.runtime_calls");
    REQUIRE(f);
    CHECK(f->severity == ks::Severity::kInfo);
  }
  // The V100 ResNet-50 (workers 4): 13 syncs, 1% of step time, but 48.6 ms of GPU idle follow
  // them: still reported, for information.
  if (run_shared("kineto__resnet50_nw4__worker0.1623212756351.pt.trace.json.gz", &r)) {
    const ks::Finding* f = find(r, "sync.runtime_calls");
    INFO("findings: " << r.ids);
    REQUIRE(f);
    CHECK(f->severity == ks::Severity::kInfo);
    CHECK(num(*f, "gpu_idle_after_sync_us") > 0);
  }
}

TEST_CASE("sync.runtime_calls: a share of step time counts what lies inside the steps",
          "[findings][sync]") {
  // Two steps of 1 ms, then a 10 ms cudaDeviceSynchronize after the last: its time summed over
  // the steps' 2 ms read 500% of step time. Inside the steps it is nothing; said so.
  const std::string trace = "[" + event("user_annotation", "ProfilerStep#0", 1, 0, 1000) + "," +
                            event("user_annotation", "ProfilerStep#1", 1, 1000, 1000) + "," +
                            launched_kernel("k", 100, 800, 1) + "," +
                            launched_kernel("k", 1100, 800, 2) + "," +
                            event("cuda_runtime", "cudaStreamSynchronize", 1, 1800, 200) + "," +
                            event("cuda_runtime", "cudaDeviceSynchronize", 1, 2500, 10000) + "]";
  Run r = run(trace);
  const ks::Finding* f = find(r, "sync.runtime_calls");
  REQUIRE(f);
  CHECK(num(*f, "share_pct") == Approx(10.0));  // 200 us of the 2 ms
  CHECK(f->title.find("most of it outside the steps") != std::string::npos);
}

TEST_CASE("capture.gpu_events_lost: the GPU's events stop while the CPU goes on",
          "[findings][capture]") {
  // Ten steps of 1 ms, each launching a kernel; the kernels of steps 2-9 are missing.
  auto trace = [](bool launches_unmatched, bool cut) {
    std::string ev;
    for (int step = 0; step < 10; ++step) {
      const int t0 = step * 1000;
      ev +=
          event("user_annotation", ("ProfilerStep#" + std::to_string(step)).c_str(), 1, t0, 1000) +
          ",";
      for (int k = 0; k < 4; ++k) {
        const int corr = step * 4 + k + 1;
        if (step < 2)
          ev += launched_kernel("k", t0 + 100 + k * 200, 150, corr) + ",";
        else if (launches_unmatched)
          ev += event("cuda_runtime", "cudaLaunchKernel", 1, t0 + 98 + k * 200, 1,
                      R"({"correlation":)" + std::to_string(corr) + "}") +
                ",";
        else
          ev += event("cpu_op", "aten::mm", 1, t0 + 98 + k * 200, 100) + ",";
      }
    }
    ev.pop_back();
    return "[" + ev + (cut ? "" : "]");
  };
  SECTION("launches with no GPU op: the profiler lost them; gpu.idle drops to information") {
    Run r = run(trace(true, false));
    const ks::Finding* f = find(r, "capture.gpu_events_lost");
    REQUIRE(f);
    CHECK(num(*f, "launches_after") == 32);
    CHECK(f->title.find("the profiler lost them") != std::string::npos);
    const ks::Finding* idle = find(r, "gpu.idle");
    REQUIRE(idle);
    CHECK(idle->severity == ks::Severity::kInfo);
  }
  SECTION("a file cut off whose GPU events end early") {
    Run r = run(trace(false, true));
    const ks::Finding* f = find(r, "capture.gpu_events_lost");
    REQUIRE(f);
    CHECK(f->title.find("The file is cut off") != std::string::npos);
  }
  SECTION("the same CPU-only tail in a whole file is the program's own") {
    Run r = run(trace(false, false));
    CHECK_FALSE(find(r, "capture.gpu_events_lost"));
  }
}

TEST_CASE("sync.dtoh_in_step: a copy no CPU call waited for is no sync", "[findings][sync]") {
  // Each 1 ms step issues .to('cpu', non_blocking=True) into pinned memory: cudaMemcpyAsync
  // returns in 5 us, the copy runs 600 us later. Nothing waits for it: the recommended pattern,
  // not an .item(). With a cudaStreamSynchronize blocking until it ends, it is one.
  auto trace = [](bool synced) {
    std::string ev;
    for (int step = 0; step < 4; ++step) {
      const int t0 = step * 1000;
      const std::string c = std::to_string(step + 1);
      ev +=
          event("user_annotation", ("ProfilerStep#" + std::to_string(step)).c_str(), 1, t0, 1000) +
          ",";
      ev += launched_kernel("gemm", t0 + 20, 600, 100 + step) + ",";
      ev +=
          event("cuda_runtime", "cudaMemcpyAsync", 1, t0 + 30, 5, R"({"correlation":)" + c + "}") +
          ",";
      ev +=
          R"J({"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoH (Device -> Pinned)","pid":0,"tid":7,"ts":)J" +
          std::to_string(t0 + 620) + R"(,"dur":10,"args":{"stream":7,"correlation":)" + c +
          R"(,"bytes":4096}},)";
      if (synced) ev += event("cuda_runtime", "cudaStreamSynchronize", 1, t0 + 40, 595) + ",";
    }
    ev.pop_back();
    return "[" + ev + "]";
  };
  Run lone = run(trace(false));
  CHECK_FALSE(find(lone, "sync.dtoh_in_step"));
  CHECK(lone.analyses.sync.dtoh_not_waited_for == 4);
  Run waited = run(trace(true));
  CHECK(find(waited, "sync.dtoh_in_step"));
}

TEST_CASE("capture.empty: events left out for their timestamp are not metadata",
          "[findings][capture]") {
  Run r = run(R"([{"ph":"X","name":"a","ts":"soon","dur":2,"pid":1,"tid":1}])");
  const ks::Finding* f = find(r, "capture.empty");
  REQUIRE(f);
  CHECK(f->title.find("no usable timed events: 1 left out") != std::string::npos);
  Run meta = run(R"([{"ph":"M","name":"process_name","pid":1,"args":{"name":"p"}}])");
  REQUIRE(find(meta, "capture.empty"));
  CHECK(find(meta, "capture.empty")->title == "The trace has no timed events (metadata only)");
}

TEST_CASE("capture.empty: a file whose events are all unreadable is damaged, not empty",
          "[findings][capture]") {
  // Before: "The trace has no events" and "call prof.step()", the bad event's offset only in
  // the Diagnostics.
  Run r = run(R"({"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":}]})");
  const ks::Finding* f = find(r, "capture.empty");
  REQUIRE(f);
  CHECK(f->title ==
        "No event could be read: 1 event object was skipped as unreadable, the first at byte 16 "
        "(see Diagnostics)");
  CHECK(f->fix_code.empty());
  Run empty = run(R"({"traceEvents":[]})");
  REQUIRE(find(empty, "capture.empty"));
  CHECK(find(empty, "capture.empty")->title == "The trace has no events");
}

TEST_CASE("gpu.idle: a captured warm-up step does not set the severity", "[findings][gpu]") {
  // Step 0 spends 40 ms in cudaMalloc before its kernel (the warm-up); steps 1-3 keep the GPU
  // busy. Idle over all steps is ~75%, over the steady steps ~2%: information, saying both. The
  // last step, short beside the warm-up but launching work, is the loop's own.
  std::string ev;
  for (int step = 0; step < 4; ++step) {
    const int t0 = step == 0 ? 0 : 41000 + (step - 1) * 1000;
    const int len = step == 0 ? 41000 : 1000;
    ev += event("user_annotation", ("ProfilerStep#" + std::to_string(step)).c_str(), 1, t0, len) +
          ",";
    if (step == 0) ev += event("cuda_runtime", "cudaMalloc", 1, 100, 40000) + ",";
    ev += launched_kernel("gemm", t0 + len - 980, 960, step + 1) + ",";
  }
  ev.pop_back();
  Run r = run("[" + ev + "]");
  REQUIRE(r.analyses.steps.steps.size() == 4);
  const ks::Finding* f = find(r, "gpu.idle");
  REQUIRE(f);
  CHECK(f->severity == ks::Severity::kInfo);
  CHECK(num(*f, "steady_idle_pct") < 5);
  CHECK(f->title.find("in the steps after the warm-up step ProfilerStep#0") != std::string::npos);
}
