// Each finding rule (src/findings/*_rules.cpp) fires on a small planted trace with the right
// evidence, and stays silent on its clean twin.
#include <catch2/catch.hpp>

#include <string>

#include "findings/finding_run.h"

namespace {

using Run = ks_test::FindingRun;
constexpr auto run = ks_test::run_findings_on;
constexpr auto find = ks_test::find_finding;
constexpr auto number = ks_test::evidence_number;
constexpr auto text = ks_test::evidence_text;

std::vector<std::string> ids(const Run& r) {
  std::vector<std::string> out;
  for (const ks::Finding& f : r.findings) out.push_back(f.id);
  return out;
}

// Steps [0, 100), [100, 200), [200, 250) us; kernel k1 [20, 150) launched in step 1, k2
// [160, 180) launched in step 2: GPU idle 100 of 250 us = 40 % (see gpu_idle_test).
const char* kIdleTrace = R"([
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":100,"dur":100},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":200,"dur":50},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":5,
   "args":{"correlation":1}},
  {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":20,"dur":130,
   "args":{"correlation":1,"stream":7}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":110,"dur":5,
   "args":{"correlation":2}},
  {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":160,"dur":20,
   "args":{"correlation":2,"stream":7}}
])";

// One step [100, 200) us with two .item() calls (DtoH copies of 4 and 8 bytes), a
// cudaStreamSynchronize of 10 us and a cudaDeviceSynchronize of 5 us; another
// cudaDeviceSynchronize of 10 us before the step.
const char* kSyncTrace = R"J([
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
  {"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":1,"tid":1,"ts":190,"dur":5},
  {"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":1,"tid":2,"ts":50,"dur":10}
])J";

std::string steps_trace(std::initializer_list<int> durations_us) {
  std::string json = "[";
  int ts = 0, n = 1;
  for (int d : durations_us) {
    if (n > 1) json += ",";
    json += R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#)" + std::to_string(n++) +
            R"(","pid":1,"tid":1,"ts":)" + std::to_string(ts) + R"(,"dur":)" + std::to_string(d) +
            "}";
    ts += d;
  }
  return json + "]";
}

}  // namespace

TEST_CASE("capture.empty: nothing was recorded", "[findings]") {
  SECTION("no events at all") {
    Run r = run(R"({"traceEvents": []})");
    CHECK(ids(r) == std::vector<std::string>{"capture.empty"});
    const ks::Finding& f = r.findings[0];
    CHECK(f.severity == ks::Severity::kCritical);
    CHECK(f.title == "The trace has no events");
    CHECK(number(f, "events") == 0);
  }
  SECTION("metadata only") {
    Run r = run(R"([{"ph":"M","name":"process_name","pid":1,"args":{"name":"python"}},
                    {"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"main"}}])");
    const ks::Finding* f = find(r, "capture.empty");
    REQUIRE(f);
    CHECK(f->title == "The trace has no timed events (metadata only)");
    CHECK(number(*f, "events") == 2);
  }
  SECTION("metadata only, from a profiler with record_shapes and with_stack on: that one alone") {
    // The header's flags over nothing recorded: no step times to warn about.
    Run r = run(R"({"record_shapes": 1, "with_stack": 1, "traceEvents": [
                    {"ph":"M","name":"process_name","pid":1,"args":{"name":"python"}}]})");
    CHECK(ids(r) == std::vector<std::string>{"capture.empty"});
  }
  SECTION("clean twin: one timed event") {
    Run r = run(R"([{"ph":"i","name":"mark","pid":1,"tid":1,"ts":1}])");
    CHECK(find(r, "capture.empty") == nullptr);
  }
  SECTION("the flags' twin: one timed event, the flags are told") {
    Run r = run(R"({"record_shapes": 1, "traceEvents": [
                    {"ph":"X","name":"aten::mm","cat":"cpu_op","pid":1,"tid":1,"ts":1,"dur":2}]})");
    CHECK(find(r, "capture.diagnostic_flags") != nullptr);
  }
}

