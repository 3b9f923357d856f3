#include "analysis/iterations.h"

#include <algorithm>
#include <unordered_map>

namespace ks {

namespace {

// One GPU op in launch order: the op, and the slice whose times say when the CPU asked for it
// (its launch call; the op itself when the sequence is a stream's). 8 bytes, as a capture can
// hold millions of ops.
struct Token {
  uint32_t op = 0, at = 0;
};

// The sequence and the slices it indexes.
struct Sequence {
  const SliceTable& s;
  std::vector<Token> tk;
  size_t size() const { return tk.size(); }
  StringId name(size_t i) const { return s.name[tk[i].op]; }
  int64_t host_begin(size_t i) const { return s.ts[tk[i].at]; }
  int64_t host_end(size_t i) const { return s.end(tk[i].at); }
  int64_t gpu_end(size_t i) const { return s.end(tk[i].op); }
  // The CPU's gap before op i: from the previous launch call's end to this one's start.
  int64_t gap_before(size_t i) const { return host_begin(i) - host_end(i - 1); }
};

// The track with the most ops, and how many.
TrackId busiest(const std::vector<uint32_t>& per_track, uint32_t* n) {
  TrackId best = 0;
  *n = 0;
  for (size_t k = 0; k < per_track.size(); ++k)
    if (per_track[k] > *n) best = static_cast<TrackId>(k), *n = per_track[k];
  return best;
}

// The ops the thread with the most launches launched, in launch order; without launches (no
// correlation in the trace) the ops of the busiest stream, in start order.
Sequence launch_sequence(const Trace& t, const LaunchJoin& join, bool* from_launches) {
  const SliceTable& s = t.slices;
  std::vector<uint32_t> per_thread(t.tracks.size()), per_stream(t.tracks.size());
  for (uint32_t g : join.gpu_ops_by_ts) {
    if (!is_gpu_op(s.kind[g]) || s.track[g] >= t.tracks.size()) continue;
    ++per_stream[s.track[g]];
    const int32_t l = join.partner[g];
    if (l >= 0 && s.track[static_cast<uint32_t>(l)] < t.tracks.size())
      ++per_thread[s.track[static_cast<uint32_t>(l)]];
  }
  uint32_t launched = 0, on_stream = 0;
  const TrackId thread = busiest(per_thread, &launched);
  const TrackId stream = busiest(per_stream, &on_stream);
  // Launches name the program's order; a stream's order is the GPU's, which is the same for one
  // stream but interleaves for several. Launches win when they cover most of the ops.
  *from_launches = launched > 0 && launched * 2 >= on_stream;
  Sequence q{s, {}};
  q.tk.reserve(*from_launches ? launched : on_stream);
  for (uint32_t g : join.gpu_ops_by_ts) {
    if (!is_gpu_op(s.kind[g])) continue;
    const int32_t l = join.partner[g];
    if (*from_launches) {
      if (l >= 0 && s.track[static_cast<uint32_t>(l)] == thread)
        q.tk.push_back({g, static_cast<uint32_t>(l)});
    } else if (s.track[g] == stream) {
      q.tk.push_back({g, g});
    }
  }
  // gpu_ops_by_ts is in GPU order; the launch order can differ across streams.
  if (*from_launches)
    std::stable_sort(q.tk.begin(), q.tk.end(),
                     [&s](const Token& a, const Token& b) { return s.ts[a.at] < s.ts[b.at]; });
  return q;
}

// The share of positions from `from` on whose op differs from the op one period later, over at
// most 8192 positions spread evenly (exact for shorter sequences).
double mismatch(const Sequence& q, size_t period, size_t from = 0) {
  const size_t n = q.size() - period - from;
  const size_t samples = std::min<size_t>(n, 8192);
  if (samples == 0) return 0;
  size_t differ = 0;
  for (size_t k = 0; k < samples; ++k) {
    const size_t i = from + k * n / samples;
    if (q.name(i) != q.name(i + period)) ++differ;
  }
  return static_cast<double>(differ) / static_cast<double>(samples);
}

// The periods worth testing: distances between consecutive launches of one name, the most
// frequent first (every op launched once per iteration votes for the true period).
std::vector<size_t> candidate_periods(const Sequence& q, size_t max_period) {
  std::unordered_map<StringId, size_t> last;
  std::vector<uint32_t> votes(max_period + 1);
  for (size_t i = 0; i < q.size(); ++i) {
    auto [it, fresh] = last.emplace(q.name(i), i);
    if (fresh) continue;
    const size_t d = i - it->second;
    if (d <= max_period) ++votes[d];
    it->second = i;
  }
  std::vector<std::pair<uint32_t, size_t>> ranked;
  for (size_t d = 1; d < votes.size(); ++d)
    if (votes[d] >= 2) ranked.emplace_back(votes[d], d);
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  if (ranked.size() > 256) ranked.resize(256);
  std::vector<size_t> out;
  for (const auto& r : ranked) out.push_back(r.second);
  return out;
}

// The phase: the offset whose launches follow the longest median CPU gap over the iterations;
// *median_gap gets that median.
size_t phase_of(const Sequence& q, size_t period, int64_t* median_gap) {
  size_t best = 0;
  int64_t best_gap = INT64_MIN;
  std::vector<int64_t> gaps;
  for (size_t s = 0; s < period; ++s) {
    gaps.clear();
    for (size_t i = s == 0 ? period : s; i < q.size(); i += period) gaps.push_back(q.gap_before(i));
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
  const Sequence q = launch_sequence(t, join, &r.from_launches);
  r.total_ops = static_cast<uint32_t>(q.size());
  constexpr size_t kMinIterations = 3;
  constexpr double kMaxMismatch = 0.10;
  if (q.size() < 2 * kMinIterations) return r;
  const size_t max_period = q.size() / kMinIterations;
  std::vector<std::pair<size_t, double>> tried;
  double best = 1;
  for (size_t p : candidate_periods(q, max_period)) {
    const double m = mismatch(q, p);
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
  const size_t first = phase_of(q, period, &boundary_gap);
  // A loop's iterations are separated by the program's own work between them (the next batch,
  // the optimizer's bookkeeping, logging, a sync), so the CPU pauses there far longer than
  // between two ops of the model; the layers of one forward pass are launched back to back. On
  // the shared traces the boundary gap was 28x to 500,000x the median gap for iterations, and
  // 2.4x to 6x for layers taken for iterations. The typical gap: the median over at most 65536
  // positions spread evenly (exact for shorter sequences), at least 1 us.
  std::vector<int64_t> gaps;
  const size_t n = q.size() - 1, samples = std::min<size_t>(n, 65536);
  for (size_t k = 0; k < samples; ++k) gaps.push_back(q.gap_before(1 + k * n / samples));
  std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
  constexpr int64_t kMinTypicalGapNs = 1000, kBoundaryRatio = 10;
  const int64_t typical = std::max(gaps[gaps.size() / 2], kMinTypicalGapNs);
  if (boundary_gap / kBoundaryRatio < typical) return r;  // divided: no overflow
  if ((q.size() - first) / period < kMinIterations) return r;
  r.found = true;
  r.period_ops = static_cast<uint32_t>(period);
  r.first_op = static_cast<uint32_t>(first);
  // Over the iterations only: a warm-up prefix is not the loop's.
  r.match_pct = (1 - mismatch(q, period, first)) * 100;
  int64_t prev_end = INT64_MIN;
  // As ProfilerStep#N, which starts at prof.step() before the next batch is fetched: the CPU's
  // work between iterations belongs to the iteration it leads to, from the previous launch on.
  // The trace's very first op has no previous launch, so an iteration starting there would lack
  // that work (a data-loading pause made such a first iteration 4x shorter than the others): it
  // is left out, as a partial one.
  const size_t start = first == 0 ? period : first;
  if (first == 0)  // the left-out iteration still ends where it ends
    for (size_t i = 0; i < period; ++i)
      prev_end = std::max({prev_end, q.host_end(i), q.gpu_end(i)});
  for (size_t b = start; b + period <= q.size(); b += period) {
    Iteration it;
    it.host_begin = q.host_end(b - 1);
    it.host_end = q.host_end(b + period - 1);
    int64_t gpu_end = INT64_MIN;
    for (size_t i = b; i < b + period; ++i) gpu_end = std::max(gpu_end, q.gpu_end(i));
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

std::vector<Iteration> loop_windows(const StepsResult& steps, const IterationsResult& iterations,
                                    bool* inferred) {
  *inferred = steps.steps.empty() && !iterations.iterations.empty();
  if (*inferred) return iterations.iterations;
  std::vector<Iteration> w;
  for (const Step& st : steps.steps) w.push_back({st.host_begin, st.host_end, st.begin, st.end});
  return w;
}

}  // namespace ks
