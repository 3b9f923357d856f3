// The framer: the one tolerant place at the edge of the Chrome JSON importer. It takes the
// decompressed bytes in chunks of any size and hands out complete values, each exactly once
// and independent of how the input was chunked:
//   - every element of the event array (the top-level array, or the "traceEvents" member of the
//     top-level object), with its byte offset;
//   - every other top-level member ("deviceProperties", "distributedInfo", ...) as key + value.
// It understands only the outer structure (strings, escapes, nesting depth); event objects are
// parsed by simdjson afterwards, unless the sink's fast path (on_event_fast) reads one first. Only
// the unfinished tail is kept between chunks, so memory does not hold the whole JSON text.
// Tolerances (each counted in Diagnostics): a trailing comma, ",,", a missing final ']' or '}'
// (a trace cut off while writing), a truncated last event, a UTF-8 BOM, trailing bytes, values
// above max_value_bytes (skipped).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "import/import_error.h"
#include "model/diagnostics.h"

namespace ks {

// Bytes readable past the end of every value handed out (simdjson needs its padding).
constexpr size_t kFramerPadding = 64;

class FramerSink {
 public:
  virtual ~FramerSink() = default;
  // `data` stays valid only during the call; at least kFramerPadding bytes after len are readable.
  virtual void on_event(const char* data, size_t len, uint64_t offset) = 0;
  // The fast path (fast_event_reader.h): offered each event that starts with '{' before the
  // framer scans it. `avail` bytes may belong to it (the rest of the buffer, at most the size
  // cap), with kFramerPadding readable bytes after them. Returns the event's length when the sink
  // read it completely (the framer then continues after it), or 0 to have it framed and passed to
  // on_event as usual.
  virtual size_t on_event_fast(const char* data, size_t avail, uint64_t offset) {
    (void)data, (void)avail, (void)offset;
    return 0;
  }
  virtual void on_top_level_member(std::string_view key, const char* data, size_t len,
                                   uint64_t offset) = 0;
};

enum class TraceContainer { kUnknown, kArray, kObject };

class Framer {
 public:
  Framer(FramerSink* sink, Diagnostics* diags, size_t max_value_bytes = size_t{64} << 20);

  // Returns false once a fatal error has been found (then error() says which); later calls
  // are ignored.
  bool feed(const char* data, size_t len);
  // The same in two steps, so the caller can write the bytes straight into the framer's buffer
  // (the page copies each chunk from JavaScript once, instead of into a buffer of its own first):
  // prepare() returns where `len` bytes go (valid until commit; null after a fatal error), and
  // commit() takes them.
  char* prepare(size_t len);
  bool commit(size_t len);
  // Ends the input: reports what the cut-off tail means. Returns false on a fatal error.
  bool finish();

  const ImportError& error() const { return error_; }
  TraceContainer container() const { return container_; }
  bool saw_event_array() const { return saw_event_array_; }
  uint64_t bytes_fed() const { return base_offset_ + buf_len_; }
  // The top-level object's keys, for the message that names another tool's JSON: the first
  // kMaxTopLevelKeys, each cut to kMaxTopLevelKeyBytes. Every key was kept whole, and every rank
  // of a merged file copies them: 200 ranks and 20,000 keys of 1 KiB (20 MB) peaked at 4.1 GB.
  static constexpr size_t kMaxTopLevelKeys = 64;
  static constexpr size_t kMaxTopLevelKeyBytes = 256;
  const std::vector<std::string>& top_level_keys() const { return top_keys_; }
  // Whether the top-level object has a traceEvents key (of any kind), whatever its position.
  bool saw_trace_events_key() const { return saw_trace_events_key_; }

