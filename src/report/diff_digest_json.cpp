#include "report/diff_digest_json.h"

#include <simdjson.h>

#include <algorithm>

#include "util/json_writer.h"

namespace ks {

namespace {

// 2: the in-step totals (per-step comparison).
constexpr const char* kDiffDigestSchema = "kinetoscope.diffdigest/2";

void write_totals(JsonWriter& w, const char* key, const std::vector<NameTotal>& totals) {
  w.key(key).begin_array();
  for (const NameTotal& t : totals)
    w.begin_array().value(std::string_view(t.name)).value(t.count).value(t.total_ns).end_array();
  w.end_array();
}

bool read_totals(simdjson::dom::element root, const char* key, std::vector<NameTotal>* out) {
  simdjson::dom::array list;
  if (root[key].get(list)) return false;
  for (simdjson::dom::element e : list) {
    NameTotal t;
    std::string_view name;
    if (e.at(0).get(name) || e.at(1).get(t.count) || e.at(2).get(t.total_ns)) return false;
    t.name = std::string(name);
    out->push_back(std::move(t));
  }
  // The comparison merges two name-sorted lists.
  std::sort(out->begin(), out->end(),
            [](const NameTotal& a, const NameTotal& b) { return a.name < b.name; });
  return true;
}

}  // namespace

std::string diff_digest_json(const DiffDigest& d) {
  JsonWriter w;
  w.begin_object();
  w.field("schema", kDiffDigestSchema);
  w.field("file", std::string_view(d.file));
  w.field("steps", d.steps);
  // The median can be a half nanosecond: kept exact as twice its value.
  w.field("step_median_2ns", static_cast<int64_t>(d.step_median_ns * 2));
  if (d.steps_inferred) w.field("steps_inferred", true);
  write_totals(w, "gpu_ops", d.gpu_ops);
  write_totals(w, "cpu_ops", d.cpu_ops);
  write_totals(w, "gpu_ops_in_steps", d.gpu_ops_in_steps);
  write_totals(w, "cpu_ops_in_steps", d.cpu_ops_in_steps);
  w.end_object();
  return w.take();
}

bool parse_diff_digest_json(std::string_view json, DiffDigest* d) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::element root;
  if (parser.parse(padded).get(root)) return false;
  std::string_view schema, file;
  int64_t median2 = 0;
  if (root["schema"].get(schema) || schema != kDiffDigestSchema) return false;
  if (root["file"].get(file) || root["steps"].get(d->steps) || root["step_median_2ns"].get(median2))
    return false;
  d->file = std::string(file);
  d->step_median_ns = static_cast<double>(median2) / 2.0;
  bool inferred = false;  // absent: steps from markers
  d->steps_inferred = !root["steps_inferred"].get(inferred) && inferred;
  return read_totals(root, "gpu_ops", &d->gpu_ops) && read_totals(root, "cpu_ops", &d->cpu_ops) &&
         read_totals(root, "gpu_ops_in_steps", &d->gpu_ops_in_steps) &&
         read_totals(root, "cpu_ops_in_steps", &d->cpu_ops_in_steps);
}

}  // namespace ks
