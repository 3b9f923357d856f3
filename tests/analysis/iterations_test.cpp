// Iterations inferred from the repeating launch sequence when a trace has no step markers
// (src/analysis/iterations.cpp): on built loops, on one forward pass whose layers repeat, and on
// the shared traces whose ProfilerStep markers say what the answer should be.
#include "analysis/iterations.h"

#include <catch2/catch.hpp>
#include <string>

#include "analysis/steps.h"
#include "analysis/sync_events.h"
#include "analysis/trace_diff.h"
#include "corpus/shared_traces.h"
#include "helpers.h"
#include "report/trace_diff_report.h"
#include "timeline_query/track_layout.h"
#include "timeline_query/view_index.h"

namespace {

ks::IterationsResult iterations_of(const ks::Trace& t) {
  return ks::infer_iterations(t, ks::build_launch_join(t));
}

// A launch at `ts` (us) of a 4 us kernel `name` (a copy when the name starts with "Memcpy"), run
// 10 us later for `run` us.
std::string launch(int64_t ts, const std::string& name, int corr, int64_t run = 4) {
  const std::string c = std::to_string(corr);
  const bool copy = name.rfind("Memcpy", 0) == 0;
  return std::string(R"({"ph":"X","cat":"cuda_runtime","name":")") +
         (copy ? "cudaMemcpyAsync" : "cudaLaunchKernel") + R"(","pid":1,"tid":1,"ts":)" +
         std::to_string(ts) + R"(,"dur":2,"args":{"correlation":)" + c + "}},\n" +
         R"({"ph":"X","cat":")" + (copy ? "gpu_memcpy" : "kernel") + R"(","name":")" + name +
         R"(","pid":0,"tid":7,"ts":)" + std::to_string(ts + 10) + R"(,"dur":)" +
         std::to_string(run) + R"(,"args":{"correlation":)" + c + R"(,"stream":7}},)" + "\n";
}

// `loops` iterations of `body` (kernel names), launched 5 us apart; `pause` us of CPU work
// (the next batch) before each iteration; `prefix` kernels launched once before the loop.
// `stall_at`: that iteration's pause is `stall` us instead (-1: none).
std::string loop_trace(int loops, const std::vector<std::string>& body, int64_t pause,
                       const std::vector<std::string>& prefix = {}, int stall_at = -1,
                       int64_t stall = 0) {
  std::string j = "[\n";
  int64_t ts = 0;
  int corr = 1;
  for (const std::string& k : prefix) j += launch(ts, k, corr++), ts += 5;
  for (int i = 0; i < loops; ++i) {
    ts += i == stall_at ? stall : pause;
    for (const std::string& k : body) j += launch(ts, k, corr++), ts += 5;
  }
  j.resize(j.size() - 2);  // the last ",\n"
  return j + "\n]";
}

}  // namespace

TEST_CASE("A loop's repeating launches give its iterations and their times",
          "[analysis][iterations]") {
  const std::vector<std::string> body = {"embed", "gemm", "relu", "gemm", "relu", "loss", "sgd"};
  auto t = ks_test::load(loop_trace(6, body, 500, {"init_weights", "fill"}));
  const ks::IterationsResult r = iterations_of(*t);
  REQUIRE(r.found);
  CHECK(r.period_ops == body.size());
  CHECK(r.total_ops == 2 + 6 * body.size());
  // The iterations start after the CPU's pause: the loop's first launch ("embed").
  CHECK(r.first_op == 2);
  REQUIRE(r.iterations.size() == 6);
  CHECK(r.match_pct == 100.0);
  // Iteration 1 runs from the end of iteration 0's last launch call to the end of its own last
  // launch call: 5 us to the next launch slot, the 500 us pause (it belongs to the iteration it
  // leads to, as in ProfilerStep#N), then 6 more launches 5 us apart.
  const ks::Iteration& a = r.iterations[1];
  CHECK(a.host_end - a.host_begin == (5 + 500 + 6 * 5) * 1000);
  // Device-adjusted, from the previous iteration's last kernel end (12 us after its launch call
  // ended) to its own: the same 535 us for every iteration after the first.
  CHECK(a.dur() == 535 * 1000);
  CHECK(r.stats.median_ns == 535 * 1000.0);
  CHECK(r.cv_pct < 1.0);
}

