// Interval arithmetic on [begin, end) nanosecond ranges: the building block of every "busy",
// "idle" and "overlap" number (HTA computes the same with pandas merges).
#pragma once
#include <cstdint>
#include <vector>

namespace ks {

struct Interval {
  int64_t begin;
  int64_t end;
  int64_t length() const { return end - begin; }
};

// Sorts and merges overlapping or touching intervals; drops empty ones.
std::vector<Interval> merge_intervals(std::vector<Interval> v);
// Union of two merged sets, as merge_intervals of both together would give, in one pass.
std::vector<Interval> unite(const std::vector<Interval>& a, const std::vector<Interval>& b);
// Total length of merged (sorted, disjoint) intervals.
int64_t total_length(const std::vector<Interval>& merged);
// Length of the part of merged intervals inside [begin, end).
int64_t length_within(const std::vector<Interval>& merged, int64_t begin, int64_t end);
// Intersection of two merged sets.
std::vector<Interval> intersect(const std::vector<Interval>& a, const std::vector<Interval>& b);
// The gaps between merged intervals inside [begin, end).
std::vector<Interval> gaps_within(const std::vector<Interval>& merged, int64_t begin, int64_t end);

}  // namespace ks
