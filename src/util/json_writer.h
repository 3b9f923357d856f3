// A small streaming JSON writer with deterministic output (the CLI and the WASM build must
// write byte-identical reports): two-space indentation, fixed decimals, no NaN/Infinity
// (written as null), strings escaped per RFC 8259 (control characters as \u00XX).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ks {

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b);
  JsonWriter& value(int64_t i);
  JsonWriter& value(uint64_t u);
  JsonWriter& value(int i) { return value(static_cast<int64_t>(i)); }
  JsonWriter& value(double d, int digits);
  JsonWriter& null();
  // A value that is already JSON text (e.g. a nested report), written as it is.
  JsonWriter& raw(std::string_view json);
  // Nanoseconds as microseconds with 3 decimals, exactly (no double).
  JsonWriter& micros(int64_t ns);
  // Writes a key and a value in one call.
  template <typename T>
  JsonWriter& field(std::string_view k, T v) {
    key(k);
    return value(v);
  }
  JsonWriter& field(std::string_view k, double d, int digits) {
    key(k);
    return value(d, digits);
  }
  JsonWriter& field_micros(std::string_view k, int64_t ns) {
    key(k);
    return micros(ns);
  }
  const std::string& str() const { return out_; }
  std::string take() { return std::move(out_); }
  // The text written so far, handed out and cleared; the writer goes on where it was (output
  // written in pieces as it is made).
  std::string drain() {
    std::string s;
    s.swap(out_);
    return s;
  }

  // No indentation or spaces: for machine-read output whose size matters (fleet digests).
  void set_compact(bool compact) { compact_ = compact; }

 private:
  void before_value();
  void newline();
  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
  bool compact_ = false;
};

void append_json_escaped(std::string* out, std::string_view s);
std::string format_fixed(double d, int digits);
// The decimals, `digits` or more, that write a percentage inside (0, 100) as neither 0 nor 100
// (99.996% idle written "100.00" read as a GPU that ran nothing), and whose one-decimal share reads
// as the true value's (format_pct: 0.0499 is "<0.1%", not "0.05" read as "0.1%").
int share_digits(double pct, int digits);
std::string format_micros(int64_t ns);

}  // namespace ks
