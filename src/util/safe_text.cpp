#include "util/safe_text.h"

#include <cstdint>

namespace ks {

namespace {

// Length of the valid UTF-8 sequence starting at s[i] (and its code point), or 0 if invalid.
size_t utf8_seq(std::string_view s, size_t i, uint32_t* cp) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  uint32_t v = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    v = (v << 6) | (b(i + k) & 0x3F);
  }
  // Overlong forms, surrogates and values above U+10FFFF are invalid.
  static const uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (v < kMin[n] || (v >= 0xD800 && v <= 0xDFFF) || v > 0x10FFFF) return 0;
  *cp = v;
  return n;
}

// Control characters and the invisible characters that change the order or direction of the
// text around them.
bool is_unsafe(uint32_t cp) {
  return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) ||  // C0, DEL, C1
         cp == 0x061C ||                                           // Arabic letter mark
         (cp >= 0x200B && cp <= 0x200F) ||  // zero-width space, ZWNJ, ZWJ, LRM, RLM
         (cp >= 0x2060 && cp <= 0x2064) ||  // word joiner, invisible operators
         cp == 0xFEFF ||                    // zero-width no-break space (BOM)
         (cp >= 0x2028 && cp <= 0x202E) ||  // line/paragraph separators, LRE RLE PDF LRO RLO
         (cp >= 0x2066 && cp <= 0x2069);    // LRI RLI FSI PDI
}

}  // namespace

std::string_view utf8_prefix(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  size_t end = max_bytes;
  // Step back over continuation bytes to the start of the character that would be split.
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return s.substr(0, end);
}

std::string display_safe(std::string_view s, size_t max_bytes) {
  std::string out;
  out.reserve(max_bytes && s.size() > max_bytes ? max_bytes : s.size());
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    size_t n = utf8_seq(s, i, &cp);
    if (n == 0) {
      out.push_back('?');
      ++i;
      continue;
    }
    if (is_unsafe(cp))
      out.push_back('?');
    else
      out.append(s.data() + i, n);
    i += n;
    if (max_bytes && out.size() > max_bytes) break;
  }
  if (max_bytes && out.size() > max_bytes) {
    size_t keep = max_bytes > 3 ? max_bytes - 3 : 0;
    out = std::string(utf8_prefix(out, keep)) + "...";
  }
  return out;
}

}  // namespace ks
