// CUDA graph capture (analysis/graph_capture.h, findings/graph_capture_rules.cpp): a trace of
// the capture says so, and its idle GPU and CPU-bound path are put down to the capture; a trace
// of the replays says nothing of it. On the real vLLM and SGLang traces (skipped with a WARN
// when ../shared is absent) and on hand-made ones.
#include <catch2/catch.hpp>

#include "findings/finding_run.h"

namespace {

using Run = ks_test::FindingRun;
constexpr auto find = ks_test::find_finding;
constexpr auto num = ks_test::evidence_number;
constexpr auto run_shared = ks_test::run_shared_trace;

std::string runtime(const char* name, int ts, int dur, int corr = 0) {
  return std::string(R"({"ph":"X","cat":"cuda_runtime","name":")") + name +
         R"(","pid":1,"tid":1,"ts":)" + std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) +
         R"(,"args":{"correlation":)" + std::to_string(corr) + "}}";
}

// A 10 us kernel at `ts` with its launch 2 us before it.
std::string launched(int ts, int corr) {
  return runtime("cudaLaunchKernel", ts - 2, 1, corr) +
         R"(,{"ph":"X","cat":"kernel","name":"ampere_sgemm_64x64_nn","pid":0,"tid":7,"ts":)" +
         std::to_string(ts) + R"(,"dur":10,"args":{"stream":7,"correlation":)" +
         std::to_string(corr) + "}}";
}

// Eager kernels, a capture of `capture_us` whose 50 launches run nothing, then `replays`
// cudaGraphLaunch calls each running one kernel.
std::string capture_trace(int capture_us, int replays, bool closed = true) {
  std::string ev = launched(10, 1) + "," + launched(30, 2);
  int t = 100;
  ev += "," + runtime("cudaStreamBeginCapture", t, 5);
  for (int k = 0; k < 50; ++k) ev += "," + runtime("cudaLaunchKernel", t + 10 + k, 1);
  t += capture_us;
  if (closed) {
    ev += "," + runtime("cudaStreamEndCapture", t - 5, 5);
    ev += "," + runtime("cudaGraphInstantiateWithFlags", t + 10, 200);
  }
  t += 300;
  for (int r = 0; r < replays; ++r, t += 100) {
    ev += "," + runtime("cudaGraphLaunch", t, 5, 100 + r);
    ev += R"(,{"ph":"X","cat":"kernel","name":"ampere_sgemm_64x64_nn","pid":0,"tid":7,"ts":)" +
          std::to_string(t + 10) + R"(,"dur":40,"args":{"stream":7,"correlation":)" +
          std::to_string(100 + r) + "}}";
  }
  return "[" + ev + "]";
}

}  // namespace

TEST_CASE("graph capture: the real vLLM and SGLang captures say so", "[findings][graph_capture]") {
  for (const char* file : {"tracelens__vllm_decode_full__graph_capture_rank_0.1773709742341309550"
                           ".pt.trace.json.gz",
                           "tracelens__sglang_decode__bs_32_rank0.json.gz"}) {
    Run r;
    if (!run_shared(file, &r)) continue;
    INFO(file << " findings: " << r.ids);
    const ks::Finding* f = find(r, "capture.graph_capture");
    REQUIRE(f);
    CHECK(f->severity == ks::Severity::kWarning);
    CHECK(num(*f, "captures") == 1);
    CHECK(num(*f, "instantiations") == 1);
    CHECK(num(*f, "replays") == 0);
    CHECK(num(*f, "share_pct") > 90);
    CHECK(f->fix.find("no replay") != std::string::npos);
    // The idle GPU was the capture's: no longer critical, and said so.
    const ks::Finding* idle = find(r, "gpu.idle");
    REQUIRE(idle);
    CHECK(idle->severity == ks::Severity::kInfo);
    CHECK(idle->title.find("mostly while CUDA graphs were being captured") != std::string::npos);
    // The CPU-bound path is not told to use CUDA graphs.
    const ks::Finding* path = find(r, "critical_path.cpu_bound");
    REQUIRE(path);
    CHECK(path->fix.find("mostly CUDA graph capture") != std::string::npos);
  }
  // The replays of the same server's graphs: no capture in them, nothing said of one.
  Run replay;
  if (run_shared("tracelens__vllm_decode_full__graph_execution.json.gz", &replay)) {
    INFO("findings: " << replay.ids);
    CHECK(replay.analyses.graph_captures.replays == 1);
    CHECK_FALSE(replay.analyses.graph_captures.any());
    CHECK(find(replay, "capture.graph_capture") == nullptr);
  }
}

TEST_CASE("graph capture: windows, shares and thresholds on hand-made traces",
          "[findings][graph_capture]") {
  // A 1 ms capture in a GPU span of about 1.5 ms, replayed twice.
  Run r = ks_test::run_findings_on(capture_trace(1000, 2));
  INFO("findings: " << r.ids);
  const ks::GraphCaptures& g = r.analyses.graph_captures;
  REQUIRE(g.windows.size() == 1);
  CHECK(g.windows[0].begin == 100'000);
  CHECK(g.windows[0].end == 1'100'000);
  CHECK(g.replays == 2);
  const ks::Finding* f = find(r, "capture.graph_capture");
  REQUIRE(f);
  CHECK(f->severity == ks::Severity::kWarning);
  CHECK(num(*f, "replays") == 2);
  CHECK(f->fix.find("no replay") == std::string::npos);
  CHECK(f->ranges.size() == 1);
  // 1000 of the 1440 us the GPU idled.
  CHECK(num(*f, "gpu_idle_in_capture_pct") == Approx(69.4).margin(0.1));

  // A capture never closed runs to the trace's end.
  Run open = ks_test::run_findings_on(capture_trace(1000, 1, false));
  REQUIRE(open.analyses.graph_captures.windows.size() == 1);
  CHECK(open.analyses.graph_captures.windows[0].end == open.trace->facts.end_ns);

  // One thread capturing two streams at once: the inner end does not close the outer capture,
  // and no end is taken for one begun before the trace.
  std::string nested = launched(10, 1);
  nested += "," + runtime("cudaStreamBeginCapture", 100, 5) + "," +
            runtime("cudaStreamBeginCapture", 200, 5) + "," +
            runtime("cudaStreamEndCapture", 300, 5) + "," + runtime("cudaStreamEndCapture", 900, 5);
  nested += "," + launched(2000, 2);
  Run two = ks_test::run_findings_on("[" + nested + "]");
  REQUIRE(two.analyses.graph_captures.windows.size() == 1);
  CHECK(two.analyses.graph_captures.windows[0].begin == 100'000);
  CHECK(two.analyses.graph_captures.windows[0].end == 905'000);
  CHECK(two.analyses.graph_captures.captures == 1);

  // 20 us of capture in a GPU span of 4 ms: below 5%, nothing said.
  std::string ev = launched(10, 1);
  ev += "," + runtime("cudaStreamBeginCapture", 100, 5) + "," +
        runtime("cudaStreamEndCapture", 115, 5);
  ev += "," + launched(4000, 2);
  Run small = ks_test::run_findings_on("[" + ev + "]");
  CHECK(small.analyses.graph_captures.any());
  CHECK(find(small, "capture.graph_capture") == nullptr);
}
