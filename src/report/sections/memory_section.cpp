// Memory (the profiler's [memory] instants): per device, the peak allocated and reserved bytes
// and when, the device's total and the largest single allocation. The terminal says the peaks
// in one line per device; Markdown leaves it to the findings.
#include <string>

#include "report/sections/sections.h"
#include "util/format.h"

namespace ks {

namespace {

Cell optional(int64_t v) {
  return v == kNoValue ? Cell::null() : Cell::integer(v);
}

}  // namespace

ReportSection memory_section(const Trace& t, const MemoryUsage& m) {
  const int64_t t0 = t.facts.origin_ns();
  ReportSection s("memory");
  s.field("events", Cell::count(m.events));
  Table& tb = s.table("devices");
  tb.columns = {Column("device"),
                Column("events"),
                Column("peak_allocated_bytes"),
                Column("peak_allocated_at_us"),
                Column("peak_reserved_bytes"),
                Column("peak_reserved_at_us"),
                Column("device_total_bytes"),
                Column("largest_allocation_bytes"),
                Column("peak_pct")};
  for (const DeviceMemory& d : m.devices) {
    const int64_t peak = d.peak_reserved != kNoValue ? d.peak_reserved : d.peak_allocated;
    tb.row() = {optional(d.device),
                Cell::count(d.events),
                optional(d.peak_allocated),
                d.peak_allocated == kNoValue ? Cell::null() : Cell::ns(d.peak_allocated_ns - t0),
                optional(d.peak_reserved),
                d.peak_reserved == kNoValue ? Cell::null() : Cell::ns(d.peak_reserved_ns - t0),
                optional(d.device_total),
                Cell::integer(d.largest_allocation),
                d.device_total > 0 ? Cell::number(100.0 * static_cast<double>(peak) /
                                                  static_cast<double>(d.device_total))
                                   : Cell::null()};
    const std::string reserved =
        d.peak_reserved == kNoValue ? std::string("-") : format_bytes(d.peak_reserved);
    const std::string allocated =
        d.peak_allocated == kNoValue ? std::string("-") : format_bytes(d.peak_allocated);
    const std::string total = d.device_total > 0 ? " of " + format_bytes(d.device_total) : "";
    s.linef("Memory (%s): peak allocated %s, peak reserved %s%s",
            d.device == kNoValue ? "CPU" : ("device " + std::to_string(d.device)).c_str(),
            allocated.c_str(), reserved.c_str(), total.c_str());
  }
  return s;
}

}  // namespace ks
