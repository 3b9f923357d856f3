// Sorting data that arrives as a few sorted runs: values gathered track by track from the model,
// whose slices are sorted per track. Merging the runs pairwise costs O(n log runs) instead of a
// sort's O(n log n); with many short runs it falls back to std::sort. Equal elements may end in
// any order, as with std::sort: use it where equal elements are interchangeable or the
// comparison is total (ties broken by index).
#pragma once
#include <algorithm>
#include <cstddef>
#include <vector>

namespace ks {

template <typename T, typename Less>
void sort_runs(std::vector<T>* v, Less less) {
  std::vector<size_t> starts = {0};
  for (size_t i = 1; i < v->size(); ++i)
    if (less((*v)[i], (*v)[i - 1])) starts.push_back(i);
  if (starts.size() > 64) {  // many short runs: nothing to gain
    std::sort(v->begin(), v->end(), less);
    return;
  }
  starts.push_back(v->size());
  while (starts.size() > 2) {
    std::vector<size_t> next;
    for (size_t r = 0; r + 2 < starts.size(); r += 2) {
      std::inplace_merge(v->begin() + starts[r], v->begin() + starts[r + 1],
                         v->begin() + starts[r + 2], less);
      next.push_back(starts[r]);
    }
    if (starts.size() % 2 == 0) next.push_back(starts[starts.size() - 2]);
    next.push_back(v->size());
    starts.swap(next);
  }
}

}  // namespace ks
