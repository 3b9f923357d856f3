// Events far in time from all the others (src/model/stray_times.h): left out of the model with a
// diagnostic, unless they are many (a device's clock off) or the bulk itself spans long.
#include <catch2/catch.hpp>

#include "model/trace_builder.h"

using ks::Diag;
using ks::SliceArgs;
using ks::Trace;
using ks::TraceBuilder;

namespace {

constexpr int64_t kSecond = 1000 * 1000 * 1000;
constexpr int64_t kDay = 86400 * kSecond;

// A slice in ns, with its byte offset.
void add(TraceBuilder& b, ks::TrackId track, int64_t ts, int64_t dur, uint64_t offset = 0) {
  b.observe_time(ts, ts + dur);
  b.add_complete(track, ts, dur, "op", "kernel", SliceArgs(), ks::EventSource{offset, 1});
}

// `n` slices of 1 ms, one every 10 ms from `from`, on `track`.
void busy(TraceBuilder& b, ks::TrackId track, int64_t from, int n) {
  for (int i = 0; i < n; ++i) add(b, track, from + i * 10 * 1000 * 1000, 1000 * 1000);
}

}  // namespace

TEST_CASE("a kernel 35 days after a 1 s capture is left out, and said where", "[model]") {
  Trace t;
  TraceBuilder b(&t);
  const auto gpu = b.track("0", "7");
  busy(b, gpu, 5 * kSecond, 100);
  add(b, gpu, 5 * kSecond + 35 * kDay, 1000, 4242);  // the corrupt one
  b.add_counter("0", 5 * kSecond + 35 * kDay, "mem", 1.0);
  b.add_counter("0", 5 * kSecond, "mem", 2.0);
  b.finalize();
  CHECK(t.slices.size() == 100);
  CHECK(t.counters.size() == 1);
  CHECK(t.span_ns() < 2 * kSecond);
  CHECK(t.diagnostics.count(Diag::kStrayTime) == 2);
  CHECK(t.diagnostics.get(Diag::kStrayTime).first_offset == 4242);
  CHECK(t.diagnostics.get(Diag::kStrayTime).detail.find("35 days after") != std::string::npos);
}

TEST_CASE("a garbage time at the end of int64 is left out without overflow", "[model]") {
  Trace t;
  TraceBuilder b(&t);
  const auto gpu = b.track("0", "7");
  busy(b, gpu, 0, 50);
  add(b, gpu, INT64_MAX - 10, 5);
  add(b, gpu, INT64_MIN + 10, 5);
  b.finalize();
  CHECK(t.slices.size() == 50);
  CHECK(t.diagnostics.count(Diag::kStrayTime) == 2);
  CHECK(t.span_ns() < kSecond);
}

TEST_CASE("times are not left out when many lie apart, or the bulk spans long", "[model]") {
  SECTION("one device of two with its clock a day off: half the events") {
    Trace t;
    TraceBuilder b(&t);
    busy(b, b.track("0", "7"), 0, 100);
    busy(b, b.track("1", "7"), kDay, 100);
    b.finalize();
    CHECK(t.slices.size() == 200);
    CHECK(t.diagnostics.count(Diag::kStrayTime) == 0);
    CHECK(t.diagnostics.count(Diag::kTimeGroups) == 1);  // but said
    CHECK(t.diagnostics.get(Diag::kTimeGroups).detail == "2 groups; the widest gap 24 hours.");
  }
  SECTION("a 30-minute capture and one event 2 hours after it: within 100x its span") {
    Trace t;
    TraceBuilder b(&t);
    const auto cpu = b.track("0", "1");
    for (int i = 0; i <= 30; ++i) add(b, cpu, i * 60 * kSecond, kSecond);
    add(b, cpu, 150 * 60 * kSecond, kSecond);
    b.finalize();
    CHECK(t.slices.size() == 32);
    CHECK(t.diagnostics.count(Diag::kStrayTime) == 0);
  }
  SECTION(
      "a startup call 50 minutes before a 1 s burst, one more 50 minutes after: gaps under an "
      "hour") {
    Trace t;
    TraceBuilder b(&t);
    const auto cpu = b.track("0", "1");
    busy(b, cpu, 0, 1);
    busy(b, cpu, 50 * 60 * kSecond, 100);
    add(b, cpu, 100 * 60 * kSecond, kSecond);
    b.finalize();
    CHECK(t.slices.size() == 102);
    CHECK(t.diagnostics.count(Diag::kStrayTime) == 0);
  }
}
