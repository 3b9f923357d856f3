// The timeline's level-of-detail query (src/timeline_query/lod_query.cpp): exact when zoomed in,
// merged runs when zoomed out, overlapping slices on extra rows, and a cost that follows the
// pixels.
#include "timeline_query/lod_query.h"

#include <catch2/catch.hpp>
#include <random>

#include "helpers.h"
#include "model/trace_builder.h"
#include "timeline_query/view_index.h"

using ks::timeline_query::LodResult;
using ks::timeline_query::ViewIndex;
using ks::timeline_query::Viewport;

namespace {

// Slices in nanoseconds on one track; the first slice is at t=0, so relative = absolute.
struct Row {
  ks::Trace trace;
  ks::TraceBuilder builder{&trace};
  ks::TrackId track = builder.track("1", "1");
  void add(int64_t ts, int64_t dur, const char* name, ks::TrackId on = 0xffffffffu) {
    ks::TrackId t = on == 0xffffffffu ? track : on;
    builder.observe_time(ts, ts + dur);
    builder.add_complete(t, ts, dur, name, "cpu_op", ks::SliceArgs(),
                         ks::EventSource{static_cast<uint64_t>(ts), 1});
  }
};

LodResult query(const ViewIndex& index, int64_t start, int64_t end, double pixels,
                std::vector<ks::TrackId> tracks = {0}) {
  Viewport vp;
  vp.start = start;
  vp.end = end;
  vp.pixels = pixels;
  return ks::timeline_query::query_viewport(index, vp, tracks, {});
}

}  // namespace

TEST_CASE("Zoomed in, every slice comes back as itself with its depth", "[timeline_query][lod]") {
  Row r;
  r.add(0, 100, "root");
  r.add(10, 20, "child1");
  r.add(40, 30, "child2");
  r.add(45, 5, "grandchild");
  r.add(200, 50, "second");
  r.builder.finalize();
  ViewIndex index(r.trace);
  LodResult res = query(index, 0, 250, 250);  // one ns per pixel
  CHECK(res.pixel_ns == 1);
  const auto& s = res.slices;
  REQUIRE(s.size() == 5);
  std::vector<std::string> got;
  for (size_t k = 0; k < s.size(); ++k) {
    CHECK(s.count[k] == 1);
    const uint32_t i = static_cast<uint32_t>(s.slice[k]);
    CHECK(s.start[k] == static_cast<double>(r.trace.slices.ts[i]));
    CHECK(s.end[k] == static_cast<double>(r.trace.slices.end(i)));
    CHECK(s.depth[k] == r.trace.slices.depth[i]);
    got.push_back(std::string(r.trace.str(s.name[k])) + "@" + std::to_string(s.depth[k]));
  }
  // Row by row, in time order.
  CHECK(got ==
        std::vector<std::string>{"root@0", "second@0", "child1@1", "child2@1", "grandchild@2"});

  SECTION("a window in the middle returns what overlaps it, and a slice that began before") {
    LodResult mid = query(index, 50, 150, 100);
    std::vector<std::string> names;
    for (size_t k = 0; k < mid.slices.size(); ++k)
      names.emplace_back(r.trace.str(mid.slices.name[k]));
    CHECK(names == std::vector<std::string>{"root", "child2", "grandchild"});
  }
}

