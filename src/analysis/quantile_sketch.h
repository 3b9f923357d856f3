// A mergeable quantile sketch for durations, so medians survive merging digests of many ranks
// (a median of medians is not the median). Log-spaced buckets, as DDSketch (Masson et al.,
// VLDB 2019) defines them, written here from the definition: a positive duration x falls in
// bucket i = ceil(log(x) / log(gamma)) with gamma = (1 + a) / (1 - a); every value of bucket i
// lies in (gamma^(i-1), gamma^i], and the bucket's representative 2 gamma^i / (gamma + 1) is
// within a relative error a of each of them. Durations of 0 ns (and below) count in their own
// bucket. Two sketches merge by adding the counts of equal buckets, exactly, in any order; a
// quantile is the representative of the bucket holding the rank-q value, so it is within a
// relative error a of the exact quantile of the merged values (a = 1% here).
// The JSON form (docs/fleet.md): {"a":0.01,"zero":Z,"i":[i0,d1,d2,...],"n":[c0,c1,...]}: bucket
// indexes sorted, the first absolute and each next one as the difference to the previous.
#pragma once
#include <cstdint>
#include <map>

#include "util/json_writer.h"

namespace ks {

class QuantileSketch {
 public:
  static constexpr double kRelativeAccuracy = 0.01;
  void add(int64_t ns);
  void merge(const QuantileSketch& other);
  uint64_t count() const { return count_; }
  // The q-quantile (0 <= q <= 1) as the lower-rank value: the value at rank floor(q (n - 1)).
  double quantile(double q) const;
  void write_json(JsonWriter& w) const;
  size_t buckets() const { return buckets_.size(); }

 private:
  std::map<int32_t, uint64_t> buckets_;
  uint64_t zero_ = 0;
  uint64_t count_ = 0;
};

}  // namespace ks
