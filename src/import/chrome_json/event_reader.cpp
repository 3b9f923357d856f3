#include "import/chrome_json/event_reader.h"

#include <simdjson.h>

#include <cstdint>
#include <cstring>

#include "import/chrome_json/framer.h"
#include "import/chrome_json/non_string_text.h"
#include "util/decimal_time.h"

namespace ks {

namespace od = simdjson::ondemand;

namespace {

// The raw key text without unescaping: keys in traces are plain ASCII. A key with escapes
// keeps its backslashes and simply matches none of the names below.
std::string_view raw_key(od::field& field) {
  const char* start = field.key().raw();
  const char* p = start;
  while (*p != '"') p += (*p == '\\') ? 2 : 1;
  return std::string_view(start, static_cast<size_t>(p - start));
}

// Integers that may come as numbers (possibly above 2^63 or as floats) or as strings.
bool read_int(od::value& v, int64_t* out) {
  od::json_type t;
  if (v.type().get(t)) return false;
  if (t == od::json_type::number) {
    int64_t i;
    if (!v.get_int64().get(i)) {
      *out = i;
      return true;
    }
    uint64_t u;
    if (!v.get_uint64().get(u)) {  // ids above 2^63: keep the low bits, they only join
      *out = static_cast<int64_t>(u & 0x7fffffffffffffffULL);
      return true;
    }
    double d;
    // A float, or an integer above 2^64: converting a double outside int64 is undefined
    // behaviour, so such values count as absent.
    if (!v.get_double().get(d) && d > -9.2e18 && d < 9.2e18) {
      *out = static_cast<int64_t>(d);
      return true;
    }
    return false;
  }
  if (t == od::json_type::string) {
    std::string_view s;
    if (v.get_string().get(s)) return false;
    char* end = nullptr;
    std::string tmp(s);
    long long x = std::strtoll(tmp.c_str(), &end, 10);
    if (end == tmp.c_str()) return false;
    *out = x;
    return true;
  }
  return false;
}

bool read_float(od::value& v, float* out) {
  double d;
  od::json_type t;
  if (v.type().get(t)) return false;
  if (t == od::json_type::number) {
    if (v.get_double().get(d)) return false;
  } else if (t == od::json_type::string) {
    std::string_view s;
    if (v.get_string().get(s)) return false;
    std::string tmp(s);
    char* end = nullptr;
    d = std::strtod(tmp.c_str(), &end);
    if (end == tmp.c_str()) return false;
  } else {
    return false;
  }
  *out = static_cast<float>(d);
  return true;
}

// ts/dur: numbers or strings of decimal microseconds, parsed from the text (no double).
bool read_time(od::value& v, int64_t* out_ns, bool* bad) {
  od::json_type t;
  if (v.type().get(t)) {
    // NaN, Infinity and other bare words are no JSON value: a bad number, not an absent one.
    *bad = true;
    return false;
  }
  std::string_view text;
  if (t == od::json_type::number) {
    text = v.raw_json_token();
  } else if (t == od::json_type::string) {
    if (v.get_string().get(text)) return false;
  } else {
    *bad = true;
    return false;
  }
  if (!parse_us_text_to_ns(text, out_ns)) {
    *bad = true;
    return false;
  }
  return true;
}

// A pid/tid/id: the digits of a number, or a string.
bool read_id_text(od::value& v, std::string_view* out) {
  od::json_type t;
  if (v.type().get(t)) return false;
  if (t == od::json_type::string) return !v.get_string().get(*out);
  if (t == od::json_type::number) {
    std::string_view raw = v.raw_json_token();
    while (!raw.empty() &&
           (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t'))
      raw.remove_suffix(1);
    *out = raw;
    return true;
  }
  return false;
}

// A text field. A non-string value keeps its JSON text (non_string_text.h), as the fast reader
// reads it: a number or literal its token, an object or array its whole text, cut (the token of
// an object is only its '{': every object name read as "{" before), and counted in `e`.
bool read_string(od::value& v, std::string_view* out, RawEvent* e) {
  od::json_type t;
  if (v.type().get(t)) return false;
  if (t == od::json_type::string) return !v.get_string().get(*out);
  std::string_view raw;
  if (t == od::json_type::object) {
    od::object obj;
    if (v.get_object().get(obj) || obj.raw_json().get(raw)) return false;
  } else if (t == od::json_type::array) {
    od::array arr;
    if (v.get_array().get(arr) || arr.raw_json().get(raw)) return false;
  } else {
    raw = v.raw_json_token();
  }
  *out = non_string_text(raw);
  if (is_json_container(raw)) e->text_was_json = true;
  return true;
}

// "grid": [x, y, z]
void read_dim3(od::value& v, uint32_t dims[3], bool* has) {
  od::array arr;
  if (v.get_array().get(arr)) return;
  int i = 0;
  for (auto el : arr) {
    int64_t x;
    od::value ev;
    if (std::move(el).get(ev)) return;
    if (i < 3 && read_int(ev, &x)) dims[i] = static_cast<uint32_t>(x);
    ++i;
  }
  *has = true;
}

// The element count of the first tensor in "Input Dims" ([[d0, d1, ...], ...]), or -1.
int64_t first_tensor_numel(od::value& v) {
  od::array tensors, dims;
  if (v.get_array().get(tensors)) return -1;
  for (auto t : tensors) {
    od::value tv;
    if (std::move(t).get(tv) || tv.get_array().get(dims)) return -1;
    int64_t n = 1;
    for (auto d : dims) {
      od::value dv;
      int64_t x;
      if (std::move(d).get(dv) || !read_int(dv, &x) || x < 0) return -1;
      if (x != 0 && n > INT64_MAX / x) return -1;
      n *= x;
    }
    return n;
  }
  return -1;
}

// The raw JSON text of an array value ("[[2, 3], []]"), or "" when it is not an array.
std::string_view raw_array(od::value& v) {
  od::array arr;
  std::string_view text;
  if (v.get_array().get(arr) || arr.raw_json().get(text)) return {};
  // raw_json() runs to the next token: drop the whitespace before it (the fast reader ends at ']').
  while (!text.empty() &&
         (text.back() == ' ' || text.back() == '\n' || text.back() == '\r' || text.back() == '\t'))
    text.remove_suffix(1);
  return text;
}

// The first string of "Input type" (["float", ...]), or "".
std::string_view first_string(od::value& v) {
  od::array items;
  if (v.get_array().get(items)) return {};
  for (auto it : items) {
    od::value iv;
    std::string_view s;
    if (std::move(it).get(iv) || iv.get_string().get(s)) return {};
    return s;
  }
  return {};
}

void read_args(od::value& v, RawEvent* e) {
  od::object args;
  if (v.get_object().get(args)) return;
  const bool is_meta = e->ph == 'M';
  const bool is_counter = e->ph == 'C';
  const bool legacy_nccl = e->name.rfind("nccl:", 0) == 0;
  for (auto f : args) {
    od::field field;
    if (std::move(f).get(field)) return;
    std::string_view key = raw_key(field);
    od::value val = field.value();
    if (is_meta) {
      if (key == "name") {
        read_string(val, &e->meta_name, e);
      } else if (key == "sort_index") {
        e->has_sort_index = read_int(val, &e->sort_index);
      } else if (key == "labels") {
        read_string(val, &e->meta_labels, e);
      }
      continue;
    }
    if (is_counter) {
      double d;
      if (!val.get_double().get(d)) e->counter_values.push_back({key, d});
      continue;
    }
    switch (key.size() ? key[0] : 0) {
      case 'c':
        if (key == "correlation") read_int(val, &e->correlation);
        break;
      case 'E':
        if (key == "External id") read_int(val, &e->external_id);
        break;
      case 's':
        if (key == "stream") read_int(val, &e->stream);
        break;
      case 'd':
        if (key == "device")
          read_int(val, &e->device);
        else if (key == "dtype")
          e->has_collective |= read_string(val, &e->dtype, e);
        break;
      case 'O':
        if (key == "Out msg nelems") e->has_collective |= read_int(val, &e->out_nelems);
        break;
      case 'G':
        if (key == "Group size") e->has_collective |= read_int(val, &e->group_size);
        break;
      case 'P':
        if (key == "Process Group Name")
          e->has_collective |= read_string(val, &e->process_group, e);
        else if (key == "Process Group Ranks")
          read_string(val, &e->process_group_ranks, e);
        break;
      case 'b':
        if (key == "bytes")
          read_int(val, &e->bytes);
        else if (key == "blocks per SM")
          read_float(val, &e->blocks_per_sm);
        else if (key == "block")
          read_dim3(val, e->block, &e->has_block);
        break;
      case 'g':
        if (key == "grid") read_dim3(val, e->grid, &e->has_grid);
        break;
      case 'w':
        if (key == "warps per SM")
          read_float(val, &e->warps_per_sm);
        else if (key == "wait_on_stream")
          read_int(val, &e->wait_on_stream);
        else if (key == "wait_on_cuda_event_record_corr_id")
          read_int(val, &e->wait_on_record_corr);
        break;
      case 'e':
        if (key == "est. achieved occupancy %")
          read_float(val, &e->occupancy_pct);
        else if (key == "external id")  // Kineto of 2021
          read_int(val, &e->external_id);
        break;
      case 'm':
        if (key == "memory bandwidth (GB/s)") read_float(val, &e->bandwidth_gbps);
        break;
      case 'f':
        if (key == "flops") e->has_flops = true;
        break;
      case 'C':
        if (key == "Call stack") {
          e->has_call_stack = true;
          read_string(val, &e->call_stack, e);
        } else if (key == "Collective name") {
          e->has_collective |= read_string(val, &e->collective, e);
        } else if (key == "Concrete Inputs") {
          e->concrete_inputs_json = raw_array(val);
        }
        break;
      case 'I':
        if (key == "Input Dims" || key == "Input dims") {
          e->has_input_dims = true;
          if (legacy_nccl)
            e->legacy_nelems = first_tensor_numel(val);
          else
            e->input_dims_json = raw_array(val);
        } else if (key == "Input type") {
          if (legacy_nccl)
            e->legacy_dtype = first_string(val);
          else
            e->input_types_json = raw_array(val);
        } else if (key == "In msg nelems") {
          e->has_collective |= read_int(val, &e->in_nelems);
        }
        break;
      case 'T':
        if (key == "Total Allocated")
          read_int(val, &e->mem_total_allocated);
        else if (key == "Total Reserved")
          read_int(val, &e->mem_total_reserved);
        break;
      case 'B':
        if (key == "Bytes") read_int(val, &e->mem_bytes);
        break;
      case 'D':
        if (key == "Device Id")
          read_int(val, &e->mem_device);
        else if (key == "Dst Rank")  // a send's peer (a global rank)
          e->has_collective |= read_int(val, &e->peer);
        break;
      case 'S':
        if (key == "Src Rank")  // a receive's peer (a global rank)
          e->has_collective |= read_int(val, &e->peer);
        break;
      default:
        break;
    }
  }
}

}  // namespace

struct EventReader::Impl {
  od::parser parser;
  od::parser args_parser;  // second pass for args-before-ph, so the first pass's strings survive
};

EventReader::EventReader() : impl_(new Impl) {}
EventReader::~EventReader() = default;

ReadStatus EventReader::read(const char* data, size_t len, RawEvent* e) {
  e->reset();
  od::document doc;
  auto err = impl_->parser.iterate(data, len, len + kFramerPadding).get(doc);
  if (err) {
    if (err == simdjson::UNESCAPED_CHARS) return ReadStatus::kControlChars;
    if (err == simdjson::UTF8_ERROR) return ReadStatus::kInvalidUtf8;
    return ReadStatus::kMalformed;
  }
  od::object obj;
  if (doc.get_object().get(obj)) return ReadStatus::kMalformed;
  bool has_args = false;
  for (auto f : obj) {
    od::field field;
    if (std::move(f).get(field)) return ReadStatus::kMalformed;
    std::string_view key = raw_key(field);
    od::value val = field.value();
    if (key == "ph") {
      if (!read_string(val, &e->ph_text, e)) return ReadStatus::kMalformed;
      e->ph = e->ph_text.size() == 1 ? e->ph_text[0] : '?';
    } else if (key == "name") {
      if (!read_string(val, &e->name, e)) return ReadStatus::kMalformed;
    } else if (key == "cat") {
      if (!read_string(val, &e->cat, e)) return ReadStatus::kMalformed;
    } else if (key == "pid") {
      e->pid.present = read_id_text(val, &e->pid.text);
    } else if (key == "tid") {
      e->tid.present = read_id_text(val, &e->tid.text);
    } else if (key == "ts") {
      e->has_ts = read_time(val, &e->ts_ns, &e->bad_number);
    } else if (key == "dur") {
      e->has_dur = read_time(val, &e->dur_ns, &e->bad_number);
    } else if (key == "id") {
      read_id_text(val, &e->id);
    } else if (key == "bp") {
      std::string_view bp;
      e->binds_enclosing = read_string(val, &bp, e) && bp == "e";
    } else if (key == "s") {
      std::string_view s;
      if (read_string(val, &s, e) && s.size() == 1) e->scope = s[0];
    } else if (key == "args") {
      // Args are read after the phase is known (metadata and counters read them differently),
      // but On Demand cannot come back to a value: when ph comes first (as every writer does)
      // read now; otherwise remember that args come before ph and re-read below.
      if (e->ph) {
        read_args(val, e);
      } else {
        has_args = true;
      }
    }
  }
  if (has_args) {
    // Rare: "args" before "ph". Parse the event again and read only the args.
    od::document doc2;
    if (impl_->args_parser.iterate(data, len, len + kFramerPadding).get(doc2))
      return ReadStatus::kOk;
    od::object obj2;
    if (doc2.get_object().get(obj2)) return ReadStatus::kOk;
    for (auto f : obj2) {
      od::field field;
      if (std::move(f).get(field)) break;
      if (raw_key(field) == "args") {
        od::value args_value = field.value();
        read_args(args_value, e);
        break;
      }
    }
  }
  return ReadStatus::kOk;
}

}  // namespace ks
