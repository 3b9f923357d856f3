// Peak memory from Kineto's `[memory]` instant events (written with profile_memory=True; TB
// plugin memory_parser.py): each allocation or free records the allocator's running totals,
// `Total Allocated` (bytes in live tensors) and `Total Reserved` (bytes the caching allocator
// holds from the device). Per device: the peaks, when they happened, and the device's memory
// from deviceProperties when the trace names it. Nsight Systems exports captured with
// --cuda-memory-usage=true give the device's reserved total alone (import/nsys_sqlite).
#pragma once
#include <cstdint>
#include <vector>

#include "model/trace.h"

namespace ks {

struct DeviceMemory {
  int64_t device = kNoValue;  // "Device Id"; -1 (absent) for the CPU
  uint64_t events = 0;
  int64_t peak_allocated = 0, peak_allocated_ns = 0;  // kNoValue: no allocated totals
  bool has_allocated = false;
  int64_t peak_reserved = kNoValue, peak_reserved_ns = 0;  // kNoValue: no reserved totals
  int64_t device_total = kNoValue;                         // deviceProperties totalGlobalMem
  int64_t largest_allocation = 0;  // the largest single allocation ("Bytes" > 0)
  // Bytes allocated before the capture's first memory event on the device (its Total Allocated
  // less its own Bytes): memory the run held before anything in the window allocated.
  int64_t allocated_before = kNoValue;
  int64_t first_ns = 0;  // that first event
};

struct MemoryUsage {
  uint64_t events = 0;                // [memory] instants with totals
  std::vector<DeviceMemory> devices;  // by device id
};

MemoryUsage compute_memory_usage(const Trace& trace);

// The device's allocated total ("Total Allocated") after each of the given times, ascending: the
// last [memory] event at or before it, or kNoValue before the device's first. At each step's end
// it is what the step left allocated, which a leak raises by the same amount every step.
std::vector<int64_t> allocated_at(const Trace& trace, int64_t device,
                                  const std::vector<int64_t>& times_ns);

}  // namespace ks
