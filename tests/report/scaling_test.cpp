// Worst cases: degenerate traces a hostile (or just odd) file can hold. Each shape is run through
// what the CLI does (import in 1 MiB feeds, build_report, the JSON, text and Markdown writers,
// and the critical path of the whole trace: analysis/critical_path.h) at N and 4N events; the
// bound, 2.5x per doubling, and how it is timed are in tests/scaling.h.
#include <algorithm>
#include <functional>
#include <string>

#include "analysis/critical_path.h"
#include "helpers.h"
#include "scaling.h"

namespace {

using Gen = std::function<std::string(size_t)>;

std::string wrap(const std::string& events) {
  return "{\"traceEvents\":[" + events + "]}";
}

void add(std::string* out, const std::string& event) {
  if (!out->empty()) *out += ",\n";
  *out += event;
}

std::string x_event(const char* cat, const std::string& name, int pid, int tid, long long ts,
                    long long dur, const std::string& args = "") {
  std::string e = std::string("{\"ph\":\"X\",\"cat\":\"") + cat + "\",\"name\":\"" + name +
                  "\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
                  ",\"ts\":" + std::to_string(ts) + ",\"dur\":" + std::to_string(dur);
  if (!args.empty()) e += ",\"args\":{" + args + "}";
  return e + "}";
}

// The issue's file: N identical kernels on one stream, each nested in the previous one.
std::string nested_identical_kernels(size_t n) {
  std::string ev;
  for (size_t i = 0; i < n; ++i) add(&ev, x_event("kernel", "k", 0, 7, 1, 1));
  return wrap(ev);
}

// A step holding a stack N/2 CPU ops deep with N/2 device-to-host copies launched from its
// bottom, and a stack of N/2 GPU annotations with N/2 kernels inside the innermost one.
std::string deep_nesting(size_t n) {
  const size_t d = n / 2;
  const long long span = 10 * static_cast<long long>(n);
  std::string ev;
  add(&ev, x_event("user_annotation", "ProfilerStep#1", 1, 1, 0, span + 100));
  for (size_t i = 0; i < d; ++i)
    add(&ev, x_event("cpu_op", "op", 1, 1, 1 + static_cast<long long>(i),
                     span - 2 * static_cast<long long>(i)));
  for (size_t i = 0; i < d; ++i)
    add(&ev, x_event("gpu_user_annotation", "ga", 0, 8, 1 + static_cast<long long>(i),
                     span - 2 * static_cast<long long>(i)));
  const long long base = static_cast<long long>(d) + 10;
  for (size_t j = 0; j < n - d; ++j) {
    const long long at = base + 2 * static_cast<long long>(j);
    const std::string corr = "\"correlation\":" + std::to_string(j);
    add(&ev, x_event("cuda_runtime", "cudaMemcpyAsync", 1, 1, at, 1, corr));
    add(&ev, x_event("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", 0, 7, at + 1, 1,
                     corr + ",\"stream\":7,\"device\":0,\"bytes\":4"));
    add(&ev, x_event("kernel", "k", 0, 8, at, 1, "\"stream\":8,\"device\":0"));
  }
  return wrap(ev);
}

// One huge track: N kernels one after another on one stream, each launched from one thread,
// inside a few steps.
std::string one_huge_track(size_t n) {
  std::string ev;
  const long long span = 4 * static_cast<long long>(n);
  for (int st = 0; st < 4; ++st)
    add(&ev, x_event("user_annotation", "ProfilerStep#" + std::to_string(st), 1, 1, st * span / 4,
                     span / 4));
  for (size_t i = 0; i < n; ++i) {
    const long long at = 4 * static_cast<long long>(i);
    const std::string corr = "\"correlation\":" + std::to_string(i);
    add(&ev, x_event("cuda_runtime", "cudaLaunchKernel", 1, 1, at, 1, corr));
    add(&ev, x_event("kernel", "k", 0, 7, at + 1, 2, corr + ",\"stream\":7,\"device\":0"));
  }
  return wrap(ev);
}

// Every event at one timestamp: steps, CPU ops, runtime calls, kernels, copies, annotations.
std::string one_timestamp(size_t n) {
  static const char* kCats[] = {"kernel",     "cpu_op",          "cuda_runtime",
                                "gpu_memcpy", "user_annotation", "gpu_user_annotation"};
  std::string ev;
  for (size_t i = 0; i < n; ++i) {
    const char* cat = kCats[i % 6];
    const bool gpu = i % 6 == 0 || i % 6 == 3 || i % 6 == 5;
    std::string name = i % 6 == 4   ? "ProfilerStep#" + std::to_string(i % 5)
                       : i % 6 == 3 ? std::string("Memcpy DtoH (Device -> Pinned)")
                       : i % 6 == 2 ? std::string("cudaLaunchKernel")
                                    : "n" + std::to_string(i % 7);
    std::string args = "\"correlation\":" + std::to_string(i / 6);
    if (gpu) args += ",\"stream\":7,\"device\":0";
    add(&ev, x_event(cat, name, gpu ? 0 : 1, gpu ? 7 : 1, 5, static_cast<long long>(i % 2), args));
  }
  return wrap(ev);
}

// Distinct names: N/2 kernels and N/2 CPU ops, no two named alike.
std::string distinct_names(size_t n) {
  std::string ev;
  for (size_t i = 0; i < n / 2; ++i) {
    const long long at = 2 * static_cast<long long>(i);
    add(&ev,
        x_event("kernel", "kernel_" + std::to_string(i), 0, 7, at, 1, "\"stream\":7,\"device\":0"));
    add(&ev, x_event("cpu_op", "op_" + std::to_string(i), 1, 1, at, 1));
  }
  return wrap(ev);
}

// N/2 launches and N/2 kernels that all carry one correlation id (two sessions' ids collide,
// or a writer that numbers nothing): each op's launcher is found by binary search, not by a walk
// over every call of the id (13 s for 200 k events).
std::string one_correlation_id(size_t n) {
  std::string ev;
  for (size_t i = 0; i < n / 2; ++i) {
    const long long at = 10 * static_cast<long long>(i);
    add(&ev, x_event("cuda_runtime", "cudaLaunchKernel", 1, 1, at, 5, "\"correlation\":7"));
    add(&ev,
        x_event("kernel", "k", 0, 7, at + 3, 5, "\"correlation\":7,\"stream\":7,\"device\":0"));
  }
  return wrap(ev);
}

// N/2 processes that each launched one kernel, all with correlation id 1 (each process counts its
// ids from 1), the kernels on one GPU: each kernel's launcher was sought in every process that
// carries the id (7 s for 32,000 processes of an Nsight Systems export).
std::string processes_sharing_one_id(size_t n) {
  std::string ev;
  for (size_t i = 0; i < n / 2; ++i) {
    const long long at = 10 * static_cast<long long>(i);
    const int pid = 100 + static_cast<int>(i);
    add(&ev, x_event("cuda_runtime", "cudaLaunchKernel", pid, pid, at, 2, "\"correlation\":1"));
    add(&ev,
        x_event("kernel", "k", 0, 7, at + 3, 5, "\"correlation\":1,\"stream\":7,\"device\":0"));
  }
  return wrap(ev);
}

// Eight GPUs and 40 processes that launched every id (ranks merged into one file, plus helper
// processes replaying the same ids): the search for one launching process per GPU tried every
// candidate on every GPU, 40^8 assignments.
std::string many_launchers_eight_gpus(size_t n) {
  constexpr int kLaunchers = 40, kGpus = 8;
  std::string ev;
  for (size_t i = 0; i < n / (kLaunchers + 1); ++i) {
    const long long at = 100 * static_cast<long long>(i);
    const std::string corr = "\"correlation\":" + std::to_string(i);
    for (int p = 0; p < kLaunchers; ++p)
      add(&ev, x_event("cuda_runtime", "cudaLaunchKernel", 100 + p, 1, at + p, 1, corr));
    const int gpu = static_cast<int>(i % kGpus);
    add(&ev, x_event("kernel", "k", gpu, 7, at + 50, 5,
                     corr + ",\"stream\":7,\"device\":" + std::to_string(gpu)));
  }
  return wrap(ev);
}

// N ProfilerStep markers, one op each: a capture far too long.
std::string many_steps(size_t n) {
  std::string ev;
  for (size_t i = 0; i < n / 2; ++i) {
    const long long at = 10 * static_cast<long long>(i);
    add(&ev, x_event("user_annotation", "ProfilerStep#" + std::to_string(i), 1, 1, at, 9));
    add(&ev, x_event("cpu_op", "aten::add", 1, 1, at + 1, 5));
  }
  return wrap(ev);
}

// N ProfilerSteps, each nested in the one before (or each overlapping the next half of them),
// and N launches with their kernels inside: each step's device-adjusted end walked every runtime
// call inside it (80 k nested steps: 26 s).
std::string steps_with_launches(size_t n, bool nested) {
  std::string ev;
  const long long len = static_cast<long long>(n);
  for (size_t i = 0; i < n; ++i) {
    const long long at = nested ? static_cast<long long>(i) : 10 * static_cast<long long>(i);
    const long long dur = nested ? 20 * len - 2 * at : 5 * len;
    add(&ev, x_event("user_annotation", "ProfilerStep#" + std::to_string(i), 1, 1, at, dur));
  }
  for (size_t j = 0; j < n; ++j) {
    const long long at =
        nested ? len + 5 * static_cast<long long>(j) : 10 * static_cast<long long>(j) + 1;
    const std::string corr = "\"correlation\":" + std::to_string(j);
    add(&ev, x_event("cuda_runtime", "cudaLaunchKernel", 1, 1, at, 2, corr));
    add(&ev, x_event("kernel", "k", 0, 7, at + 1, 2, corr + ",\"stream\":7,\"device\":0"));
  }
  return wrap(ev);
}

std::string nested_steps(size_t n) {
  return steps_with_launches(n, true);
}

std::string overlapping_steps(size_t n) {
  return steps_with_launches(n, false);
}

// N launches, each on its own stream (a stream per request), or each kernel on its own device
// (a broken device id), in 10 steps: one queue series and row per stream gave a 518 MB JSON
// report for 80 k streams, and one line per device a 12 MB text report.
std::string one_stream_or_device_each(size_t n, bool devices) {
  std::string ev;
  const long long len = static_cast<long long>(n);
  for (int st = 0; st < 10; ++st)
    add(&ev, x_event("user_annotation", "ProfilerStep#" + std::to_string(st), 1, 1, st * len, len));
  for (size_t i = 0; i < n; ++i) {
    const long long at = 10 * static_cast<long long>(i);
    const std::string corr = "\"correlation\":" + std::to_string(i);
    const int id = static_cast<int>(i) + 8;  // the stream, or the device (Kineto's pid)
    add(&ev, x_event("cuda_runtime", "cudaLaunchKernel", 1, 1, at, 2, corr));
    add(&ev, x_event("kernel", "k", devices ? id : 0, devices ? 7 : id, at + 3, 4,
                     corr + ",\"stream\":" + std::to_string(devices ? 7 : id) +
                         ",\"device\":" + std::to_string(devices ? id : 0)));
  }
  return wrap(ev);
}

std::string one_stream_each(size_t n) {
  return one_stream_or_device_each(n, false);
}

std::string one_device_each(size_t n) {
  return one_stream_or_device_each(n, true);
}

using ks_test::ScalingRun;

ScalingRun run_once(const std::string& json) {
  std::unique_ptr<ks::Trace> trace = ks_test::load(json, 1 << 20);
  ks::Report report = ks::build_report(*trace, ks::AnalysisOptions());
  ScalingRun r;
  r.json_bytes = ks::report_json(report).size();
  r.text_bytes = ks::report_text(report).size();
  r.md_bytes = ks::report_markdown(report).size();
  // The critical path over every event (the report's default is one step): graph, longest
  // path, attribution.
  ks::CriticalPathOptions whole;
  whole.whole_trace = true;
  const ks::CriticalPathResult cp = ks::critical_path(*trace, ks::build_launch_join(*trace), whole);
  r.ok = cp.ok;
  return r;
}

std::pair<ScalingRun, ScalingRun> check_scaling(const Gen& gen, size_t n) {
  return ks_test::check_scaling(gen, n, run_once);
}

// Four times the input must not grow the reports (by 10% at most), and the JSON stays small.
void check_bounded_reports(const std::pair<ScalingRun, ScalingRun>& runs) {
  INFO("JSON " << runs.first.json_bytes << " -> " << runs.second.json_bytes << " bytes");
  CHECK(runs.second.json_bytes < runs.first.json_bytes * 11 / 10);
  CHECK(runs.second.json_bytes < 2000000);
  CHECK(runs.second.text_bytes < runs.first.text_bytes * 11 / 10);
  CHECK(runs.second.md_bytes < runs.first.md_bytes * 11 / 10);
}

}  // namespace

