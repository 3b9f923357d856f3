#include "report/fleet_digest_json.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

#include "analysis/quantile_sketch.h"
#include "report/report_table.h"
#include "report/sections/sections.h"
#include "util/json_writer.h"

namespace ks {

namespace {

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// Per name: the moments that merge by addition (and min/max), and the sketch for quantiles.
// The sum of squares is kept exact in 128 bits (a 1 s kernel squared is 10^18 ns^2 already).
struct Moments {
  uint64_t count = 0;
  int64_t sum = 0;
  int64_t min = INT64_MAX;
  int64_t max = INT64_MIN;
  unsigned __int128 sum_sq = 0;
  QuantileSketch sketch;
  void add(int64_t ns) {
    ++count;
    sum += ns;
    min = std::min(min, ns);
    max = std::max(max, ns);
    uint64_t a = static_cast<uint64_t>(ns < 0 ? -ns : ns);
    sum_sq += static_cast<unsigned __int128>(a) * a;
    sketch.add(ns);
  }
};

std::string u128_decimal(unsigned __int128 v) {
  if (v == 0) return "0";
  std::string s;
  while (v > 0) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  return s;
}

// KEY: [[name, count, sum, min, max, sum_sq, sketch], ...] by total time, then name: the first
// kMaxTableRows (report_table.h; a rank of 10^6 distinct names must not make a digest of
// hundreds of MB), then KEY_omitted_rows and KEY_omitted_ns (their summed time) when some are
// left out. The fleet's totals come from the totals fields, not from these rows.
void write_moments(JsonWriter& w, const char* key, const Trace& t,
                   const std::unordered_map<StringId, Moments>& m) {
  std::vector<std::pair<std::string_view, const Moments*>> rows;
  for (const auto& kv : m) rows.push_back({t.str(kv.first), &kv.second});
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.second->sum != b.second->sum ? a.second->sum > b.second->sum : a.first < b.first;
  });
  w.key(key).begin_array();
  for (size_t i = 0; i < rows.size() && i < kMaxTableRows; ++i) {
    const auto& r = rows[i];
    const Moments& x = *r.second;
    w.begin_array().value(r.first).value(x.count).value(x.sum).value(x.min).value(x.max);
    w.raw(u128_decimal(x.sum_sq));  // JSON numbers have no size limit; Python reads it exactly
    x.sketch.write_json(w);
    w.end_array();
  }
  w.end_array();
  if (rows.size() > kMaxTableRows) {
    int64_t ns = 0;
    for (size_t i = kMaxTableRows; i < rows.size(); ++i) ns += rows[i].second->sum;
    w.field(std::string(key) + "_omitted_rows", static_cast<uint64_t>(rows.size() - kMaxTableRows));
    w.field(std::string(key) + "_omitted_ns", ns);
  }
}

void write_totals(JsonWriter& w, const RankDigest& d) {
  w.field("rank", d.rank);
  w.field("rank_source", rank_source_name(d.source));
  w.field("steps", d.steps);
  w.field("step_median_2ns", static_cast<int64_t>(d.step_median_ns * 2));
  w.field("step_total_ns", d.step_total_ns);
  w.field("gpu_span_ns", d.gpu_span_ns);
  w.field("busy_ns", d.busy_ns);
  w.field("compute_ns", d.compute_ns);
  w.field("communication_ns", d.communication_ns);
  w.field("overlap_ns", d.overlap_ns);
  w.field("dataloader_ns", d.dataloader_ns);
  w.field("memcpy_ns", d.memcpy_ns);
  w.field("host_wait_ns", d.host_wait_ns);
  w.field("start_ns", d.start_ns);
  w.field("idle_gaps", d.idle_gaps);
  w.field("idle_gap_ns", d.idle_gap_ns);
  // [name, ns]: host time in the steps by their direct children (analysis/step_ranges.h)
  w.key("step_ranges").begin_array();
  for (const NamedNs& x : d.step_ranges)
    w.begin_array().value(std::string_view(x.name)).value(x.ns).end_array();
  w.end_array();
}

