#include "analysis/memory_usage.h"

#include <algorithm>
#include <map>

namespace ks {

MemoryUsage compute_memory_usage(const Trace& t) {
  const InstantTable& in = t.instants;
  MemoryUsage r;
  std::map<int64_t, DeviceMemory> by_device;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in.mem_total_allocated[i] < 0 && in.mem_total_reserved[i] < 0) continue;
    ++r.events;
    DeviceMemory& d = by_device[in.mem_device[i]];
    d.device = in.mem_device[i];
    if (d.events == 0 || in.ts[i] < d.first_ns) {
      d.first_ns = in.ts[i];
      d.allocated_before =
          in.mem_total_allocated[i] >= 0 ? in.mem_total_allocated[i] - in.mem_bytes[i] : kNoValue;
    }
    ++d.events;
    d.largest_allocation = std::max(d.largest_allocation, in.mem_bytes[i]);
    d.has_allocated |= in.mem_total_allocated[i] >= 0;
    if (in.mem_total_allocated[i] > d.peak_allocated) {
      d.peak_allocated = in.mem_total_allocated[i];
      d.peak_allocated_ns = in.ts[i];
    }
    if (in.mem_total_reserved[i] >= 0 && in.mem_total_reserved[i] > d.peak_reserved) {
      d.peak_reserved = in.mem_total_reserved[i];
      d.peak_reserved_ns = in.ts[i];
    }
  }
  for (auto& kv : by_device) {
    DeviceMemory d = kv.second;
    // Nsight Systems' memory usage has the device's totals only (what was reserved from it).
    if (!d.has_allocated) d.peak_allocated = kNoValue;
    for (const DeviceProperties& p : t.devices)
      if (d.device >= 0 && p.id == d.device) d.device_total = p.total_memory;
    r.devices.push_back(d);
  }
  return r;
}

std::vector<int64_t> allocated_at(const Trace& t, int64_t device,
                                  const std::vector<int64_t>& times_ns) {
  const InstantTable& in = t.instants;
  std::vector<std::pair<int64_t, int64_t>> events;  // (ts, total allocated), the device's
  for (size_t i = 0; i < in.size(); ++i)
    if (in.mem_device[i] == device && in.mem_total_allocated[i] >= 0)
      events.emplace_back(in.ts[i], in.mem_total_allocated[i]);
  // Stable: of events at one instant, the one written last holds the total after all of them.
  std::stable_sort(events.begin(), events.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<int64_t> out;
  size_t next = 0;
  int64_t level = kNoValue;
  for (int64_t at : times_ns) {
    while (next < events.size() && events[next].first <= at) level = events[next++].second;
    out.push_back(level);
  }
  return out;
}

}  // namespace ks
