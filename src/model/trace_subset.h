// A trace cut down to some of its processes, slices and flows, renumbered as a builder would
// have written it (depth and parent, sparse tables, the category counts): one rank's part of a
// file that holds several ranks (analysis/merged_ranks.h).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "model/trace.h"

namespace ks {

// The slices `keep_slice` keeps on the processes `keep_process` keeps (a track the cut emptied
// leaves; one that held nothing stays), the flows `keep_flow` keeps on kept tracks, the
// counters and instants of kept processes; strings and devices copied. Its facts count its own
// events (phases, categories, first and last time: what the cut left out is taken off), and its
// diagnostics are its own where their events are known (overlaps and unpaired flows counted
// again, its slices' order, unclosed ranges and a kind met once by their slices' offsets); the
// others are the whole file's, and say so.
std::unique_ptr<Trace> trace_subset(const Trace& t, const std::vector<uint8_t>& keep_process,
                                    const std::vector<uint8_t>& keep_slice,
                                    const std::vector<uint8_t>& keep_flow);

}  // namespace ks
