#include "import/chrome_json/top_level.h"

#include <simdjson.h>

#include <cstdint>
#include "import/chrome_json/framer.h"
#include "util/decimal_time.h"

namespace ks {

namespace od = simdjson::ondemand;

namespace {

int64_t as_int(od::value v) {
  int64_t i;
  if (!v.get_int64().get(i)) return i;
  double d;
  // Outside int64 the conversion is undefined behaviour: treat as absent.
  if (!v.get_double().get(d)) return d > -9.2e18 && d < 9.2e18 ? static_cast<int64_t>(d) : kNoValue;
  std::string_view s;
  if (!v.get_string().get(s)) return std::strtoll(std::string(s).c_str(), nullptr, 10);
  return kNoValue;
}

std::string as_text(od::value v) {
  std::string_view s;
  if (!v.get_string().get(s)) return std::string(s);
  s = v.raw_json_token();
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.remove_suffix(1);
  return std::string(s);
}

// Calls visit(key, value) for each member of an object; stops at the first malformed one.
template <typename Visit>
void for_each_member(od::object obj, Visit visit) {
  for (auto f : obj) {
    od::field field;
    if (std::move(f).get(field)) return;
    std::string_view k;
    if (field.unescaped_key().get(k)) return;
    visit(k, field.value());
  }
}

void read_device(od::object obj, Trace* t) {
  DeviceProperties d;
  for_each_member(obj, [&d](std::string_view k, od::value v) {
    if (k == "id")
      d.id = as_int(v);
    else if (k == "name")
      d.name = as_text(v);
    else if (k == "totalGlobalMem")
      d.total_memory = as_int(v);
    // Legacy 'computeProperties' (2021 Kineto) spells these major, minor, multiProcessorCount.
    else if (k == "numSms" || k == "multiProcessorCount")
      d.num_sms = as_int(v);
    else if (k == "computeMajor" || k == "major")
      d.compute_major = as_int(v);
    else if (k == "computeMinor" || k == "minor")
      d.compute_minor = as_int(v);
  });
  t->devices.push_back(std::move(d));
}

void read_distributed(od::object obj, Trace* t) {
  DistributedInfo& di = t->distributed;
  di.present = true;
  for_each_member(obj, [&di](std::string_view k, od::value v) {
    if (k == "rank")
      di.rank = as_int(v);
    else if (k == "world_size")
      di.world_size = as_int(v);
    else if (k == "backend")
      di.backend = as_text(v);
  });
}

}  // namespace

void read_top_level_member(std::string_view key, const char* data, size_t len, uint64_t offset,
                           Trace* t) {
  od::parser parser;
  od::document doc;
  if (parser.iterate(data, len, len + kFramerPadding).get(doc)) return;
  TraceFacts& f = t->facts;
  if (key == "deviceProperties" || key == "computeProperties") {
    if (key == "computeProperties") t->diagnostics.add(Diag::kLegacyComputeProperties, offset);
    od::array arr;
    if (doc.get_array().get(arr)) return;
    for (auto el : arr) {
      od::object obj;
      if (el.get_object().get(obj)) return;
      read_device(obj, t);
    }
  } else if (key == "distributedInfo") {
    od::object obj;
    if (!doc.get_object().get(obj)) read_distributed(obj, t);
  } else if (key == "baseTimeNanoseconds") {
    // Already integer nanoseconds (~1.7e18): read as an integer, never through a double.
    int64_t ns;
    uint64_t uns;
    // Beyond kMaxAbsTimeNs it is ignored: adding it to timestamps would overflow.
    if (!doc.get_int64().get(ns) && ns >= -kMaxAbsTimeNs && ns <= kMaxAbsTimeNs) {
      f.has_base_time = true;
      f.base_time_ns = ns;
    } else if (!doc.get_uint64().get(uns) && uns <= static_cast<uint64_t>(kMaxAbsTimeNs)) {
      f.has_base_time = true;
      f.base_time_ns = static_cast<int64_t>(uns);
    }
  } else if (key == "schemaVersion") {
    std::string_view raw;
    if (!doc.raw_json_token().get(raw)) {
      while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n')) raw.remove_suffix(1);
      f.schema_version = std::string(raw);
    }
  } else if (key == "traceName") {
    std::string_view s;
    if (!doc.get_string().get(s)) f.trace_name = std::string(s);
  } else {
    int* flag = key == "record_shapes"    ? &f.record_shapes
                : key == "profile_memory" ? &f.profile_memory
                : key == "with_stack"     ? &f.with_stack
                : key == "with_flops"     ? &f.with_flops
                : key == "with_modules"   ? &f.with_modules
                                          : nullptr;
    if (flag) {
      int64_t v;
      bool b;
      if (!doc.get_int64().get(v))
        *flag = v != 0;
      else if (!doc.get_bool().get(b))
        *flag = b;
    }
  }
}

}  // namespace ks
