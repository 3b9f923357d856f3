// The trace diff (HTA's trace diff): a hand-made BASE/TEST pair whose deltas are worked out
// below, the digest's JSON round trip, the three report formats, and HTA's own trace_diff
// fixtures from ../shared/traces (hta__trace_compare__base/test).
#include <catch2/catch.hpp>

#include "analysis/trace_diff.h"
#include "corpus/shared_traces.h"
#include "helpers.h"
#include "report/diff_digest_json.h"
#include "report/trace_diff_report.h"

using namespace ks_test;

namespace {

std::string ev(const char* cat, const std::string& name, int tid, int ts, int dur) {
  std::string e = R"({"ph":"X","cat":")" + std::string(cat) + R"(","name":")" + name +
                  R"(","pid":)" + (tid == 1 ? "1" : "0") + ",\"tid\":" + std::to_string(tid) +
                  ",\"ts\":" + std::to_string(ts) + ",\"dur\":" + std::to_string(dur);
  if (tid != 1) e += R"(,"args":{"stream":)" + std::to_string(tid) + "}";
  return e + "}";
}

std::string trace_of(const std::vector<std::string>& events) {
  std::string t = R"({"traceEvents":[)";
  for (size_t i = 0; i < events.size(); ++i) t += (i ? "," : "") + events[i];
  return t + "]}";
}

