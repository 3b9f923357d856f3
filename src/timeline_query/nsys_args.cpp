#include "timeline_query/nsys_args.h"

#include <string>

#include "model/export_row.h"
#include "model/slice_kind.h"

namespace ks::timeline_query {

namespace {

void dims_text(JsonWriter* w, const char* key, const uint32_t (&d)[3]) {
  w->field(key, std::string_view("[" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " +
                                 std::to_string(d[2]) + "]"));
}

}  // namespace

std::string_view nsys_table_of(uint64_t file_offset, uint32_t byte_len) {
  return byte_len == 0 ? export_table_of(file_offset) : std::string_view();
}

void write_nsys_args(JsonWriter* w, const ViewIndex& index, uint32_t i) {
  const Trace& t = index.trace();
  const SliceTable& s = t.slices;
  const std::string_view table = nsys_table_of(s.file_offset(i), s.byte_len(i));
  if (table.empty()) return;
  const Track& track = t.tracks[s.track[i]];
  const std::string_view name = t.str(s.name[i]);
  w->key("args").begin_object();
  w->field("table", table);
  // The row's number in the importer's SELECT of that table (1-based), not its rowid.
  w->field("row", export_row_of(s.file_offset(i)));
  if (export_table_code(s.file_offset(i)) == ExportTable::kNvtx)
    w->field("text", name);  // NVTX push/pop and start/end ranges
  if (s.correlation[i] != kNoValue) w->field("correlationId", s.correlation[i]);
  if (track.device != kNoValue) w->field("deviceId", track.device);
  if (track.stream != kNoValue) w->field("streamId", track.stream);
  if (const int64_t b = s.copy_size(i); b != kNoValue) w->field("bytes", b);
  // A copy's kind is in its name, as Kineto writes it: "Memcpy HtoD (Pageable -> Device)".
  if (s.kind[i] == SliceKind::kMemcpy && name.rfind("Memcpy ", 0) == 0)
    w->field("copyKind", name.substr(7));
  if (s.kind[i] == SliceKind::kMemset && name.rfind("Memset (", 0) == 0 && name.back() == ')')
    w->field("memKind", name.substr(8, name.size() - 9));  // "Memset (Device)"
  if (s.launch_info[i] >= 0) {
    const KernelLaunchInfo& li = s.launch_infos[static_cast<size_t>(s.launch_info[i])];
    if (s.kind[i] == SliceKind::kKernel) {
      dims_text(w, "grid", li.grid);
      dims_text(w, "block", li.block);
      if (li.blocks_per_sm >= 0)
        w->field("blocks per SM", static_cast<double>(li.blocks_per_sm), 2);
      if (li.warps_per_sm >= 0) w->field("warps per SM", static_cast<double>(li.warps_per_sm), 2);
    }
    if (li.bandwidth_gbps >= 0)
      w->field("bandwidth (GB/s)", static_cast<double>(li.bandwidth_gbps), 3);
  }
  w->end_object();
}

}  // namespace ks::timeline_query
