#include "analysis/quantile_sketch.h"

#include <cmath>

namespace ks {

namespace {
const double kGamma =
    (1 + QuantileSketch::kRelativeAccuracy) / (1 - QuantileSketch::kRelativeAccuracy);
const double kLogGamma = std::log(kGamma);
}  // namespace

void QuantileSketch::add(int64_t ns) {
  ++count_;
  if (ns <= 0) {
    ++zero_;
    return;
  }
  ++buckets_[static_cast<int32_t>(std::ceil(std::log(static_cast<double>(ns)) / kLogGamma))];
}

void QuantileSketch::merge(const QuantileSketch& o) {
  for (const auto& kv : o.buckets_) buckets_[kv.first] += kv.second;
  zero_ += o.zero_;
  count_ += o.count_;
}

double QuantileSketch::quantile(double q) const {
  if (count_ == 0) return 0;
  q = q < 0 ? 0 : q > 1 ? 1 : q;
  uint64_t rank = static_cast<uint64_t>(q * static_cast<double>(count_ - 1));
  if (rank < zero_) return 0;
  uint64_t seen = zero_;
  for (const auto& kv : buckets_) {
    seen += kv.second;
    if (seen > rank) return 2 * std::pow(kGamma, kv.first) / (kGamma + 1);
  }
  return 2 * std::pow(kGamma, buckets_.rbegin()->first) / (kGamma + 1);
}

void QuantileSketch::write_json(JsonWriter& w) const {
  w.begin_object();
  w.field("a", kRelativeAccuracy, 2);
  w.field("zero", zero_);
  w.key("i").begin_array();
  int32_t prev = 0;
  bool first = true;
  for (const auto& kv : buckets_) {
    w.value(static_cast<int64_t>(first ? kv.first : kv.first - prev));
    prev = kv.first;
    first = false;
  }
  w.end_array();
  w.key("n").begin_array();
  for (const auto& kv : buckets_) w.value(kv.second);
  w.end_array();
  w.end_object();
}

}  // namespace ks
