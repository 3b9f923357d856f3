// A max-tree over one row's slice durations, built on blocks of kBlock slices so it costs a
// few bytes per slice instead of a full segment tree: answers "the first slice at or after `from`
// (and before `to`) whose duration is at least `threshold`" in O(kBlock + log n). The LOD query
// uses it to find where a run of sub-pixel slices ends without visiting each of them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ks::timeline_query {

class BlockMaxTree {
 public:
  static constexpr size_t kBlock = 16;

  BlockMaxTree() = default;
  // `values` must outlive the tree (the row owns both).
  explicit BlockMaxTree(const std::vector<int64_t>* values);

  // The smallest index i in [from, to) with values[i] >= threshold, or `to` when none.
  size_t first_at_least(size_t from, size_t to, int64_t threshold) const;
  size_t memory_bytes() const { return tree_.capacity() * sizeof(int64_t); }

 private:
  // First block index b in [lo, hi) whose maximum is >= threshold, or hi.
  size_t first_block(size_t lo, size_t hi, int64_t threshold) const;
  size_t scan(size_t from, size_t to, int64_t threshold) const;

  const std::vector<int64_t>* values_ = nullptr;
  size_t leaves_ = 0;          // power of two >= number of blocks
  std::vector<int64_t> tree_;  // implicit binary tree, root at 1, leaves at [leaves_, 2*leaves_)
};

}  // namespace ks::timeline_query
