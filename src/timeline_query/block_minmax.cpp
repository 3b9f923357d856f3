#include "timeline_query/block_minmax.h"

#include <algorithm>
#include <limits>

namespace ks::timeline_query {

BlockMinMax::BlockMinMax(const std::vector<double>* values) : values_(values) {
  const size_t n = values->size();
  const size_t blocks = (n + kBlock - 1) / kBlock;
  leaves_ = 1;
  while (leaves_ < blocks) leaves_ *= 2;
  min_.assign(2 * leaves_, std::numeric_limits<double>::infinity());
  max_.assign(2 * leaves_, -std::numeric_limits<double>::infinity());
  for (size_t i = 0; i < n; ++i) {
    const size_t leaf = leaves_ + i / kBlock;
    min_[leaf] = std::min(min_[leaf], (*values)[i]);
    max_[leaf] = std::max(max_[leaf], (*values)[i]);
  }
  for (size_t k = leaves_ - 1; k >= 1; --k) {
    min_[k] = std::min(min_[2 * k], min_[2 * k + 1]);
    max_[k] = std::max(max_[2 * k], max_[2 * k + 1]);
  }
}

void BlockMinMax::query(size_t from, size_t to, double* min, double* max) const {
  const std::vector<double>& v = *values_;
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  auto scan = [&](size_t a, size_t b) {
    for (size_t i = a; i < b; ++i) {
      lo = std::min(lo, v[i]);
      hi = std::max(hi, v[i]);
    }
  };
  const size_t first_full = (from + kBlock - 1) / kBlock;  // first block wholly inside
  const size_t last_full = to / kBlock;                    // one past the last block wholly inside
  if (first_full >= last_full) {
    scan(from, to);
  } else {
    scan(from, first_full * kBlock);
    scan(last_full * kBlock, to);
    // Bottom-up over the half-open block range [first_full, last_full).
    for (size_t l = first_full + leaves_, r = last_full + leaves_; l < r; l >>= 1, r >>= 1) {
      if (l & 1) {
        lo = std::min(lo, min_[l]);
        hi = std::max(hi, max_[l++]);
      }
      if (r & 1) {
        --r;
        lo = std::min(lo, min_[r]);
        hi = std::max(hi, max_[r]);
      }
    }
  }
  *min = lo;
  *max = hi;
}

}  // namespace ks::timeline_query
