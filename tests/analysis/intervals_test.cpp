// Interval arithmetic on [begin, end) (src/analysis/intervals.cpp).
#include "analysis/intervals.h"

#include <catch2/catch.hpp>

using ks::Interval;

namespace {
std::string show(const std::vector<Interval>& v) {
  std::string out;
  for (const Interval& iv : v)
    out += "[" + std::to_string(iv.begin) + "," + std::to_string(iv.end) + ")";
  return out;
}
}  // namespace

TEST_CASE("merge_intervals sorts, merges overlapping and touching, drops empty", "[analysis]") {
  SECTION("overlapping and touching intervals merge") {
    // [5,8) overlaps [0,6); [8,9) touches the result; [20,30) holds [22,25).
    auto m = ks::merge_intervals({{20, 30}, {5, 8}, {0, 6}, {22, 25}, {8, 9}});
    CHECK(show(m) == "[0,9)[20,30)");
    CHECK(ks::total_length(m) == 9 + 10);
  }
  SECTION("empty and inverted intervals are dropped") {
    auto m = ks::merge_intervals({{3, 3}, {7, 4}, {1, 2}});
    CHECK(show(m) == "[1,2)");
  }
  SECTION("nothing in, nothing out") {
    CHECK(ks::merge_intervals({}).empty());
    CHECK(ks::total_length({}) == 0);
  }
}

TEST_CASE("length_within clips merged intervals to a window", "[analysis]") {
  std::vector<Interval> m = {{0, 10}, {20, 30}, {40, 50}};
  CHECK(ks::length_within(m, 0, 50) == 30);
  CHECK(ks::length_within(m, 5, 25) == 5 + 5);   // [5,10) + [20,25)
  CHECK(ks::length_within(m, 10, 20) == 0);      // exactly the gap
  CHECK(ks::length_within(m, 25, 45) == 5 + 5);  // [25,30) + [40,45)
  CHECK(ks::length_within(m, 60, 70) == 0);
  CHECK(ks::length_within(m, -10, 1) == 1);
}

TEST_CASE("intersect keeps what both merged sets cover", "[analysis]") {
  std::vector<Interval> a = {{0, 10}, {20, 30}};
  std::vector<Interval> b = {{5, 25}, {28, 40}};
  // [5,10) from the first, [20,25) and [28,30) from the second.
  CHECK(show(ks::intersect(a, b)) == "[5,10)[20,25)[28,30)");
  CHECK(show(ks::intersect(b, a)) == "[5,10)[20,25)[28,30)");
  CHECK(ks::intersect(a, {{10, 20}}).empty());  // touching is not overlapping
  CHECK(ks::intersect(a, {}).empty());
}

TEST_CASE("gaps_within lists the uncovered parts of a window", "[analysis]") {
  std::vector<Interval> m = {{10, 20}, {30, 40}};
  CHECK(show(ks::gaps_within(m, 0, 50)) == "[0,10)[20,30)[40,50)");
  CHECK(show(ks::gaps_within(m, 15, 35)) == "[20,30)");
  CHECK(show(ks::gaps_within(m, 10, 40)) == "[20,30)");
  CHECK(ks::gaps_within(m, 12, 18).empty());
  CHECK(show(ks::gaps_within({}, 3, 7)) == "[3,7)");
  // Length of the gaps + length within = the window.
  int64_t gaps = 0;
  for (const Interval& g : ks::gaps_within(m, 5, 45)) gaps += g.length();
  CHECK(gaps + ks::length_within(m, 5, 45) == 40);
}