TEST_CASE("Zoomed out, sub-pixel slices merge into counted runs; wide ones stay",
          "[timeline_query][lod]") {
  Row r;
  // 1 ns slices every 2 ns, except where a 500 ns slice sits on the same row at [800, 1300).
  int64_t narrow = 0;
  for (int64_t ts = 0; ts < 2000; ts += 2) {
    if (ts >= 800 && ts < 1300) continue;
    r.add(ts, 1, "tiny");
    ++narrow;
    if (ts == 798) r.add(800, 500, "wide");
  }
  r.builder.finalize();
  ViewIndex index(r.trace);
  LodResult res = query(index, 0, 2000, 20);  // 100 ns per pixel
  CHECK(res.pixel_ns == 100);
  const auto& s = res.slices;
  REQUIRE(s.size() == 3);
  // [0, 799): slices at 0, 2, ..., 798 (400 of them), the last ending at 799.
  CHECK(s.start[0] == 0);
  CHECK(s.end[0] == 799);
  CHECK(s.count[0] == 400);
  CHECK(r.trace.str(s.name[1]) == "wide");
  CHECK(s.count[1] == 1);
  CHECK(s.start[1] == 800);
  CHECK(s.end[1] == 1300);
  // [1300, 1999): slices at 1300 ... 1998 (350).
  CHECK(s.start[2] == 1300);
  CHECK(s.end[2] == 1999);
  CHECK(s.count[2] == 350);
  CHECK(s.count[0] + s.count[1] + s.count[2] == narrow + 1);

  SECTION("a gap of a pixel or more ends a run") {
    Row g;
    for (int64_t ts = 0; ts < 100; ts += 2) g.add(ts, 1, "a");    // ends at 99
    for (int64_t ts = 300; ts < 400; ts += 2) g.add(ts, 1, "b");  // gap 201 ns: > 1 px
    g.builder.finalize();
    ViewIndex gi(g.trace);
    LodResult gr = query(gi, 0, 1000, 10);  // 100 ns per pixel
    REQUIRE(gr.slices.size() == 2);
    CHECK(gr.slices.count[0] == 50);
    CHECK(gr.slices.count[1] == 50);
    CHECK(g.trace.str(gr.slices.name[1]) == "b");
  }

  SECTION("a narrow slice alone is returned as itself, clickable") {
    Row a;
    a.add(0, 1, "lonely");
    a.add(5000, 1, "far");
    a.builder.finalize();
    ViewIndex ai(a.trace);
    LodResult ar = query(ai, 0, 10000, 10);
    REQUIRE(ar.slices.size() == 2);
    CHECK(ar.slices.count[0] == 1);
    CHECK(ar.slices.slice[0] >= 0);
    CHECK(a.trace.str(ar.slices.name[0]) == "lonely");
  }
}

TEST_CASE("Overlapping slices on one stream go on extra rows, none dropped",
          "[timeline_query][lod]") {
  const std::string json = R"({"traceEvents":[
    {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":0,"dur":100,"args":{"stream":7}},
    {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":50,"dur":100,"args":{"stream":7}},
    {"ph":"X","cat":"kernel","name":"k3","pid":0,"tid":7,"ts":120,"dur":100,"args":{"stream":7}},
    {"ph":"X","cat":"kernel","name":"k4","pid":0,"tid":7,"ts":300,"dur":10,"args":{"stream":7}}
  ]})";
  auto t = ks_test::load(json);
  ViewIndex index(*t);
  REQUIRE(index.tracks().size() == 1);
  // k2 starts inside k1 and ends after it: row 1; k3 starts inside k2 (still open): row 2.
  CHECK(index.tracks()[0].rows.size() == 3);
  LodResult res = query(index, 0, 400000, 400000);
  std::map<std::string, uint32_t> depth;
  for (size_t k = 0; k < res.slices.size(); ++k)
    depth[std::string(t->str(res.slices.name[k]))] = res.slices.depth[k];
  CHECK(depth == std::map<std::string, uint32_t>{{"k1", 0}, {"k2", 1}, {"k3", 2}, {"k4", 0}});
}

TEST_CASE("Merging keeps every slice accounted for (random rows, random windows)",
          "[timeline_query][lod]") {
  std::mt19937_64 rng(12345);
  for (int round = 0; round < 20; ++round) {
    Row r;
    int64_t ts = 0;
    const int n = 2000;
    for (int i = 0; i < n; ++i) {
      ts += 1 + static_cast<int64_t>(rng() % 50);
      int64_t dur =
          rng() % 10 == 0 ? static_cast<int64_t>(rng() % 2000) : static_cast<int64_t>(rng() % 20);
      r.add(ts, dur, i % 3 ? "a" : "b");
      ts += dur;
    }
    r.builder.finalize();
    ViewIndex index(r.trace);
    const auto& row = index.tracks()[0].rows[0];
    REQUIRE(row.size() == static_cast<size_t>(n));
    for (int q = 0; q < 20; ++q) {
      int64_t a = static_cast<int64_t>(rng() % static_cast<uint64_t>(ts));
      int64_t b = a + 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(ts));
      double px = 1 + static_cast<double>(rng() % 2000);
      LodResult res = query(index, a, b, px);
      uint64_t expected = 0;
      for (size_t k = 0; k < row.size(); ++k)
        if (row.end(k) >= a && row.start[k] < b) ++expected;
      uint64_t covered = 0;
      const auto& s = res.slices;
      for (size_t k = 0; k < s.size(); ++k) {
        covered += s.count[k];
        const int64_t width = static_cast<int64_t>(s.end[k] - s.start[k]);
        if (s.count[k] > 1) {
          CHECK(width >= 0);
        } else {
          const uint32_t i = static_cast<uint32_t>(s.slice[k]);
          CHECK(s.start[k] == static_cast<double>(index.rel_start(i)));
          CHECK(width == r.trace.slices.dur[i]);
        }
        if (k > 0) CHECK(s.start[k] >= s.end[k - 1]);  // in order, never overlapping
        if (k > 0 && s.count[k] > 1 && s.count[k - 1] > 1)
          CHECK(s.start[k] - s.end[k - 1] >= static_cast<double>(res.pixel_ns));  // else one run
      }
      CHECK(covered == expected);
      CHECK(s.size() <= 2 * static_cast<size_t>(px) + 2);
    }
  }
}

