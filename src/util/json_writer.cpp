#include "util/json_writer.h"

#include "util/format.h"

#include <cmath>
#include <cstdio>

namespace ks {

namespace {

// Length of the valid UTF-8 sequence at s[i] (a lead byte >= 0x80), or 0 when there is none;
// then *bad_end is the end of the maximal invalid subsequence. RFC 3629 bounds: no overlong
// forms, no surrogates, nothing above U+10FFFF.
size_t utf8_sequence_length(std::string_view s, size_t i, size_t* bad_end) {
  auto b = static_cast<unsigned char>(s[i]);
  size_t need = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // bounds of the second byte
  if (b >= 0xC2 && b <= 0xDF) {
    need = 1;
  } else if (b >= 0xE0 && b <= 0xEF) {
    need = 2;
    if (b == 0xE0) lo = 0xA0;
    if (b == 0xED) hi = 0x9F;
  } else if (b >= 0xF0 && b <= 0xF4) {
    need = 3;
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F;
  }
  *bad_end = i + 1;
  if (need == 0) return 0;
  for (size_t k = 0; k < need; ++k) {
    size_t j = i + 1 + k;
    if (j >= s.size()) return 0;
    auto c = static_cast<unsigned char>(s[j]);
    if (c < (k == 0 ? lo : 0x80) || c > (k == 0 ? hi : 0xBF)) return 0;
    *bad_end = j + 1;
  }
  return need + 1;
}

}  // namespace

// Reports must be valid UTF-8: an excerpt cut at 80 bytes or an event read with invalid UTF-8
// carried raw bytes into the JSON, which the page (a JavaScript string) then read differently
// from the CLI's bytes. Each maximal invalid subsequence becomes U+FFFD, as TextDecoder does.
void append_json_escaped(std::string* out, std::string_view s) {
  out->push_back('"');
  for (size_t i = 0; i < s.size();) {
    char c = s[i];
    auto u = static_cast<unsigned char>(c);
    if (u >= 0x80) {
      size_t bad_end = 0;
      size_t n = utf8_sequence_length(s, i, &bad_end);
      if (n) {
        out->append(s.data() + i, n);
        i += n;
      } else {
        out->append("\xEF\xBF\xBD");
        i = bad_end;
      }
      continue;
    }
    ++i;
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (u < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", u);
          out->append(buf);
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

std::string format_fixed(double d, int digits) {
  if (!std::isfinite(d)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, d);
  std::string s(buf);
  // "-0.00" reads oddly and differs from JavaScript's formatting: write 0.
  bool all_zero = true;
  for (char c : s)
    if (c >= '1' && c <= '9') all_zero = false;
  if (all_zero && !s.empty() && s[0] == '-') s.erase(0, 1);
  return s;
}

int share_digits(double pct, int digits) {
  if (!(pct > 0 && pct < 100)) return digits;
  // The page writes the value it reads as the text report writes the true one (format_pct):
  // 0.0499 written "0.05" read "0.1%" beside "<0.1%", 12.35001 written "12.35" read "12.3%"
  // beside "12.4%" (a second rounding); such values keep the digits that round the same.
  const std::string as_text = format_pct(pct);
  while (digits < 12) {
    const double shown = std::stod(format_fixed(pct, digits));
    if (shown > 0 && shown < 100 && format_pct(shown) == as_text) break;
    ++digits;
  }
  return digits;
}

std::string format_micros(int64_t ns) {
  bool neg = ns < 0;
  uint64_t a = neg ? static_cast<uint64_t>(-(ns + 1)) + 1 : static_cast<uint64_t>(ns);
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%s%llu.%03llu", neg ? "-" : "",
                static_cast<unsigned long long>(a / 1000),
                static_cast<unsigned long long>(a % 1000));
  return buf;
}

void JsonWriter::newline() {
  if (compact_) return;
  out_.push_back('\n');
  out_.append(first_.size() * 2, ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_.push_back(',');
    first_.back() = false;
    newline();
  }
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_.push_back('{');
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  bool empty = first_.back();
  first_.pop_back();
  if (!empty) newline();
  out_.push_back('}');
  if (first_.empty()) out_.push_back('\n');
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_.push_back('[');
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  bool empty = first_.back();
  first_.pop_back();
  if (!empty) newline();
  out_.push_back(']');
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  before_value();
  append_json_escaped(&out_, k);
  out_.append(compact_ ? ":" : ": ");
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  before_value();
  append_json_escaped(&out_, s);
  return *this;
}

JsonWriter& JsonWriter::value(bool b) {
  before_value();
  out_.append(b ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::value(int64_t i) {
  before_value();
  out_.append(std::to_string(i));
  return *this;
}

JsonWriter& JsonWriter::value(uint64_t u) {
  before_value();
  out_.append(std::to_string(u));
  return *this;
}

JsonWriter& JsonWriter::value(double d, int digits) {
  before_value();
  out_.append(format_fixed(d, digits));
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_.append("null");
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  before_value();
  while (!json.empty() && (json.back() == '\n' || json.back() == ' ')) json.remove_suffix(1);
  out_.append(json);
  return *this;
}

JsonWriter& JsonWriter::micros(int64_t ns) {
  before_value();
  out_.append(format_micros(ns));
  return *this;
}

}  // namespace ks
