// The single-pass event reader (see fast_event_reader.h for why it exists and what it gives up
// on). It mirrors EventReader field by field: the same keys, the same conversions, in the same
// order (a repeated key overwrites, as it does there), but accepts only what it can read exactly:
//   - strictly valid JSON (RFC 8259 grammar, strings free of raw control characters, valid UTF-8),
//     so simdjson would read the same event without an error;
//   - kept strings (ph, name, cat, pid/tid/id strings, Call stack, metadata name/labels) without
//     escapes, so the text is the bytes in the buffer, as simdjson's unescaped copy would be (ph,
//     name, cat and metadata name/labels of another JSON type: its text, as EventReader keeps it);
//   - integers of at most 18 digits, and floats that Clinger's fast path converts exactly (at
//     most 15 significant digits, power of ten within 1e22), so the value is the correctly
//     rounded one simdjson computes;
//   - ts/dur as number or plain string text, handed to the same parse_us_text_to_ns.
#include "import/chrome_json/fast_event_reader.h"

#include <cstdint>
#include <cstring>
#include <string_view>

#include "import/chrome_json/byte_scan.h"
#include "import/chrome_json/non_string_text.h"
#include "util/decimal_time.h"

namespace ks {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

using byte_scan::digits_value8;
using byte_scan::find_string_special;
using byte_scan::leading_digits8;

constexpr uint64_t kPow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

// The length of the valid UTF-8 sequence at p (its first byte >= 0x80), or 0 when invalid
// (overlong forms, surrogates and code points above U+10FFFF included), as simdjson validates.
inline int utf8_sequence_length(const unsigned char* p) {
  auto cont = [](unsigned char c) { return (c & 0xC0) == 0x80; };
  unsigned char c = p[0];
  if (c >= 0xC2 && c <= 0xDF) return cont(p[1]) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    unsigned char lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return p[1] >= lo && p[1] <= hi && cont(p[2]) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    unsigned char lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return p[1] >= lo && p[1] <= hi && cont(p[2]) && cont(p[3]) ? 4 : 0;
  }
  return 0;
}

// key == literal, compared inline: `==` on string_view calls memcmp in WebAssembly, which showed
// as 5% of the ingest profile.
template <size_t N>
inline bool is(std::string_view key, const char (&literal)[N]) {
  if (key.size() != N - 1) return false;
  for (size_t i = 0; i + 1 < N; ++i)
    if (key[i] != literal[i]) return false;
  return true;
}

