#include "analysis/step_ranges.h"

#include <algorithm>
#include <unordered_map>

namespace ks {

std::vector<NamedNs> step_range_times(const Trace& t, const StepsResult& steps, size_t keep) {
  const SliceTable& s = t.slices;
  std::unordered_map<StringId, int64_t> by_name;
  int64_t outside = 0;
  for (const Step& st : steps.steps) {
    const uint32_t p = st.slice;
    if (p >= s.size()) continue;
    // Slices are sorted by (track, ts): the step's descendants follow it on its track.
    int64_t covered = 0;
    for (uint32_t j = p + 1; j < s.size() && s.track[j] == s.track[p] && s.ts[j] < s.end(p); ++j) {
      if (s.parent[j] != static_cast<int32_t>(p)) continue;
      // A child that outlasts its step (overlaps kept on an extra row) counts inside it only.
      const int64_t d = std::min(s.end(j), s.end(p)) - s.ts[j];
      by_name[s.name[j]] += d;
      covered += d;
    }
    outside += std::max<int64_t>(0, s.dur[p] - covered);
  }
  std::vector<NamedNs> out;
  out.reserve(by_name.size() + 1);
  for (const auto& kv : by_name) out.push_back({std::string(t.str(kv.first)), kv.second});
  if (!steps.steps.empty()) out.push_back({kOutsideAnyOp, outside});
  std::sort(out.begin(), out.end(), [](const NamedNs& a, const NamedNs& b) {
    return a.ns != b.ns ? a.ns > b.ns : a.name < b.name;
  });
  if (out.size() > keep) out.resize(keep);
  return out;
}

int64_t named_ns(const std::vector<NamedNs>& list, const std::string& name) {
  for (const NamedNs& x : list)
    if (x.name == name) return x.ns;
  return 0;
}

}  // namespace ks
