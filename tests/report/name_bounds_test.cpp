// The diff report and the fleet digest are bounded like the report's name tables (issue 17:
// 10^6 distinct names gave a 365 MB report): the first kMaxTableRows names, then what was left
// out (docs/report-schema.md). Traces of N and 2N distinct kernel and CPU-op names must give
// outputs of about the same size, with the omitted counts saying how many names are not listed.
#include <simdjson.h>

#include <string>

#include "analysis/multi_rank.h"
#include "analysis/rank_identity.h"
#include "analysis/trace_diff.h"
#include "helpers.h"
#include "report/fleet_digest_json.h"
#include "report/report_table.h"
#include "report/trace_diff_report.h"

namespace {

// n kernels and n CPU ops, every one named apart ("k<salt>_<i>"), each launched by a runtime call.
std::string distinct_names(size_t n, const std::string& salt) {
  std::string ev;
  for (size_t i = 0; i < n; ++i) {
    const std::string ts = std::to_string(10 * i), corr = std::to_string(i + 1);
    if (!ev.empty()) ev += ",\n";
    ev += R"({"ph":"X","cat":"cpu_op","name":"op)" + salt + "_" + std::to_string(i) +
          R"(","pid":1,"tid":1,"ts":)" + ts + R"(,"dur":5},)";
    ev += R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" + ts +
          R"(,"dur":2,"args":{"correlation":)" + corr + "}},";
    ev += R"({"ph":"X","cat":"kernel","name":"k)" + salt + "_" + std::to_string(i) +
          R"(","pid":0,"tid":7,"ts":)" + std::to_string(10 * i + 3) + R"(,"dur":)" +
          std::to_string(1 + i % 7) + R"(,"args":{"stream":7,"correlation":)" + corr + "}}";
  }
  return "{\"traceEvents\":[" + ev + "]}";
}

struct Sizes {
  size_t diff_bytes = 0, digest_bytes = 0;
};

uint64_t u64_at(simdjson::dom::element e, const char* key) {
  uint64_t v = 0;
  CHECK_FALSE(e[key].get(v));
  return v;
}

Sizes outputs(size_t n) {
  // BASE and TEST share no name: every name is added or removed, none listed past the bound.
  std::unique_ptr<ks::Trace> base = ks_test::load(distinct_names(n, "a"));
  std::unique_ptr<ks::Trace> test = ks_test::load(distinct_names(n, "b"));
  ks::Report rb = ks::build_report(*base, {}), rt = ks::build_report(*test, {});
  ks::TraceDiff diff = ks::diff_traces(ks::make_diff_digest(*base, rb.analyses, "base.json"),
                                       ks::make_diff_digest(*test, rt.analyses, "test.json"));
  Sizes s;
  const std::string diff_json = ks::trace_diff_json(diff);
  s.diff_bytes = diff_json.size();
  simdjson::dom::parser parser;
  simdjson::dom::element root, table;
  REQUIRE_FALSE(parser.parse(diff_json).get(root));
  for (const char* key : {"gpu_ops", "cpu_ops"}) {
    INFO(key);
    REQUIRE_FALSE(root[key].get(table));
    simdjson::dom::array rows, added, removed;
    REQUIRE_FALSE(table["rows"].get(rows));
    REQUIRE_FALSE(table["added_names"].get(added));
    REQUIRE_FALSE(table["removed_names"].get(removed));
    CHECK(rows.size() == ks::kMaxTableRows);
    CHECK(added.size() == ks::kMaxTableRows);
    CHECK(removed.size() == ks::kMaxTableRows);
    CHECK(u64_at(table, "names") == 2 * n);  // the counts still count every name
    CHECK(u64_at(table, "omitted_rows") == 2 * n - ks::kMaxTableRows);
    CHECK(u64_at(table, "added_names_omitted") == n - ks::kMaxTableRows);
    CHECK(u64_at(table, "removed_names_omitted") == n - ks::kMaxTableRows);
  }
  ks::RankDigest d = ks::make_rank_digest(*base, rb.analyses, "base.json",
                                          ks::identify_rank(*base, "base.json", 0));
  const std::string digest = ks::fleet_digest_json(rb, d, "base.json", 0);
  s.digest_bytes = digest.size();
  simdjson::padded_string padded(digest);
  REQUIRE_FALSE(parser.parse(padded).get(root));
  for (const char* key : {"kernels", "cpu_ops"}) {
    INFO(key);
    simdjson::dom::array rows;
    REQUIRE_FALSE(root[key].get(rows));
    CHECK(rows.size() == ks::kMaxTableRows);
    CHECK(u64_at(root, (std::string(key) + "_omitted_rows").c_str()) == n - ks::kMaxTableRows);
  }
  return s;
}

}  // namespace

TEST_CASE("The diff JSON and the fleet digest list at most 1000 names per table",
          "[report][bounds]") {
  // 5000 and 10000 names per trace (enough to show the bound: past 1000 the size stays put).
  const Sizes a = outputs(5000), b = outputs(10000);
  INFO("diff " << a.diff_bytes << " -> " << b.diff_bytes << " bytes, digest " << a.digest_bytes
               << " -> " << b.digest_bytes);
  CHECK(b.diff_bytes < a.diff_bytes * 11 / 10);
  CHECK(b.digest_bytes < a.digest_bytes * 11 / 10);
  CHECK(b.diff_bytes < 2000000);
  CHECK(b.digest_bytes < 2000000);
}
