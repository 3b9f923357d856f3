#include "import/chrome_json/framer.h"

#include <cstring>

#include "import/chrome_json/byte_scan.h"
#include "util/safe_text.h"

namespace ks {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}
bool is_delimiter(char c) {
  return is_space(c) || c == ',' || c == ']' || c == '}' || c == ':';
}
std::string printable(char c) {
  if (c >= 0x20 && c < 0x7f) return std::string("'") + c + "'";
  char buf[8];
  std::snprintf(buf, sizeof(buf), "0x%02x", static_cast<unsigned char>(c));
  return buf;
}

// What the first bytes of a file that is not UTF-8 JSON are, from the bytes that make a file so:
// a UTF-32 or UTF-16 byte order mark, or gzip's magic (the reader already took one gzip layer off,
// so these bytes mean the trace was compressed twice). Empty when the bytes are none of these.
// UTF-32 LE's mark (FF FE 00 00) begins with UTF-16 LE's (FF FE), so the longer one is tried first.
std::string foreign_start(const char* p, size_t n) {
  auto starts = [&](const char* magic, size_t len) {
    return n >= len && std::memcmp(p, magic, len) == 0;
  };
  auto mark = [&](size_t len) {
    std::string bytes;
    for (size_t i = 0; i < len; ++i) bytes += (i ? " " : "") + printable(p[i]);
    return bytes;
  };
  if (starts("\xFF\xFE\0\0", 4) || starts("\0\0\xFE\xFF", 4))
    return "not JSON: the file is UTF-32 text (byte order mark " + mark(4) + "); save it as UTF-8";
  if (starts("\xFF\xFE", 2) || starts("\xFE\xFF", 2))
    return "not JSON: the file is UTF-16 text (byte order mark " + mark(2) + "); save it as UTF-8";
  if (starts("\x1F\x8B", 2))
    return "not JSON: gzip inside gzip: what the gzip file holds is gzip again (0x1f 0x8b), "
           "the trace was compressed twice; decompress one layer (gzip -dc FILE > trace.json.gz) "
           "and open that";
  return {};
}

// Whether a file's first byte may begin one of foreign_start's marks (then its message waits for
// four bytes, so it does not depend on where a chunk ends).
bool may_begin_mark(char c) {
  return c == '\xFF' || c == '\xFE' || c == '\0' || c == '\x1F';
}
}  // namespace

Framer::Framer(FramerSink* sink, Diagnostics* diags, size_t max_value_bytes)
    : sink_(sink), diags_(diags), max_value_bytes_(max_value_bytes) {}

void Framer::fail(ImportErrorCode code, uint64_t offset, std::string message) {
  state_ = State::kFailed;
  error_.code = code;
  error_.offset = offset;
  error_.message = std::move(message);
}

bool Framer::feed(const char* data, size_t len) {
  char* at = prepare(len);
  if (!at) return false;
  std::memcpy(at, data, len);
  return commit(len);
}

char* Framer::prepare(size_t len) {
  if (state_ == State::kFailed) return nullptr;
  if (buf_.size() < buf_len_ + len + kFramerPadding) {
    size_t want = buf_len_ + len + kFramerPadding;
    buf_.resize(want + want / 2);
  }
  return buf_.data() + buf_len_;
}

bool Framer::commit(size_t len) {
  if (state_ == State::kFailed) return false;
  buf_len_ += len;
  std::memset(buf_.data() + buf_len_, ' ', kFramerPadding);
  // Nothing is scanned (or compacted away) before the BOM check, so buf_[0] is input byte 0.
  // It used to look only once 3 bytes were here and scan the first 1-2 bytes before that, so a
  // BOM split over chunks failed as not_json: hold a BOM prefix back until it is decided.
  if (!bom_checked_ && !check_bom(/*at_end=*/false)) return true;
  scan();
  compact();
  return state_ != State::kFailed;
}

