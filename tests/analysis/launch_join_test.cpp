// Launches joined to their GPU ops (src/analysis/launch_join.cpp) when several ranks share one
// file: users concatenate the ranks' traceEvents, so correlation ids repeat across processes
// and each rank's kernels must pair with its own process's launches, whatever the file order.
#include "analysis/launch_join.h"

#include <simdjson.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "corpus/shared_traces.h"
#include "helpers.h"

namespace {

// One join, as the trace says it: (GPU op's pid, ts, name, launch's pid, ts, name).
using Pair = std::tuple<std::string, int64_t, std::string, std::string, int64_t, std::string>;

std::string pid_of(const ks::Trace& t, uint32_t slice) {
  return std::string(t.str(t.processes[t.tracks[t.slices.track[slice]].process].pid_text));
}

std::multiset<Pair> pairs_of(const ks::Trace& t) {
  const ks::LaunchJoin j = ks::build_launch_join(t);
  std::multiset<Pair> out;
  for (uint32_t g : j.gpu_ops_by_ts) {
    const int32_t l = j.partner[g];
    if (l < 0) continue;
    const uint32_t launch = static_cast<uint32_t>(l);
    out.emplace(pid_of(t, g), t.slices.ts[g], std::string(t.str(t.slices.name[g])),
                pid_of(t, launch), t.slices.ts[launch], std::string(t.str(t.slices.name[launch])));
  }
  return out;
}

// A rank's copy of one event: host pids moved by `host_shift`, GPU pids and "device" args by
// `gpu_shift`, times by `ts_shift_us`; everything else as written (correlation ids kept).
std::string moved_event(simdjson::dom::object ev, const std::set<int64_t>& gpu_pids,
                        int64_t host_shift, int64_t gpu_shift, int64_t ts_shift_us) {
  std::string out = "{";
  bool first = true;
  for (auto field : ev) {
    if (!first) out += ",";
    first = false;
    out += "\"" + std::string(field.key) + "\":";
    int64_t n;
    double d;
    simdjson::dom::object args;
    if (field.key == "pid" && !field.value.get(n)) {
      out += std::to_string(n + (gpu_pids.count(n) ? gpu_shift : host_shift));
    } else if (field.key == "ts" && !field.value.get(n)) {
      out += std::to_string(n + ts_shift_us);
    } else if (field.key == "ts" && !field.value.get(d)) {
      out += std::to_string(d + static_cast<double>(ts_shift_us));
    } else if (field.key == "args" && !field.value.get(args)) {
      out += "{";
      bool first_arg = true;
      for (auto a : args) {
        if (!first_arg) out += ",";
        first_arg = false;
        out += "\"" + std::string(a.key) + "\":";
        if (a.key == "device" && !a.value.get(n)) {
          out += std::to_string(n + gpu_shift);
        } else {
          out += simdjson::minify(a.value);
        }
      }
      out += "}";
    } else {
      out += simdjson::minify(field.value);
    }
  }
  return out + "}";
}

// The events of a trace as one rank: see moved_event.
std::vector<std::string> rank_events(const std::string& json, int64_t host_shift, int64_t gpu_shift,
                                     int64_t ts_shift_us) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(!parser.parse(json).get(doc));
  simdjson::dom::array events;
  REQUIRE(!doc["traceEvents"].get(events));
  std::set<int64_t> gpu_pids;  // Kineto's GPU pid is the device: those of kernels and copies
  for (simdjson::dom::element e : events) {
    std::string_view cat;
    int64_t pid;
    if (!e["cat"].get(cat) && !e["pid"].get(pid) &&
        (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "Kernel" ||
         cat == "Memcpy" || cat == "Memset"))
      gpu_pids.insert(pid);
  }
  std::vector<std::string> out;
  for (simdjson::dom::element e : events) {
    simdjson::dom::object ev;
    if (e.get(ev)) continue;
    out.push_back(moved_event(ev, gpu_pids, host_shift, gpu_shift, ts_shift_us));
  }
  return out;
}

std::string trace_of(const std::vector<std::string>& events) {
  std::string out = "{\"traceEvents\":[\n";
  for (size_t i = 0; i < events.size(); ++i) out += (i ? ",\n" : "") + events[i];
  return out + "\n]}";
}