TEST_CASE("A zoomed-out query costs pixels x log n, not events", "[timeline_query][lod]") {
  Row r;
  const int64_t n = 1000000;
  for (int64_t i = 0; i < n; ++i) r.add(i * 10, 5, "tiny");
  r.builder.finalize();
  ViewIndex index(r.trace);
  LodResult all = query(index, 0, n * 10, 1000);
  REQUIRE(all.slices.size() == 1);  // 5 ns gaps, 10 us per pixel: one busy run
  CHECK(all.slices.count[0] == static_cast<uint32_t>(n));
  // Each step of the run moves its end at least a pixel: about 2 x 1000 steps, two lookups each.
  CHECK(all.searches < 5000);
  LodResult part = query(index, 3000000, 3000000 + 10000, 2000);  // 5 ns per pixel: exact
  CHECK(part.slices.size() == 1000);
  for (size_t k = 0; k < part.slices.size(); ++k) CHECK(part.slices.count[k] == 1);
}

TEST_CASE("Counters: every sample when sparse, per-pixel min/max/last when dense",
          "[timeline_query][lod]") {
  std::string json = R"({"traceEvents":[)";
  for (int i = 0; i < 1000; ++i) {
    json += R"({"ph":"C","name":"mem","pid":1,"tid":1,"ts":)" + std::to_string(i) +
            R"(,"args":{"bytes":)" + std::to_string(i % 10 == 3 ? 500 : i % 7) + "}},";
  }
  json += R"({"ph":"X","name":"x","pid":1,"tid":1,"ts":0,"dur":999}]})";
  auto t = ks_test::load(json);
  ViewIndex index(*t);
  REQUIRE(index.counters().size() == 1);
  Viewport vp;
  vp.start = 0;
  vp.end = 999000;
  vp.pixels = 2000;  // 2 px per sample: all of them
  LodResult sparse = ks::timeline_query::query_viewport(index, vp, {}, {0});
  CHECK(sparse.counters.size() == 1000);
  vp.pixels = 10;  // 100 samples per pixel
  LodResult dense = ks::timeline_query::query_viewport(index, vp, {}, {0});
  REQUIRE(dense.counters.size() >= 10);
  REQUIRE(dense.counters.size() <= 11);
  for (size_t k = 0; k < dense.counters.size(); ++k) {
    CHECK(dense.counters.max[k] == 500);  // every 100 samples hold an i%10==3
    CHECK(dense.counters.min[k] == 0);
  }
}

TEST_CASE("Instants: one mark per pixel with the count it stands for", "[timeline_query][lod]") {
  std::string json = R"({"traceEvents":[)";
  for (int i = 0; i < 100; ++i)
    json += R"({"ph":"i","s":"t","name":"mark","pid":1,"tid":1,"ts":)" + std::to_string(i) + "},";
  json += R"({"ph":"X","name":"x","pid":1,"tid":1,"ts":0,"dur":100}]})";
  auto t = ks_test::load(json);
  ViewIndex index(*t);
  LodResult res = query(index, 0, 100000, 10);  // 10 us per pixel: 10 instants per mark
  REQUIRE(res.instants.size() == 10);
  uint32_t total = 0;
  for (uint32_t c : res.instants.count) total += c;
  CHECK(total == 100);
  CHECK(res.instants.count[0] == 10);
}