TEST_CASE("capture.no_gpu_activity: a GPU run without its GPU side", "[findings]") {
  SECTION("launches without kernels") {
    Run r = run(R"([
      {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":0,"dur":10},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":5},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":7,"dur":2}
    ])");
    const ks::Finding* f = find(r, "capture.no_gpu_activity");
    REQUIRE(f);
    CHECK(f->severity == ks::Severity::kCritical);
    CHECK(f->title == "GPU run, but no GPU activity was recorded");
    CHECK(number(*f, "launch_calls") == 2);
    CHECK(number(*f, "devices_named") == 0);
  }
  SECTION("a device named in deviceProperties, CPU ops only") {
    Run r = run(R"({"deviceProperties": [{"id": 0, "name": "NVIDIA A100"}], "traceEvents": [
      {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":0,"dur":10}]})");
    const ks::Finding* f = find(r, "capture.no_gpu_activity");
    REQUIRE(f);
    CHECK(number(*f, "launch_calls") == 0);
    CHECK(number(*f, "devices_named") == 1);
  }
  SECTION("a file cut off before its GPU events: the advice is the whole file, not CUPTI") {
    // torch.profiler writes the GPU's events after the CPU ops; the array never closes.
    Run r = run(R"([
      {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":0,"dur":10},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":5},
      {"ph":"X","cat":"cpu_op","name":"aten::mul","pid":1,"tid":1,"ts":20,"dur":10},
      {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts)");
    const ks::Finding* f = find(r, "capture.no_gpu_activity");
    REQUIRE(f);
    CHECK(f->severity == ks::Severity::kCritical);
    CHECK(f->title == "The file is cut off: its GPU activity is in the part that is missing");
    CHECK(f->fix.find("CUDA activity") == std::string::npos);
    CHECK(f->fix.find("copy or download it again") != std::string::npos);
    CHECK(f->fix_code.empty());
    CHECK(text(*f, "cause") == "file_cut_off");
    CHECK(find(r, "capture.file_cut_off") == nullptr);  // said once
    CHECK(number(*f, "launch_calls") == 1);
  }
  SECTION("clean twin: the launch has its kernel") {
    Run r = run(R"([
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":5,
       "args":{"correlation":1}},
      {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":7,"dur":5,"args":{"correlation":1}}
    ])");
    CHECK(find(r, "capture.no_gpu_activity") == nullptr);
  }
  SECTION("clean twin: a CPU-only run") {
    Run r =
        run(R"([{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":0,"dur":10}])");
    CHECK(find(r, "capture.no_gpu_activity") == nullptr);
  }
}

