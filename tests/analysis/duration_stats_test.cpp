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
