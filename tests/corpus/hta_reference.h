// HTA's results on the real traces (../shared/reference: one NAME.hta.json per trace of
// ../shared/traces, with "trace" and "runs"), as the corpus tests that compare with HTA read them:
// the files, each with its trace loaded, and HTA's rounding to whole microseconds. When the folder
// is absent the tests say so with a visible WARN and check nothing else.
#pragma once
#include <simdjson.h>

#include <dirent.h>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/analyze.h"
#include "corpus/json_get.h"
#include "corpus/shared_traces.h"

namespace ks_test {

// Division rounding down and up, also for negative times (HTA rounds starts up, ends down).
inline int64_t floor_div(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}
inline int64_t ceil_div(int64_t a, int64_t b) {
  return -floor_div(-a, b);
}

// HTA's op set: with two or more ProfilerSteps, HTA keeps a GPU op only when the CPU event that
// launched it started before the last step (include_last false: HTA's default) or at/before the
// last step's end (include_last_profiler_step=True). Empty, meaning every op, with fewer steps.
inline std::vector<bool> hta_kept_ops(const ks::Trace& t, const ks::LaunchJoin& join,
                                      bool include_last) {
  ks::StepsResult steps = ks::find_steps(t, join, false);
  if (steps.found < 2) return {};
  return include_last ? ks::hta_launched_before(t, join, steps.last_host_end, true)
                      : ks::hta_launched_before(t, join, steps.last_host_begin, false);
}

// The reference files, in name order; none when the folder is absent.
inline std::vector<std::string> hta_reference_files() {
  std::vector<std::string> out;
  std::string dir = shared_dir() + "/reference";
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n.size() > 9 && n.substr(n.size() - 9) == ".hta.json") out.push_back(dir + "/" + n);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

// One reference file whose trace is present, the trace read.
struct HtaReference {
  std::string trace_name;  // as the reference names it (a file of ../shared/traces)
  std::string trace_path;
  Loaded loaded;              // ok (required)
  simdjson::dom::array runs;  // runs[0]: HTA's defaults; runs[1]: include_last_profiler_step
};

// Calls visit(HtaReference&) for each reference file whose trace is in ../shared/traces (the
// others are passed over), with an INFO naming the trace. Requires every file to parse, with its
// runs, and every trace to load. False, after a WARN, when there are no reference files.
template <typename Visit>
bool for_each_hta_reference(Visit visit) {
  std::vector<std::string> refs = hta_reference_files();
  if (refs.empty()) {
    WARN("SKIPPED: no HTA reference files under " << shared_dir() << "/reference");
    return false;
  }
  simdjson::dom::parser parser;  // owns `ref` (and so r.runs) until the next file
  for (const std::string& ref_path : refs) {
    simdjson::dom::element ref;
    REQUIRE_FALSE(parser.load(ref_path).get(ref));
    HtaReference r;
    r.trace_name = str(ref, "trace");
    INFO("trace: " << r.trace_name);
    r.trace_path = shared_trace(r.trace_name);
    if (!file_exists(r.trace_path)) continue;
    r.loaded = load_file(r.trace_path);
    REQUIRE(r.loaded.ok);
    REQUIRE(array(ref, "runs", &r.runs));
    visit(r);
  }
  return true;
}

}  // namespace ks_test