TEST_CASE("capture.file_cut_off: a file cut before any sign of a GPU", "[findings]") {
  SECTION("CPU ops, the array never closed, the last event cut") {
    const std::string cut = R"([
      {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":0,"dur":10},
      {"ph":"X","cat":"cpu_op","name":"aten::mul","pid":1,"tid":1,"ts":20,"dur":10},
      {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts)";
    Run r = run(cut);
    const ks::Finding* f = find(r, "capture.file_cut_off");
    REQUIRE(f);
    CHECK(f->severity == ks::Severity::kWarning);
    const size_t last = cut.rfind('{');  // the cut event's first byte
    CHECK(number(*f, "cut_at_byte") == static_cast<double>(last));
    CHECK(f->title == "The file is cut off at byte " + std::to_string(last) +
                          ": this report covers only the events before it");
    CHECK(find(r, "capture.no_gpu_activity") == nullptr);
  }
  SECTION("clean twin: the same events, the file whole") {
    Run r = run(R"([
      {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":0,"dur":10},
      {"ph":"X","cat":"cpu_op","name":"aten::mul","pid":1,"tid":1,"ts":20,"dur":10}])");
    CHECK(find(r, "capture.file_cut_off") == nullptr);
  }
}

TEST_CASE("capture.no_cpu_activity: a GPU run without its CPU side", "[findings]") {
  SECTION("kernels and a copy, nothing on a CPU thread") {
    Run r = run(R"J([
      {"ph":"M","name":"process_name","pid":0,"args":{"name":"GPU 0"}},
      {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":0,"dur":5,"args":{"stream":7}},
      {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":20,"dur":5,"args":{"stream":7}},
      {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,
       "ts":30,"dur":5,"args":{"stream":7,"bytes":1024}}
    ])J");
    const ks::Finding* f = find(r, "capture.no_cpu_activity");
    REQUIRE(f);
    CHECK(f->severity == ks::Severity::kWarning);
    CHECK(number(*f, "gpu_ops") == 3);
  }
  SECTION("clean twin: one CPU op beside the kernels") {
    Run r = run(R"([
      {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":4},
      {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":0,"dur":5,"args":{"stream":7}}
    ])");
    CHECK(find(r, "capture.no_cpu_activity") == nullptr);
  }
  SECTION("clean twin: CPU events of a category we do not know still are the CPU side") {
    Run r = run(R"([
      {"ph":"X","cat":"framework_step","name":"train","pid":1,"tid":1,"ts":0,"dur":40},
      {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":0,"dur":5,"args":{"stream":7}}
    ])");
    CHECK(find(r, "capture.no_cpu_activity") == nullptr);
  }
  SECTION("clean twin: no GPU ops at all (a CPU-only run, or nothing)") {
    Run r =
        run(R"([{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":0,"dur":10}])");
    CHECK(find(r, "capture.no_cpu_activity") == nullptr);
  }
}

// One step [0, 100) us; device 0 runs kernels 80 us of it, device 1 `busy1` us.
std::string two_devices(int busy1) {
  return R"([
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":2},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":80,
     "args":{"device":0,"stream":7}},
    {"ph":"X","cat":"kernel","name":"k","pid":2,"tid":8,"ts":10,"dur":)" +
         std::to_string(busy1) + R"(,"args":{"device":1,"stream":8}}
  ])";
}

TEST_CASE("gpu.uneven_devices: one process's GPUs far apart in utilization", "[findings]") {
  SECTION("80% against 20%") {
    Run r = run(two_devices(20));
    const ks::Finding* f = find(r, "gpu.uneven_devices");
    REQUIRE(f);
    CHECK(f->severity == ks::Severity::kWarning);
    CHECK(number(*f, "least_busy_device") == 1);
    CHECK(number(*f, "least_busy_utilization_pct") == Approx(20));
    CHECK(number(*f, "busiest_device") == 0);
    CHECK(number(*f, "busiest_utilization_pct") == Approx(80));
  }
  SECTION("clean twin: 80% against 60%") {
    CHECK(find(run(two_devices(60)), "gpu.uneven_devices") == nullptr);
  }
  SECTION("clean twin: one GPU") {
    CHECK(find(run(kIdleTrace), "gpu.uneven_devices") == nullptr);
  }
}

// One step [0, 100) us; device 0 runs a kernel [10, 50), device 1 one [`start1`, `start1` + 40).
std::string devices_in_turn(int start1) {
  return R"([
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":2},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":40,
     "args":{"device":0,"stream":7}},
    {"ph":"X","cat":"kernel","name":"k","pid":2,"tid":8,"ts":)" +
         std::to_string(start1) + R"(,"dur":40,"args":{"device":1,"stream":8}}
  ])";
}

TEST_CASE("gpu.devices_idle: one process's GPUs take turns", "[findings]") {
  SECTION("one after the other: the union idles 20%, each GPU 60%") {
    Run r = run(devices_in_turn(50));
    const ks::Finding* f = find(r, "gpu.devices_idle");
    REQUIRE(f);
    CHECK(f->severity == ks::Severity::kCritical);
    CHECK(number(*f, "union_idle_pct") == Approx(20));
    CHECK(number(*f, "least_idle_pct") == Approx(60));
    CHECK(number(*f, "device1_idle_pct") == Approx(60));
    REQUIRE(r.analyses.gpu_idle.devices.size() == 2);
  }
  SECTION("clean twin: both at once, each GPU idles as the union does (60%)") {
    CHECK(find(run(devices_in_turn(10)), "gpu.devices_idle") == nullptr);
  }
  SECTION("clean twin: one GPU has no per-device rows") {
    Run r = run(kIdleTrace);
    CHECK(find(r, "gpu.devices_idle") == nullptr);
    CHECK(r.analyses.gpu_idle.devices.empty());
  }
}