  // Parallel import of one file (split_import.h): a second importer reads a part of the event
  // array from an element boundary on, and the first takes its events over.
  // The part's framer: starts at `offset`, where an element begins after a comma, and stops,
  // without taking it, at the byte that ends the event array (']', or a '}' standing for it), or
  // at the first element that begins at or past `stop` after a comma: where the next part starts,
  // when the page reads a file with more than two workers (web/worker/split.js).
  void start_inside_array(uint64_t offset, uint64_t stop = UINT64_MAX);
  // Where and how the part ended: the offset of that byte and the state before it. Meaningful
  // once part_ended() is true; a part that reaches the end of input without it has not ended.
  bool part_ended() const { return state_ == State::kPartEnd; }
  struct PartEnd {
    uint64_t offset = 0;
    bool after_element = false;  // the last thing before it was an element (not a comma)
    bool after_comma = false;
  };
  PartEnd part_end() const { return part_end_; }
  // The first framer, fed exactly the bytes before a part's start: true when they end at an
  // element boundary after a comma, as the part's framer assumed (nothing pending, no open
  // value). Then the part's events are this framer's next events.
  bool at_element_boundary() const;
  // The first framer again, after taking a part's events: continue as if it had read the bytes up
  // to `end.offset` itself; the next feed() starts at that byte.
  void resume_at(const PartEnd& end);

 private:
  enum class State {
    kStart,         // before the first value
    kObjectKey,     // in the top-level object: expecting a key or '}'
    kObjectColon,   // after a key: expecting ':'
    kObjectValue,   // after ':': expecting a value
    kObjectNext,    // after a member: expecting ',' or '}'
    kArrayElement,  // in the event array: expecting an element or ']'
    kArrayNext,     // after an element: expecting ',' or ']'
    kDone,          // the top-level value ended
    kPartEnd,       // a part (start_inside_array) reached the end of the event array
    kFailed,
  };
  // What the value being scanned is for.
  enum class ValueRole { kKey, kEvent, kMember, kSkippedElement };

  void scan();
  void scan_array_next(char c);
  bool scan_value(size_t* pos);  // advances through the current value; true when it ended
  void begin_value(size_t pos, ValueRole role);
  void end_value(size_t end);
  template <typename F>
  void with_space_padding(size_t end, F&& read);
  void fail(ImportErrorCode code, uint64_t offset, std::string message);
  uint64_t offset_of(size_t pos) const { return base_offset_ + pos; }
  void compact();
  bool check_bom(bool at_end);

  FramerSink* sink_;
  Diagnostics* diags_;
  size_t max_value_bytes_;
  ImportError error_;

  std::vector<char> buf_;  // unprocessed bytes, with kFramerPadding spare at the end
  size_t buf_len_ = 0;
  size_t pos_ = 0;            // scan position in buf_
  uint64_t base_offset_ = 0;  // input offset of buf_[0]

  State state_ = State::kStart;
  TraceContainer container_ = TraceContainer::kUnknown;
  bool bom_checked_ = false;
  bool at_end_ = false;  // finish() was called: nothing more will come
  bool saw_event_array_ = false;
  bool saw_trace_events_key_ = false;
  bool after_comma_ = false;      // in the event array, the last separator was a comma
  bool obj_after_comma_ = false;  // in the top-level object, a comma came after the last member
  bool trailing_data_ = false;    // bytes after the end were seen (counted once)
  bool in_event_array_ = false;

  // The value being scanned.
  bool in_value_ = false;
  ValueRole role_ = ValueRole::kEvent;
  size_t value_start_ = 0;
  uint64_t value_start_offset_ = 0;
  int depth_ = 0;
  bool in_string_ = false;
  bool escape_ = false;
  bool scalar_ = false;     // a number/literal: ends at a delimiter
  bool oversized_ = false;  // above max_value_bytes_: scanned but not kept
  bool oversized_excerpt_taken_ = false;
  // The input offset up to which the fast path saw the event being framed when it declined it:
  // an event cut by the end of a chunk is declined only for want of its end, so it is offered
  // again whole once framed (end_value), instead of going to simdjson.
  uint64_t fast_seen_end_ = 0;
  std::string oversized_excerpt_;  // the first bytes of the oversized value (a diagnostic)
  uint64_t skipped_bytes_ = 0;

  bool part_ = false;                // start_inside_array(): stop at the end of the event array
  uint64_t part_stop_ = UINT64_MAX;  // ... or at the first element at or past this offset
  PartEnd part_end_;

  std::string current_key_;
  std::vector<std::string> top_keys_;
};

}  // namespace ks