// Skips a UTF-8 byte order mark at the start. Returns false while the bytes so far are a
// prefix of one (more input decides), unless the input has ended.
bool Framer::check_bom(bool at_end) {
  static const char kBom[] = "\xEF\xBB\xBF";
  size_t n = buf_len_ < 3 ? buf_len_ : 3;
  // An empty chunk first (a stream may hand one out) decides nothing: a BOM may still come.
  if (n == 0 && !at_end) return false;
  // Fuzzing (tests/fuzz/regressions/empty_input_memcmp_null): with no input at all buf_ was never
  // allocated, and memcmp(nullptr, ..., 0) is undefined behaviour. Nothing to check then.
  if (n > 0 && std::memcmp(buf_.data(), kBom, n) == 0) {
    if (n < 3 && !at_end) return false;
    if (n == 3) {
      pos_ = 3;
      diags_->add(Diag::kUtf8Bom, 0);
    }
  }
  bom_checked_ = true;
  return true;
}

// Drops bytes that are no longer needed, keeping the value being scanned (unless oversized).
void Framer::compact() {
  size_t keep_from = (in_value_ && !oversized_) ? value_start_ : pos_;
  if (keep_from == 0) return;
  std::memmove(buf_.data(), buf_.data() + keep_from, buf_len_ - keep_from);
  buf_len_ -= keep_from;
  base_offset_ += keep_from;
  pos_ -= keep_from;
  if (in_value_) value_start_ = oversized_ ? 0 : value_start_ - keep_from;
  // Shrink a buffer that grew for one huge value, so it does not stay large.
  if (buf_.size() > (size_t{4} << 20) && buf_len_ * 4 < buf_.size()) {
    buf_.resize(buf_len_ + kFramerPadding + (size_t{1} << 20));
    buf_.shrink_to_fit();
  }
  std::memset(buf_.data() + buf_len_, ' ', kFramerPadding);
}

void Framer::begin_value(size_t pos, ValueRole role) {
  in_value_ = true;
  role_ = role;
  value_start_ = pos;
  value_start_offset_ = offset_of(pos);
  depth_ = 0;
  in_string_ = false;
  escape_ = false;
  oversized_ = false;
  oversized_excerpt_taken_ = false;
  skipped_bytes_ = 0;
  char c = buf_[pos];
  scalar_ = !(c == '{' || c == '[' || c == '"');
}

// Scans the current value from *pos. Strings, escapes and nesting are tracked across chunks.
bool Framer::scan_value(size_t* pos) {
  const char* b = buf_.data();
  size_t p = *pos;
  // The size cap applies to the whole value, also when it ends inside the chunk it started in:
  // checking only at chunk ends made a large value kept or skipped depending on the chunking.
  // Keys are always kept (their text is needed).
  auto check_size = [this](size_t end) {
    if (!oversized_ && role_ != ValueRole::kKey && end - value_start_ > max_value_bytes_)
      oversized_ = true;
  };
  if (scalar_) {
    // Fuzzing (tests/fuzz/regressions/hang_stray_*): a stray ':' or '}' where an event should
    // start ("{"traceEvents":[}") made a zero-length value, and the array states began the
    // same empty value again forever (the CLI and the page hung). It is a one-byte element.
    if (role_ == ValueRole::kEvent && p == value_start_ && p < buf_len_ && is_delimiter(b[p])) {
      *pos = p + 1;
      return true;
    }
    while (p < buf_len_ && !is_delimiter(b[p])) ++p;
    *pos = p;
    check_size(p);
    return p < buf_len_;
  }
  while (p < buf_len_) {
    if (in_string_) {
      // Jump to the next quote or backslash; everything between is string content.
      const char* q = b + p;
      const char* end = b + buf_len_;
      if (escape_) {
        escape_ = false;
        ++p;
        continue;
      }
      q = byte_scan::find_quote_or_backslash(q, end);
      p = static_cast<size_t>(q - b);
      if (p >= buf_len_) break;
      if (*q == '\\') {
        escape_ = true;
        ++p;
        continue;
      }
      in_string_ = false;
      ++p;
      if (depth_ == 0) {  // a bare string value (a key or a string member) ended
        *pos = p;
        check_size(p);
        return true;
      }
      continue;
    }
    // Outside strings only quotes and brackets matter: jump to the next one.
    p = static_cast<size_t>(byte_scan::find_structural(b + p, b + buf_len_) - b);
    if (p >= buf_len_) break;
    char c = b[p++];
    if (c == '"') {
      in_string_ = true;
    } else if (c == '{' || c == '[') {
      ++depth_;
    } else if (c == '}' || c == ']') {
      if (--depth_ == 0) {
        *pos = p;
        check_size(p);
        return true;
      }
    }
  }
  *pos = p;
  // Oversized values keep being scanned but their bytes are let go.
  check_size(p);
  return false;
}

