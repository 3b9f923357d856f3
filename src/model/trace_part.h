// A part of one trace file, read by a second importer, on its way to the first (the page reads a
// large plain-JSON file with two workers: docs/performance.md, "Two workers on one file").
//
// The second worker reads the event array from a point in the middle and builds its own model of
// those events with an ordinary TraceBuilder; the first reads up to that point, then merges the
// part in (TraceBuilder::merge_part) before it finalizes. The two live in separate WebAssembly
// instances, so the part travels as bytes: its Trace, not yet finalized, and the few things the
// builder knows that the model does not keep (PartState), which the merge needs to come out
// exactly as one builder reading the whole file would (tests/import/split_import_test.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/trace.h"

namespace ks {

struct PartState {
  static constexpr uint64_t kNoOffset = ~uint64_t{0};
  // The first process_name/thread_name the part set on each of its processes and tracks, and
  // where: a name different from the one the first importer already has is a duplicate there.
  std::vector<std::string> process_first_name, track_first_name;
  std::vector<uint64_t> process_first_name_offset, track_first_name_offset;
  std::vector<uint8_t> process_labels_set;
  // observe_time(): the first and last timestamps of the part, and order within it.
  bool any_time = false;
  int64_t first_ts = 0, last_ts = 0;
  bool out_of_order = false;
  // B/E and async events pair across the whole file: a part holding any cannot be merged (the
  // first importer then reads those bytes itself).
  bool paired_events = false;
};

// The part as bytes, and back. decode_trace_part() checks every length against the bytes it is
// given and returns false on anything that is not such an encoding.
std::string encode_trace_part(const Trace& part, const PartState& state);
// The same encoding appended to *out, whose capacity grows once, by exactly the encoding's size.
void append_trace_part(const Trace& part, const PartState& state, std::string* out);
bool decode_trace_part(const char* data, size_t len, Trace* part, PartState* state);

}  // namespace ks
