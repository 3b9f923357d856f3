#include "model/diagnostics.h"

namespace ks {

const char* diag_severity_name(DiagSeverity s) {
  switch (s) {
    case DiagSeverity::kInfo:
      return "info";
    case DiagSeverity::kWarning:
      return "warning";
    case DiagSeverity::kError:
      return "error";
  }
  return "info";
}

namespace {
using S = DiagSeverity;
// Order matches enum Diag.
const DiagInfo kInfos[] = {
    {"gzip_truncated", S::kWarning,
     "The gzip file ends early (cut off): the events decoded before the cut are read, the rest "
     "are missing."},
    {"trailing_comma", S::kInfo, "A trailing comma before the closing bracket was accepted."},
    {"extra_comma", S::kWarning, "Empty elements (',,') between events were skipped."},
    {"missing_array_close", S::kInfo,
     "The traceEvents array is not closed (a trace cut off while writing); read up to the end."},
    {"missing_object_close", S::kInfo, "The top-level object is not closed; read up to the end."},
    {"truncated_event", S::kWarning, "The last event is cut off mid-object and was dropped."},
    {"trailing_data", S::kWarning, "Bytes after the end of the JSON value were ignored."},
    {"non_object_event", S::kWarning, "Elements of traceEvents that are not objects were skipped."},
    {"malformed_event", S::kError, "Event objects that are not valid JSON were skipped."},
    {"control_chars_in_string", S::kInfo,
     "Raw control characters inside strings were replaced by spaces."},
    {"invalid_utf8", S::kWarning, "Events with invalid UTF-8 were read with the bytes replaced."},
    {"event_too_large", S::kError,
     "Events larger than the per-event size cap (64 MiB) were skipped."},
    {"top_level_value_skipped", S::kInfo,
     "A large top-level value other than traceEvents was not kept."},
    {"missing_phase", S::kWarning, "Events without a 'ph' phase were skipped."},
    {"unknown_phase", S::kInfo, "Events with a phase outside the trace format were counted only."},
    {"missing_timestamp", S::kWarning, "Events without a usable 'ts' were skipped."},
    {"bad_number", S::kWarning,
     "A ts/dur value that is not a number (NaN, Infinity, text) or out of range was ignored."},
    {"negative_duration", S::kWarning, "Negative durations were clamped to zero."},
    {"complete_without_dur", S::kInfo, "Complete (X) events without 'dur' kept as zero-length."},
    {"unmatched_end", S::kWarning, "End (E) events without an open Begin on their thread."},
    {"unclosed_begin", S::kWarning,
     "Ranges that began and never ended (B events, NVTX ranges without an end): closed at "
     "their track's last timestamp."},
    {"end_before_begin", S::kWarning, "End (E) events earlier than their Begin: zero length."},
    {"partial_overlap", S::kInfo,
     "Slices on one track overlap without nesting; kept and drawn on an extra row."},
    {"flow_without_end", S::kInfo, "Flow events whose other end is missing."},
    {"duplicate_metadata", S::kInfo,
     "A process or thread was named more than once; the last name is used."},
    {"timestamps_out_of_order", S::kInfo, "Events are not in timestamp order (sorted on load)."},
    {"base_time_applied", S::kInfo,
     "Timestamps are relative to baseTimeNanoseconds, which was added."},
    {"legacy_compute_properties", S::kInfo,
     "Legacy 'computeProperties' read as 'deviceProperties'."},
    {"utf8_bom", S::kInfo, "A UTF-8 byte order mark before the JSON was skipped."},
    {"long_string_truncated", S::kWarning,
     "Names, categories or ids longer than 64 KiB were cut to their first 64 KiB."},
    {"nsys_table_missing", S::kInfo,
     "Tables this reader uses are absent from the export (not traced, or another nsys version)."},
    {"nsys_column_missing", S::kWarning,
     "Columns this reader uses are absent from the export (another nsys version): defaults used."},
    {"nsys_object_ignored", S::kWarning,
     "Views or triggers named like Nsight Systems tables were not read (only real tables are)."},
    {"nsys_schema_version", S::kWarning,
     "The export's schema major version is not one this reader was written for; read anyway."},
    {"nsys_bad_row", S::kWarning,
     "Rows without a usable start/end (NULL, or end before start) "
     "were skipped."},
    {"nsys_unknown_string_id", S::kWarning,
     "Name ids with no StringIds row were shown as '<unknown>'."},
    {"nsys_rank_from_env", S::kInfo,
     "The rank was read from the process environment the export recorded."},
    {"nsys_helper_process", S::kInfo,
     "A process that shares a GPU with a larger one, runs no collectives and spans a small part "
     "of the capture (torch.compile's autotuning, a DataLoader worker) was read with that "
     "process, not as a rank of its own."},
    {"nsys_too_many_ranks", S::kWarning,
     "The export holds more processes that look like ranks than are read one by one; it was "
     "analysed as one trace, every process together."},
    {"lone_surrogate", S::kWarning,
     "Escapes of half a UTF-16 surrogate pair (\\ud800) were read as U+FFFD; the events were "
     "kept."},
    {"stray_time", S::kWarning,
     "Events far in time from all the others (a corrupt timestamp) were left out of the "
     "analysis and the timeline."},
    {"time_groups", S::kWarning,
     "The events' times fall in groups an hour or more apart, too many to be stray (a device's "
     "clock off, or captures joined): all are kept, so spans, gaps and idle times include the "
     "gaps between the groups."},
    {"gzip_trailing_data", S::kWarning,
     "Bytes after the end of the gzip data (not another gzip member: padding, or text appended "
     "to the file) were ignored; the trace is what the gzip data holds."},
    {"nsys_short_kernel_names", S::kInfo,
     "Kernels without demangledName, and without a mangledName that could be demangled (none, "
     "or one cut off, too long, nesting or repeating too much to demangle safely, or holding a "
     "construct C++ runtimes spell differently, such as _Float16 or a generic lambda), were "
     "named by their shortName, which drops namespaces and template arguments "
     "(cutlass::Kernel<...gemm...> reads 'Kernel'); kernel classes are read from those names."},
    {"nsys_wal_mode", S::kWarning,
     "The export is a database in WAL mode (bytes 18-19 of its header are 2), which nsys does not "
     "write: what was written to its -wal file since the last checkpoint is not read, only the "
     "database file (copied while it was being written, or the -wal left behind)."},
    {"name_not_string", S::kWarning,
     "Names, categories or other text fields written as a JSON object or array, not a string, "
     "were read as their JSON text, cut to its first 256 bytes."},
    {"nsys_unknown_enum_value", S::kWarning,
     "Rows hold a kind (an enum value) that the export's ENUM_* table does not name, as a newer "
     "Nsight Systems may write: they were read as of an unknown kind (an NVTX row: not read)."},
};
static_assert(sizeof(kInfos) / sizeof(kInfos[0]) == static_cast<size_t>(Diag::kCount),
              "one DiagInfo per Diag");
}  // namespace

const DiagInfo& diag_info(Diag d) {
  return kInfos[static_cast<size_t>(d)];
}

void Diagnostics::add(Diag d, uint64_t offset, std::string_view excerpt, uint64_t times) {
  DiagEntry& e = entries_[static_cast<size_t>(d)];
  if (e.count == 0) {
    e.first_offset = offset;
    e.excerpt.assign(excerpt.substr(0, 80));
  }
  e.count += times;
}

void Diagnostics::list_in_detail(Diag d, std::string_view lead, std::string_view item) {
  std::string& detail = entries_[static_cast<size_t>(d)].detail;
  if (detail.empty()) {
    detail.append(lead).append(": ");
  } else {
    detail.back() = ',';  // the list's closing period
    detail += ' ';
  }
  detail.append(item).append(".");
}

std::string Diagnostics::message(Diag d) const {
  std::string m = diag_info(d).message;
  const std::string& detail = get(d).detail;
  if (!detail.empty()) m += " " + detail;
  return m;
}

bool Diagnostics::any() const {
  for (const auto& e : entries_)
    if (e.count) return true;
  return false;
}

}  // namespace ks