// Fuzzing (tests/fuzz/regressions/chunked_nul_in_number_padding): simdjson looks at the padding
// after a value, which held the next input bytes when the value ended inside a chunk and spaces
// when it ended a chunk; with a NUL inside a number the event was read differently, so the result
// depended on the chunking. The padding is now always spaces while the sink reads the value.
template <typename F>
void Framer::with_space_padding(size_t end, F&& read) {
  char saved[kFramerPadding];
  std::memcpy(saved, buf_.data() + end, kFramerPadding);
  std::memset(buf_.data() + end, ' ', kFramerPadding);
  read();
  std::memcpy(buf_.data() + end, saved, kFramerPadding);
}

void Framer::end_value(size_t end) {
  in_value_ = false;
  const char* data = buf_.data() + value_start_;
  size_t len = end - value_start_;
  switch (role_) {
    case ValueRole::kKey:
      // Keys are short; store without the quotes (escapes are kept raw: our keys have none).
      current_key_.assign(data + 1, len >= 2 ? len - 2 : 0);
      if (current_key_ == "traceEvents") saw_trace_events_key_ = true;
      if (top_keys_.size() < kMaxTopLevelKeys)
        top_keys_.emplace_back(utf8_prefix(current_key_, kMaxTopLevelKeyBytes));
      break;
    case ValueRole::kEvent:
      if (oversized_) {
        diags_->add(Diag::kEventTooLarge, value_start_offset_, oversized_excerpt_);
      } else if (data[0] != '{') {
        diags_->add(Diag::kNonObjectEvent, value_start_offset_, std::string_view(data, len));
      } else {
        with_space_padding(end, [&] {
          // An object the fast path saw only part of (a chunk ended inside it; the page feeds
          // 64 KiB pieces: one event in 160-290 of the bench shapes) is offered to it again, whole.
          // Its end is where the fast reader's object ends (both count the same brackets outside
          // strings), so the reader takes it all or declines it.
          if (value_start_offset_ + len > fast_seen_end_ &&
              sink_->on_event_fast(data, len, value_start_offset_) != 0)
            return;
          sink_->on_event(data, len, value_start_offset_);
        });
      }
      break;
    case ValueRole::kMember:
      if (oversized_) {
        diags_->add(Diag::kTopLevelValueSkipped, value_start_offset_, current_key_);
      } else {
        with_space_padding(
            end, [&] { sink_->on_top_level_member(current_key_, data, len, value_start_offset_); });
      }
      break;
    case ValueRole::kSkippedElement:
      break;
  }
}

