// The first rows of a trace report in its order, kept while the rows are read. The page shows the
// first 5,000 rows of a trace that can have millions (cuda_gpu_trace of a 400 MB export: 1.7 M
// rows, 4.7 GB as cells), so with a limit only those are ever built and held. Order: by (a, b),
// then by arrival, as a stable sort by (a, b) gives; a limit of 0 keeps every row.
#pragma once
#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

namespace ks {

template <typename Row>
class FirstRows {
 public:
  explicit FirstRows(size_t limit) : limit_(limit) {}

  // Offers the row of order (a, b); `make()` builds it only when it is kept.
  template <typename Make>
  void offer(int64_t a, int64_t b, Make&& make) {
    const Key key{a, b, seen_++};
    if (limit_ == 0) {
      kept_.push_back({key, make()});
      return;
    }
    if (kept_.size() < limit_) {
      kept_.push_back({key, make()});
      std::push_heap(kept_.begin(), kept_.end(), by_key);  // the last kept row on top
      return;
    }
    if (!(key < kept_.front().first)) return;
    std::pop_heap(kept_.begin(), kept_.end(), by_key);
    kept_.back() = {key, make()};
    std::push_heap(kept_.begin(), kept_.end(), by_key);
  }

  uint64_t seen() const { return seen_; }

  // The kept rows in order (the object is empty after).
  std::vector<Row> take() {
    std::sort(kept_.begin(), kept_.end(), by_key);
    std::vector<Row> out;
    out.reserve(kept_.size());
    for (auto& k : kept_) out.push_back(std::move(k.second));
    kept_.clear();
    return out;
  }

 private:
  using Key = std::tuple<int64_t, int64_t, uint64_t>;
  static bool by_key(const std::pair<Key, Row>& x, const std::pair<Key, Row>& y) {
    return x.first < y.first;
  }
  size_t limit_;
  uint64_t seen_ = 0;
  std::vector<std::pair<Key, Row>> kept_;
};

}  // namespace ks
