#include "timeline_query/block_max.h"

#include <algorithm>
#include <climits>

namespace ks::timeline_query {

BlockMaxTree::BlockMaxTree(const std::vector<int64_t>* values) : values_(values) {
  const size_t n = values->size();
  const size_t blocks = (n + kBlock - 1) / kBlock;
  leaves_ = 1;
  while (leaves_ < blocks) leaves_ *= 2;
  tree_.assign(2 * leaves_, INT64_MIN);
  for (size_t i = 0; i < n; ++i) {
    int64_t& leaf = tree_[leaves_ + i / kBlock];
    leaf = std::max(leaf, (*values)[i]);
  }
  for (size_t k = leaves_ - 1; k >= 1; --k) tree_[k] = std::max(tree_[2 * k], tree_[2 * k + 1]);
}

size_t BlockMaxTree::scan(size_t from, size_t to, int64_t threshold) const {
  const std::vector<int64_t>& v = *values_;
  for (size_t i = from; i < to; ++i)
    if (v[i] >= threshold) return i;
  return to;
}

// Walks up from the leaf of `lo` while the answer cannot be in the current subtree's right
// part, then down to the leftmost qualifying leaf: the usual O(log n) segment-tree search.
size_t BlockMaxTree::first_block(size_t lo, size_t hi, int64_t threshold) const {
  if (lo >= hi) return hi;
  size_t k = leaves_ + lo;
  // Up: find the first subtree, starting at lo and moving right, that holds a qualifying leaf.
  for (;;) {
    if (tree_[k] >= threshold) break;
    // Move to the next subtree to the right at this level (climbing while k is a right child).
    while (k & 1) {
      k >>= 1;
      if (k <= 1) return hi;
    }
    ++k;
  }
  // Down: the leftmost qualifying leaf below k.
  while (k < leaves_) k = tree_[2 * k] >= threshold ? 2 * k : 2 * k + 1;
  size_t b = k - leaves_;
  return b < hi ? b : hi;
}

size_t BlockMaxTree::first_at_least(size_t from, size_t to, int64_t threshold) const {
  if (from >= to) return to;
  const size_t first_block_end = std::min(to, (from / kBlock + 1) * kBlock);
  size_t i = scan(from, first_block_end, threshold);
  if (i < first_block_end || first_block_end == to) return i;
  const size_t last_block = (to - 1) / kBlock;  // may be partial
  size_t b = first_block(from / kBlock + 1, last_block + 1, threshold);
  if (b > last_block) return to;
  // A block before the last is whole, so it holds the answer; the last may qualify only
  // through slices at or past `to`.
  const size_t end = std::min(to, (b + 1) * kBlock);
  const size_t r = scan(b * kBlock, end, threshold);
  return r < end ? r : to;
}

}  // namespace ks::timeline_query