// Collectives as columns: names and messages interned, start times as differences.
void write_collectives(JsonWriter& w, const RankDigest& d) {
  std::map<std::string, int64_t> names;
  std::vector<const std::string*> name_list;
  using Msg = std::tuple<std::string, std::string, int64_t, int64_t, int64_t>;
  std::map<Msg, int64_t> msgs;
  std::vector<const Msg*> msg_list;
  std::vector<int64_t> name_idx, msg_idx;
  for (const CommKernel& c : d.comm) {
    auto n = names.emplace(c.name, static_cast<int64_t>(names.size()));
    if (n.second) name_list.push_back(&n.first->first);
    name_idx.push_back(n.first->second);
    if (c.collective.empty() && c.in_nelems < 0 && c.out_nelems < 0) {
      msg_idx.push_back(-1);
      continue;
    }
    auto m = msgs.emplace(Msg{c.collective, c.dtype, c.in_nelems, c.out_nelems, c.group_size},
                          static_cast<int64_t>(msgs.size()));
    if (m.second) msg_list.push_back(&m.first->first);
    msg_idx.push_back(m.first->second);
  }
  w.key("collectives").begin_object();
  w.key("names").begin_array();
  for (const std::string* n : name_list) w.value(std::string_view(*n));
  w.end_array();
  w.key("messages").begin_array();
  for (const Msg* m : msg_list)
    w.begin_array()
        .value(std::string_view(std::get<0>(*m)))
        .value(std::string_view(std::get<1>(*m)))
        .value(std::get<2>(*m))
        .value(std::get<3>(*m))
        .value(std::get<4>(*m))
        .end_array();
  w.end_array();
  w.key("name").begin_array();
  for (int64_t v : name_idx) w.value(v);
  w.end_array();
  w.key("message").begin_array();
  for (int64_t v : msg_idx) w.value(v);
  w.end_array();
  w.key("stream").begin_array();
  for (const CommKernel& c : d.comm) w.value(c.stream);
  w.end_array();
  // The process group each collective ran in (Kineto's "Process Group Name"), so the reducer
  // matches per communicator as the in-process multi-rank report does: "groups" lists the names,
  // "group" indexes them (-1: none). Left out when no collective names one.
  std::map<std::string, int64_t> groups;
  std::vector<const std::string*> group_list;
  std::vector<int64_t> group_idx;
  for (const CommKernel& c : d.comm) {
    if (c.process_group.empty()) {
      group_idx.push_back(-1);
      continue;
    }
    auto g = groups.emplace(c.process_group, static_cast<int64_t>(groups.size()));
    if (g.second) group_list.push_back(&g.first->first);
    group_idx.push_back(g.first->second);
  }
  if (!group_list.empty()) {
    w.key("groups").begin_array();
    for (const std::string* g : group_list) w.value(std::string_view(*g));
    w.end_array();
    w.key("group").begin_array();
    for (int64_t v : group_idx) w.value(v);
    w.end_array();
    // Each group's members as Kineto writes them ("Process Group Ranks", PyTorch 2.2+), with
    // the "Group size" of the same collective (it says whether "[0, ..., 63]" is every rank
    // between): [text, size] of the group's first collective that has the text, parallel to
    // "groups", so the reducer finds a member that issued none of the group's collectives
    // (ranks.group_member_silent) as the in-process report does. Left out when none has one.
    std::vector<const CommKernel*> ranks_of(group_list.size(), nullptr);
    for (size_t i = 0; i < d.comm.size(); ++i) {
      const int64_t g = group_idx[i];
      if (g >= 0 && !ranks_of[static_cast<size_t>(g)] && !d.comm[i].group_ranks.empty())
        ranks_of[static_cast<size_t>(g)] = &d.comm[i];
    }
    if (std::any_of(ranks_of.begin(), ranks_of.end(), [](const CommKernel* c) { return c; })) {
      w.key("group_ranks").begin_array();
      for (const CommKernel* c : ranks_of) {
        w.begin_array();
        if (c)
          w.value(std::string_view(c->group_ranks)).value(c->group_size);
        else
          w.value(std::string_view()).value(kNoValue);
        w.end_array();
      }
      w.end_array();
    }
  }
  // Each send's / receive's peer rank (-1: none), so the reducer pairs them as the in-process
  // report does. Left out when none has one.
  bool any_peer = false;
  for (const CommKernel& c : d.comm) any_peer = any_peer || c.peer != kNoValue;
  if (any_peer) {
    w.key("peer").begin_array();
    for (const CommKernel& c : d.comm) w.value(c.peer == kNoValue ? int64_t{-1} : c.peer);
    w.end_array();
  }
  w.key("start_delta_ns").begin_array();
  int64_t prev = 0;
  for (const CommKernel& c : d.comm) {
    w.value(c.ts_ns - prev);
    prev = c.ts_ns;
  }
  w.end_array();
  w.key("dur_ns").begin_array();
  for (const CommKernel& c : d.comm) w.value(c.dur_ns);
  w.end_array();
  // How long before its start each collective was launched (null: no launch found), so the
  // reducer puts it in the step it was launched in, as the in-process report does
  // (CommKernel::step_time_ns). Left out when none has one (gloo/MPI host calls only).
  bool any_launch = false;
  for (const CommKernel& c : d.comm)
    any_launch = any_launch || c.launch_ns != CommKernel::kNoLaunch;
  if (any_launch) {
    w.key("launch_lead_ns").begin_array();
    for (const CommKernel& c : d.comm)
      c.launch_ns != CommKernel::kNoLaunch ? w.value(c.ts_ns - c.launch_ns) : w.null();
    w.end_array();
  }
  w.end_object();
}

}  // namespace

