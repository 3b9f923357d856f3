#include "analysis/steps.h"

#include <algorithm>
#include <map>

namespace ks {

bool parse_profiler_step(std::string_view name, int64_t* number) {
  static constexpr std::string_view kPrefix = "ProfilerStep#";
  if (name.substr(0, kPrefix.size()) != kPrefix || name.size() == kPrefix.size()) return false;
  int64_t n = 0;
  for (char c : name.substr(kPrefix.size())) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + (c - '0');
  }
  *number = n;
  return true;
}

StepsResult find_steps(const Trace& t, const LaunchJoin& join, bool drop_last) {
  const SliceTable& s = t.slices;
  StepsResult r;
  // One marker per step number: the longest host-side slice (some traces repeat it per thread).
  std::map<int64_t, uint32_t> by_number;
  for (uint32_t i = 0; i < s.size(); ++i) {
    if (is_gpu_side(s.kind[i])) continue;
    int64_t n;
    if (!parse_profiler_step(t.str(s.name[i]), &n)) continue;
    auto it = by_number.find(n);
    if (it == by_number.end() || s.dur[i] > s.dur[it->second]) by_number[n] = i;
  }
  for (const auto& kv : by_number) {
    Step st;
    st.number = kv.first;
    st.slice = kv.second;
    st.host_begin = s.ts[kv.second];
    st.host_end = s.end(kv.second);
    r.steps.push_back(st);
  }
  std::sort(r.steps.begin(), r.steps.end(),
            [](const Step& a, const Step& b) { return a.host_begin < b.host_begin; });
  r.found = r.steps.size();
  // Device-adjusted bounds: walk the runtime calls (sorted by ts) inside each host step.
  const auto& rt = join.runtime_by_ts;
  int64_t prev_end = INT64_MIN;
  for (Step& st : r.steps) {
    auto lo = std::lower_bound(rt.begin(), rt.end(), st.host_begin,
                               [&s](uint32_t i, int64_t ts) { return s.ts[i] < ts; });
    int64_t gpu_end = INT64_MIN;
    for (auto it = lo; it != rt.end() && s.ts[*it] <= st.host_end; ++it) {
      // As the TB plugin (_find_device_steps): only calls wholly inside the host step. A call
      // that starts where the step ends belongs to the next step (steps are contiguous), and
      // counting it here stretched this step to the next step's GPU work.
      if (s.end(*it) > st.host_end) continue;
      int32_t g = join.partner[*it];
      if (g >= 0) gpu_end = std::max(gpu_end, s.end(static_cast<uint32_t>(g)));
    }
    st.begin = std::max(prev_end, st.host_begin);
    st.end = std::max(st.host_end, gpu_end);
    // As the TB plugin (_update_steps_duration): a step whose start was pushed past its end by
    // the previous step's GPU work is empty, never negative.
    st.end = std::max(st.end, st.begin);
    prev_end = st.end;
  }
  if (!r.steps.empty()) {
    r.last_host_begin = r.steps.back().host_begin;
    r.last_host_end = r.steps.back().host_end;
  }
  // As HTA: with a single step there is nothing to compare it with, so it is kept.
  if (drop_last && r.steps.size() >= 2) {
    r.steps.pop_back();
    r.dropped_last = true;
  }
  std::vector<int64_t> durs;
  for (const Step& st : r.steps) durs.push_back(st.dur());
  r.stats = compute_duration_stats(durs);
  if (r.stats.count > 0 && r.stats.median_ns > 0) {
    r.spread_pct = static_cast<double>(r.stats.max_ns - r.stats.min_ns) / r.stats.median_ns * 100;
  }
  if (r.stats.count > 1 && r.stats.avg_ns > 0) r.cv_pct = r.stats.stddev_ns / r.stats.avg_ns * 100;
  return r;
}

}  // namespace ks
