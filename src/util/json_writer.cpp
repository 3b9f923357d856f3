#include "util/json_writer.h"

#include <cmath>
#include <cstdio>

namespace ks {

void append_json_escaped(std::string* out, std::string_view s) {
  out->push_back('"');
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
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
  out_.append(": ");
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

JsonWriter& JsonWriter::micros(int64_t ns) {
  before_value();
  out_.append(format_micros(ns));
  return *this;
}

}  // namespace ks