// BASE: steps of 1000, 1000 and 1200 us (median 1000 us).
//   GPU: gemm 100 + 100, relu 50, old_kernel 30, one HtoD copy 10   (5 ops, 290 us)
//   CPU: aten::mm 10 + 10, aten::relu 5                              (3 ops, 25 us)
std::string base_trace() {
  return trace_of({
      ev("user_annotation", "ProfilerStep#1", 1, 0, 1000),
      ev("user_annotation", "ProfilerStep#2", 1, 1000, 1000),
      ev("user_annotation", "ProfilerStep#3", 1, 2000, 1200),
      ev("cpu_op", "aten::mm", 1, 10, 10),
      ev("cpu_op", "aten::mm", 1, 1010, 10),
      ev("cpu_op", "aten::relu", 1, 30, 5),
      ev("kernel", "gemm", 7, 100, 100),
      ev("kernel", "gemm", 7, 1100, 100),
      ev("kernel", "relu", 7, 300, 50),
      ev("kernel", "old_kernel", 7, 400, 30),
      ev("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 7, 500, 10),
  });
}

// TEST: steps of 1100, 1300 and 1300 us (median 1300 us: +300 us, +30%).
//   GPU: gemm 100 + 100 + 120, relu 50, new_kernel 20 + 20, the same copy   (7 ops, 420 us)
//   CPU: aten::mm 10 + 10 + 10, aten::relu 5, aten::cat 7                    (5 ops, 42 us)
std::string test_trace() {
  return trace_of({
      ev("user_annotation", "ProfilerStep#1", 1, 0, 1100),
      ev("user_annotation", "ProfilerStep#2", 1, 1100, 1300),
      ev("user_annotation", "ProfilerStep#3", 1, 2400, 1300),
      ev("cpu_op", "aten::mm", 1, 10, 10),
      ev("cpu_op", "aten::mm", 1, 1110, 10),
      ev("cpu_op", "aten::mm", 1, 2410, 10),
      ev("cpu_op", "aten::relu", 1, 30, 5),
      ev("cpu_op", "aten::cat", 1, 40, 7),
      ev("kernel", "gemm", 7, 100, 100),
      ev("kernel", "gemm", 7, 1200, 100),
      ev("kernel", "gemm", 7, 2500, 120),
      ev("kernel", "relu", 7, 300, 50),
      ev("kernel", "new_kernel", 7, 400, 20),
      ev("kernel", "new_kernel", 7, 450, 20),
      ev("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 7, 500, 10),
  });
}

ks::DiffDigest digest_of(const ks::Trace& t, const std::string& file) {
  ks::Report r = ks::build_report(t, {});
  return ks::make_diff_digest(t, r.analyses, file);
}

const ks::DiffRow& row(const ks::DiffTable& t, const std::string& name) {
  for (const ks::DiffRow& r : t.rows)
    if (r.name == name) return r;
  FAIL("no row named " << name);
  return t.rows.front();
}

std::vector<std::string> names(const ks::DiffTable& t) {
  std::vector<std::string> out;
  for (const ks::DiffRow& r : t.rows) out.push_back(r.name);
  return out;
}

}  // namespace

TEST_CASE("A hand-made pair gives the worked-out deltas", "[analysis][diff]") {
  auto base = load(base_trace());
  auto test = load(test_trace());
  ks::TraceDiff d = ks::diff_traces(digest_of(*base, "base.json"), digest_of(*test, "test.json"));

  SECTION("step time: median 1000 us -> 1300 us") {
    CHECK(d.base_steps == 3);
    CHECK(d.test_steps == 3);
    CHECK(d.has_step_delta);
    CHECK(d.base_step_median_ns == 1000000.0);
    CHECK(d.test_step_median_ns == 1300000.0);
  }
  SECTION("GPU ops by |time delta|, then name") {
    const ks::DiffTable& g = d.gpu_ops;
    CHECK(names(g) == std::vector<std::string>{"gemm", "new_kernel", "old_kernel",
                                               "Memcpy HtoD (Pinned -> Device)", "relu"});
    CHECK(g.base_count == 5);
    CHECK(g.test_count == 7);
    CHECK(g.base_ns == 290000);
    CHECK(g.test_ns == 420000);
    CHECK(g.added == 1);
    CHECK(g.removed == 1);
    CHECK(g.changed == 1);
    const ks::DiffRow& gemm = row(g, "gemm");
    CHECK(gemm.base_count == 2);
    CHECK(gemm.test_count == 3);
    CHECK(gemm.count_delta() == 1);
    CHECK(gemm.delta_ns() == 120000);
    CHECK(std::string(ks::diff_row_status(gemm)) == "changed");
    CHECK(std::string(ks::diff_row_status(row(g, "new_kernel"))) == "added");
    CHECK(row(g, "new_kernel").test_ns == 40000);
    CHECK(std::string(ks::diff_row_status(row(g, "old_kernel"))) == "removed");
    CHECK(row(g, "old_kernel").delta_ns() == -30000);
    CHECK(std::string(ks::diff_row_status(row(g, "relu"))) == "same");
  }
  SECTION("CPU ops") {
    const ks::DiffTable& c = d.cpu_ops;
    CHECK(names(c) == std::vector<std::string>{"aten::mm", "aten::cat", "aten::relu"});
    CHECK(c.base_count == 3);
    CHECK(c.test_count == 5);
    CHECK(c.base_ns == 25000);
    CHECK(c.test_ns == 42000);
    CHECK(row(c, "aten::mm").delta_ns() == 10000);
    CHECK(row(c, "aten::cat").delta_ns() == 7000);
    CHECK(c.added == 1);
    CHECK(c.removed == 0);
  }
  SECTION("the JSON report holds the same numbers") {
    std::string json = ks::trace_diff_json(d);
    CHECK(json.find("\"schema\": \"kinetoscope.diff/1\"") != std::string::npos);
    CHECK(json.find("\"delta_us\": 300.000,\n    \"delta_pct\": 30.00") != std::string::npos);
    CHECK(json.find("\"added_names\": [\n      \"new_kernel\"\n    ]") != std::string::npos);
    CHECK(json.find("\"removed_names\": [\n      \"old_kernel\"\n    ]") != std::string::npos);
    // gemm: 200 -> 320 us is +60%; new_kernel has no base, so no percentage.
    CHECK(json.find("\"delta_us\": 120.000,\n        \"delta_pct\": 60.00") != std::string::npos);
    CHECK(json.find("\"delta_us\": 40.000,\n        \"delta_pct\": null") != std::string::npos);
  }
  SECTION("text and Markdown say the same") {
    std::string text = ks::trace_diff_text(d);
    CHECK(text.find("Step time (median): 1.000 ms -> 1.300 ms (+0.300 ms, +30.0%)") !=
          std::string::npos);
    CHECK(text.find("5 -> 7 ops, 0.290 ms -> 0.420 ms (+0.130 ms); names: 1 added, 1 removed, "
                    "1 changed") != std::string::npos);
    CHECK(text.find("added:   new_kernel\n") != std::string::npos);
    CHECK(text.find("removed: old_kernel\n") != std::string::npos);
    CHECK(text.find("+0.120  +60.0%     0.200     0.320 2 -> 3 (+1)  gemm\n") != std::string::npos);
    std::string md = ks::trace_diff_markdown(d);
    CHECK(md.find("| +0.120 | +60.0% | 0.200 | 0.320 | 2 -> 3 (+1) | `gemm` |") !=
          std::string::npos);
    CHECK(md.find("**Added:** aten::cat") != std::string::npos);
  }
}

TEST_CASE("A diff digest survives its JSON round trip", "[analysis][diff]") {
  auto base = load(base_trace());
  ks::DiffDigest d = digest_of(*base, "base \"quoted\".json");
  d.step_median_ns = 1000.5;  // a half nanosecond is kept
  ks::DiffDigest back;
  REQUIRE(ks::parse_diff_digest_json(ks::diff_digest_json(d), &back));
  CHECK(back.file == d.file);
  CHECK(back.steps == d.steps);
  CHECK(back.step_median_ns == 1000.5);
  REQUIRE(back.gpu_ops.size() == d.gpu_ops.size());
  for (size_t i = 0; i < d.gpu_ops.size(); ++i) {
    CHECK(back.gpu_ops[i].name == d.gpu_ops[i].name);
    CHECK(back.gpu_ops[i].count == d.gpu_ops[i].count);
    CHECK(back.gpu_ops[i].total_ns == d.gpu_ops[i].total_ns);
  }
  CHECK(back.cpu_ops.size() == d.cpu_ops.size());
  CHECK_FALSE(ks::parse_diff_digest_json("{\"schema\":\"kinetoscope.rankdigest/1\"}", &back));
  CHECK_FALSE(ks::parse_diff_digest_json("not json", &back));
}

TEST_CASE("A trace compared with itself has no changes", "[analysis][diff]") {
  auto base = load(base_trace());
  ks::DiffDigest d = digest_of(*base, "base.json");
  ks::TraceDiff same = ks::diff_traces(d, d);
  CHECK(same.gpu_ops.added + same.gpu_ops.removed + same.gpu_ops.changed == 0);
  CHECK(same.cpu_ops.added + same.cpu_ops.removed + same.cpu_ops.changed == 0);
  CHECK(ks::trace_diff_text(same).find("no time changes") != std::string::npos);
}

TEST_CASE("HTA's trace_diff fixtures: three CPU ops added, one kernel removed",
          "[analysis][diff][corpus]") {
  const std::string base_path = shared_trace("hta__trace_compare__base.json.gz");
  const std::string test_path = shared_trace("hta__trace_compare__test.json.gz");
  if (!file_exists(base_path) || !file_exists(test_path)) {
    WARN("SKIPPED: hta__trace_compare__base/test.json.gz in ../shared/traces are absent");
    return;
  }
  Loaded base = load_file(base_path), test = load_file(test_path);
  REQUIRE(base.ok);
  REQUIRE(test.ok);
  ks::TraceDiff d = ks::diff_traces(digest_of(*base.trace, "base"), digest_of(*test.trace, "test"));
  // TEST adds All2All_Pooled_Req (311 us), AddmmBackward0 (207 us) and CatBackward0 (11 us).
  CHECK(d.cpu_ops.added == 3);
  CHECK(d.cpu_ops.removed == 0);
  CHECK(d.cpu_ops.changed == 0);
  REQUIRE(d.cpu_ops.rows.size() >= 3);
  CHECK(d.cpu_ops.rows[0].name == "All2All_Pooled_Req");
  CHECK(d.cpu_ops.rows[0].delta_ns() == 311000);
  CHECK(d.cpu_ops.rows[1].name == "AddmmBackward0");
  CHECK(d.cpu_ops.rows[1].delta_ns() == 207000);
  CHECK(d.cpu_ops.rows[2].name == "CatBackward0");
  CHECK(d.cpu_ops.rows[2].delta_ns() == 11000);
  CHECK(d.cpu_ops.test_ns - d.cpu_ops.base_ns == 529000);
  // TEST lacks the last 4 us elementwise kernel: 18 -> 17 GPU ops, 6 -> 5 kernels.
  CHECK(d.gpu_ops.base_count == 18);
  CHECK(d.gpu_ops.test_count == 17);
  CHECK(d.gpu_ops.test_ns - d.gpu_ops.base_ns == -4000);
  CHECK(d.gpu_ops.added == 0);
  CHECK(d.gpu_ops.removed == 0);
  CHECK(d.gpu_ops.changed == 1);
  CHECK(d.gpu_ops.rows[0].count_delta() == -1);
  CHECK(d.gpu_ops.rows[0].name.find("CUDAFunctor_add<int>") != std::string::npos);
  CHECK(d.gpu_ops.rows[0].base_count == 3);
  CHECK(d.gpu_ops.rows[0].base_ns == 12000);
}
