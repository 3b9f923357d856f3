// A text field (name, cat, a metadata name, ...) written as another JSON value: both event
// readers give the same text for it, so the fast path and simdjson's reader agree by construction.
#pragma once
#include <cstddef>
#include <string_view>

#include "util/safe_text.h"

namespace ks {

// An object or array where a name belongs ({"a": 1}, [1, 2]) is read as its JSON text, cut to
// this many bytes: it was read as its first byte ('{', '[') before, so every such event shared
// one name, and nothing said so. Long enough to recognise the value, short enough that a
// crafted 60 MB object is not a 64 KiB label on every row of the timeline and the tables.
constexpr size_t kMaxJsonTextBytes = 256;

inline bool is_json_container(std::string_view raw) {
  return !raw.empty() && (raw.front() == '{' || raw.front() == '[');
}

// The text of a non-string value from its raw JSON: the trailing whitespace simdjson's raw views
// include dropped (the fast reader ends at the value's last byte), an object or array cut to
// kMaxJsonTextBytes on a UTF-8 boundary. Numbers and literals keep their whole token.
inline std::string_view non_string_text(std::string_view raw) {
  while (!raw.empty() &&
         (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t'))
    raw.remove_suffix(1);
  if (is_json_container(raw)) return utf8_prefix(raw, kMaxJsonTextBytes);
  return raw;
}

}  // namespace ks
