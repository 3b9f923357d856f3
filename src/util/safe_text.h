// Text from a trace (names, categories, keys, file names) made safe to show in a terminal or in
// Markdown: a name is data, and must not move the cursor, recolour the terminal (ESC sequences),
// ring the bell, or reorder what is printed after it (Unicode bidi overrides such as U+202E, the
// "Trojan Source" trick), or hide inside it (zero-width characters). Each such character becomes
// '?', as does any invalid UTF-8 byte. Everything else (any other printable UTF-8) is kept as
// written.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace ks {

// `max_bytes` > 0 cuts the result to at most that many bytes, on a character boundary, ending in
// "..." when cut.
std::string display_safe(std::string_view s, size_t max_bytes = 0);

// The longest prefix of `s` of at most `max_bytes` bytes that does not split a UTF-8 sequence.
std::string_view utf8_prefix(std::string_view s, size_t max_bytes);

}  // namespace ks