// One step [0, 100) us; device 0 runs a kernel [10, 10 + `busy0`); device 1 one 0.5 us kernel
// before the step (a tensor made on the default GPU before torch.cuda.set_device).
std::string stray_device(int busy0) {
  return R"([
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":2},
    {"ph":"X","cat":"kernel","name":"fill","pid":2,"tid":8,"ts":-5,"dur":0.5,
     "args":{"device":1,"stream":8}},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":)" +
         std::to_string(busy0) + R"(,"args":{"device":0,"stream":7}}
  ])";
}

TEST_CASE("gpu.stray_device: a GPU the process barely touched", "[findings]") {
  SECTION("80 us of work on GPU 0, one 0.5 us op on GPU 1") {
    Run r = run(stray_device(80));
    const ks::Finding* f = find(r, "gpu.stray_device");
    REQUIRE(f);
    CHECK(f->severity == ks::Severity::kWarning);
    CHECK(number(*f, "device") == 1);
    CHECK(number(*f, "main_device") == 0);
    CHECK(number(*f, "ops") == 1);
    CHECK(number(*f, "op_us") == Approx(0.5));
    // Not a share of the work: no uneven-work finding, no per-device idle rows.
    CHECK(find(r, "gpu.uneven_devices") == nullptr);
    CHECK(r.analyses.gpu_idle.devices.empty());
  }
  SECTION("the work idles 40%: the stray GPU does not make the GPUs 'take turns'") {
    Run r = run(stray_device(60));
    REQUIRE(find(r, "gpu.stray_device"));
    CHECK(find(r, "gpu.devices_idle") == nullptr);
  }
  SECTION("clean twin: both GPUs work (80% and 20%)") {
    Run r = run(two_devices(20));
    CHECK(find(r, "gpu.stray_device") == nullptr);
    CHECK(find(r, "gpu.uneven_devices"));
  }
  SECTION("clean twin: one GPU") {
    CHECK(find(run(kIdleTrace), "gpu.stray_device") == nullptr);
  }
}

TEST_CASE("steps.none: no ProfilerStep markers", "[findings]") {
  Run r = run(R"([{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":0,"dur":10}])");
  CHECK(ids(r) == std::vector<std::string>{"steps.none"});
  CHECK(r.findings[0].severity == ks::Severity::kInfo);
  CHECK(r.findings[0].title == "No ProfilerStep markers: the trace is analyzed as one window");
  SECTION("clean twin: one marker") {
    Run twin = run(steps_trace({100}));
    CHECK(find(twin, "steps.none") == nullptr);
  }
  SECTION("a legacy autograd-profiler op (no category) is PyTorch's too") {
    Run legacy = run(R"([{"ph":"X","name":"aten::add","pid":1,"tid":1,"ts":0,"dur":10}])");
    CHECK(find(legacy, "steps.none"));
  }
  SECTION("uncategorized events with plain names are not a PyTorch trace") {
    Run other = run(R"([{"ph":"B","name":"alpha","pid":0,"tid":0,"ts":0},
                        {"ph":"E","name":"alpha","pid":0,"tid":0,"ts":2},
                        {"ph":"X","name":"beta","pid":0,"tid":0,"ts":3,"dur":1}])");
    CHECK(other.findings.empty());
  }
}

