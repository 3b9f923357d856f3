// A trace cut down to some of its processes, slices and flows, renumbered as a builder would
// have written it (depth and parent, sparse tables, the category counts): one rank's part of a
// file that holds several ranks (analysis/merged_ranks.h).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/trace.h"

namespace ks {

// What one part keeps, as indices into the file's tables, each list ascending: the processes,
// the slices (on kept processes), the flows, counter rows and instants (on kept processes).
struct SubsetLists {
  std::vector<uint32_t> processes, slices, flows, counters, instants;
};

// Cuts parts out of one trace: what every part shares (each track's rows, the slices' offsets
// sorted, the file's category and phase counts) is counted once here, so that each part costs
// what it keeps, not the whole file (256 ranks of one file cost 256 scans of it).
// The part keeps the slices of `keep.slices` (a track the cut emptied leaves; one that held
// nothing stays), the flows of `keep.flows` on kept tracks, the counters and instants listed;
// strings and devices copied. Its facts count its own events (phases, categories, first and last
// time: what the cut left out is taken off), and its diagnostics are its own where their events
// are known (overlaps and unpaired flows counted again, its slices' order, unclosed ranges and a
// kind met once by their slices' offsets); the others are the whole file's, and say so.
class TraceSubsetter {
 public:
  explicit TraceSubsetter(const Trace& t);
  std::unique_ptr<Trace> cut(const SubsetLists& keep) const;

 private:
  const Trace& t_;
  std::vector<uint32_t> had_rows_;                     // per track: slices and instants
  std::vector<std::vector<uint32_t>> process_tracks_;  // per process, ascending
  std::vector<uint64_t> file_offsets_;                 // the slices', sorted
  // The part's category counts: its rows' categories, and the file's events of no row.
  std::map<std::string, uint64_t> own_categories(
      const std::unordered_map<StringId, uint64_t>& rows) const;

  TraceFacts facts_;  // the file's, without its category counts
  // Per category, the file's events of no row (its count less its rows), where not zero.
  std::vector<std::pair<std::string, int64_t>> category_rest_;
  std::vector<uint64_t> counter_runs_;     // per process: its C events
  mutable std::vector<StringId> part_id_;  // per file string: its id in the part being cut
};

// The same with a byte per process, slice and flow (counters and instants follow the processes).
std::unique_ptr<Trace> trace_subset(const Trace& t, const std::vector<uint8_t>& keep_process,
                                    const std::vector<uint8_t>& keep_slice,
                                    const std::vector<uint8_t>& keep_flow);

}  // namespace ks
