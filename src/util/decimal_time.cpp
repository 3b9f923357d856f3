#include "util/decimal_time.h"

#include <cmath>
#include <cstdlib>

namespace ks {

namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Exponent forms are rare in traces; they go through long double, which is exact for the
// magnitudes that occur in practice (and is the only reasonable reading of "1.5e3").
bool parse_with_exponent(std::string_view text, int64_t* out_ns) {
  char buf[64];
  if (text.size() >= sizeof(buf)) return false;
  for (size_t i = 0; i < text.size(); ++i) buf[i] = text[i];
  buf[text.size()] = 0;
  char* end = nullptr;
  long double us = std::strtold(buf, &end);
  if (end != buf + text.size() || !std::isfinite(us)) return false;
  long double ns = std::round(us * 1000.0L);
  if (ns > static_cast<long double>(kMaxAbsTimeNs) || ns < -static_cast<long double>(kMaxAbsTimeNs))
    return false;
  *out_ns = static_cast<int64_t>(ns);
  return true;
}

}  // namespace

bool parse_us_text_to_ns(std::string_view text, int64_t* out_ns) {
  while (!text.empty() &&
         (text.back() == ' ' || text.back() == '\n' || text.back() == '\r' || text.back() == '\t'))
    text.remove_suffix(1);
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  if (text.empty()) return false;
  size_t i = 0;
  bool negative = false;
  if (text[0] == '-' || text[0] == '+') {
    negative = text[0] == '-';
    i = 1;
  }
  if (i >= text.size() || !(is_digit(text[i]) || text[i] == '.')) return false;
  const size_t digits_begin = i;
  // Times are kept within +-4e18 ns (4e15 us since 1970 is the year 2096) so that the sum or
  // difference of any two of them (ts + dur, end - start) fits int64: hostile values beyond
  // that are refused as bad numbers instead of overflowing later.
  constexpr uint64_t kMaxUs = kMaxAbsTimeNs / 1000;
  uint64_t whole = 0;
  for (; i < text.size() && is_digit(text[i]); ++i) {
    whole = whole * 10 + static_cast<uint64_t>(text[i] - '0');
    if (whole > kMaxUs) return false;
  }
  uint64_t frac_ns = 0;
  int frac_digits = 0;
  bool round_up = false;
  if (i < text.size() && text[i] == '.') {
    ++i;
    for (; i < text.size() && is_digit(text[i]); ++i) {
      if (frac_digits < 3) {
        frac_ns = frac_ns * 10 + static_cast<uint64_t>(text[i] - '0');
      } else if (frac_digits == 3) {
        round_up = text[i] >= '5';
      }
      ++frac_digits;
    }
    for (int d = frac_digits; d < 3; ++d) frac_ns *= 10;
  }
  if (i < text.size()) {
    if (text[i] == 'e' || text[i] == 'E') return parse_with_exponent(text, out_ns);
    return false;
  }
  // "." or "-." has no digit at all: not a number (it read as 0).
  if (i == digits_begin + 1 && text[digits_begin] == '.') return false;
  uint64_t ns = whole * 1000 + frac_ns + (round_up ? 1 : 0);
  *out_ns = negative ? -static_cast<int64_t>(ns) : static_cast<int64_t>(ns);
  return true;
}

}  // namespace ks
