// Events whose timestamps lie far from all the others: a corrupt time (a CUPTI record with a
// garbage start, a clock conversion gone wrong, a row an export wrote half-way). One such kernel
// 35 days after a 1 s capture made the whole trace span 35 days: "GPU idle 100% of step time",
// a critical finding about nothing. The builder leaves them out (TraceBuilder::finalize) and
// says so (diagnostic stray_time).
#pragma once
#include <cstdint>

#include "model/trace.h"

namespace ks {

// Stray: separated from the bulk of the trace's events (the group of times with no gap of
// kStrayGapNs inside it that holds the most events) by more than kStrayGapNs and more than
// kStrayBodyMultiple times that bulk's own span; and few (at most kStrayShare of all the times:
// a tenth, as a small export's handful of bad rows with their launches' flows is 3%), so two
// large groups (one device of two or eight with its clock off) are never cut apart here.
// An hour of nothing at all: corrupt times lie days to centuries off, while a script that slept
// minutes between a few startup calls and a short burst of work is a real capture.
constexpr int64_t kStrayGapNs = int64_t{3600} * 1000 * 1000 * 1000;  // 1 hour
constexpr int64_t kStrayBodyMultiple = 100;
constexpr double kStrayShare = 0.1;

struct KeptTimes {
  bool any_stray = false;
  int64_t lo = 0;  // every time kept lies in [lo, hi]
  int64_t hi = 0;
  // Groups far apart but too many times to leave out (a device's clock off, captures joined):
  // all kept, and the diagnostic time_groups says so. 0 when the times are one group.
  size_t far_groups = 0;
  uint64_t widest_gap_ns = 0;
};

// Looks at every slice's start and end, every instant, counter sample and flow end. Costs one
// pass when the trace spans less than kStrayGapNs (nearly every trace), a hashed pass otherwise.
KeptTimes find_stray_times(const Trace& t);

}  // namespace ks
