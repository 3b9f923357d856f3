// The fleet digest's mergeable quantile sketch (src/analysis/quantile_sketch.h) and the host a
// trace's path names (src/report/fleet_digest_json.h).
#include "analysis/quantile_sketch.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "report/fleet_digest_json.h"

namespace {

std::string json_of(const ks::QuantileSketch& s) {
  ks::JsonWriter w;
  w.set_compact(true);
  s.write_json(w);
  return w.take();
}

}  // namespace

TEST_CASE("Quantile sketch: merging is exact, in any order", "[analysis][fleet]") {
  std::mt19937_64 rng(3);
  std::lognormal_distribution<double> dist(10.0, 1.5);  // ~22 us median, heavy tail
  std::vector<int64_t> v;
  for (int i = 0; i < 20000; ++i) v.push_back(static_cast<int64_t>(dist(rng)));
  v.push_back(0);
  v.push_back(-5);  // a clock glitch: counts with the zeros
  ks::QuantileSketch all, a, b, c;
  for (size_t i = 0; i < v.size(); ++i) {
    all.add(v[i]);
    (i % 3 == 0 ? a : i % 3 == 1 ? b : c).add(v[i]);
  }
  ks::QuantileSketch abc = a, cba = c;
  abc.merge(b);
  abc.merge(c);
  cba.merge(b);
  cba.merge(a);
  CHECK(json_of(abc) == json_of(all));
  CHECK(json_of(cba) == json_of(all));
  CHECK(all.count() == v.size());
  CHECK(all.buckets() < 1200);  // log-spaced: bounded by the range, not the count
}

TEST_CASE("Quantile sketch: quantiles within 1% of the exact values", "[analysis][fleet]") {
  std::mt19937_64 rng(11);
  std::lognormal_distribution<double> dist(12.0, 2.0);
  std::vector<int64_t> v;
  ks::QuantileSketch s;
  for (int i = 0; i < 50001; ++i) {
    int64_t x = 1 + static_cast<int64_t>(dist(rng));
    v.push_back(x);
    s.add(x);
  }
  std::sort(v.begin(), v.end());
  for (double q : {0.0, 0.01, 0.25, 0.5, 0.9, 0.99, 1.0}) {
    double exact =
        static_cast<double>(v[static_cast<size_t>(q * static_cast<double>(v.size() - 1))]);
    INFO("q = " << q);
    CHECK(std::abs(s.quantile(q) - exact) <= 0.01 * exact + 1e-9);
  }
  ks::QuantileSketch empty;
  CHECK(empty.quantile(0.5) == 0);
  ks::QuantileSketch zeros;
  zeros.add(0);
  zeros.add(0);
  zeros.add(1000);
  CHECK(zeros.quantile(0.5) == 0);
  CHECK(std::abs(zeros.quantile(1.0) - 1000) <= 10);
}

TEST_CASE("Fleet digest: the host from the trace's path", "[report][fleet]") {
  using ks::host_from_path;
  // torch.profiler's tensorboard_trace_handler: {hostname}_{pid}.{ms}.pt.trace.json[.gz]
  CHECK(host_from_path("job/node07_31200.1718012345000.pt.trace.json.gz").name == "node07");
  CHECK(host_from_path("node07_31200.1718012345000.pt.trace.json").source == "file_name");
  CHECK(host_from_path("x/gpu-a_b.example.com_99.17.pt.trace.json").name == "gpu-a_b.example.com");
  // Else the folder holding the file, unless it is a generic name.
  ks::HostName d = host_from_path("/data/job/node03/rank-1.json.gz");
  CHECK(d.name == "node03");
  CHECK(d.source == "directory");
  CHECK(host_from_path("job/traces/rank-1.json").source == "none");
  CHECK(host_from_path("rank-1.json").name.empty());
  // A name that only looks like the pattern: no pid, or no timestamp.
  CHECK(host_from_path("a/node07.1718012345000.pt.trace.json").name == "a");
  CHECK(host_from_path("a/node07_12.pt.trace.json").name == "a");
}