// The reading order's .item() check holds without step markers: a DtoH copy in every iteration
// is counted inside the inferred iterations, and the finding says where it looked.
TEST_CASE("Device-to-host copies are looked for inside inferred iterations",
          "[analysis][iterations][sync]") {
  const std::vector<std::string> body = {"gemm", "relu", "Memcpy DtoH (Device -> Pageable)"};
  auto t = ks_test::load(loop_trace(4, body, 800, {"init"}));
  const ks::LaunchJoin join = ks::build_launch_join(*t);
  const ks::StepsResult steps = ks::find_steps(*t, join, false);
  REQUIRE(steps.steps.empty());
  const ks::IterationsResult it = ks::infer_iterations(*t, join);
  REQUIRE(it.found);
  REQUIRE(it.iterations.size() == 4);
  const ks::SyncResult without = ks::find_sync_events(*t, join, steps);
  CHECK(without.dtoh_in_steps_count == 0);
  const ks::SyncResult r = ks::find_sync_events(*t, join, steps, &it);
  CHECK(r.in_inferred_iterations);
  CHECK(r.windows == 4);
  CHECK(r.dtoh_in_steps_count == 4);
  CHECK(r.steps_with_dtoh == 4);
  const std::string report = ks_test::report_of(*t);
  CHECK(report.find("4 device-to-host copies inside iterations (4 of 4 iterations, inferred from "
                    "the repeating launches)") != std::string::npos);
}

// Without markers, one stalled iteration among steady ones is the unstable-steps finding, said of
// the inferred iterations, with the stalled one as its range.
TEST_CASE("A stalled iteration makes the iteration time unstable", "[analysis][iterations]") {
  auto steady = ks_test::load(loop_trace(8, {"gemm", "relu", "sgd"}, 500, {"init"}));
  CHECK(ks_test::report_of(*steady).find("steps.unstable") == std::string::npos);
  auto t = ks_test::load(loop_trace(8, {"gemm", "relu", "sgd"}, 500, {"init"}, 5, 4000));
  const ks::IterationsResult it = iterations_of(*t);
  REQUIRE(it.iterations.size() == 8);
  const std::string report = ks_test::report_of(*t);
  CHECK(report.find("Iteration time varies") != std::string::npos);
  CHECK(report.find("iterations inferred from the repeating launches") != std::string::npos);
  CHECK(report.find("slowest iteration #5 (inferred)") != std::string::npos);
}

TEST_CASE("The layers of one forward pass are not taken for iterations", "[analysis][iterations]") {
  // One pass: an embedding, 12 identical layers launched back to back, a head. The layers
  // repeat as a loop would, but nothing pauses the CPU between them.
  std::vector<std::string> pass = {"embedding", "gather"};
  for (int l = 0; l < 12; ++l)
    for (const char* k : {"layernorm", "qkv_gemm", "attention", "out_gemm", "mlp_gemm", "gelu"})
      pass.push_back(k);
  pass.push_back("lm_head");
  pass.push_back("argmax");
  auto one = ks_test::load(loop_trace(1, pass, 0));
  CHECK_FALSE(iterations_of(*one).found);
  // Three such passes with the program's work between them are three iterations; the first,
  // which starts the trace, has no launch before it to say where its work began, so two are
  // timed.
  auto three = ks_test::load(loop_trace(3, pass, 2000));
  const ks::IterationsResult r = iterations_of(*three);
  REQUIRE(r.found);
  CHECK(r.period_ops == pass.size());
  CHECK(r.first_op == 0);
  REQUIRE(r.iterations.size() == 2);
  CHECK(r.stats.min_ns == r.stats.max_ns);
}

TEST_CASE("Too few repeats, or none, infer nothing", "[analysis][iterations]") {
  auto two = ks_test::load(loop_trace(2, {"a", "b", "c"}, 1000));
  CHECK_FALSE(iterations_of(*two).found);
  auto none = ks_test::load(loop_trace(1, {"a", "b", "c", "d", "e", "f", "g", "h"}, 0));
  CHECK_FALSE(iterations_of(*none).found);
  auto empty = ks_test::load("[]");
  CHECK_FALSE(iterations_of(*empty).found);
}