bool is_hex(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// A JSON number as scanned: its text, and its value where it converts exactly.
struct Number {
  std::string_view text;
  bool is_integer = false;  // no fraction, no exponent, at most 18 digits: `integer` is exact
  int64_t integer = 0;
  // Clinger's fast path applies (to_double() is correctly rounded): at most 15 significant
  // digits, a power of ten within 1e22.
  bool exact_double = false;
  bool negative = false;
  uint64_t mantissa = 0;
  int exponent = 0;
};

constexpr double kPowersOfTen[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

class Reader {
 public:
  Reader(const char* data, size_t avail, RawEvent* e) : p_(data), end_(data + avail), e_(e) {}

  // The event object's length, or 0 (give up).
  size_t read_event() {
    const char* begin = p_;
    ++p_;  // '{'
    const bool read = read_elements('}', [this] {
      std::string_view key;
      return read_key(&key) && read_member(key);
    });
    return read ? static_cast<size_t>(p_ - begin) : 0;
  }

 private:
  // What follows an opening '{' or '[' (p_ just past it) up to its `close`: elements read by
  // `read_element` (false: not read exactly), separated by commas, no trailing comma. Every
  // object and array the reader meets goes through here.
  template <typename ReadElement>
  bool read_elements(char close, ReadElement read_element) {
    skip_space();
    if (at(close)) {
      ++p_;
      return true;
    }
    for (;;) {
      if (!read_element()) return false;
      skip_space();
      if (at(',')) {
        ++p_;
        skip_space();
      } else if (at(close)) {
        ++p_;
        return true;
      } else {
        return false;
      }
    }
  }

  bool at(char c) const { return p_ < end_ && *p_ == c; }
  // Byte by byte: between tokens there are one or a few spaces (", ", ": ", an indentation),
  // fewer than a vector step's worth.
  void skip_space() {
    while (p_ < end_ && is_space(*p_)) ++p_;
  }

  // A string's content from after its opening quote; p_ ends after the closing quote. With
  // `allow_escapes` false an escape gives up (the text would need unescaping).
  bool scan_string(bool allow_escapes, std::string_view* out) {
    const char* start = p_;
    for (;;) {
      const char* q = find_string_special(p_, end_);
      if (q >= end_) return false;
      const char c = *q;
      if (c == '"') {
        *out = std::string_view(start, static_cast<size_t>(q - start));
        p_ = q + 1;
        return true;
      }
      if (c == '\\') {
        if (!allow_escapes) return false;
        const char x = q[1];
        if (x == 'u') {
          if (!is_hex(q[2]) || !is_hex(q[3]) || !is_hex(q[4]) || !is_hex(q[5])) return false;
          p_ = q + 6;
        } else if (x == '"' || x == '\\' || x == '/' || x == 'b' || x == 'f' || x == 'n' ||
                   x == 'r' || x == 't') {
          p_ = q + 2;
        } else {
          return false;
        }
        continue;
      }
      if (static_cast<unsigned char>(c) < 0x20) return false;  // raw control character
      int n = utf8_sequence_length(reinterpret_cast<const unsigned char*>(q));
      if (n == 0) return false;
      p_ = q + n;
    }
  }

  // A string value whose text is kept: no escapes.
  bool read_plain_string(std::string_view* out) {
    if (!at('"')) return false;
    ++p_;
    return scan_string(/*allow_escapes=*/false, out);
  }

  // A kept text field (ph, name, cat, a metadata name or labels): a string without escapes, or
  // any other value as its JSON text, exactly as EventReader's read_string gives it
  // (non_string_text.h: a number's token, an object or array cut, and counted).
  bool read_text(std::string_view* out) {
    if (at('"')) return read_plain_string(out);
    const char* begin = p_;
    if (!skip_value(1)) return false;
    const std::string_view raw(begin, static_cast<size_t>(p_ - begin));
    *out = non_string_text(raw);
    if (is_json_container(raw)) e_->text_was_json = true;
    return true;
  }

  // "key" then ':' (the key's raw text: a key with escapes matches none of the names, as in
  // EventReader's raw_key).
  bool read_key(std::string_view* key) {
    if (!at('"')) return false;
    ++p_;
    if (!scan_string(/*allow_escapes=*/true, key)) return false;
    skip_space();
    if (!at(':')) return false;
    ++p_;
    skip_space();
    return p_ < end_;
  }

  bool read_number(Number* n) {
    const char* start = p_;
    bool negative = false;
    if (at('-')) {
      negative = true;
      ++p_;
    }
    if (p_ >= end_) return false;
    uint64_t mantissa = 0;
    int digits = 0;  // significant digits in mantissa
    int exponent = 0;
    bool too_many = false;
    if (*p_ == '0') {
      ++p_;
    } else if (*p_ >= '1' && *p_ <= '9') {
      // Most integers (ids, pids, sizes) have under 8 digits: read at once.
      const int n = digits_at_p();
      if (n < 8) {
        mantissa = digits_value8(p_, n);
        digits = n;
        p_ += n;
      }
      while (p_ < end_ && is_digit(*p_)) {
        if (digits < 19) {
          mantissa = mantissa * 10 + static_cast<uint64_t>(*p_ - '0');
          ++digits;
        } else {
          too_many = true;
          ++exponent;
        }
        ++p_;
      }
    } else {
      return false;
    }
    bool integer = true;
    if (at('.')) {
      integer = false;
      ++p_;
      if (p_ >= end_ || !is_digit(*p_)) return false;
      while (p_ < end_ && is_digit(*p_)) {
        const int d = *p_ - '0';
        if (mantissa == 0 && d == 0) {
          --exponent;  // a leading zero of the fraction
        } else if (digits < 19) {
          mantissa = mantissa * 10 + static_cast<uint64_t>(d);
          ++digits;
          --exponent;
        } else {
          too_many = true;
        }
        ++p_;
      }
    }
    if (at('e') || at('E')) {
      integer = false;
      ++p_;
      bool exp_negative = false;
      if (at('+') || at('-')) {
        exp_negative = *p_ == '-';
        ++p_;
      }
      if (p_ >= end_ || !is_digit(*p_)) return false;
      int e = 0;
      while (p_ < end_ && is_digit(*p_)) {
        if (e < 100000) e = e * 10 + (*p_ - '0');
        ++p_;
      }
      exponent += exp_negative ? -e : e;
    }
    if (p_ >= end_) return false;
    n->text = std::string_view(start, static_cast<size_t>(p_ - start));
    n->is_integer = integer && !too_many && digits <= 18;
    if (n->is_integer) {
      const auto m = static_cast<int64_t>(mantissa);
      n->integer = negative ? -m : m;
    }
    n->exact_double = !too_many && digits <= 15 && exponent >= -22 && exponent <= 22;
    n->negative = negative;
    n->mantissa = mantissa;
    n->exponent = exponent;
    return true;
  }

  // The value of a number with exact_double (only the few float args need it).
  static double to_double(const Number& n) {
    double d = static_cast<double>(n.mantissa);
    d = n.exponent < 0 ? d / kPowersOfTen[-n.exponent] : d * kPowersOfTen[n.exponent];
    return n.negative ? -d : d;
  }

  template <size_t N>
  bool skip_literal(const char (&word)[N]) {
    constexpr size_t kLen = N - 1;
    if (static_cast<size_t>(end_ - p_) < kLen || !is(std::string_view(p_, kLen), word))
      return false;
    p_ += kLen;
    return true;
  }

  // Any JSON value, validated strictly and not kept.
  bool skip_value(int depth) {
    if (p_ >= end_ || depth > 32) return false;
    switch (*p_) {
      case '"': {
        ++p_;
        std::string_view ignored;
        return scan_string(/*allow_escapes=*/true, &ignored);
      }
      case '{':
        ++p_;
        return read_elements('}', [this, depth] {
          std::string_view key;
          return read_key(&key) && skip_value(depth + 1);
        });
      case '[':
        ++p_;
        return read_elements(']', [this, depth] { return skip_value(depth + 1); });
      case 't':
        return skip_literal("true");
      case 'f':
        return skip_literal("false");
      case 'n':
        return skip_literal("null");
      default: {
        Number ignored;
        return read_number(&ignored);
      }
    }
  }

  // The digits at p_ (0-8), none past end_ (the bytes there are not this event's).
  int digits_at_p() const {
    const int n = leading_digits8(p_);
    return end_ - p_ < n ? static_cast<int>(end_ - p_) : n;
  }

  // ts/dur written as a number in the usual form, -?int(.frac)? with at most 16 integer digits
  // and no exponent (every Kineto timestamp): its nanoseconds straight from the digits, exactly as
  // parse_us_text_to_ns computes them from the text (the differential test compares the two
  // readers on every shared trace). Returns false, with p_ unmoved, for any other form.
  bool read_time_digits(int64_t* out_ns) {
    const char* const begin = p_;
    const bool negative = at('-');
    if (negative) ++p_;
    uint64_t whole = 0;
    if (at('0')) {
      ++p_;
    } else {
      int n = p_ < end_ ? digits_at_p() : 0;
      if (n == 0) return (p_ = begin, false);
      whole = digits_value8(p_, n);
      p_ += n;
      if (n == 8) {
        n = p_ < end_ ? digits_at_p() : 0;
        if (n == 8 && end_ - p_ > 8 && is_digit(p_[8])) return (p_ = begin, false);  // > 16
        if (n) whole = whole * kPow10[n] + digits_value8(p_, n);
        p_ += n;
      }
      if (whole > static_cast<uint64_t>(kMaxAbsTimeNs / 1000)) return (p_ = begin, false);
    }
    uint64_t frac_ns = 0;
    bool round_up = false;
    if (at('.')) {
      ++p_;
      if (p_ >= end_ || !is_digit(*p_)) return (p_ = begin, false);
      int k = 0;
      for (; p_ < end_ && is_digit(*p_); ++p_, ++k) {
        if (k < 3)
          frac_ns = frac_ns * 10 + static_cast<uint64_t>(*p_ - '0');
        else if (k == 3)
          round_up = *p_ >= '5';
      }
      for (; k < 3; ++k) frac_ns *= 10;
    }
    if (p_ >= end_ || *p_ == 'e' || *p_ == 'E') return (p_ = begin, false);
    const uint64_t ns = whole * 1000 + frac_ns + (round_up ? 1 : 0);
    *out_ns = negative ? -static_cast<int64_t>(ns) : static_cast<int64_t>(ns);
    return true;
  }

  // ts/dur: EventReader's read_time, for a number or a string without escapes.
  bool read_time(int64_t* out_ns, bool* has) {
    if (read_time_digits(out_ns)) {
      *has = true;
      return true;
    }
    std::string_view text;
    if (at('"')) {
      if (!read_plain_string(&text)) return false;
    } else {
      Number n;
      if (!read_number(&n)) return false;
      text = n.text;
    }
    *has = parse_us_text_to_ns(text, out_ns);
    if (!*has) e_->bad_number = true;
    return true;
  }

  // pid/tid/id: a string's text or a number's digits.
  bool read_id_text(std::string_view* out) {
    if (at('"')) return read_plain_string(out);
    Number n;
    if (!read_number(&n)) return false;
    *out = n.text;
    return true;
  }

  bool read_int(int64_t* out) {
    Number n;
    if (!read_number(&n) || !n.is_integer) return false;
    *out = n.integer;
    return true;
  }

  bool read_float(float* out) {
    Number n;
    if (!read_number(&n) || !n.exact_double) return false;
    *out = static_cast<float>(to_double(n));
    return true;
  }

  // "grid": [x, y, z] of integers.
  bool read_dim3(uint32_t dims[3], bool* has) {
    if (!at('[')) return false;
    ++p_;
    int i = 0;
    const bool read = read_elements(']', [this, dims, &i] {
      int64_t x;
      if (!read_int(&x)) return false;
      if (i < 3) dims[i] = static_cast<uint32_t>(x);
      ++i;
      return true;
    });
    if (read) *has = true;
    return read;
  }

  bool read_member(std::string_view key) {
    RawEvent* e = e_;
    switch (key.size()) {
      case 1:
        if (is(key, "s")) {
          std::string_view s;
          if (!read_plain_string(&s)) return false;
          if (s.size() == 1) e->scope = s[0];
          return true;
        }
        break;
      case 2:
        if (is(key, "ph")) {
          if (!read_text(&e->ph_text)) return false;
          e->ph = e->ph_text.size() == 1 ? e->ph_text[0] : '?';
          return true;
        }
        if (is(key, "ts")) return read_time(&e->ts_ns, &e->has_ts);
        if (is(key, "id")) return read_id_text(&e->id);
        if (is(key, "bp")) {
          std::string_view bp;
          if (!read_plain_string(&bp)) return false;
          e->binds_enclosing = is(bp, "e");
          return true;
        }
        break;
      case 3:
        if (is(key, "cat")) return read_text(&e->cat);
        if (is(key, "pid")) return e->pid.present = read_id_text(&e->pid.text);
        if (is(key, "tid")) return e->tid.present = read_id_text(&e->tid.text);
        if (is(key, "dur")) return read_time(&e->dur_ns, &e->has_dur);
        break;
      case 4:
        if (is(key, "name")) return read_text(&e->name);
        if (is(key, "args")) return read_args();
        break;
      default:
        break;
    }
    return skip_value(0);
  }

  // EventReader's read_args. Args before ph (EventReader re-parses for them) and counter events
  // (values converted by simdjson's double parser) are left to it.
  bool read_args() {
    if (!at('{') || e_->ph == 0 || e_->ph == 'C') return false;
    ++p_;
    const bool is_meta = e_->ph == 'M';
    return read_elements('}', [this, is_meta] {
      std::string_view key;
      return read_key(&key) && (is_meta ? read_meta_arg(key) : read_arg(key));
    });
  }

  bool read_meta_arg(std::string_view key) {
    RawEvent* e = e_;
    if (is(key, "name")) return read_text(&e->meta_name);
    if (is(key, "sort_index")) return e->has_sort_index = read_int(&e->sort_index);
    if (is(key, "labels")) return read_text(&e->meta_labels);
    return skip_value(1);
  }

  bool read_arg(std::string_view key) {
    RawEvent* e = e_;
    switch (key.size() ? key[0] : 0) {
      case 'c':
        if (is(key, "correlation")) return read_int(&e->correlation);
        break;
      case 'E':
        if (is(key, "External id")) return read_int(&e->external_id);
        break;
      case 's':
        if (is(key, "stream")) return read_int(&e->stream);
        break;
      case 'd':
        if (is(key, "device")) return read_int(&e->device);
        if (is(key, "dtype")) return false;  // a collective arg, below
        break;
      case 'b':
        if (is(key, "bytes")) return read_int(&e->bytes);
        if (is(key, "blocks per SM")) return read_float(&e->blocks_per_sm);
        if (is(key, "block")) return read_dim3(e->block, &e->has_block);
        break;
      case 'g':
        if (is(key, "grid")) return read_dim3(e->grid, &e->has_grid);
        break;
      case 'w':
        if (is(key, "warps per SM")) return read_float(&e->warps_per_sm);
        if (is(key, "wait_on_stream")) return read_int(&e->wait_on_stream);
        if (is(key, "wait_on_cuda_event_record_corr_id")) return read_int(&e->wait_on_record_corr);
        break;
      case 'e':
        if (is(key, "est. achieved occupancy %")) return read_float(&e->occupancy_pct);
        if (is(key, "external id")) return read_int(&e->external_id);  // Kineto of 2021
        break;
      case 'm':
        if (is(key, "memory bandwidth (GB/s)")) return read_float(&e->bandwidth_gbps);
        break;
      case 'f':
        if (is(key, "flops")) e->has_flops = true;  // only that it is there: with_flops was on
        break;
      case 'C':
        if (is(key, "Call stack")) {
          e->has_call_stack = true;
          return read_plain_string(&e->call_stack);
        }
        if (is(key, "Collective name")) return false;  // a collective arg, below
        if (is(key, "Concrete Inputs")) return read_raw(&e->concrete_inputs_json);
        break;
      case 'I':
        if (is(key, "In msg nelems") || (is(key, "Input type") && maybe_legacy_nccl()))
          return false;
        if (is(key, "Input Dims") || is(key, "Input dims")) {
          if (maybe_legacy_nccl()) return false;  // its first tensor's size is read there
          e->has_input_dims = true;
          return read_raw(&e->input_dims_json);
        }
        if (is(key, "Input type")) return read_raw(&e->input_types_json);
        break;
      // Collective args (message sizes, src/analysis/multi_rank): a few events a step, so they
      // are left to EventReader rather than read twice over.
      case 'O':
        if (is(key, "Out msg nelems")) return false;
        break;
      case 'G':
        if (is(key, "Group size")) return false;
        break;
      case 'P':
        if (is(key, "Process Group Name") || is(key, "Process Group Ranks")) return false;
        break;
      case 'T':
        if (is(key, "Total Allocated")) return read_int(&e->mem_total_allocated);
        if (is(key, "Total Reserved")) return read_int(&e->mem_total_reserved);
        break;
      case 'B':
        if (is(key, "Bytes")) return read_int(&e->mem_bytes);
        break;
      case 'D':
        if (is(key, "Device Id")) return read_int(&e->mem_device);
        if (is(key, "Dst Rank")) return false;  // a collective arg (above)
        break;
      case 'S':
        if (is(key, "Src Rank")) return false;
        break;
      default:
        break;
    }
    return skip_value(1);
  }

  // The raw text of a value (shape args: arrays), as EventReader's raw_array() gives it: the bytes
  // from its first to its last character; not an array gives "" there, so here too.
  bool read_raw(std::string_view* out) {
    const char* begin = p_;
    if (!skip_value(1)) return false;
    *out = *begin == '[' ? std::string_view(begin, static_cast<size_t>(p_ - begin))
                         : std::string_view();
    return true;
  }

  // EventReader reads a legacy "nccl:<collective>" annotation's "Input Dims"/"Input type" as its
  // message size; a name not read yet (after args) may be one.
  bool maybe_legacy_nccl() const { return e_->name.empty() || e_->name.rfind("nccl:", 0) == 0; }

  const char* p_;
  const char* const end_;
  RawEvent* const e_;
};

}  // namespace

size_t fast_read_event(const char* data, size_t avail, RawEvent* out) {
  out->reset();
  if (avail == 0 || data[0] != '{') return 0;
  return Reader(data, avail, out).read_event();
}

}  // namespace ks
