// The details panel's "Args" for a slice read from an Nsight Systems export. A JSON trace's args
// are re-read from the event's own bytes (file_offset/byte_len); an export has no event text, so
// the panel shows what the importer kept from the row instead: the table and row it came from, its
// correlation id, device and stream, grid/block, bytes and copy kind, the NVTX text. Keys follow
// the export's column names, so an Nsight user recognizes them.
#pragma once
#include <cstdint>
#include <string_view>

#include "timeline_query/view_index.h"
#include "util/json_writer.h"

namespace ks::timeline_query {

// The export table a slice came from, by the top byte of its file_offset (src/import/nsys_sqlite/
// nsys_rows.h, Table: 1 runtime ... 7 OS runtime); empty when the slice did not come from one.
std::string_view nsys_table_of(uint64_t file_offset, uint32_t byte_len);

// Writes "args": {...} for an export's slice; writes nothing for any other slice.
void write_nsys_args(JsonWriter* w, const ViewIndex& index, uint32_t slice);

}  // namespace ks::timeline_query
