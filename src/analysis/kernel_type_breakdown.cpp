#include "analysis/kernel_type_breakdown.h"

#include <algorithm>

#include "util/sort_runs.h"

namespace ks {

namespace {

// HTA's bit order: COMPUTATION = 1, COMMUNICATION = 2, MEMORY = 4; a label lists the types
// running, in that order, joined by " overlapping ".
std::string label_of(unsigned mask) {
  static const char* const kNames[] = {"computation", "communication", "memory"};
  std::string out;
  for (unsigned b = 0; b < 3; ++b) {
    if (!(mask & (1u << b))) continue;
    if (!out.empty()) out += " overlapping ";
    out += kNames[b];
  }
  return out;
}

struct Edge {
  int64_t t;
  int bit;  // +bit at a start, -bit at an end
};

}  // namespace

KernelTypeBreakdown compute_kernel_type_breakdown(const GpuIntervals& g) {
  KernelTypeBreakdown r;
  std::vector<Edge> edges;
  const std::vector<Interval>* sets[] = {&g.computation, &g.communication, &g.memory};
  // Reserved exactly: grown by doubling, the copy made this the peak of a report's memory on
  // traces of many tiny kernels.
  edges.reserve(2 * (g.computation.size() + g.communication.size() + g.memory.size()));
  for (int b = 0; b < 3; ++b) {
    for (const Interval& iv : *sets[b]) {
      edges.push_back({iv.begin, 1 << b});
      edges.push_back({iv.end, -(1 << b)});
    }
  }
  // Each set is sorted and disjoint, so its edges are one sorted run (but for zero-length
  // intervals): three runs merged instead of a sort. Equal edges are identical values.
  sort_runs(&edges, [](const Edge& a, const Edge& b) {
    return a.t != b.t ? a.t < b.t : a.bit < b.bit;  // ends first: zero-length stretches only
  });
  int64_t by_mask[8] = {0};
  int mask = 0;
  for (size_t i = 0; i < edges.size(); ++i) {
    mask += edges[i].bit;
    if (i + 1 < edges.size() && mask > 0) by_mask[mask] += edges[i + 1].t - edges[i].t;
  }
  for (unsigned m = 1; m < 8; ++m) {
    if (by_mask[m] <= 0) continue;
    r.rows.push_back({label_of(m), by_mask[m], 0});
    r.total_ns += by_mask[m];
  }
  for (KernelTypeRow& row : r.rows)
    row.percent = 100.0 * static_cast<double>(row.ns) / static_cast<double>(r.total_ns);
  std::sort(r.rows.begin(), r.rows.end(), [](const KernelTypeRow& a, const KernelTypeRow& b) {
    return a.ns != b.ns ? a.ns > b.ns : a.label < b.label;
  });
  return r;
}

}  // namespace ks
