// Range minimum and maximum over a counter series' values, on blocks of kBlock samples (a
// segment tree over block summaries plus a scan of the partial blocks at both ends), so a
// zoomed-out counter track costs O(pixels x (kBlock + log n)) instead of O(samples).
#pragma once
#include <cstddef>
#include <vector>

namespace ks::timeline_query {

class BlockMinMax {
 public:
  static constexpr size_t kBlock = 16;

  BlockMinMax() = default;
  explicit BlockMinMax(const std::vector<double>* values);  // must outlive the tree

  // Min and max over values[from, to); to > from.
  void query(size_t from, size_t to, double* min, double* max) const;
  size_t memory_bytes() const { return (min_.capacity() + max_.capacity()) * sizeof(double); }

 private:
  const std::vector<double>* values_ = nullptr;
  size_t leaves_ = 0;
  std::vector<double> min_, max_;  // implicit trees over blocks, root at 1
};

}  // namespace ks::timeline_query