HostName host_from_path(std::string_view path) {
  size_t slash = path.find_last_of('/');
  std::string_view file = slash == std::string_view::npos ? path : path.substr(slash + 1);
  std::string_view dir = slash == std::string_view::npos ? "" : path.substr(0, slash);
  // {hostname}_{pid}.{ms}.pt.trace.json: the host may hold '_' and '.', so cut from the end.
  for (std::string_view suffix : {".pt.trace.json.gz", ".pt.trace.json"}) {
    if (file.size() <= suffix.size() ||
        file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    std::string_view stem = file.substr(0, file.size() - suffix.size());
    size_t dot = stem.find_last_of('.');
    if (dot == std::string_view::npos || !all_digits(stem.substr(dot + 1))) break;
    std::string_view worker = stem.substr(0, dot);
    size_t us = worker.find_last_of('_');
    if (us == std::string_view::npos || us == 0 || !all_digits(worker.substr(us + 1))) break;
    return {std::string(worker.substr(0, us)), "file_name"};
  }
  size_t s2 = dir.find_last_of('/');
  std::string_view parent = s2 == std::string_view::npos ? dir : dir.substr(s2 + 1);
  static const char* kGeneric[] = {"",    ".",       "..",       "traces", "trace",       "logs",
                                   "log", "profile", "profiles", "tb",     "tensorboard", "output",
                                   "out", "tmp"};
  for (const char* g : kGeneric)
    if (parent == g) return {"", "none"};
  return {std::string(parent), "directory"};
}

std::string fleet_digest_json(const Report& report, const RankDigest& d, std::string_view path,
                              uint64_t file_bytes) {
  const Trace& t = *report.trace;
  const SliceTable& s = t.slices;
  std::unordered_map<StringId, Moments> kernels, cpu_ops;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.kind[i] == SliceKind::kKernel)
      kernels[s.name[i]].add(s.dur[i]);
    else if (s.kind[i] == SliceKind::kCpuOp)
      cpu_ops[s.name[i]].add(s.dur[i]);
  }
  HostName host = host_from_path(path);
  JsonWriter w;
  w.set_compact(true);
  w.begin_object();
  w.field("schema", kFleetDigestSchema);
  w.field("file", std::string_view(d.file));
  w.field("path", path);
  w.field("file_bytes", file_bytes);
  w.field("json_bytes", t.facts.json_bytes);
  w.field("host", std::string_view(host.name));
  w.field("host_source", std::string_view(host.source));
  if (t.distributed.world_size != kNoValue) w.field("world_size", t.distributed.world_size);
  write_totals(w, d);
  w.key("step_spans").begin_array();
  for (const StepSpan& st : d.step_spans) {
    w.begin_array().value(st.number).value(st.begin_ns).value(st.end_ns).value(st.busy_ns);
    w.value(st.compute_ns).value(st.communication_ns).value(st.overlap_ns).value(st.host_wait_ns);
    w.value(st.dataloader_ns).value(st.memcpy_ns).end_array();
  }
  w.end_array();
  write_collectives(w, d);
  write_moments(w, "kernels", t, kernels);
  write_moments(w, "cpu_ops", t, cpu_ops);
  write_section_json(w, findings_section(&t, report.findings, kNoFindings));
  w.end_object();
  return w.take();  // ends with a newline
}

}  // namespace ks
