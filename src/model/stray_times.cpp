#include "model/stray_times.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace ks {
namespace {

// b - a for b >= a, whatever the two are: times are anything a file held, and their difference
// can be past int64.
uint64_t apart(int64_t a, int64_t b) {
  return static_cast<uint64_t>(b) - static_cast<uint64_t>(a);
}

// A run of times with no gap over kStrayGapNs inside it.
struct Group {
  uint64_t count = 0;
  int64_t lo = 0;
  int64_t hi = 0;
};

// The times in buckets of half the gap from the earliest: two times more than a gap apart have
// an empty bucket between them, so only neighbouring buckets can be in one group.
class Buckets {
 public:
  explicit Buckets(int64_t origin) : origin_(origin) {}
  void add(int64_t t) {
    const uint64_t id = apart(origin_, t) / static_cast<uint64_t>(kStrayGapNs / 2);
    // Consecutive times fall in one bucket nearly always: a hash lookup per bucket change.
    if (!last_ || last_id_ != id) {
      auto it = map_.find(id);
      if (it == map_.end()) it = map_.emplace(id, Group{0, t, t}).first;
      last_ = &it->second;
      last_id_ = id;
    }
    ++last_->count;
    last_->lo = std::min(last_->lo, t);
    last_->hi = std::max(last_->hi, t);
  }
  // The groups, in time order.
  std::vector<Group> groups() const {
    std::vector<std::pair<uint64_t, Group>> sorted(map_.begin(), map_.end());
    std::sort(sorted.begin(), sorted.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<Group> out;
    for (const auto& kv : sorted) {
      const Group& b = kv.second;
      if (out.empty() || apart(out.back().hi, b.lo) > static_cast<uint64_t>(kStrayGapNs))
        out.push_back({0, b.lo, b.hi});
      Group& g = out.back();
      g.count += b.count;
      g.lo = std::min(g.lo, b.lo);
      g.hi = std::max(g.hi, b.hi);
    }
    return out;
  }

 private:
  int64_t origin_;
  std::unordered_map<uint64_t, Group> map_;
  Group* last_ = nullptr;
  uint64_t last_id_ = 0;
};

template <typename Fn>
void each_time(const Trace& t, Fn fn) {
  const SliceTable& s = t.slices;
  for (size_t i = 0; i < s.size(); ++i) {
    fn(s.ts[i]);
    if (s.dur[i] > 0) fn(s.ts[i] + s.dur[i]);
  }
  for (int64_t x : t.instants.ts) fn(x);
  for (int64_t x : t.counters.ts) fn(x);
  for (int64_t x : t.flows.ts) fn(x);
}

}  // namespace

KeptTimes find_stray_times(const Trace& t) {
  KeptTimes kept;
  const TraceFacts& f = t.facts;
  kept.lo = f.start_ns;
  kept.hi = f.end_ns;
  // Nearly every trace: its times span less than a gap, so none can stand apart.
  if (f.end_ns <= f.start_ns || apart(f.start_ns, f.end_ns) <= static_cast<uint64_t>(kStrayGapNs))
    return kept;
  int64_t origin = f.start_ns;
  each_time(t, [&origin](int64_t x) { origin = std::min(origin, x); });
  Buckets buckets(origin);
  each_time(t, [&buckets](int64_t x) { buckets.add(x); });
  const std::vector<Group> groups = buckets.groups();
  if (groups.size() < 2) return kept;
  size_t body = 0;
  uint64_t total = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    total += groups[g].count;
    if (groups[g].count > groups[body].count) body = g;
  }
  // How far from the bulk a group must lie to be stray: a gap, or 100x the bulk's own span.
  const uint64_t span = apart(groups[body].lo, groups[body].hi);
  const uint64_t far =
      std::max(static_cast<uint64_t>(kStrayGapNs),
               span > UINT64_MAX / kStrayBodyMultiple ? UINT64_MAX : span * kStrayBodyMultiple);
  // Outward from the bulk on each side: the first group that far, and all beyond it, are stray.
  size_t first = body, last = body;
  while (first > 0 && apart(groups[first - 1].hi, groups[body].lo) <= far) --first;
  while (last + 1 < groups.size() && apart(groups[body].hi, groups[last + 1].lo) <= far) ++last;
  uint64_t stray = 0;
  for (size_t g = 0; g < groups.size(); ++g)
    if (g < first || g > last) stray += groups[g].count;
  if (stray == 0) return kept;
  if (static_cast<double>(stray) > kStrayShare * static_cast<double>(total)) {
    kept.far_groups = groups.size();
    for (size_t g = 1; g < groups.size(); ++g)
      kept.widest_gap_ns = std::max(kept.widest_gap_ns, apart(groups[g - 1].hi, groups[g].lo));
    return kept;
  }
  kept.any_stray = true;
  kept.lo = groups[first].lo;
  kept.hi = groups[last].hi;
  return kept;
}

}  // namespace ks