// The shared traces with three or more ProfilerStep markers: inferred as if the markers were
// absent, the iterations must agree with the steps (count within one, median within 10%), and
// single-step traces of one model pass must not offer their layers as iterations.
TEST_CASE("Inferred iterations agree with the steps of real traces",
          "[analysis][iterations][corpus]") {
  struct Case {
    const char* file;
    bool expect_found;
  };
  const Case cases[] = {
      {"kineto__resnet50_nw0__worker0.1623143089861.pt.trace.json.gz", true},
      {"kineto__resnet50_nw0_oldest__worker0.pt.trace.json.gz", true},
      {"kineto__resnet50_nw4__worker0.1623212756351.pt.trace.json.gz", true},
      {"hta__negative_queue_length__rank0.json.gz", true},
      {"tracelens__mi300__resnet_act_checkpoint.json.gz", true},
      // One ProfilerStep of one forward pass: 24 decoder layers repeat inside it.
      {"tracelens__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", false},
      {"tracelens__mi300__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", false},
      {"tracelens__h100__facebook_timesformer-base-finetuned-k400__1016002.json.gz", false},
  };
  for (const Case& c : cases) {
    const std::string path = ks_test::shared_trace(c.file);
    if (!ks_test::file_exists(path)) {
      WARN("skipped (../shared/traces absent): " << c.file);
      continue;
    }
    INFO(c.file);
    ks_test::Loaded l = ks_test::load_file(path);
    REQUIRE(l.ok);
    const ks::LaunchJoin join = ks::build_launch_join(*l.trace);
    const ks::StepsResult steps = ks::find_steps(*l.trace, join, false);
    const ks::IterationsResult r = ks::infer_iterations(*l.trace, join);
    REQUIRE(r.found == c.expect_found);
    if (!c.expect_found) continue;
    CHECK(r.iterations.size() + 1 >= steps.steps.size());
    CHECK(r.iterations.size() <= steps.steps.size());
    CHECK(r.stats.median_ns == Approx(steps.stats.median_ns).epsilon(0.10));
  }
}

// No markers at all, but the CPU side says where the iterations are: the DDP ResNet-18 run on
// MI300 calls Optimizer.step five times. Its first launch starts the first iteration, whose
// start is then unknown: four are timed.
TEST_CASE("A run without markers gets its optimizer steps as iterations",
          "[analysis][iterations][corpus]") {
  const std::string path =
      ks_test::shared_trace("tracelens__mi300__ddp_resnet18__train_resnet18.json.gz");
  if (!ks_test::file_exists(path)) {
    WARN("skipped (../shared/traces absent): " << path);
    return;
  }
  ks_test::Loaded l = ks_test::load_file(path);
  REQUIRE(l.ok);
  const ks::IterationsResult r = iterations_of(*l.trace);
  REQUIRE(r.found);
  CHECK(r.first_op == 0);
  CHECK(r.iterations.size() == 4);
  CHECK(r.match_pct == 100.0);
}

// The timeline draws the inferred iterations as its step bands when there are no markers.
TEST_CASE("The timeline's step bands are the inferred iterations without markers",
          "[analysis][iterations][timeline_query]") {
  auto t = ks_test::load(loop_trace(5, {"gemm", "relu", "sgd"}, 600, {"init"}));
  const ks::timeline_query::ViewIndex index(*t);
  const ks::IterationsResult it = iterations_of(*t);
  REQUIRE(it.iterations.size() == 5);
  REQUIRE(index.steps().size() == 5);
  for (size_t i = 0; i < 5; ++i) {
    CHECK(index.steps()[i].inferred);
    CHECK(index.steps()[i].number == static_cast<int64_t>(i));
    CHECK(index.steps()[i].start == it.iterations[i].begin - t->facts.start_ns);
  }
  CHECK(ks::timeline_query::track_layout_json(index).find("\"inferred\": true") !=
        std::string::npos);
}