TEST_CASE("steps.unstable: step times vary", "[findings]") {
  SECTION("100, 100 and 200 us: CV 43.3 %, a warning") {
    // Mean 133.33 us; deviations -33.33, -33.33, 66.67: sample variance 3333.33, stddev
    // 57.735 us; CV = 57.735 / 133.33 = 43.30 %. The slowest step is #3, [200, 400) us.
    Run r = run(steps_trace({100, 100, 200}));
    CHECK(ids(r) == std::vector<std::string>{"steps.unstable"});
    const ks::Finding& f = r.findings[0];
    CHECK(f.severity == ks::Severity::kWarning);
    // The title writes the CV as the evidence does, with one decimal (was "CV 43%" above 43.3%).
    CHECK(f.title == "Step time varies: 100.0 \u00b5s to 200.0 \u00b5s (CV 43.3%)");
    CHECK(number(f, "steps") == 3);
    CHECK(number(f, "min_us") == 100.0);
    CHECK(number(f, "median_us") == 100.0);
    CHECK(number(f, "max_us") == 200.0);
    CHECK(number(f, "cv_pct") == Approx(43.30127018922193));
    CHECK(number(f, "slowest_step") == 3);
    REQUIRE(f.ranges.size() == 1);
    CHECK(f.ranges[0].begin_ns == 200000);
    CHECK(f.ranges[0].end_ns == 400000);
    CHECK(f.ranges[0].label == "slowest step ProfilerStep#3");
    REQUIRE(f.events.size() == 1);
    CHECK(r.trace->str(r.trace->slices.name[f.events[0]]) == "ProfilerStep#3");
  }
  SECTION("100, 100 and 120 us: CV 10.8 %, for information") {
    // Mean 106.67; deviations -6.67, -6.67, 13.33: variance 133.33, stddev 11.547; CV 10.83 %.
    Run r = run(steps_trace({100, 100, 120}));
    const ks::Finding* f = find(r, "steps.unstable");
    REQUIRE(f);
    CHECK(f->severity == ks::Severity::kInfo);
    CHECK(number(*f, "cv_pct") == Approx(10.825317547305483));
  }
  SECTION("clean twin: equal steps") {
    Run r = run(steps_trace({100, 100, 100}));
    CHECK(r.findings.empty());
  }
  SECTION("clean twin: two steps are too few to judge") {
    Run r = run(steps_trace({100, 300}));
    CHECK(find(r, "steps.unstable") == nullptr);
  }
}

// `n` ProfilerStep ranges, step i lasting base + i * rise us, each with one kernel on stream 7 of
// kernel_base + i * kernel_rise us launched at its start: a loop whose work (or only its host time)
// grows.
std::string growing_steps_trace(int n, int base, int rise, int kernel_base, int kernel_rise) {
  std::string json = "[";
  int ts = 0;
  for (int i = 0; i < n; ++i) {
    const int d = base + i * rise, k = kernel_base + i * kernel_rise;
    json += (i ? "," : "") +
            std::string(R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#)") +
            std::to_string(i) + R"(","pid":1,"tid":1,"ts":)" + std::to_string(ts) + R"(,"dur":)" +
            std::to_string(d) + "}";
    const std::string corr = std::to_string(i + 1);
    json += R"(,{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" +
            std::to_string(ts) + R"(,"dur":1,"args":{"correlation":)" + corr + "}}";
    json += R"(,{"ph":"X","cat":"kernel","name":"attn","pid":0,"tid":7,"ts":)" +
            std::to_string(ts + 1) + R"(,"dur":)" + std::to_string(k) +
            R"(,"args":{"device":0,"stream":7,"correlation":)" + corr + "}}";
    ts += d;
  }
  return json + "]";
}