// The joins of `got` that `want` lacks, for the test's message.
std::string unexpected(const std::multiset<Pair>& got, const std::multiset<Pair>& want) {
  std::string out;
  std::multiset<Pair> left = want;
  for (const Pair& p : got) {
    auto it = left.find(p);
    if (it != left.end()) {
      left.erase(it);
      continue;
    }
    if (out.size() > 2000) break;
    out += std::get<2>(p).substr(0, 30) + " on " + std::get<0>(p) + " at " +
           std::to_string(std::get<1>(p)) + " <- " + std::get<5>(p) + " on " + std::get<3>(p) +
           " at " + std::to_string(std::get<4>(p)) + "\n";
  }
  return out;
}

std::multiset<Pair> merged_pairs(std::multiset<Pair> a, const std::multiset<Pair>& b) {
  a.insert(b.begin(), b.end());
  return a;
}

// Two ranks of one step: the same launch sequence (ids 10..12) on each, rank 1's clock 2 us
// ahead of rank 0's, so each of rank 0's kernels starts after both ranks' launches of its id.
std::vector<std::string> small_rank(int host_pid, int device, int64_t shift) {
  std::vector<std::string> out;
  for (int k = 0; k < 3; ++k) {
    const int64_t ts = 100 + 20 * k + shift;
    const std::string corr = std::to_string(10 + k);
    out.push_back(R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":)" +
                  std::to_string(host_pid) + R"(,"tid":1,"ts":)" + std::to_string(ts) +
                  R"(,"dur":3,"args":{"correlation":)" + corr + "}}");
    out.push_back(R"({"ph":"X","cat":"kernel","name":"k)" + std::to_string(k) + R"(","pid":)" +
                  std::to_string(device) + R"(,"tid":7,"ts":)" + std::to_string(ts + 8) +
                  R"(,"dur":5,"args":{"device":)" + std::to_string(device) +
                  R"(,"stream":7,"correlation":)" + corr + "}}");
  }
  return out;
}

}  // namespace

TEST_CASE("Merged ranks: each kernel joins its own process's launch, in any file order",
          "[analysis][launch_join]") {
  const std::vector<std::string> r0 = small_rank(500, 0, 0), r1 = small_rank(600, 1, 2);
  const std::multiset<Pair> want =
      merged_pairs(pairs_of(*ks_test::load(trace_of(r0))), pairs_of(*ks_test::load(trace_of(r1))));
  REQUIRE(want.size() == 6);
  std::vector<std::string> both = r0;
  both.insert(both.end(), r1.begin(), r1.end());
  const std::multiset<Pair> got = pairs_of(*ks_test::load(trace_of(both)));
  INFO(unexpected(got, want));
  CHECK(got == want);
  std::vector<std::string> reversed = r1;
  reversed.insert(reversed.end(), r0.begin(), r0.end());
  CHECK(pairs_of(*ks_test::load(trace_of(reversed))) == want);
}

TEST_CASE("Merged ranks of a real trace pair as in the single files, shuffled",
          "[analysis][launch_join][corpus]") {
  // DLRM rank 0 (one process, GPU 0, ~500 launches) and a second rank made of it: host pid
  // + 100000, GPU pid and device + 1, clock 3 us ahead, the same correlation ids.
  const std::string path =
      ks_test::shared_trace("param__dlrm_kineto__worker0_step_12.1694128201545.pt.trace.json");
  std::string json;
  if (!ks_test::read_file_maybe_gzip(path, &json)) {
    WARN("shared trace absent: " << path);
    return;
  }
  const std::vector<std::string> r0 = rank_events(json, 0, 0, 0);
  const std::vector<std::string> r1 = rank_events(json, 100000, 1, 3);
  const std::multiset<Pair> single0 = pairs_of(*ks_test::load(trace_of(r0)));
  const std::multiset<Pair> single1 = pairs_of(*ks_test::load(trace_of(r1)));
  REQUIRE(single0.size() > 200);
  REQUIRE(single1.size() == single0.size());
  const std::multiset<Pair> want = merged_pairs(single0, single1);

  std::vector<std::string> merged = r0;
  merged.insert(merged.end(), r1.begin(), r1.end());
  CHECK(pairs_of(*ks_test::load(trace_of(merged))) == want);
  std::mt19937 shuffle(7);
  for (int round = 0; round < 2; ++round) {
    std::shuffle(merged.begin(), merged.end(), shuffle);
    CHECK(pairs_of(*ks_test::load(trace_of(merged))) == want);
  }
}
