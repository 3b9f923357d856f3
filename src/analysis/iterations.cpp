#include "analysis/iterations.h"

#include <algorithm>
#include <unordered_map>

namespace ks {

namespace {

// One GPU op in launch order: its name and when the CPU asked for it (the launch call), and when
// it finished on the GPU.
struct Token {
  StringId name = 0;
  int64_t host_begin = 0, host_end = 0, gpu_end = 0;
};

// The ops the thread with the most launches launched, in launch order; without launches (no
// correlation in the trace) the ops of the busiest stream, in start order.
std::vector<Token> launch_sequence(const Trace& t, const LaunchJoin& join, bool* from_launches) {
  const SliceTable& s = t.slices;
  std::unordered_map<TrackId, uint32_t> per_thread, per_stream;
  for (uint32_t g : join.gpu_ops_by_ts) {
    if (!is_gpu_op(s.kind[g])) continue;
    ++per_stream[s.track[g]];
    if (join.partner[g] >= 0) ++per_thread[s.track[static_cast<uint32_t>(join.partner[g])]];
  }
  auto busiest = [](const std::unordered_map<TrackId, uint32_t>& m, uint32_t* n) {
    TrackId best = 0;
    *n = 0;
    for (const auto& kv : m)
      if (kv.second > *n || (kv.second == *n && kv.first < best)) best = kv.first, *n = kv.second;
    return best;
  };
  uint32_t launched = 0, on_stream = 0;
  const TrackId thread = busiest(per_thread, &launched);
  const TrackId stream = busiest(per_stream, &on_stream);
  // Launches name the program's order; a stream's order is the GPU's, which is the same for one
  // stream but interleaves for several. Launches win when they cover most of the ops.
  *from_launches = launched > 0 && launched * 2 >= on_stream;
  std::vector<Token> out;
  for (uint32_t g : join.gpu_ops_by_ts) {
    if (!is_gpu_op(s.kind[g])) continue;
    const int32_t l = join.partner[g];
    Token k;
    k.name = s.name[g];
    k.gpu_end = s.end(g);
    if (*from_launches) {
      if (l < 0 || s.track[static_cast<uint32_t>(l)] != thread) continue;
      k.host_begin = s.ts[static_cast<uint32_t>(l)];
      k.host_end = s.end(static_cast<uint32_t>(l));
    } else {
      if (s.track[g] != stream) continue;
      k.host_begin = s.ts[g];
      k.host_end = s.end(g);
    }
    out.push_back(k);
  }
  // gpu_ops_by_ts is in GPU order; the launch order can differ across streams.
  if (*from_launches)
    std::stable_sort(out.begin(), out.end(),
                     [](const Token& a, const Token& b) { return a.host_begin < b.host_begin; });
  return out;
}

// The share of positions from `from` on whose op differs from the op one period later, over at
// most 8192 positions spread evenly (exact for shorter sequences).
double mismatch(const std::vector<Token>& tk, size_t period, size_t from = 0) {
  const size_t n = tk.size() - period - from;
  const size_t samples = std::min<size_t>(n, 8192);
  if (samples == 0) return 0;
  size_t differ = 0;
  for (size_t k = 0; k < samples; ++k) {
    const size_t i = from + k * n / samples;
    if (tk[i].name != tk[i + period].name) ++differ;
  }
  return static_cast<double>(differ) / static_cast<double>(samples);
}

// The periods worth testing: distances between consecutive launches of one name, the most
// frequent first (every op launched once per iteration votes for the true period).
std::vector<size_t> candidate_periods(const std::vector<Token>& tk, size_t max_period) {
  std::unordered_map<StringId, size_t> last;
  std::unordered_map<size_t, uint32_t> votes;
  for (size_t i = 0; i < tk.size(); ++i) {
    auto it = last.find(tk[i].name);
    if (it != last.end()) {
      const size_t d = i - it->second;
      if (d <= max_period) ++votes[d];
      it->second = i;
    } else {
      last.emplace(tk[i].name, i);
    }
  }
  std::vector<std::pair<uint32_t, size_t>> ranked;
  for (const auto& kv : votes)
    if (kv.second >= 2) ranked.emplace_back(kv.second, kv.first);
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  if (ranked.size() > 256) ranked.resize(256);
  std::vector<size_t> out;
  for (const auto& r : ranked) out.push_back(r.second);
  return out;
}

// The CPU's gap before each op: from the previous launch call's end to this one's start.
int64_t gap_before(const std::vector<Token>& tk, size_t i) {
  return tk[i].host_begin - tk[i - 1].host_end;
}

// The phase: the offset whose launches follow the longest median CPU gap over the iterations;
// *median_gap gets that median.
size_t phase_of(const std::vector<Token>& tk, size_t period, int64_t* median_gap) {
  size_t best = 0;
  int64_t best_gap = INT64_MIN;
  std::vector<int64_t> gaps;
  for (size_t s = 0; s < period; ++s) {
    gaps.clear();
    for (size_t i = s == 0 ? period : s; i < tk.size(); i += period)
      gaps.push_back(gap_before(tk, i));
    if (gaps.empty()) continue;
    std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
    const int64_t median = gaps[gaps.size() / 2];
    if (median > best_gap) best_gap = median, best = s;
  }
  *median_gap = best_gap;
  return best;
}

}  // namespace

IterationsResult infer_iterations(const Trace& t, const LaunchJoin& join) {
  IterationsResult r;
  const std::vector<Token> tk = launch_sequence(t, join, &r.from_launches);
  r.total_ops = static_cast<uint32_t>(tk.size());
  constexpr size_t kMinIterations = 3;
  constexpr double kMaxMismatch = 0.10;
  if (tk.size() < 2 * kMinIterations) return r;
  const size_t max_period = tk.size() / kMinIterations;
  std::vector<std::pair<size_t, double>> tried;
  double best = 1;
  for (size_t p : candidate_periods(tk, max_period)) {
    const double m = mismatch(tk, p);
    tried.emplace_back(p, m);
    best = std::min(best, m);
  }
  if (best > kMaxMismatch) return r;
  // A multiple of the true period matches about as well as the period itself; a layer's period
  // (a divisor) matches clearly worse. The smallest period within the tolerance wins.
  const double tolerance = best * 1.25 + 0.002;
  size_t period = 0;
  for (const auto& pm : tried)
    if (pm.second <= tolerance && (period == 0 || pm.first < period)) period = pm.first;
  int64_t boundary_gap = 0;
  const size_t first = phase_of(tk, period, &boundary_gap);
  // A loop's iterations are separated by the program's own work between them (the next batch,
  // the optimizer's bookkeeping, logging, a sync), so the CPU pauses there far longer than
  // between two ops of the model; the layers of one forward pass are launched back to back. On
  // the shared traces the boundary gap was 28x to 500,000x the median gap for iterations, and
  // 2.4x to 6x for layers taken for iterations.
  std::vector<int64_t> gaps;
  for (size_t i = 1; i < tk.size(); ++i) gaps.push_back(gap_before(tk, i));
  std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
  constexpr int64_t kMinTypicalGapNs = 1000;
  if (boundary_gap < 10 * std::max(gaps[gaps.size() / 2], kMinTypicalGapNs)) return r;
  if ((tk.size() - first) / period < kMinIterations) return r;
  r.found = true;
  r.period_ops = static_cast<uint32_t>(period);
  r.first_op = static_cast<uint32_t>(first);
  // Over the iterations only: a warm-up prefix is not the loop's.
  r.match_pct = (1 - mismatch(tk, period, first)) * 100;
  int64_t prev_end = INT64_MIN;
  // As ProfilerStep#N, which starts at prof.step() before the next batch is fetched: the CPU's
  // work between iterations belongs to the iteration it leads to, from the previous launch on.
  // The trace's very first op has no previous launch, so an iteration starting there would lack
  // that work (a data-loading pause made such a first iteration 4x shorter than the others): it
  // is left out, as a partial one.
  const size_t start = first == 0 ? period : first;
  if (first == 0)  // the left-out iteration still ends where it ends
    for (size_t i = 0; i < period; ++i)
      prev_end = std::max({prev_end, tk[i].host_end, tk[i].gpu_end});
  for (size_t b = start; b + period <= tk.size(); b += period) {
    Iteration it;
    it.host_begin = tk[b - 1].host_end;
    it.host_end = tk[b + period - 1].host_end;
    int64_t gpu_end = INT64_MIN;
    for (size_t i = b; i < b + period; ++i) gpu_end = std::max(gpu_end, tk[i].gpu_end);
    // As steps' device-adjusted bounds (src/analysis/steps.cpp): an iteration ends when its
    // last GPU op does, and starts no earlier than the previous one ended.
    it.begin = std::max(prev_end, it.host_begin);
    it.end = std::max({it.host_end, gpu_end, it.begin});
    prev_end = it.end;
    r.iterations.push_back(it);
  }
  std::vector<int64_t> durs;
  for (const Iteration& it : r.iterations) durs.push_back(it.dur());
  r.stats = compute_duration_stats(durs);
  if (r.stats.median_ns > 0)
    r.spread_pct = static_cast<double>(r.stats.max_ns - r.stats.min_ns) / r.stats.median_ns * 100;
  if (r.stats.count > 1 && r.stats.avg_ns > 0) r.cv_pct = r.stats.stddev_ns / r.stats.avg_ns * 100;
  return r;
}

}  // namespace ks