TEST_CASE("steps.growing: each step longer than the last is growth, not instability",
          "[findings]") {
  SECTION("10 steps from 100 to 190 us, the kernel growing as much: growth with the GPU work") {
    // 100..190 us: mean 145, stddev 30.28, CV 20.9 % (steps.unstable before this rule). The
    // line through them: slope 10 us a step, R^2 1, from 100 to 190 us (+90 %).
    Run r = run(growing_steps_trace(10, 100, 10, 50, 10));
    CHECK(find(r, "steps.unstable") == nullptr);
    const ks::Finding* f = find(r, "steps.growing");
    REQUIRE(f);
    CHECK(f->severity == ks::Severity::kInfo);
    CHECK(f->title ==
          "Step time grows steadily: 100.0 \u00b5s (ProfilerStep#0) to 190.0 \u00b5s "
          "(ProfilerStep#9), +10.0 \u00b5s a step; the GPU work grows with it");
    CHECK(number(*f, "steps") == 10);
    CHECK(number(*f, "first_us") == 100.0);
    CHECK(number(*f, "last_us") == 190.0);
    CHECK(number(*f, "growth_per_step_us") == Approx(10.0));
    CHECK(number(*f, "growth_pct") == Approx(90.0));
    CHECK(number(*f, "r2") == Approx(1.0));
    CHECK(number(*f, "gpu_work_first_us") == 50.0);
    CHECK(number(*f, "gpu_work_last_us") == 140.0);
    CHECK(text(*f, "gpu_work_grows") == "yes");
    CHECK(f->fix.find("KV cache") != std::string::npos);
    REQUIRE(f->ranges.size() == 1);
    CHECK(f->ranges[0].label == "last (longest) step ProfilerStep#9");
  }
  SECTION("the same steps with a fixed kernel: the host's time grows") {
    Run r = run(growing_steps_trace(10, 100, 10, 50, 0));
    const ks::Finding* f = find(r, "steps.growing");
    REQUIRE(f);
    CHECK(text(*f, "gpu_work_grows") == "no");
    CHECK(f->title.find("the GPU work does not (the host's time grows)") != std::string::npos);
    CHECK(f->fix.find("keeps across steps") != std::string::npos);
  }
  SECTION("clean twin: half the steps twice as long is a step, not a trend (R^2 0.75)") {
    Run r = run(steps_trace({100, 100, 100, 100, 100, 200, 200, 200, 200, 200}));
    CHECK(find(r, "steps.growing") == nullptr);
  }
  SECTION("clean twin: a noisy loop with no trend stays unstable") {
    Run r = run(steps_trace({100, 180, 110, 170, 100, 190, 120, 160, 105, 175}));
    CHECK(find(r, "steps.growing") == nullptr);
    CHECK(find(r, "steps.unstable"));
  }
  SECTION("clean twin: seven steps are too few for a trend") {
    Run r = run(growing_steps_trace(7, 100, 10, 50, 10));
    CHECK(find(r, "steps.growing") == nullptr);
  }
  SECTION("clean twin: steps that shrink are not growth") {
    Run r = run(steps_trace({190, 180, 170, 160, 150, 140, 130, 120, 110, 100}));
    CHECK(find(r, "steps.growing") == nullptr);
  }
}

TEST_CASE("gpu.idle: the GPU waits inside the steps", "[findings]") {
  SECTION("40 % idle over the steps: a warning with the largest gaps") {
    Run r = run(kIdleTrace);
    const ks::Finding* f = find(r, "gpu.idle");
    REQUIRE(f);
    CHECK(f->severity == ks::Severity::kWarning);
    CHECK(f->title == "GPU idle 40.0% of step time");
    CHECK(number(*f, "idle_pct") == 40.0);
    CHECK(number(*f, "window_us") == 250.0);
    CHECK(number(*f, "busy_us") == 150.0);
    REQUIRE(f->ranges.size() == 4);
    CHECK(f->ranges[0].begin_ns == 200000);
    CHECK(f->ranges[0].end_ns == 250000);
    CHECK(f->ranges[0].label == "idle gap 50.0 \u00b5s");
    CHECK(f->ranges[3].label == "idle gap 10.0 \u00b5s");
  }
  SECTION("more than half idle is critical") {
    // Without steps: kernels [0, 10) and [90, 100): idle 80 of 100 us.
    Run r = run(R"([
      {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":0,"dur":10},
      {"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":90,"dur":10}
    ])");
    const ks::Finding* f = find(r, "gpu.idle");
    REQUIRE(f);
    CHECK(f->severity == ks::Severity::kCritical);
    CHECK(f->title == "GPU idle 80.0% of the GPU span");
  }
  SECTION("clean twin: kernels back to back") {
    Run r = run(R"([
      {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":0,"dur":10},
      {"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":10,"dur":90}
    ])");
    CHECK(find(r, "gpu.idle") == nullptr);
  }
}

