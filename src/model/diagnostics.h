// One catalogue of what the importer repaired or skipped (Perfetto's stats.h idea): each kind
// has a stable code, a severity and a sentence; occurrences are counted with the byte offset
// and a short excerpt of the first one, so users see counts instead of a flood of warnings.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ks {

enum class DiagSeverity { kInfo, kWarning, kError };
const char* diag_severity_name(DiagSeverity s);

enum class Diag {
  kGzipTruncated,            // the gzip stream ends early: what was decoded before the cut is read
  kTrailingComma,            // "[..., {...},]" accepted
  kExtraComma,               // ",," between events skipped
  kMissingArrayClose,        // traceEvents array never closed (a trace cut off while writing)
  kMissingObjectClose,       // top-level object never closed
  kTruncatedEvent,           // the last event was cut off mid-object and dropped
  kTrailingData,             // bytes after the end of the JSON value
  kNonObjectEvent,           // an element of traceEvents that is not an object
  kMalformedEvent,           // an event object simdjson could not parse; skipped
  kControlCharsInString,     // raw control characters inside strings, replaced by spaces
  kInvalidUtf8,              // invalid UTF-8 replaced
  kEventTooLarge,            // one event above the per-event size cap; skipped
  kTopLevelValueSkipped,     // a large top-level value other than traceEvents not kept
  kMissingPhase,             // no "ph": skipped
  kUnknownPhase,             // a phase outside the spec; counted, not modelled
  kMissingTimestamp,         // no usable "ts": skipped
  kBadNumber,                // ts/dur text that is not a number
  kNegativeDuration,         // dur < 0: clamped to 0
  kCompleteWithoutDur,       // X without dur: kept as zero-length
  kUnmatchedEnd,             // E with no open B on its thread
  kUnclosedBegin,            // B never closed: closed at the end of its thread's last event
  kEndBeforeBegin,           // E earlier than its B: clamped to zero length
  kPartialOverlap,           // slices on one track that overlap without nesting (kept, extra row)
  kFlowWithoutEnd,           // a flow start with no finish, or a finish with no start
  kDuplicateMetadata,        // a second process/thread name for the same id: the last one wins
  kTimestampsOutOfOrder,     // events not sorted by ts (fine; counted for the record)
  kBaseTimeApplied,          // baseTimeNanoseconds added to the relative timestamps
  kLegacyComputeProperties,  // 'computeProperties' read as 'deviceProperties'
  kUtf8Bom,                  // a UTF-8 byte order mark before the JSON, skipped
  kLongStringTruncated,      // a name/category/id above kMaxTextBytes, cut to that length
  // Nsight Systems exports (offset: 0, or the row's rowid where one applies)
  kNsysTableMissing,      // a table this reader uses is absent (not traced, or another version)
  kNsysColumnMissing,     // a column this reader uses is absent: a default was used
  kNsysObjectIgnored,     // a view or trigger named like an nsys table: not read
  kNsysSchemaVersion,     // an export schema major version this reader was not written for
  kNsysBadRow,            // a row without a usable start/end (NULL, or end before start)
  kNsysUnknownStringId,   // a name id with no StringIds row: shown as "<unknown>"
  kNsysRankFromEnv,       // the rank was read from the process environment the export recorded
  kNsysHelperProcess,     // a small process on a GPU another one drives: read with it, not a rank
  kNsysTooManyRanks,      // more rank-like processes than are read one by one: read as one trace
  kLoneSurrogate,         // a \ud800-\udfff escape without its pair: read as U+FFFD
  kStrayTime,             // events far in time from all the others: left out (model/stray_times.h)
  kTimeGroups,            // the times form groups far apart, too large to leave out: all kept
  kGzipTrailingData,      // bytes after the last gzip member (not gzip): ignored, as zlib does
  kNsysShortKernelNames,  // kernels with neither demangledName nor mangledName: shortName used
  kNsysWalMode,           // a WAL-mode database: its -wal file, if any, is not read
  kNameNotString,  // a name/cat/text field that is a JSON object or array: its JSON text, cut
  // An nsys row whose enum column holds a value its ENUM_* table (or schema 3.x's codes, without
  // the table) does not name: a newer nsys's kind, read as unknown, never guessed at
  kNsysUnknownEnumValue,
  kCount
};

struct DiagInfo {
  const char* code;
  DiagSeverity severity;
  const char* message;
};
const DiagInfo& diag_info(Diag d);

struct DiagEntry {
  uint64_t count = 0;
  uint64_t first_offset = 0;
  std::string excerpt;  // up to 80 bytes of the first occurrence
  // A sentence about this trace's occurrence that the reports append to the kind's message
  // (gzip_truncated: where the compressed file ends and how much JSON it gave).
  std::string detail;
};

class Diagnostics {
 public:
  Diagnostics() : entries_(static_cast<size_t>(Diag::kCount)) {}
  void add(Diag d, uint64_t offset, std::string_view excerpt = {}, uint64_t times = 1);
  void set_detail(Diag d, std::string detail) { entries_[static_cast<size_t>(d)].detail = detail; }
  // Names one more item in the detail, "Absent: a, b." (the nsys tables and columns not found:
  // few, as the reader asks for a fixed list), so a kind met several times says each.
  void list_in_detail(Diag d, std::string_view lead, std::string_view item);
  // The kind's message, then the detail when there is one.
  std::string message(Diag d) const;
  const DiagEntry& get(Diag d) const { return entries_[static_cast<size_t>(d)]; }
  uint64_t count(Diag d) const { return get(d).count; }
  // Forgets a kind: for an importer whose input order says nothing (nsys tables are read one
  // after another, so "out of order" is no news about the file).
  void clear(Diag d) { entries_[static_cast<size_t>(d)] = DiagEntry(); }
  bool any() const;

 private:
  std::vector<DiagEntry> entries_;
};

}  // namespace ks