void Framer::scan() {
  while (pos_ < buf_len_ && state_ != State::kFailed) {
    if (in_value_) {
      size_t p = pos_;
      bool ended = scan_value(&p);
      if (oversized_) {
        // Let the bytes go: nothing of an oversized value is delivered. Its first bytes are
        // still here the first time: kept as the diagnostic's excerpt, so users see which one.
        if (!oversized_excerpt_taken_) {
          oversized_excerpt_taken_ = true;
          // At most max_value_bytes_ + 1 bytes: however the input is chunked, at least that
          // many are here when the cap is passed (more when the value ended in this chunk), so
          // the excerpt does not depend on the chunking (it did for caps below 80).
          size_t cap = max_value_bytes_ < 80 ? max_value_bytes_ + 1 : 80;
          size_t n = p - value_start_ < cap ? p - value_start_ : cap;
          oversized_excerpt_.assign(buf_.data() + value_start_, n);
        }
        pos_ = p;
        value_start_ = p;
      } else {
        pos_ = p;
      }
      if (!ended) return;
      end_value(pos_);
      continue;
    }
    char c = buf_[pos_];
    if (is_space(c)) {
      pos_ = static_cast<size_t>(byte_scan::skip_space(buf_.data() + pos_, buf_.data() + buf_len_) -
                                 buf_.data());
      continue;
    }
    switch (state_) {
      case State::kStart:
        // A first byte that may begin a UTF-16 byte order mark: the next byte decides the message,
        // so wait for it (the message must not depend on where a chunk ends).
        if (may_begin_mark(c) && pos_ + 4 > buf_len_ && !at_end_) return;
        if (c == '[') {
          container_ = TraceContainer::kArray;
          saw_event_array_ = true;
          in_event_array_ = true;
          state_ = State::kArrayElement;
          ++pos_;
        } else if (c == '{') {
          container_ = TraceContainer::kObject;
          state_ = State::kObjectKey;
          ++pos_;
        } else if (std::string what = foreign_start(buf_.data() + pos_, buf_len_ - pos_);
                   !what.empty()) {
          // Windows tools (PowerShell's Out-File) write UTF-16 or UTF-32, and a .json.gz gzipped
          // again is gzip inside gzip: say so instead of "found 0xff" / "found 0x1f".
          fail(ImportErrorCode::kNotJson, offset_of(pos_), what);
        } else {
          fail(ImportErrorCode::kNotJson, offset_of(pos_),
               "not JSON: a trace starts with '{' or '[', found " + printable(c));
        }
        break;
      case State::kObjectKey:
        if (c == '}') {
          if (obj_after_comma_) diags_->add(Diag::kTrailingComma, offset_of(pos_));
          state_ = State::kDone;
          ++pos_;
        } else if (c == '"') {
          obj_after_comma_ = false;
          begin_value(pos_, ValueRole::kKey);
          state_ = State::kObjectColon;
        } else if (c == ',') {
          // Tolerated: an extra comma between members. Counted like the event array's (it
          // was accepted silently).
          diags_->add(Diag::kExtraComma, offset_of(pos_));
          ++pos_;
        } else {
          fail(ImportErrorCode::kNotJson, offset_of(pos_),
               "invalid JSON: expected a member name, found " + printable(c));
        }
        break;
      case State::kObjectColon:
        if (c != ':') {
          fail(ImportErrorCode::kNotJson, offset_of(pos_),
               "invalid JSON: expected ':' after \"" + display_safe(current_key_, 40) +
                   "\", found " + printable(c));
          break;
        }
        ++pos_;
        state_ = State::kObjectValue;
        break;
      case State::kObjectValue:
        if (current_key_ == "traceEvents" && c == '[') {
          saw_event_array_ = true;
          in_event_array_ = true;
          state_ = State::kArrayElement;
          after_comma_ = false;
          ++pos_;
        } else {
          begin_value(pos_, ValueRole::kMember);
          state_ = State::kObjectNext;
        }
        break;
      case State::kObjectNext:
        if (c == ',') {
          obj_after_comma_ = true;
          state_ = State::kObjectKey;
          ++pos_;
        } else if (c == '}') {
          state_ = State::kDone;
          ++pos_;
        } else {
          fail(ImportErrorCode::kNotJson, offset_of(pos_),
               "invalid JSON: expected ',' or '}' in the top-level object, found " + printable(c));
        }
        break;
      case State::kArrayElement:
      case State::kArrayNext:
        if (part_ && (c == ']' || c == '}')) {
          part_end_ = PartEnd{offset_of(pos_), state_ == State::kArrayNext, after_comma_};
          state_ = State::kPartEnd;
          pos_ = buf_len_;
          break;
        }
        // The next part's start: this part ends before its first element. The first framer
        // resumes here (resume_at) at an element boundary, and takes the next part.
        if (part_ && state_ == State::kArrayElement && after_comma_ && c != ',' &&
            offset_of(pos_) >= part_stop_) {
          part_end_ = PartEnd{offset_of(pos_), false, true};
          state_ = State::kPartEnd;
          pos_ = buf_len_;
          break;
        }
        // Hardening (tests/bad_inputs/stray_brace.json): "{"traceEvents":[{...}}" closes the
        // object with the array still open. Read it as the missing ']' before the '}'.
        if (c == '}' && container_ == TraceContainer::kObject) {
          diags_->add(Diag::kMissingArrayClose, offset_of(pos_));
          in_event_array_ = false;
          after_comma_ = false;
          state_ = State::kObjectNext;
          break;
        }
        if (state_ == State::kArrayNext) {
          scan_array_next(c);
          break;
        }
        if (c == ']') {
          if (after_comma_) diags_->add(Diag::kTrailingComma, offset_of(pos_));
          in_event_array_ = false;
          after_comma_ = false;
          state_ = container_ == TraceContainer::kArray ? State::kDone : State::kObjectNext;
          ++pos_;
        } else if (c == ',') {
          diags_->add(Diag::kExtraComma, offset_of(pos_));
          ++pos_;
        } else {
          if (c == '{') {
            // The fast path reads most events in one pass; what it declines is framed below.
            size_t avail = buf_len_ - pos_ < max_value_bytes_ ? buf_len_ - pos_ : max_value_bytes_;
            size_t n = sink_->on_event_fast(buf_.data() + pos_, avail, offset_of(pos_));
            if (n) {
              pos_ += n;
              state_ = State::kArrayNext;
              break;
            }
            fast_seen_end_ = offset_of(pos_) + avail;
          }
          begin_value(pos_, ValueRole::kEvent);
          state_ = State::kArrayNext;
        }
        break;
      case State::kDone:
        // Counted once: counting once per chunk made the count depend on the chunking.
        if (!trailing_data_) diags_->add(Diag::kTrailingData, offset_of(pos_));
        trailing_data_ = true;
        pos_ = buf_len_;  // ignore the rest
        break;
      case State::kPartEnd:
        pos_ = buf_len_;  // the rest belongs to the first framer
        break;
      case State::kFailed:
        return;
    }
  }
}

