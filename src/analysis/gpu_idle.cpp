#include "analysis/gpu_idle.h"

#include <algorithm>
#include <map>

namespace ks {

namespace {

// Each device's busy time (the union of its own ops) within the same windows as the whole
// process's; GPU ops without a device id (kNoValue) are left out of the per-device rows. Devices
// barely touched are kept apart as stray (gpu_idle.h).
void per_device_idle(const Trace& t, const LaunchJoin& join, const std::vector<Interval>& windows,
                     GpuIdleResult* r) {
  const SliceTable& s = t.slices;
  std::map<int64_t, std::vector<Interval>> by_device;
  for (uint32_t i : join.gpu_ops_by_ts) {
    const int64_t dev = t.tracks[s.track[i]].device;
    if (dev != kNoValue) by_device[dev].push_back({s.ts[i], s.end(i)});
  }
  if (by_device.size() < 2 || r->window_ns <= 0) return;
  struct Seen {
    GpuIdleResult::DeviceIdle idle;
    GpuIdleResult::StrayDevice whole;
  };
  std::vector<Seen> seen;
  int64_t busiest = 0;
  for (auto& kv : by_device) {
    Seen d;
    d.idle.device = d.whole.device = kv.first;
    d.whole.ops = kv.second.size();
    d.whole.first_ns = kv.second.front().begin;  // gpu_ops_by_ts: in start order
    d.whole.first_end_ns = kv.second.front().end;
    const std::vector<Interval> busy = merge_intervals(std::move(kv.second));
    for (const Interval& b : busy) d.whole.op_ns += b.length();
    for (const Interval& w : windows) d.idle.busy_ns += length_within(busy, w.begin, w.end);
    d.idle.idle_pct = 100.0 * static_cast<double>(r->window_ns - d.idle.busy_ns) /
                      static_cast<double>(r->window_ns);
    if (d.whole.op_ns > busiest) busiest = d.whole.op_ns, r->main_device = kv.first;
    seen.push_back(d);
  }
  for (const Seen& d : seen) {
    const bool stray =
        static_cast<double>(d.whole.op_ns) < kStrayDeviceShare * static_cast<double>(busiest) &&
        static_cast<double>(d.idle.busy_ns) < kStrayDeviceShare * static_cast<double>(r->window_ns);
    if (stray)
      r->stray_devices.push_back(d.whole);
    else
      r->devices.push_back(d.idle);
  }
  if (r->devices.size() < 2) r->devices.clear();
}

}  // namespace

GpuIdleResult compute_gpu_idle(const Trace& t, const LaunchJoin& join, const StepsResult& steps) {
  GpuIdleResult r;
  const SliceTable& s = t.slices;
  std::vector<Interval> ops;
  ops.reserve(join.gpu_ops_by_ts.size());
  for (uint32_t i : join.gpu_ops_by_ts) ops.push_back({s.ts[i], s.end(i)});
  r.has_gpu_ops = !ops.empty();
  if (!r.has_gpu_ops) return r;
  r.busy = merge_intervals(std::move(ops));
  // Fuzzing (tests/fuzz/regressions/zero_length_kernels_only.json): GPU ops that all last 0 ns
  // merge to no busy interval, and front() on it crashed the CLI. No busy time: nothing to say.
  if (r.busy.empty()) return r;
  std::vector<Interval> windows;
  if (!steps.steps.empty()) {
    r.window_is_steps = true;
    for (const Step& st : steps.steps) windows.push_back({st.begin, st.end});
  } else {
    windows.push_back({r.busy.front().begin, r.busy.back().end});
  }
  std::vector<Interval> gaps;
  for (const Interval& w : windows) {
    int64_t busy = length_within(r.busy, w.begin, w.end);
    r.window_ns += w.length();
    r.busy_ns += busy;
    if (r.window_is_steps)
      r.idle_pct_per_step.push_back(w.length() ? 100.0 * static_cast<double>(w.length() - busy) /
                                                     static_cast<double>(w.length())
                                               : 0);
    for (const Interval& g : gaps_within(r.busy, w.begin, w.end)) gaps.push_back(g);
  }
  r.idle_pct = r.window_ns ? 100.0 * static_cast<double>(r.window_ns - r.busy_ns) /
                                 static_cast<double>(r.window_ns)
                           : 0;
  std::stable_sort(gaps.begin(), gaps.end(),
                   [](const Interval& a, const Interval& b) { return a.length() > b.length(); });
  if (gaps.size() > 5) gaps.resize(5);
  r.largest_gaps = gaps;
  per_device_idle(t, join, windows, &r);
  return r;
}

bool GpuIdleResult::is_stray(int64_t device) const {
  for (const StrayDevice& d : stray_devices)
    if (d.device == device) return true;
  return false;
}

}  // namespace ks