// Whatever the launches, the iterations are well formed: in time order, never overlapping,
// never negative, and the counts and shares in range. Random sequences mixing a repeated body
// with noise (the shapes a fuzzer would not find: long, nearly periodic).
TEST_CASE("Inferred iterations are well formed on random launch sequences",
          "[analysis][iterations]") {
  uint64_t state = 12345;
  auto next = [&state](uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % n;
  };
  size_t found = 0;
  for (int round = 0; round < 200; ++round) {
    std::vector<std::string> body;
    const size_t len = 1 + next(12);
    for (size_t k = 0; k < len; ++k) body.push_back("k" + std::to_string(next(6)));
    std::string j = "[\n";
    int64_t ts = 0;
    int corr = 1;
    const int loops = static_cast<int>(next(8));
    for (int i = 0; i < loops; ++i) {
      ts += static_cast<int64_t>(next(3)) * 400;
      for (const std::string& k : body) {
        // Now and then an op out of place, or a different one.
        const std::string name = next(10) == 0 ? "noise" + std::to_string(next(3)) : k;
        j += launch(ts, name, corr++, 1 + static_cast<int64_t>(next(30)));
        ts += 1 + static_cast<int64_t>(next(8));
      }
    }
    if (corr == 1) j += launch(0, "only", corr++);
    j.resize(j.size() - 2);
    auto t = ks_test::load(j + "\n]");
    const ks::IterationsResult r = iterations_of(*t);
    INFO("round " << round);
    CHECK(r.total_ops <= static_cast<uint32_t>(corr - 1));
    if (!r.found) continue;
    ++found;
    CHECK(r.period_ops >= 1);
    CHECK(r.match_pct >= 0);
    CHECK(r.match_pct <= 100);
    CHECK(r.iterations.size() >= 2);
    for (size_t i = 0; i < r.iterations.size(); ++i) {
      CHECK(r.iterations[i].begin <= r.iterations[i].end);
      CHECK(r.iterations[i].host_begin <= r.iterations[i].host_end);
      if (i > 0) CHECK(r.iterations[i].begin >= r.iterations[i - 1].end);
    }
  }
  // The rounds must reach the inference, not only its refusals.
  CHECK(found >= 10);
}

// Two captures without markers compare per iteration: 4 and 6 iterations of the same loop, the
// second's GEMM 10 us longer, give +10 us per iteration, not the 50% more time six iterations
// hold.
TEST_CASE("Trace diff compares captures without markers per inferred iteration",
          "[analysis][iterations][diff]") {
  auto base = ks_test::load(loop_trace(4, {"gemm", "relu", "sgd"}, 500, {"init"}));
  std::string json = loop_trace(6, {"gemm", "relu", "sgd"}, 500, {"init"});
  // Every GEMM runs 14 us instead of 4.
  for (size_t at = json.find("\"gemm\""); at != std::string::npos;
       at = json.find("\"gemm\"", at + 1)) {
    const size_t dur = json.find("\"dur\":4,", at);
    json.replace(dur, 8, "\"dur\":14,");
  }
  auto test = ks_test::load(json);
  const ks::AnalysisOptions options;
  const ks::DiffDigest b = ks::make_diff_digest(*base, ks::analyze(*base, options), "base");
  const ks::DiffDigest t = ks::make_diff_digest(*test, ks::analyze(*test, options), "test");
  CHECK(b.steps_inferred);
  CHECK(b.steps == 4);
  CHECK(t.steps == 6);
  const ks::TraceDiff d = ks::diff_traces(b, t);
  REQUIRE(d.per_step);
  CHECK(d.base_inferred);
  CHECK(d.test_inferred);
  const ks::DiffRow* gemm = nullptr;
  for (const ks::DiffRow& r : d.gpu_ops.rows)
    if (r.name == "gemm") gemm = &r;
  REQUIRE(gemm);
  CHECK(gemm->delta_per_step_ns() == Approx(10000));
  CHECK(gemm->base_count_per_step == 1);
  CHECK(gemm->test_count_per_step == 1);
  CHECK(ks::trace_diff_text(d).find("(4 inferred iterations)") != std::string::npos);
}