void Framer::start_inside_array(uint64_t offset, uint64_t stop) {
  part_ = true;
  part_stop_ = stop;
  bom_checked_ = true;
  base_offset_ = offset;
  container_ = TraceContainer::kUnknown;  // the part never reads past the array
  saw_event_array_ = true;
  in_event_array_ = true;
  after_comma_ = true;
  state_ = State::kArrayElement;
}

bool Framer::at_element_boundary() const {
  return state_ == State::kArrayElement && after_comma_ && in_event_array_ && !in_value_ &&
         pos_ == buf_len_ && bom_checked_;
}

void Framer::resume_at(const PartEnd& end) {
  base_offset_ = end.offset;
  buf_len_ = 0;
  pos_ = 0;
  state_ = end.after_element ? State::kArrayNext : State::kArrayElement;
  after_comma_ = end.after_comma;
}

// In the event array after an element: expecting ',' or ']'.
void Framer::scan_array_next(char c) {
  if (c == ',') {
    after_comma_ = true;
    state_ = State::kArrayElement;
    ++pos_;
  } else if (c == ']') {
    in_event_array_ = false;
    after_comma_ = false;
    state_ = container_ == TraceContainer::kArray ? State::kDone : State::kObjectNext;
    ++pos_;
  } else {
    // A missing comma between events: read the next one anyway, and say so.
    diags_->add(Diag::kExtraComma, offset_of(pos_));
    begin_value(pos_, ValueRole::kEvent);
  }
}

bool Framer::finish() {
  if (state_ == State::kFailed) return false;
  at_end_ = true;
  if (!bom_checked_) {  // 1-2 bytes that could have begun a BOM: scan them now
    check_bom(/*at_end=*/true);
    scan();
    if (state_ == State::kFailed) return false;
  }
  if (state_ == State::kStart && pos_ < buf_len_) {  // a first byte held back (see scan())
    scan();
    if (state_ == State::kFailed) return false;
  }
  if (in_value_) {
    // A value still open at the end of input. A number right at the end is complete.
    if (scalar_ && role_ != ValueRole::kKey) {
      end_value(buf_len_);
    } else if (role_ == ValueRole::kEvent) {
      diags_->add(
          Diag::kTruncatedEvent, value_start_offset_,
          std::string_view(buf_.data() + value_start_, oversized_ ? 0 : buf_len_ - value_start_));
      in_value_ = false;
    } else {
      in_value_ = false;
    }
  }
  switch (state_) {
    case State::kStart:
      fail(ImportErrorCode::kEmptyInput, offset_of(pos_), "empty input: no JSON value found");
      return false;
    case State::kArrayElement:
    case State::kArrayNext:
      diags_->add(Diag::kMissingArrayClose, offset_of(buf_len_));
      if (container_ == TraceContainer::kObject)
        diags_->add(Diag::kMissingObjectClose, offset_of(buf_len_));
      break;
    case State::kObjectKey:
    case State::kObjectColon:
    case State::kObjectValue:
    case State::kObjectNext:
      diags_->add(Diag::kMissingObjectClose, offset_of(buf_len_));
      break;
    default:
      break;
  }
  state_ = State::kDone;
  return true;
}

}  // namespace ks
