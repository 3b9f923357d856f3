#include "report/rank_digest_json.h"

#include <simdjson.h>

#include <map>

#include "util/json_writer.h"

namespace ks {

namespace {
constexpr const char* kDigestSchema = "kinetoscope.rankdigest/1";
}

std::string rank_digest_json(const RankDigest& d) {
  JsonWriter w;
  w.begin_object();
  w.field("schema", kDigestSchema);
  w.field("rank", d.rank);
  w.field("source", static_cast<int64_t>(d.source));
  w.field("file", std::string_view(d.file));
  w.field("steps", d.steps);
  // The median can be a half nanosecond: kept exact as twice its value.
  w.field("step_median_2ns", static_cast<int64_t>(d.step_median_ns * 2));
  w.field("step_total_ns", d.step_total_ns);
  w.field("gpu_span_ns", d.gpu_span_ns);
  w.field("busy_ns", d.busy_ns);
  w.field("compute_ns", d.compute_ns);
  w.field("communication_ns", d.communication_ns);
  w.field("mpi_p2p_ns", d.mpi_p2p_ns);
  w.field("overlap_ns", d.overlap_ns);
  w.field("dataloader_ns", d.dataloader_ns);
  w.field("memcpy_ns", d.memcpy_ns);
  w.field("start_ns", d.start_ns);
  w.field("host_wait_ns", d.host_wait_ns);
  w.field("idle_gaps", d.idle_gaps);
  w.field("idle_gap_ns", d.idle_gap_ns);
  // Optional: the trace's own world size (ranks.missing), absent when it records none.
  if (d.world_size != kNoValue) w.field("world_size", d.world_size);
  w.key("step_ranges").begin_array();
  for (const NamedNs& x : d.step_ranges)
    w.begin_array().value(std::string_view(x.name)).value(x.ns).end_array();
  w.end_array();
  w.key("step_spans").begin_array();
  for (const StepSpan& s : d.step_spans) {
    w.begin_array().value(s.number).value(s.begin_ns).value(s.end_ns).value(s.busy_ns);
    w.value(s.compute_ns).value(s.communication_ns).value(s.overlap_ns).value(s.host_wait_ns);
    w.value(s.dataloader_ns).value(s.memcpy_ns).end_array();
  }
  w.end_array();
  w.key("comm").begin_array();
  for (const CommKernel& c : d.comm) {
    w.begin_array().value(std::string_view(c.name)).value(c.stream).value(c.ts_ns).value(c.dur_ns);
    // The message, only when the trace has collective args.
    if (!c.collective.empty() || c.in_nelems >= 0 || c.out_nelems >= 0) {
      w.value(std::string_view(c.collective)).value(std::string_view(c.dtype));
      w.value(c.in_nelems).value(c.out_nelems).value(c.group_size);
      if (!c.process_group.empty()) w.value(std::string_view(c.process_group));
    }
    w.end_array();
  }
  w.end_array();
  // Each send's / receive's peer (CommKernel::peer, null: none), left out when none has one.
  bool any_peer = false;
  for (const CommKernel& c : d.comm) any_peer = any_peer || c.peer != kNoValue;
  if (any_peer) {
    w.key("comm_peer").begin_array();
    for (const CommKernel& c : d.comm) {
      if (c.peer == kNoValue)
        w.null();
      else
        w.value(c.peer);
    }
    w.end_array();
  }
  // Each collective's launch time, by comm's order (null: none), so the combining worker puts it
  // in the step it was launched in as the CLI does. Left out when no collective has one.
  bool any_launch = false;
  for (const CommKernel& c : d.comm)
    any_launch = any_launch || c.launch_ns != CommKernel::kNoLaunch;
  if (any_launch) {
    w.key("comm_launch_ns").begin_array();
    for (const CommKernel& c : d.comm)
      c.launch_ns != CommKernel::kNoLaunch ? w.value(c.launch_ns) : w.null();
    w.end_array();
  }
  // Each process group's members as written ("Process Group Ranks"), once per group: [[name,
  // text], ...]. Left out when no collective has them.
  std::map<std::string, std::string> group_ranks;
  for (const CommKernel& c : d.comm)
    if (!c.process_group.empty() && !c.group_ranks.empty())
      group_ranks.emplace(c.process_group, c.group_ranks);
  if (!group_ranks.empty()) {
    w.key("group_ranks").begin_array();
    for (const auto& [group, text] : group_ranks)
      w.begin_array().value(std::string_view(group)).value(std::string_view(text)).end_array();
    w.end_array();
  }
  w.end_object();
  return w.take();
}

namespace {

template <typename T>
bool get(simdjson::dom::element e, const char* key, T* out) {
  return !e[key].get(*out);
}

bool get_i64(simdjson::dom::element e, const char* key, int64_t* out) {
  return get(e, key, out);
}

}  // namespace

bool parse_rank_digest_json(std::string_view json, RankDigest* d) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::element root;
  if (parser.parse(padded).get(root)) return false;
  std::string_view schema, file;
  if (!get(root, "schema", &schema) || schema != kDigestSchema) return false;
  int64_t source = 0, median2 = 0;
  uint64_t steps = 0;
  if (!get_i64(root, "rank", &d->rank) || !get_i64(root, "source", &source) ||
      !get(root, "file", &file) || !get(root, "steps", &steps) ||
      !get_i64(root, "step_median_2ns", &median2) ||
      !get_i64(root, "step_total_ns", &d->step_total_ns) ||
      !get_i64(root, "gpu_span_ns", &d->gpu_span_ns) || !get_i64(root, "busy_ns", &d->busy_ns) ||
      !get_i64(root, "compute_ns", &d->compute_ns) ||
      !get_i64(root, "communication_ns", &d->communication_ns) ||
      !get_i64(root, "overlap_ns", &d->overlap_ns) ||
      !get_i64(root, "dataloader_ns", &d->dataloader_ns) ||
      !get_i64(root, "memcpy_ns", &d->memcpy_ns) || !get_i64(root, "start_ns", &d->start_ns) ||
      !get_i64(root, "host_wait_ns", &d->host_wait_ns) || !get(root, "idle_gaps", &d->idle_gaps) ||
      !get_i64(root, "idle_gap_ns", &d->idle_gap_ns))
    return false;
  if (!get_i64(root, "mpi_p2p_ns", &d->mpi_p2p_ns))
    d->mpi_p2p_ns = 0;  // digests before it had none
  // Every RankSource survives the trip: the page's workers send digests of environment ranks and
  // of an export's or a file's processes (kExportProcess, kFileProcess) to the worker that combines
  // them.
  if (source < 0 || source > static_cast<int64_t>(RankSource::kFileProcess)) return false;
  d->source = static_cast<RankSource>(source);
  d->file = std::string(file);
  d->steps = steps;
  d->step_median_ns = static_cast<double>(median2) / 2.0;
  int64_t world_size = 0;
  if (get_i64(root, "world_size", &world_size) && world_size > 0) d->world_size = world_size;
  simdjson::dom::array spans, comm, ranges;
  if (root["step_spans"].get(spans) || root["comm"].get(comm) || root["step_ranges"].get(ranges))
    return false;
  for (simdjson::dom::element x : ranges) {
    std::string_view name;
    NamedNs n;
    if (x.at(0).get(name) || x.at(1).get(n.ns)) return false;
    n.name = std::string(name);
    d->step_ranges.push_back(std::move(n));
  }
  for (simdjson::dom::element s : spans) {
    StepSpan sp;
    if (s.at(0).get(sp.number) || s.at(1).get(sp.begin_ns) || s.at(2).get(sp.end_ns) ||
        s.at(3).get(sp.busy_ns) || s.at(4).get(sp.compute_ns) || s.at(5).get(sp.communication_ns) ||
        s.at(6).get(sp.overlap_ns) || s.at(7).get(sp.host_wait_ns) ||
        s.at(8).get(sp.dataloader_ns) || s.at(9).get(sp.memcpy_ns))
      return false;
    d->step_spans.push_back(sp);
  }
  for (simdjson::dom::element c : comm) {
    CommKernel k;
    std::string_view name;
    if (c.at(0).get(name) || c.at(1).get(k.stream) || c.at(2).get(k.ts_ns) || c.at(3).get(k.dur_ns))
      return false;
    k.name = std::string(name);
    std::string_view coll, dtype;
    if (!c.at(4).get(coll)) {
      if (c.at(5).get(dtype) || c.at(6).get(k.in_nelems) || c.at(7).get(k.out_nelems) ||
          c.at(8).get(k.group_size))
        return false;
      k.collective = std::string(coll);
      k.dtype = std::string(dtype);
      std::string_view group;
      if (!c.at(9).get(group)) k.process_group = std::string(group);
    }
    d->comm.push_back(std::move(k));
  }
  simdjson::dom::array launches;  // digests before it had none
  if (!root["comm_launch_ns"].get(launches)) {
    if (launches.size() != d->comm.size()) return false;
    size_t k = 0;
    for (simdjson::dom::element x : launches) {
      int64_t ns = 0;
      if (!x.is_null() && x.get(ns)) return false;
      if (!x.is_null()) d->comm[k].launch_ns = ns;
      ++k;
    }
  }
  simdjson::dom::array peers;  // digests without send/recv peers have none
  if (!root["comm_peer"].get(peers)) {
    if (peers.size() != d->comm.size()) return false;
    size_t k = 0;
    for (simdjson::dom::element x : peers) {
      int64_t peer = 0;
      if (!x.is_null() && x.get(peer)) return false;
      if (!x.is_null()) d->comm[k].peer = peer;
      ++k;
    }
  }
  simdjson::dom::array groups;  // digests of traces without "Process Group Ranks" have none
  if (!root["group_ranks"].get(groups)) {
    std::map<std::string, std::string, std::less<>> text_of;
    for (simdjson::dom::element g : groups) {
      std::string_view group, text;
      if (g.at(0).get(group) || g.at(1).get(text)) return false;
      text_of.emplace(std::string(group), std::string(text));
    }
    for (CommKernel& c : d->comm) {
      auto it = text_of.find(c.process_group);
      if (it != text_of.end()) c.group_ranks = it->second;
    }
  }
  return true;
}

}  // namespace ks
