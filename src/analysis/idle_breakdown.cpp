#include "analysis/idle_breakdown.h"

#include <algorithm>
#include <map>

namespace ks {

const char* idle_cause_name(IdleCause c) {
  switch (c) {
    case IdleCause::kHostWait:
      return "host_wait";
    case IdleCause::kKernelWait:
      return "kernel_wait";
    case IdleCause::kOther:
      return "other";
  }
  return "other";
}

IdleBreakdown compute_idle_breakdown(const Trace& t, const LaunchJoin& join,
                                     const std::vector<bool>* included) {
  const SliceTable& s = t.slices;
  IdleBreakdown r;
  // GPU ops per track, in start order (gpu_ops_by_ts is sorted by ts; of two ops that start
  // together, as a 0 us memset and the next kernel do in integer-microsecond traces, the shorter
  // first: the order the stream ran them in).
  std::map<TrackId, std::vector<uint32_t>> by_track;
  for (uint32_t i : join.gpu_ops_by_ts)
    if (op_counted(included, i)) by_track[s.track[i]].push_back(i);
  r.streams.reserve(by_track.size());  // exact (80k streams grew it to 131k rows)
  for (const auto& kv : by_track) {
    const std::vector<uint32_t>& ops = kv.second;
    StreamIdle st;
    st.track = kv.first;
    st.device = t.tracks[kv.first].device;
    st.stream = t.tracks[kv.first].stream;
    st.ops = ops.size();
    st.begin_ns = s.ts[ops.front()];
    st.end_ns = s.end(ops.front());
    std::vector<int64_t> gaps[kIdleCauses];
    for (size_t k = 1; k < ops.size(); ++k) {
      const uint32_t op = ops[k];
      const int64_t prev_end = s.end(ops[k - 1]);
      const int64_t gap = s.ts[op] - prev_end;
      const int32_t launcher = join.partner[op];
      IdleCause cause = IdleCause::kOther;
      if (launcher >= 0 && s.ts[static_cast<uint32_t>(launcher)] > prev_end) {
        cause = IdleCause::kHostWait;
      } else if (gap < kKernelWaitThresholdNs) {
        cause = IdleCause::kKernelWait;
      }
      gaps[static_cast<int>(cause)].push_back(gap);
      st.end_ns = std::max(st.end_ns, s.end(op));
    }
    for (int c = 0; c < kIdleCauses; ++c) {
      st.gaps[c] = compute_duration_stats(gaps[c]);
      st.idle_ns[c] = st.gaps[c].total_ns;
      r.idle_ns[c] += st.idle_ns[c];
    }
    r.streams.push_back(st);
  }
  std::sort(r.streams.begin(), r.streams.end(), [](const StreamIdle& a, const StreamIdle& b) {
    if (a.device != b.device) return a.device < b.device;
    if (a.stream != b.stream) return a.stream < b.stream;
    return a.track < b.track;
  });
  return r;
}

}  // namespace ks
