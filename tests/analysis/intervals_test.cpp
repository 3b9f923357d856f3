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

TEST_CASE("merge_intervals: any mix of sorted runs gives what sorting everything gives",
          "[analysis][intervals]") {
  // Gathered track by track, the intervals come as sorted runs (merged pairwise), or in no order
  // at all (sorted): both must match a plain sort and merge.
  auto reference = [](std::vector<ks::Interval> v) {
    std::sort(v.begin(), v.end(), [](const ks::Interval& a, const ks::Interval& b) {
      return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });
    std::vector<ks::Interval> out;
    for (const ks::Interval& iv : v) {
      if (iv.end <= iv.begin) continue;
      if (!out.empty() && iv.begin <= out.back().end)
        out.back().end = std::max(out.back().end, iv.end);
      else
        out.push_back(iv);
    }
    return out;
  };
  uint64_t seed = 12345;
  auto next = [&seed](int64_t n) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int64_t>((seed >> 33) % static_cast<uint64_t>(n));
  };
  for (int round = 0; round < 300; ++round) {
    const int runs = 1 + static_cast<int>(next(round < 200 ? 9 : 120));
    std::vector<ks::Interval> v;
    for (int r = 0; r < runs; ++r) {
      int64_t t = next(1000);
      for (int64_t k = next(40); k > 0; --k) {
        t += next(50);
        v.push_back({t, t + next(80) - 5});  // some empty or negative
      }
    }
    const std::vector<ks::Interval> got = ks::merge_intervals(v), want = reference(v);
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      CHECK(got[i].begin == want[i].begin);
      CHECK(got[i].end == want[i].end);
    }
  }
}

TEST_CASE("unite: two merged sets give what merging both together gives", "[analysis][intervals]") {
  CHECK(show(ks::unite({{0, 5}, {10, 12}}, {{5, 7}, {11, 20}, {30, 31}})) == "[0,7)[10,20)[30,31)");
  CHECK(show(ks::unite({}, {{1, 2}})) == "[1,2)");
  CHECK(show(ks::unite({{1, 2}}, {})) == "[1,2)");
  uint64_t seed = 99;
  auto next = [&seed](int64_t n) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int64_t>((seed >> 33) % static_cast<uint64_t>(n));
  };
  auto random_set = [&next] {
    std::vector<ks::Interval> v;
    for (int64_t k = next(60); k > 0; --k) {
      const int64_t t = next(2000);
      v.push_back({t, t + next(90)});
    }
    return v;
  };
  for (int round = 0; round < 300; ++round) {
    const std::vector<ks::Interval> a = random_set(), b = random_set();
    std::vector<ks::Interval> both = a;
    both.insert(both.end(), b.begin(), b.end());
    CHECK(show(ks::unite(ks::merge_intervals(a), ks::merge_intervals(b))) ==
          show(ks::merge_intervals(both)));
  }
}