TEST_CASE("sync.dtoh_in_step: device-to-host copies inside steps", "[findings]") {
  Run r = run(kSyncTrace);
  const ks::Finding* f = find(r, "sync.dtoh_in_step");
  REQUIRE(f);
  CHECK(f->severity == ks::Severity::kWarning);
  CHECK(f->title == "2 device-to-host copies inside steps (1 of 1 steps)");
  CHECK(number(*f, "copies") == 2);
  CHECK(number(*f, "steps_with_copies") == 1);
  CHECK(text(*f, "issued_by") == "aten::item > aten::_local_scalar_dense > aten::copy_");
  CHECK(number(*f, "issued_by_count") == 2);
  CHECK(number(*f, "bytes") == 12);
  REQUIRE(f->ranges.size() == 2);
  CHECK(f->ranges[0].begin_ns == 116000);
  CHECK(f->ranges[0].end_ns == 117000);
  CHECK(f->ranges[0].label == "Memcpy DtoH (Device -> Pageable)");
  REQUIRE(f->events.size() == 2);
  CHECK(r.trace->slices.ts[f->events[1]] == 146000);
  SECTION("clean twin: the same copies with no step around them") {
    std::string json = kSyncTrace;
    json.replace(json.find("ProfilerStep#1"), 14, "forward");
    Run twin = run(json);
    CHECK(find(twin, "sync.dtoh_in_step") == nullptr);
  }
}

TEST_CASE("sync.runtime_calls: synchronizing CUDA calls", "[findings]") {
  SECTION("25 us of syncs in a 100 us step: a warning") {
    // cudaDeviceSynchronize 10 + 5 us, cudaStreamSynchronize 10 us: 25 us; the 10 us call on
    // thread 2 lies before the step, so 15 us of the step's 100, 15%.
    Run r = run(kSyncTrace);
    const ks::Finding* f = find(r, "sync.runtime_calls");
    REQUIRE(f);
    CHECK(f->severity == ks::Severity::kWarning);
    CHECK(f->title == "3 synchronizing CUDA calls, 25.0 \u00b5s in total (15.0% of step time)");
    CHECK(number(*f, "calls") == 3);
    CHECK(number(*f, "total_us") == 25.0);
    CHECK(number(*f, "share_pct") == 15.0);
    CHECK(text(*f, "top_call") == "cudaDeviceSynchronize");
    CHECK(number(*f, "top_call_count") == 2);
    CHECK(number(*f, "top_call_max_us") == 10.0);
    REQUIRE(f->ranges.size() == 2);
    CHECK(f->ranges[0].begin_ns == 50000);  // the longest call first
    CHECK(f->ranges[0].label == "cudaDeviceSynchronize");
  }
  SECTION("one short sync at the end of a long trace, no GPU idle after it: silent") {
    // 1 us of 1000 us: 0.1 %.
    Run r = run(R"([
      {"ph":"X","cat":"cpu_op","name":"loop","pid":1,"tid":1,"ts":0,"dur":1000},
      {"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":1,"tid":1,"ts":998,"dur":1}
    ])");
    CHECK(find(r, "sync.runtime_calls") == nullptr);
  }
  SECTION("a short sync the GPU then waits behind: for information") {
    // k1 [0, 1000) us, cudaDeviceSynchronize [1000, 1020), k2 launched at 1021 runs from 1025:
    // the 25 us gap is the sync's (it covers 20 us of it); the sync is 1% of the 2000 us trace.
    Run r = run(R"([
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":1,
       "args":{"correlation":1}},
      {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":0,"dur":1000,
       "args":{"correlation":1,"stream":7}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":1,"tid":1,"ts":1000,"dur":20},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1021,"dur":1,
       "args":{"correlation":2}},
      {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":1025,"dur":975,
       "args":{"correlation":2,"stream":7}}
    ])");
    const ks::Finding* f = find(r, "sync.runtime_calls");
    REQUIRE(f);
    CHECK(f->severity == ks::Severity::kInfo);
    CHECK(f->title == "1 synchronizing CUDA call, 20.0 \u00b5s in total (1.0% of the trace)");
    CHECK(number(*f, "gpu_idle_after_sync_us") == 25.0);
  }
  SECTION("clean twin: no synchronizing call") {
    Run r = run(kIdleTrace);
    CHECK(find(r, "sync.runtime_calls") == nullptr);
  }
}