TEST_CASE("N identical kernels nested on one stream scale linearly", "[scaling]") {
  check_scaling(nested_identical_kernels, 200000);
}

TEST_CASE("deep CPU and GPU-annotation stacks scale linearly", "[scaling]") {
  check_scaling(deep_nesting, 60000);
}

TEST_CASE("one huge track scales linearly", "[scaling]") {
  check_scaling(one_huge_track, 50000);
}

TEST_CASE("every event at one timestamp scales linearly", "[scaling]") {
  check_scaling(one_timestamp, 100000);
}

TEST_CASE("distinct names scale linearly and the reports stay bounded", "[scaling]") {
  // Tables list the top rows and say how many more there are: four times the names must not
  // grow the reports (10^6 names gave a 365 MB JSON report).
  check_bounded_reports(check_scaling(distinct_names, 50000));
}

TEST_CASE("one correlation id on every launch scales linearly", "[scaling]") {
  check_scaling(one_correlation_id, 100000);
}

TEST_CASE("many processes launching under shared ids scale linearly", "[scaling]") {
  check_scaling(processes_sharing_one_id, 20000);
  check_scaling(many_launchers_eight_gpus, 20000);
}

TEST_CASE("many steps scale linearly and the reports stay bounded", "[scaling]") {
  // The step tables list the first 1000 steps in JSON and 100 in text (report_table.h): 200 k
  // steps gave a 121 MB JSON report and a 12 MB text one.
  check_bounded_reports(check_scaling(many_steps, 50000));
}

TEST_CASE("nested and overlapping ProfilerSteps scale linearly", "[scaling]") {
  check_scaling(nested_steps, 20000);
  check_scaling(overlapping_steps, 20000);
}

TEST_CASE("many streams and devices scale linearly and the reports stay bounded", "[scaling]") {
  // Launch queues and GPU metrics list at most kMaxTableRows streams and devices in JSON, and a
  // queue series only for the busiest streams (kMaxQueueSeries).
  check_bounded_reports(check_scaling(one_stream_each, 5000));
  check_bounded_reports(check_scaling(one_device_each, 5000));
}
