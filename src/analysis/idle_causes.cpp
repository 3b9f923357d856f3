#include "analysis/idle_causes.h"

#include <algorithm>
#include <climits>

#include "analysis/gpu_op_summary.h"
#include "analysis/idle_breakdown.h"
#include "analysis/name_cache.h"
#include "analysis/step_breakdown.h"
#include "analysis/sync_events.h"
#include "analysis/sync_names.h"

namespace ks {

const char* gap_cause_name(GapCause c) {
  switch (c) {
    case GapCause::kDataLoader:
      return "dataloader";
    case GapCause::kSync:
      return "sync";
    case GapCause::kHostWait:
      return "host_wait";
    case GapCause::kOther:
      return "other";
  }
  return "other";
}

namespace {
// A refill gap is one launch the GPU waits for; a longer wait after a sync is the CPU doing
// other work (host wait), not the sync.
constexpr int64_t kRefillGapNs = 1000000;
}  // namespace

IdleCauses compute_idle_causes(const Trace& t, const LaunchJoin& join, const StepsResult& steps,
                               const GpuIdleResult& idle) {
  const SliceTable& s = t.slices;
  IdleCauses r;
  // idle.busy is empty when every GPU op lasts 0 ns (tests/fuzz/regressions/
  // zero_length_kernels_only.json): busy.front() below would crash.
  if (!idle.has_gpu_ops || idle.busy.empty()) return r;
  std::vector<Interval> loader;
  auto is_loader =
      make_name_cache(t, [](std::string_view n) { return is_dataloader_range(n) ? 1 : 0; });
  for (uint32_t i = 0; i < s.size(); ++i)
    if ((s.kind[i] == SliceKind::kUserAnnotation || s.kind[i] == SliceKind::kCpuOp) &&
        is_loader(s.name[i]))
      loader.push_back({s.ts[i], s.end(i)});
  loader = merge_intervals(std::move(loader));
  std::vector<uint32_t> syncs;  // sync calls by start (runtime_by_ts is sorted by ts)
  auto is_pageable = make_name_cache(t, [](std::string_view n) { return is_pageable_copy(n); });
  auto family =
      make_name_cache(t, [](std::string_view n) { return static_cast<int>(sync_family(n)); });
  for (uint32_t i : join.runtime_by_ts) {
    // A copy from pageable host memory blocks the CPU like a synchronous one (nsys' rule).
    const int32_t op = join.partner[i];
    const bool pageable = op >= 0 && s.kind[static_cast<size_t>(op)] == SliceKind::kMemcpy &&
                          is_pageable(s.name[static_cast<size_t>(op)]);
    if (pageable || call_blocks_host(static_cast<SyncFamily>(family(s.name[i])), t, join, i))
      syncs.push_back(i);
  }

  std::vector<Interval> windows;
  if (idle.window_is_steps) {
    for (const Step& st : steps.steps) windows.push_back({st.begin, st.end});
  } else {
    windows.push_back({idle.busy.front().begin, idle.busy.back().end});
  }
  const auto& ops = join.gpu_ops_by_ts;
  std::vector<uint32_t> syncs_by_end = syncs;
  std::sort(syncs_by_end.begin(), syncs_by_end.end(), [&s](uint32_t a, uint32_t b) {
    return s.end(a) != s.end(b) ? s.end(a) < s.end(b) : a < b;
  });
  // The end of the step after the one holding `ts` (the refill after a sync at `ts` is over).
  auto refill_until = [&steps](int64_t ts) {
    const std::vector<Step>& st = steps.steps;
    if (st.empty()) return INT64_MAX;
    auto it = std::upper_bound(st.begin(), st.end(), ts,
                               [](int64_t x, const Step& step) { return x < step.begin; });
    size_t idx = it == st.begin() ? 0 : static_cast<size_t>(it - st.begin() - 1) + 1;
    return idx < st.size() ? st[idx].end : st.back().end;
  };
  size_t next_sync_end = 0;
  bool refilling = false;
  int32_t refill_call = -1;
  int64_t refill_until_ns = INT64_MIN;
  // The longest gaps (the first of equal ones first, as a stable sort by length would give), kept
  // while the gaps are found rather than all gaps gathered and sorted: a trace of millions of
  // kernels has millions of gaps, and that vector was a large share of a report's peak memory.
  constexpr size_t kExamples = 5;
  auto keep_longest = [](std::vector<CausedGap>* top, const CausedGap& g, size_t n) {
    if (top->size() == n && g.length() <= top->back().length()) return;
    auto at = std::upper_bound(top->begin(), top->end(), g.length(),
                               [](int64_t len, const CausedGap& x) { return len > x.length(); });
    top->insert(at, g);
    if (top->size() > n) top->pop_back();
  };
  std::vector<CausedGap> largest;
  std::vector<GapToFollow> long_host_waits;
  for (const Interval& w : windows) {
    r.window_ns += w.length();
    // Does the CPU get ahead of the GPU in this window at all?
    uint64_t in_window = 0, queued_ahead = 0;
    auto first = std::lower_bound(ops.begin(), ops.end(), w.begin,
                                  [&s](uint32_t i, int64_t ts) { return s.ts[i] < ts; });
    for (auto op = first; op != ops.end() && s.ts[*op] < w.end; ++op) {
      ++in_window;
      const int32_t l = join.partner[*op];
      if (l >= 0 && s.end(static_cast<uint32_t>(l)) + kKernelWaitThresholdNs <= s.ts[*op])
        ++queued_ahead;
    }
    const bool cpu_gets_ahead = in_window > 0 && queued_ahead * 10 >= in_window;
    // The gaps of a window come in time order, so the first op at or after a gap's end only
    // moves forward: a cursor from the window's first op instead of a binary search over all
    // ops per gap (a million gaps on the tiny-kernels shape).
    auto next = first;
    for (const Interval& gap : gaps_within(idle.busy, w.begin, w.end)) {
      CausedGap g;
      g.begin_ns = gap.begin;
      g.end_ns = gap.end;
      while (next != ops.end() && s.ts[*next] < gap.end) ++next;
      if (next != ops.end() && s.ts[*next] == gap.end) g.next_op = static_cast<int32_t>(*next);
      // Syncs that returned before this gap ended start (or extend) a refill period.
      while (next_sync_end < syncs_by_end.size() && s.end(syncs_by_end[next_sync_end]) <= gap.end) {
        const uint32_t call = syncs_by_end[next_sync_end++];
        refilling = true;
        refill_call = static_cast<int32_t>(call);
        refill_until_ns = refill_until(s.end(call));
      }
      if (refilling && gap.begin >= refill_until_ns) refilling = false;
      // A sync call overlapping the gap or returning inside it: the latest ones starting before
      // the gap ends. Sync calls on one thread do not nest, so checking a few is enough.
      auto it = std::lower_bound(syncs.begin(), syncs.end(), gap.end,
                                 [&s](uint32_t i, int64_t ts) { return s.ts[i] < ts; });
      for (int k = 0; k < 4 && it != syncs.begin(); ++k) {
        --it;
        const int64_t covered = std::min(s.end(*it), gap.end) - std::max(s.ts[*it], gap.begin);
        if (2 * covered >= gap.length()) {
          g.sync_call = static_cast<int32_t>(*it);
          break;
        }
      }
      // A gap at a step's end (the window ends before the next op): the GPU waits for the
      // next step's first op, which ends the idle time, so its launch tells the cause as well.
      if (g.next_op < 0 && gap.end == w.end && next != ops.end())
        g.next_op = static_cast<int32_t>(*next);
      const int32_t launcher = g.next_op >= 0 ? join.partner[static_cast<size_t>(g.next_op)] : -1;
      const bool host_wait = launcher >= 0 && s.ts[static_cast<size_t>(launcher)] > gap.begin;
      if (2 * length_within(loader, gap.begin, gap.end) >= gap.length()) {
        g.cause = GapCause::kDataLoader;
      } else if (g.sync_call >= 0) {
        g.cause = GapCause::kSync;
      } else if (host_wait && refilling && cpu_gets_ahead && gap.length() < kRefillGapNs) {
        g.cause = GapCause::kSync;
        g.sync_call = refill_call;
      } else if (host_wait) {
        g.cause = GapCause::kHostWait;
        if (gap.length() < kLaunchGapNs) {
          r.short_host_wait_ns += gap.length();
          ++r.short_host_wait_gaps;
        } else {
          long_host_waits.push_back({gap.begin, gap.end, static_cast<uint32_t>(g.next_op)});
        }
      } else if (launcher >= 0 &&
                 s.ts[static_cast<size_t>(launcher)] + kKernelWaitThresholdNs <= gap.begin) {
        refilling = false;  // the next op was queued well before the gap: the CPU is ahead again
      }
      r.idle_ns[static_cast<int>(g.cause)] += g.length();
      ++r.gaps[static_cast<int>(g.cause)];
      keep_longest(&largest, g, 10);
      keep_longest(&r.examples[static_cast<int>(g.cause)], g, kExamples);
      if (g.cause == GapCause::kHostWait && g.length() < kLaunchGapNs)
        keep_longest(&r.short_host_wait_examples, g, kExamples);
    }
  }
  r.largest = std::move(largest);
  constexpr size_t kGapsFollowed = 4096;
  if (!long_host_waits.empty())
    r.host_wait_activity =
        activity_in_gaps(t, join, steps, std::move(long_host_waits), kGapsFollowed);
  return r;
}

}  // namespace ks
