// Questions the timeline asks about single slices: the details panel (everything the model keeps;
// the page adds the event's own args by re-reading its bytes: file_offset/byte_len), the list of
// distinct slice names (the page matches a search against it, with JS's regular expressions),
// the slices carrying a set of names (search hits, "show on timeline" for a kernel), and the
// slices behind byte offsets (a finding's `events`). Times are relative ns.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "timeline_query/view_index.h"
#include "util/json_writer.h"

namespace ks::timeline_query {

// {"slice", "track", "depth", "start_ns", "dur_ns", "name"}
void write_slice_brief(JsonWriter* w, const ViewIndex& index, uint32_t slice);

// The details panel's facts; "{}" for an index out of range.
std::string slice_details_json(const ViewIndex& index, uint32_t slice);

// [[name_id, "name"], ...]: every distinct slice name once, by id.
std::string slice_names_json(const ViewIndex& index);

// The slices whose name is one of `names`, by start time (then track, depth).
std::vector<uint32_t> slices_with_names(const ViewIndex& index, const std::vector<StringId>& names);

// The slice whose event starts at each byte offset, or -1. Builds its offset index on first use.
class OffsetIndex {
 public:
  std::vector<int32_t> lookup(const ViewIndex& index, const std::vector<uint64_t>& offsets);

 private:
  std::vector<uint32_t> by_offset_;  // slices sorted by file_offset
};

// The deepest slice on `track` at row `depth` nearest to `t` within `tolerance` ns, or -1.
int32_t slice_at(const ViewIndex& index, TrackId track, uint32_t depth, int64_t t,
                 int64_t tolerance);

}  // namespace ks::timeline_query
