// The nsys summary columns (src/analysis/duration_stats.cpp).
#include "analysis/duration_stats.h"

#include <catch2/catch.hpp>
#include <cmath>

TEST_CASE("Duration stats follow nsys: sample stddev, median of even and odd counts",
          "[analysis][stats]") {
  SECTION("odd count: the middle value") {
    std::vector<int64_t> d = {60, 10, 20};
    ks::DurationStats s = ks::compute_duration_stats(d);
    CHECK(s.count == 3);
    CHECK(s.total_ns == 90);
    CHECK(s.avg_ns == 30.0);
    CHECK(s.median_ns == 20.0);
    CHECK(s.min_ns == 10);
    CHECK(s.max_ns == 60);
    // Deviations -20, -10, 30: squares 400 + 100 + 900 = 1400; / (n - 1) = 700.
    CHECK(s.stddev_ns == Approx(std::sqrt(700.0)).epsilon(1e-15));
    CHECK(d == std::vector<int64_t>{10, 20, 60});  // sorted in place
  }
  SECTION("even count: the mean of the two middle values") {
    std::vector<int64_t> d = {40, 10, 30, 20};
    ks::DurationStats s = ks::compute_duration_stats(d);
    CHECK(s.median_ns == 25.0);  // (20 + 30) / 2
    CHECK(s.avg_ns == 25.0);
    // Deviations -15, -5, 5, 15: 225 + 25 + 25 + 225 = 500; / 3.
    CHECK(s.stddev_ns == Approx(std::sqrt(500.0 / 3.0)).epsilon(1e-15));
  }
  SECTION("two values: the stddev is |a - b| / sqrt(2)") {
    std::vector<int64_t> d = {10, 30};
    CHECK(ks::compute_duration_stats(d).stddev_ns == Approx(20.0 / std::sqrt(2.0)));
  }
  SECTION("one value: stddev 0, as nsys shows it") {
    std::vector<int64_t> d = {7};
    ks::DurationStats s = ks::compute_duration_stats(d);
    CHECK(s.count == 1);
    CHECK(s.median_ns == 7.0);
    CHECK(s.stddev_ns == 0.0);
  }
  SECTION("no values: all zero") {
    std::vector<int64_t> d;
    ks::DurationStats s = ks::compute_duration_stats(d);
    CHECK(s.count == 0);
    CHECK(s.total_ns == 0);
    CHECK(s.avg_ns == 0.0);
  }
}

TEST_CASE("Repeated durations give the stats of the values spelled out, to the last bit",
          "[analysis][stats]") {
  // nvtx_kern_sum counts a kernel once per enclosing range of a name: runs of one value.
  uint64_t seed = 12345;
  auto next = [&seed] {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return seed >> 33;
  };
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<ks::RepeatedDuration> repeats;
    std::vector<int64_t> spelled;
    const size_t runs = 1 + next() % 12;
    for (size_t r = 0; r < runs; ++r) {
      const int64_t ns = static_cast<int64_t>(next() % 5000) * 7 + 1;
      const uint64_t count = 1 + next() % 30;
      repeats.push_back({ns, count});
      spelled.insert(spelled.end(), count, ns);
    }
    const ks::DurationStats a = ks::compute_duration_stats(spelled);
    const ks::DurationStats b = ks::compute_duration_stats(repeats);
    INFO("trial " << trial);
    CHECK(b.count == a.count);
    CHECK(b.total_ns == a.total_ns);
    CHECK(b.avg_ns == a.avg_ns);
    CHECK(b.median_ns == a.median_ns);
    CHECK(b.min_ns == a.min_ns);
    CHECK(b.max_ns == a.max_ns);
    CHECK(b.stddev_ns == a.stddev_ns);  // exactly: the same sums in the same order
  }
  std::vector<ks::RepeatedDuration> none;
  CHECK(ks::compute_duration_stats(none).count == 0);
}
