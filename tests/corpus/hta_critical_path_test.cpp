// The critical path agrees with Holistic Trace Analysis' critical_path_analysis on the four
// traces of ../shared/reference/critical_path (HTA run with
// CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE=1; the annotation and instance are in each file):
// the path total, and every bound_by label's time, within 1% of HTA's path total. The path's
// length in edges is reported, not compared (HTA counts a label per edge too, but the longest
// path is not unique where several have the same weight).
#include <simdjson.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "analysis/critical_path.h"
#include "corpus/json_get.h"
#include "corpus/shared_traces.h"
#include "helpers.h"

using namespace ks_test;

namespace {

ks::CpBound bound_named(const std::string& s) {
  for (int b = 0; b < ks::kCpBoundCount; ++b)
    if (s == ks::cp_bound_name(static_cast<ks::CpBound>(b))) return static_cast<ks::CpBound>(b);
  FAIL("unknown bound_by label " << s);
  return ks::CpBound::kNone;
}

}  // namespace

TEST_CASE("Critical path totals and bound_by agree with HTA on the shared references",
          "[corpus][critical_path][hta]") {
  const std::string dir = shared_dir() + "/reference/critical_path";
  std::vector<std::string> refs;
  for (const std::string& f : files_in(dir))
    if (f.size() > 8 && f.compare(f.size() - 8, 8, ".cp.json") == 0) refs.push_back(f);
  if (refs.empty()) {
    WARN("SKIPPED: " << dir << " is absent (the HTA critical path references need ../shared)");
    return;
  }
  CHECK(refs.size() == 4);
  simdjson::dom::parser parser;
  for (const std::string& ref_path : refs) {
    simdjson::dom::element ref;
    REQUIRE_FALSE(parser.load(ref_path).get(ref));
    const std::string trace_name = str(ref, "trace");
    INFO("reference " << ref_path);
    Loaded l = load_file(shared_trace(trace_name));
    REQUIRE(l.ok);
    ks::CriticalPathOptions o;
    simdjson::dom::element args = at(ref, "args");
    o.annotation = str(args, "annotation");
    const std::string instance = str(args, "instance_id");
    o.instance = instance == "None" || instance.empty() ? 0 : std::stoll(instance);
    o.whole_trace = o.annotation.empty();
    o.zero_weight_launch_edges =
        str(at(ref, "env"), "CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE") == "1";
    const ks::CriticalPathResult r =
        ks::critical_path(*l.trace, ks::build_launch_join(*l.trace), o);
    INFO("error: " << r.error);
    REQUIRE(r.ok);
    const double hta_total = dbl(ref, "path_total_us");
    REQUIRE(hta_total > 0);
    const double ours_total = static_cast<double>(r.total) / 1000.0;
    const double tolerance = 0.01 * hta_total;
    INFO("path total: Kinetoscope " << ours_total << " us over " << r.path.size() << " edges, HTA "
                                    << hta_total << " us over " << u64(ref, "events_on_path")
                                    << " edges");
    CHECK(std::fabs(ours_total - hta_total) <= tolerance);
    simdjson::dom::object by;
    REQUIRE(object(ref, "bound_by_us", &by));
    double hta_sum = 0;
    int labels = 0;
    for (auto [key, value] : by) {
      double hta_us = 0;
      REQUIRE_FALSE(value.get(hta_us));
      const ks::CpBound b = bound_named(std::string(key));
      const double ours_us = static_cast<double>(r.bound[static_cast<int>(b)]) / 1000.0;
      INFO("bound_by '" << std::string(key) << "': Kinetoscope " << ours_us << " us, HTA " << hta_us
                        << " us");
      CHECK(std::fabs(ours_us - hta_us) <= tolerance);
      hta_sum += hta_us;
      ++labels;
    }
    CHECK(labels >= 4);
    CHECK(std::fabs(hta_sum - hta_total) < 0.5);  // the reference is self-consistent
    // A label HTA does not have must be (near) empty in ours too.
    for (int b = 0; b < ks::kCpBoundCount; ++b) {
      simdjson::dom::element v;
      if (by[ks::cp_bound_name(static_cast<ks::CpBound>(b))].get(v))
        CHECK(static_cast<double>(r.bound[b]) / 1000.0 <= tolerance);
    }
  }
}