TEST_CASE("Findings come most severe first, in catalogue order within a severity", "[findings]") {
  // The sync trace: the GPU is busy 3 of the step's 100 us (a critical gpu.idle), then the two
  // sync warnings in catalogue order; information-only findings (if any) come last.
  Run r = run(kSyncTrace);
  std::vector<std::string> got = ids(r);
  REQUIRE(got.size() >= 3);
  CHECK(std::vector<std::string>(got.begin(), got.begin() + 3) ==
        std::vector<std::string>{"gpu.idle", "sync.dtoh_in_step", "sync.runtime_calls"});
  for (size_t i = 1; i < r.findings.size(); ++i)
    CHECK(static_cast<int>(r.findings[i - 1].severity) <= static_cast<int>(r.findings[i].severity));
  for (size_t i = 3; i < r.findings.size(); ++i)
    CHECK(r.findings[i].severity == ks::Severity::kInfo);
}

// Two GPUs (kernels on devices 0 and 1) and DataParallel's forward under the three names the
// rule knows; the rule tests each distinct name once (a cache by string id), so the same name
// repeated must still count every call.
TEST_CASE("parallel.data_parallel: DataParallel driving several GPUs", "[findings]") {
  auto trace = [](const char* forward_a, const char* forward_b, bool two_gpus) {
    return std::string(R"([
      {"ph":"X","cat":"cpu_op","name":")") +
           forward_a + R"(","pid":1,"tid":1,"ts":10,"dur":50},
      {"ph":"X","cat":"cpu_op","name":")" +
           forward_b + R"(","pid":1,"tid":1,"ts":100,"dur":50},
      {"ph":"X","cat":"python_function","name":")" +
           forward_a + R"(","pid":1,"tid":1,"ts":200,"dur":50},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":20,"dur":5,
       "args":{"correlation":1}},
      {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":30,"dur":20,
       "args":{"correlation":1,"stream":7,"device":0}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":110,"dur":5,
       "args":{"correlation":2}},
      {"ph":"X","cat":"kernel","name":"k2","pid":)" +
           (two_gpus ? "1" : "0") + R"(,"tid":7,"ts":120,"dur":20,
       "args":{"correlation":2,"stream":7,"device":)" +
           (two_gpus ? "1" : "0") + R"(}}
    ])";
  };
  SECTION("DataParallel.forward, twice, and its Python frame") {
    Run r = run(trace("DataParallel.forward", "DataParallel.forward", true));
    const ks::Finding* f = find(r, "parallel.data_parallel");
    REQUIRE(f);
    CHECK(number(*f, "gpus") == 2.0);
    CHECK(number(*f, "forward_calls") == 3.0);
  }
  SECTION("the module and the data_parallel.py frame names") {
    Run r = run(trace("nn.Module: DataParallel_0",
                      "torch/nn/parallel/data_parallel.py(180): forward", true));
    const ks::Finding* f = find(r, "parallel.data_parallel");
    REQUIRE(f);
    CHECK(number(*f, "forward_calls") == 3.0);
  }
  SECTION("clean twins: another module's forward, or one GPU") {
    CHECK(find(run(trace("Module.forward", "data_parallel.py(1): backward", true)),
               "parallel.data_parallel") == nullptr);
    CHECK(find(run(trace("DataParallel.forward", "DataParallel.forward", false)),
               "parallel.data_parallel") == nullptr);
  }
}
