#include "analysis/multi_rank.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <iterator>
#include <map>

#include "analysis/intervals.h"
#include "analysis/kernel_class.h"
#include "analysis/name_cache.h"
#include "analysis/step_breakdown.h"
#include "model/export_row.h"
#include "util/safe_text.h"
#include "util/text_match.h"

namespace ks {

bool is_dataloader_slice(std::string_view n) {
  if (is_dataloader_range(n)) return true;  // the report's rule (step_breakdown.h)
  return n.rfind("enumerate(DataLoader)#", 0) == 0 && n.find("__next__") != std::string_view::npos;
}

const char* align_mode_name(AlignMode m) {
  return m == AlignMode::kGlobalMin ? "global-min" : "step";
}

bool parse_align_mode(std::string_view text, AlignMode* out) {
  if (text == "step")
    *out = AlignMode::kStep;
  else if (text == "global-min")
    *out = AlignMode::kGlobalMin;
  else
    return false;
  return true;
}

int dtype_size(std::string_view d) {
  // c10::ScalarType names (torch/csrc: toString(ScalarType)), as record_param_comms writes them.
  static const std::pair<const char*, int> kSizes[] = {
      {"Byte", 1},
      {"Char", 1},
      {"Bool", 1},
      {"Float8_e4m3fn", 1},
      {"Float8_e5m2", 1},
      {"Float8_e4m3fnuz", 1},
      {"Float8_e5m2fnuz", 1},
      {"QInt8", 1},
      {"QUInt8", 1},
      {"Short", 2},
      {"Half", 2},
      {"BFloat16", 2},
      {"ComplexHalf", 4},
      {"Int", 4},
      {"Float", 4},
      {"QInt32", 4},
      {"UInt16", 2},
      {"UInt32", 4},
      {"UInt64", 8},
      {"Long", 8},
      {"Double", 8},
      {"ComplexFloat", 8},
      {"ComplexDouble", 16},
  };
  for (const auto& kv : kSizes)
    if (d == kv.first) return kv.second;
  // C++ type names, as "Input type" writes them (the pre-2.2 "nccl:*" annotations).
  static const std::pair<const char*, int> kCppSizes[] = {
      {"float", 4},         {"double", 8},    {"int", 4},       {"long int", 8},
      {"long", 8},          {"short int", 2}, {"short", 2},     {"signed char", 1},
      {"unsigned char", 1}, {"bool", 1},      {"c10::Half", 2}, {"c10::BFloat16", 2},
  };
  for (const auto& kv : kCppSizes)
    if (d == kv.first) return kv.second;
  return 0;
}

std::string collective_key(std::string_view collective) {
  std::string c;
  for (char ch : collective)
    if (ch != '_') c += ascii_lower(ch);
  return c;
}

double bus_factor(std::string_view collective, int64_t n) {
  if (n < 1) return -1;
  // all_reduce, allreduce_coalesced, _allgather_base, ...
  const std::string c = collective_key(collective);
  auto starts = [&c](const char* p) { return c.rfind(p, 0) == 0; };
  const double nn = static_cast<double>(n);
  if (starts("allreduce")) return 2.0 * (nn - 1) / nn;
  if (starts("allgather") || starts("reducescatter") || starts("alltoall")) return (nn - 1) / nn;
  if (c == "broadcast" || c == "reduce") return 1.0;
  return -1;
}

std::string collective_from_kernel_name(std::string_view kernel) {
  for (std::string_view prefix : {"ncclDevKernel_", "ncclKernel_"}) {
    if (kernel.substr(0, prefix.size()) != prefix) continue;
    std::string_view op = kernel.substr(prefix.size());
    op = op.substr(0, op.find_first_of("_("));
    static const std::pair<const char*, const char*> kNames[] = {
        {"AllReduce", "allreduce"}, {"AllGather", "allgather"}, {"ReduceScatter", "reduce_scatter"},
        {"Broadcast", "broadcast"}, {"Reduce", "reduce"},       {"SendRecv", "sendrecv"},
        {"AllToAll", "alltoall"}};
    for (const auto& kv : kNames)
      if (op == kv.first) return kv.second;
  }
  return "";
}

bool is_point_to_point(std::string_view collective) {
  const std::string c = collective_key(collective);
  return c == "send" || c == "recv" || c == "recvanysource";
}

namespace {

// Which step of a rank holds a time: the first that does. Steps as analysis/steps.cpp makes them
// are sorted and disjoint (each begins where the previous one ended, or later), so a binary
// search finds it: a scan per collective took 8 s for 8 ranks of 20 k steps. Steps that are not
// (a digest read from JSON) are scanned. fleet/reduce.py does the same.
class StepFinder {
 public:
  explicit StepFinder(const std::vector<StepSpan>& steps) : steps_(steps) {
    for (size_t i = 1; i < steps.size() && sorted_; ++i)
      sorted_ =
          steps[i - 1].end_ns <= steps[i].begin_ns && steps[i - 1].begin_ns <= steps[i].begin_ns;
  }
  int at(int64_t ts) const {
    if (sorted_) {
      auto it = std::upper_bound(steps_.begin(), steps_.end(), ts,
                                 [](int64_t t, const StepSpan& st) { return t < st.begin_ns; });
      if (it == steps_.begin()) return -1;
      --it;
      return ts < it->end_ns ? static_cast<int>(it - steps_.begin()) : -1;
    }
    for (size_t i = 0; i < steps_.size(); ++i)
      if (ts >= steps_[i].begin_ns && ts < steps_[i].end_ns) return static_cast<int>(i);
    return -1;
  }

 private:
  const std::vector<StepSpan>& steps_;
  bool sorted_ = true;
};

// A collective's texts are copied into the rank's digest per kernel (and again as the ranks are
// compared); a long name or arg shared by many kernels was copied as often: an Nsight Systems
// export names its kernels by id, and one of 1 MB on 200 kernels of each of two ranks (a 1.1 MB
// file) peaked at 1.38 GB. Cut at a bound no real collective's name comes near (NCCL's are under
// 200 bytes).
constexpr size_t kMaxCommTextBytes = 1024;
std::string comm_text(std::string_view s) {
  return std::string(utf8_prefix(s, kMaxCommTextBytes));
}

// The collective args of a GPU op: on the kernel itself (Kineto 2024+), else on the CPU ops
// enclosing the runtime call that launched it (record_param_comms). Kineto's args (they have a
// group size) win over the "nccl:<collective>" annotation's input tensor (PyTorch before 2.2)
// wherever they are on that chain; else the closest of those.
void add_collective_args(const Trace& t, const LaunchJoin& join, uint32_t g, CommKernel* k) {
  const CollectiveArgs* c = t.slices.collective(g);
  const CollectiveArgs* first = c;
  int32_t at = join.partner[g];
  for (int depth = 0; at >= 0 && depth < 64 && !(c && c->group_size != kNoValue); ++depth) {
    c = t.slices.collective(static_cast<uint32_t>(at));
    if (!first) first = c;
    at = t.slices.parent[static_cast<size_t>(at)];
  }
  if (!(c && c->group_size != kNoValue)) c = first;
  if (!c) {  // no args: the kernel's name may say which collective it is
    k->collective = collective_from_kernel_name(k->name);
    return;
  }
  k->collective = comm_text(t.str(c->collective));
  k->dtype = comm_text(t.str(c->dtype));
  k->in_nelems = c->in_nelems;
  k->out_nelems = c->out_nelems;
  k->group_size = c->group_size;
  k->peer = c->peer;
  k->process_group = comm_text(t.str(c->process_group));
  k->group_ranks = comm_text(t.str(c->group_ranks));
  if (k->collective.empty()) k->collective = collective_from_kernel_name(k->name);
}

}  // namespace

std::string collective_of_kernel(const Trace& t, const LaunchJoin& join, uint32_t g) {
  CommKernel k;
  k.name = std::string(t.str(t.slices.name[g]));
  add_collective_args(t, join, g, &k);
  return k.collective;
}

namespace {

// The collectives a rank without communication kernels ran on the CPU, as kernels are read:
// gloo:* ranges: gloo runs each collective on one of its CPU threads, and the range lasts
//   until every peer has joined (a rank waiting for a straggler shows it as a long range, the
//   straggler as a short one). c10d::allreduce_ on the training thread only enqueues, and nccl:*
//   ranges are NCCL's enqueue annotations: neither is taken. Ranges inside another gloo:* range
//   are counted once, in their parent.
void add_gloo_collectives(const Trace& t, std::vector<Interval>* comm, RankDigest* d) {
  const SliceTable& s = t.slices;
  auto is_gloo = make_name_cache(t, [](std::string_view n) { return n.substr(0, 5) == "gloo:"; });
  for (uint32_t i = 0; i < s.size(); ++i) {
    if (s.kind[i] != SliceKind::kCpuOp && s.kind[i] != SliceKind::kUserAnnotation) continue;
    if (!is_gloo(s.name[i])) continue;
    bool inside_gloo = false;  // at any depth: gloo:* ranges nest through other ranges too
    for (int32_t up = s.parent[i]; up >= 0 && !inside_gloo; up = s.parent[static_cast<size_t>(up)])
      inside_gloo = is_gloo(s.name[static_cast<size_t>(up)]);
    if (inside_gloo) continue;
    comm->push_back({s.ts[i], s.end(i)});
    CommKernel k;
    k.name = comm_text(t.str(s.name[i]));
    k.collective = k.name.substr(5);  // gloo:all_reduce -> all_reduce
    k.stream = kCpuCollectiveStream;
    k.ts_ns = s.ts[i];
    k.dur_ns = s.dur[i];
    d->comm.push_back(std::move(k));
  }
}

// "MPI_Iallreduce" -> "iallreduce"
std::string mpi_collective_name(std::string_view call) {
  std::string out;
  for (char ch : call.substr(call.substr(0, 4) == "MPI_" ? 4 : 0))
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

// An Nsight Systems export's MPI calls (--trace=mpi, nsys_mpi_rows.cpp), the communication of a
// rank whose GPU runs none:
// - collectives (MPI_COLLECTIVES_EVENTS, and MPI_Barrier wherever a version writes it): a
//   blocking one returns when every rank has joined, so it reads as a gloo range does. A
//   non-blocking one (MPI_Iallreduce, ...) returns at once and the rank waits in the MPI_Wait* /
//   MPI_Test* that completes its request (the importer marks that wait with the collective's
//   name): the collective's time is its call's plus that wait's.
// - point-to-point (MPI_P2P_EVENTS: MPI_Send, MPI_Recv, MPI_Sendrecv, MPI_Isend, ...) and the
//   waits on their requests: communication too (a blocking receive waits for its sender), kept
//   apart in mpi_p2p_ns, since ranks need not issue the same sends and receives.
void add_mpi_calls(const Trace& t, std::vector<Interval>* comm, RankDigest* d) {
  const SliceTable& s = t.slices;
  const StringId mpi = t.strings.find("mpi");
  if (t.facts.format != TraceFormat::kNsysSqlite || mpi == StringPool::kMissing) return;
  auto barrier = make_name_cache(t, [](std::string_view n) { return n == "MPI_Barrier"; });
  auto nonblocking =
      make_name_cache(t, [](std::string_view n) { return n.substr(0, 5) == "MPI_I"; });
  // Per (thread, collective name): the non-blocking calls whose wait is not yet seen, in order.
  std::map<std::pair<TrackId, std::string>, std::vector<size_t>> pending;
  std::vector<uint32_t> calls;
  for (uint32_t i = 0; i < s.size(); ++i)
    if (s.kind[i] == SliceKind::kOther && s.cat[i] == mpi) calls.push_back(i);
  std::stable_sort(calls.begin(), calls.end(),
                   [&s](uint32_t a, uint32_t b) { return s.ts[a] < s.ts[b]; });
  std::vector<Interval> p2p;
  for (uint32_t i : calls) {
    const ExportTable table = export_table_code(s.file_offset(i));
    const Interval iv{s.ts[i], s.end(i)};
    const CollectiveArgs* completes = s.collective(i);
    if (table == ExportTable::kMpiCollectives || barrier(s.name[i])) {
      CommKernel k;
      k.name = comm_text(t.str(s.name[i]));
      k.collective = mpi_collective_name(k.name);
      k.stream = kMpiCollectiveStream;
      k.ts_ns = s.ts[i];
      k.dur_ns = s.dur[i];
      if (nonblocking(s.name[i])) pending[{s.track[i], k.name}].push_back(d->comm.size());
      d->comm.push_back(std::move(k));
      comm->push_back(iv);
    } else if (table == ExportTable::kMpiStartWait && completes) {
      auto it = pending.find({s.track[i], std::string(t.str(completes->collective))});
      if (it != pending.end() && !it->second.empty()) {
        d->comm[it->second.front()].dur_ns += s.dur[i];
        it->second.erase(it->second.begin());
      }
      comm->push_back(iv);
    } else if (table == ExportTable::kMpiP2p || table == ExportTable::kMpiStartWait) {
      p2p.push_back(iv);
      comm->push_back(iv);
    }
  }
  d->mpi_p2p_ns = total_length(merge_intervals(std::move(p2p)));
}

// GPU idle gaps inside each step, between its first and last GPU op, net of data loading.
void count_idle_gaps(const std::vector<Interval>& busy, const std::vector<Interval>& loader,
                     const std::vector<StepSpan>& steps, RankDigest* d) {
  for (const StepSpan& st : steps) {
    auto first = std::lower_bound(busy.begin(), busy.end(), st.begin_ns,
                                  [](const Interval& iv, int64_t ts) { return iv.end <= ts; });
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (auto it = first; it != busy.end() && it->begin < st.end_ns; ++it) {
      lo = std::min(lo, std::max(it->begin, st.begin_ns));
      hi = std::max(hi, std::min(it->end, st.end_ns));
    }
    if (lo >= hi) continue;
    for (const Interval& gap : gaps_within(busy, lo, hi)) {
      int64_t idle = gap.length() - length_within(loader, gap.begin, gap.end);
      if (idle < kIdleGapNs) continue;
      ++d->idle_gaps;
      d->idle_gap_ns += idle;
    }
  }
}

}  // namespace

RankDigest make_rank_digest(const Trace& t, const Analyses& a, const std::string& file,
                            const RankIdentity& identity) {
  const SliceTable& s = t.slices;
  RankDigest d;
  d.rank = identity.rank;
  d.source = identity.source;
  d.file = file;
  d.steps = a.steps.stats.count;
  d.step_median_ns = a.steps.stats.median_ns;
  d.step_total_ns = a.steps.stats.total_ns;
  for (const Step& st : a.steps.steps) d.step_spans.push_back({st.number, st.begin, st.end});
  d.start_ns = t.facts.start_ns;
  d.world_size = t.distributed.world_size;
  d.step_ranges = step_range_times(t, a.steps, kStepRangesKept);
  std::vector<Interval> all, compute, comm, loader, host_gaps, copies;
  int64_t busy_until = INT64_MIN;
  for (uint32_t g : a.join.gpu_ops_by_ts) {
    Interval iv{s.ts[g], s.end(g)};
    all.push_back(iv);
    // A gap in the GPU's busy time ends at this op: host wait when the CPU launched it only
    // after the gap began (HTA's host-wait test, applied to the whole GPU as idle_us is).
    if (busy_until != INT64_MIN && iv.begin > busy_until) {
      int32_t launch = a.join.partner[g];
      if (launch >= 0 && s.ts[static_cast<size_t>(launch)] > busy_until) {
        d.host_wait_ns += iv.begin - busy_until;
        host_gaps.push_back({busy_until, iv.begin});
      }
    }
    busy_until = std::max(busy_until, iv.end);
    if (s.kind[g] != SliceKind::kKernel) {
      d.memcpy_ns += s.dur[g];
      copies.push_back(iv);
      continue;
    }
    std::string_view name = t.str(s.name[g]);
    if (hta_category(s.kind[g], name) == HtaCategory::kCommunication) {
      comm.push_back(iv);
      CommKernel k;
      k.name = comm_text(name);
      k.stream = t.tracks[s.track[g]].stream;
      k.ts_ns = s.ts[g];
      k.dur_ns = s.dur[g];
      if (a.join.partner[g] >= 0) k.launch_ns = s.ts[static_cast<size_t>(a.join.partner[g])];
      add_collective_args(t, a.join, g, &k);
      d.comm.push_back(std::move(k));
    } else {
      compute.push_back(iv);
    }
  }
  for (uint32_t i = 0; i < s.size(); ++i)
    if ((s.kind[i] == SliceKind::kUserAnnotation || s.kind[i] == SliceKind::kCpuOp) &&
        is_dataloader_slice(t.str(s.name[i])))
      loader.push_back({s.ts[i], s.end(i)});
  if (d.comm.empty()) {
    add_gloo_collectives(t, &comm, &d);
    add_mpi_calls(t, &comm, &d);
    std::stable_sort(d.comm.begin(), d.comm.end(),
                     [](const CommKernel& a, const CommKernel& b) { return a.ts_ns < b.ts_ns; });
  }
  all = merge_intervals(std::move(all));
  compute = merge_intervals(std::move(compute));
  comm = merge_intervals(std::move(comm));
  d.busy_ns = total_length(all);
  if (!all.empty()) d.gpu_span_ns = all.back().end - all.front().begin;
  d.compute_ns = total_length(compute);
  d.communication_ns = total_length(comm);
  std::vector<Interval> overlap = intersect(compute, comm);
  d.overlap_ns = total_length(overlap);
  loader = merge_intervals(std::move(loader));
  d.dataloader_ns = total_length(loader);
  count_idle_gaps(all, loader, d.step_spans, &d);
  for (StepSpan& st : d.step_spans) {
    const int64_t b = st.begin_ns, e = st.end_ns;
    st.busy_ns = length_within(all, b, e);
    st.compute_ns = length_within(compute, b, e);
    st.communication_ns = length_within(comm, b, e);
    st.overlap_ns = length_within(overlap, b, e);
    st.host_wait_ns = length_within(host_gaps, b, e);  // disjoint already: gaps between ops
    st.dataloader_ns = length_within(loader, b, e);
    for (const Interval& cp : copies)  // a sum, as the total is (copies may overlap)
      st.memcpy_ns += std::max<int64_t>(0, std::min(cp.end, e) - std::max(cp.begin, b));
  }
  return d;
}

namespace {

RankRow row_from_digest(const RankDigest& d) {
  RankRow row;
  static_cast<RankTotals&>(row) = d;
  for (const StepSpan& st : d.step_spans) {
    row.step_numbers.push_back(st.number);
    row.step_ns.push_back(st.end_ns - st.begin_ns);
  }
  row.step_detail = d.step_spans;
  row.step_wait_ns.assign(row.step_numbers.size(), 0);
  row.idle_ns = d.gpu_span_ns - d.busy_ns;
  row.overlap_pct = d.communication_ns ? 100.0 * static_cast<double>(d.overlap_ns) /
                                             static_cast<double>(d.communication_ns)
                                       : 0;
  row.collectives = d.comm.size();
  for (const CommKernel& k : d.comm) {
    row.collective_sum_ns += k.dur_ns;
    if (is_point_to_point(k.collective)) row.p2p_sum_ns += k.dur_ns;
  }
  return row;
}

// HTA's late-start rule (per ANALYSES.md): over NCCL kernels at least 1% of the mean step time,
// take the last one per (rank, stream, step, name); pick the (stream, name) whose duration
// varies most across ranks; in each step flag the two ranks that start it latest (relative to
// their step start, over the mean step time); count per rank.
LateStart late_start(const std::vector<RankDigest>& in, const std::vector<RankRow>& rows) {
  LateStart r;
  if (in.size() < 3) return r;
  double mean_step = 0;
  size_t n_steps = 0;
  for (const RankRow& row : rows) {
    mean_step += static_cast<double>(row.step_total_ns);
    n_steps += row.steps;
  }
  if (n_steps == 0) return r;
  mean_step /= static_cast<double>(n_steps);
  struct Last {
    double norm_start;
    int64_t dur;
  };
  std::map<std::pair<int64_t, std::string>, std::vector<std::map<int64_t, Last>>> table;
  for (size_t k = 0; k < in.size(); ++k) {
    const StepFinder steps(in[k].step_spans);
    for (const CommKernel& c : in[k].comm) {
      if (static_cast<double>(c.dur_ns) < 0.01 * mean_step) continue;
      int si = steps.at(c.ts_ns);
      if (si < 0) continue;
      const StepSpan& st = in[k].step_spans[static_cast<size_t>(si)];
      auto& per_rank = table[std::make_pair(c.stream, c.name)];
      per_rank.resize(in.size());
      per_rank[k][st.number] = {static_cast<double>(c.ts_ns - st.begin_ns) / mean_step, c.dur_ns};
    }
  }
  double best_spread = -1;
  const std::pair<int64_t, std::string>* best = nullptr;
  for (const auto& kv : table) {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (const auto& rank_steps : kv.second)
      for (const auto& st : rank_steps) {
        lo = std::min(lo, st.second.dur);
        hi = std::max(hi, st.second.dur);
      }
    if (lo == INT64_MAX) continue;
    if (static_cast<double>(hi - lo) > best_spread) {
      best_spread = static_cast<double>(hi - lo);
      best = &kv.first;
    }
  }
  if (!best) return r;
  r.computed = true;
  r.stream = best->first;
  r.kernel = best->second;
  r.flagged.assign(in.size(), 0);
  std::map<int64_t, std::vector<std::pair<double, size_t>>> by_step;
  const auto& per_rank = table[*best];
  for (size_t k = 0; k < per_rank.size(); ++k)
    for (const auto& st : per_rank[k]) by_step[st.first].push_back({st.second.norm_start, k});
  for (auto& kv : by_step) {
    auto& v = kv.second;
    std::sort(v.begin(), v.end(),
              [](const std::pair<double, size_t>& a, const std::pair<double, size_t>& b) {
                return a.first != b.first ? a.first > b.first : a.second < b.second;
              });
    for (size_t i = 0; i < v.size() && i < 2; ++i) ++r.flagged[v[i].second];
  }
  return r;
}

}  // namespace

namespace {

// Pending::at / describe_message: the rank is not a member of the collective's group.
constexpr size_t kNotInGroup = SIZE_MAX;

// The message of a matched collective (at[k]: its index on rank k): the first rank whose kernel
// has collective args.
void describe_message(const std::vector<RankDigest>& in, const std::vector<size_t>& at,
                      CollectiveRow* row) {
  for (size_t r = 0; r < in.size(); ++r) {
    if (at[r] == kNotInGroup) continue;
    const CommKernel& k = in[r].comm[at[r]];
    if (k.collective.empty() && k.in_nelems < 0 && k.out_nelems < 0) continue;
    row->collective = k.collective;
    row->dtype = k.dtype;
    row->in_nelems = k.in_nelems;
    row->out_nelems = k.out_nelems;
    row->group_size = k.group_size;
    break;
  }
  int64_t nelems = std::max(row->in_nelems, row->out_nelems);
  int size = dtype_size(row->dtype);
  if (nelems < 0 || size == 0 || nelems > INT64_MAX / 16) return;
  row->bytes = nelems * size;
  // nccl-tests: algbw = size / time; busbw = algbw x factor. The time is the transfer time
  // (the shortest duration across ranks), the part not spent waiting for a late peer.
  if (row->transfer_ns <= 0) return;
  row->algbw_gbps = static_cast<double>(row->bytes) / static_cast<double>(row->transfer_ns);
  double f = bus_factor(row->collective, row->group_size);
  if (f >= 0) row->busbw_gbps = row->algbw_gbps * f;
}

std::vector<CollectiveGroup> group_collectives(const std::vector<CollectiveRow>& rows) {
  std::vector<CollectiveGroup> groups;
  std::map<std::pair<std::string, std::string>, size_t> index;
  std::vector<double> bus_bytes, bus_time;
  std::vector<bool> bus_ok;
  for (const CollectiveRow& r : rows) {
    auto key = std::make_pair(r.name_text, r.collective);
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, groups.size()).first;
      groups.push_back({});
      groups.back().name_text = r.name_text;
      groups.back().collective = r.collective;
      bus_bytes.push_back(0);
      bus_time.push_back(0);
      bus_ok.push_back(true);
    }
    CollectiveGroup& g = groups[it->second];
    ++g.count;
    g.transfer_ns += r.transfer_ns;
    for (int64_t d : r.dur_ns)
      if (d != kNoValue) g.wait_ns += d - r.transfer_ns;
    if (r.bytes >= 0) {
      g.bytes += r.bytes;
      ++g.sized;
    }
    if (r.busbw_gbps >= 0) {
      bus_bytes[it->second] += r.busbw_gbps * static_cast<double>(r.transfer_ns);
      bus_time[it->second] += static_cast<double>(r.transfer_ns);
    } else {
      bus_ok[it->second] = false;
    }
  }
  for (size_t k = 0; k < groups.size(); ++k)
    if (bus_ok[k] && bus_time[k] > 0) groups[k].busbw_gbps = bus_bytes[k] / bus_time[k];
  return groups;
}

// One communicator: per rank, the indices of its kernels in the rank's comm list, in order;
// none on a rank outside the group (a process group of some of the ranks).
struct Channel {
  std::string label;
  std::vector<std::vector<size_t>> kernels;  // parallel to the ranks
};

// The communicators every rank has (see compare_ranks in the header); sets counts_match (and
// mismatch_channel) on `r` where a stream is missing on some rank or the counts differ.
std::vector<Channel> match_channels(const std::vector<RankDigest>& in, MultiRankResult* r) {
  // Stream numbers are a rank's own: used as keys only when every rank has the same set of
  // communication streams, else each stream is named by its order of first use.
  std::vector<std::vector<int64_t>> streams(in.size());  // per rank, in order of first use
  for (size_t k = 0; k < in.size(); ++k)
    for (const CommKernel& c : in[k].comm)
      if (c.process_group.empty() && !is_point_to_point(c.collective) &&
          std::find(streams[k].begin(), streams[k].end(), c.stream) == streams[k].end())
        streams[k].push_back(c.stream);
  bool same_streams = true;
  for (size_t k = 1; k < in.size(); ++k) {
    std::vector<int64_t> a = streams[0], b = streams[k];
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    same_streams = same_streams && a == b;
  }
  std::vector<Channel> channels;
  std::map<std::string, size_t> index;
  std::vector<bool> is_group;
  for (size_t k = 0; k < in.size(); ++k) {
    for (size_t i = 0; i < in[k].comm.size(); ++i) {
      const CommKernel& c = in[k].comm[i];
      // A send or receive goes to one peer: a pipeline stage talks to its neighbours only, so
      // the ranks issue different numbers of them by design, and the i-th of one rank is not the
      // i-th of another. Matched across all ranks they made a false "collective mismatch" and
      // waits measured against unrelated transfers.
      if (is_point_to_point(c.collective)) continue;
      std::string label;
      if (!c.process_group.empty()) {
        label = "group " + c.process_group;
      } else if (c.stream == kCpuCollectiveStream) {
        label = "gloo (CPU)";
      } else if (c.stream == kMpiCollectiveStream) {
        label = "MPI (CPU)";
      } else if (same_streams) {
        label = "stream " + std::to_string(c.stream);
      } else {
        size_t order = static_cast<size_t>(
            std::find(streams[k].begin(), streams[k].end(), c.stream) - streams[k].begin());
        label = "stream #" + std::to_string(order + 1);
      }
      auto it = index.find(label);
      if (it == index.end()) {
        it = index.emplace(label, channels.size()).first;
        channels.push_back({label, std::vector<std::vector<size_t>>(in.size())});
        is_group.push_back(!c.process_group.empty());
      }
      channels[it->second].kernels[k].push_back(i);
    }
  }
  std::vector<Channel> out;
  for (size_t c = 0; c < channels.size(); ++c) {
    bool everywhere = true, counts_equal = true;
    for (const std::vector<size_t>& v : channels[c].kernels) {
      everywhere = everywhere && !v.empty();
      counts_equal = counts_equal && v.size() == channels[c].kernels[0].size();
    }
    if (!everywhere && is_group[c]) {
      // A group of some of the ranks (tensor x data parallel): compared among its members, the
      // ranks that issued it, which must agree on the count as every rank of a whole-job
      // group must. One member alone has no one to wait for.
      size_t members = 0, count = 0;
      bool member_counts_equal = true;
      for (const std::vector<size_t>& v : channels[c].kernels) {
        if (v.empty()) continue;
        if (members++ == 0) count = v.size();
        member_counts_equal = member_counts_equal && v.size() == count;
      }
      if (!member_counts_equal) {
        if (r->counts_match) r->mismatch_channel = channels[c].label;
        r->counts_match = false;
      }
      if (members >= 2) out.push_back(std::move(channels[c]));
      continue;
    }
    if (!everywhere || !counts_equal) {
      if (r->counts_match) r->mismatch_channel = channels[c].label;
      r->counts_match = false;
    }
    if (everywhere) out.push_back(std::move(channels[c]));
  }
  return out;
}

Alignment align_ranks(const std::vector<RankDigest>& in, AlignMode requested) {
  Alignment al;
  al.requested = requested;
  al.mode = requested;
  if (in.empty()) return al;
  al.global_min_ns = INT64_MAX;
  for (const RankDigest& d : in) al.global_min_ns = std::min(al.global_min_ns, d.start_ns);
  // N: the first step number every rank has (each rank's numbers sorted once: ranks whose steps
  // are numbered apart made this steps x steps x ranks).
  std::vector<std::vector<int64_t>> numbers(in.size());
  for (size_t k = 0; k < in.size(); ++k) {
    for (const StepSpan& x : in[k].step_spans) numbers[k].push_back(x.number);
    std::sort(numbers[k].begin(), numbers[k].end());
  }
  for (const StepSpan& cand : in[0].step_spans) {
    bool everywhere = true;
    for (const std::vector<int64_t>& v : numbers)
      everywhere = everywhere && std::binary_search(v.begin(), v.end(), cand.number);
    if (everywhere) {
      al.step = cand.number;
      break;
    }
  }
  if (al.step == kNoValue) al.mode = AlignMode::kGlobalMin;
  for (const RankDigest& d : in) {
    RankAlignment ra;
    const StepSpan* n = nullptr;
    for (const StepSpan& x : d.step_spans)
      if (x.number == al.step) n = &x;
    int64_t origin = al.mode == AlignMode::kStep && n ? n->begin_ns : al.global_min_ns;
    ra.offset_ns = origin - al.global_min_ns;
    ra.first_event_ns = d.start_ns - al.global_min_ns;
    if (n) {
      ra.step_start_ns = n->begin_ns - origin;
      ra.step_end_ns = n->end_ns - origin;
    }
    al.ranks.push_back(ra);
  }
  return al;
}

}  // namespace

std::string export_of(const std::string& rank_file) {
  const size_t at = rank_file.rfind(" pid ");
  return at == std::string::npos ? rank_file : rank_file.substr(0, at);
}

// Ranks read from one file's processes: several such files given together are numbered on.
static bool from_one_file(RankSource s) {
  return s == RankSource::kExportProcess || s == RankSource::kFileProcess;
}

size_t number_export_processes(std::vector<RankDigest>* digests) {
  std::vector<std::string> exports;
  std::vector<int64_t> count;  // processes per export: its ranks are 0..count-1
  for (const RankDigest& d : *digests) {
    if (!from_one_file(d.source)) continue;
    const std::string e = export_of(d.file);
    auto it = std::find(exports.begin(), exports.end(), e);
    if (it == exports.end()) {
      exports.push_back(e);
      count.push_back(0);
      it = exports.end() - 1;
    }
    int64_t& c = count[static_cast<size_t>(it - exports.begin())];
    c = std::max(c, d.rank + 1);
  }
  if (exports.size() < 2) return exports.size();
  std::vector<int64_t> offset(exports.size(), 0);
  for (size_t k = 1; k < exports.size(); ++k) offset[k] = offset[k - 1] + count[k - 1];
  for (RankDigest& d : *digests) {
    if (!from_one_file(d.source)) continue;
    const size_t k = static_cast<size_t>(
        std::find(exports.begin(), exports.end(), export_of(d.file)) - exports.begin());
    d.rank += offset[k];
  }
  return exports.size();
}

// The ranks below the recorded world size that no file holds. Traces that disagree on the world
// size (different runs given together) leave it unknown.
static void find_missing_ranks(MultiRankResult* r) {
  for (const RankRow& row : r->ranks) {
    if (row.world_size == kNoValue) continue;
    if (r->world_size != kNoValue && r->world_size != row.world_size) {
      r->world_size = kNoValue;
      return;
    }
    r->world_size = row.world_size;
  }
  if (r->world_size == kNoValue || r->world_size > 100000) return;
  std::vector<char> given(static_cast<size_t>(r->world_size), 0);
  for (const RankRow& row : r->ranks)
    if (row.rank >= 0 && row.rank < r->world_size) given[static_cast<size_t>(row.rank)] = 1;
  for (int64_t k = 0; k < r->world_size; ++k)
    if (!given[static_cast<size_t>(k)]) r->missing_ranks.push_back(k);
}

// The step numbers every rank has, when the ranks do not all have the same ones, and each rank's
// collectives (NCCL send/recv left out, as the straggler rule leaves them) within those steps.
static void count_shared_steps(const std::vector<RankDigest>& in, MultiRankResult* r) {
  std::vector<std::vector<int64_t>> numbers(in.size());
  for (size_t k = 0; k < in.size(); ++k) {
    for (const StepSpan& x : in[k].step_spans) numbers[k].push_back(x.number);
    std::sort(numbers[k].begin(), numbers[k].end());
  }
  bool same = true;
  for (const std::vector<int64_t>& v : numbers) same = same && v == numbers[0];
  if (same || in.size() < 2) return;
  std::vector<int64_t> shared = numbers[0];
  for (size_t k = 1; k < numbers.size(); ++k) {
    std::vector<int64_t> both;
    std::set_intersection(shared.begin(), shared.end(), numbers[k].begin(), numbers[k].end(),
                          std::back_inserter(both));
    shared = std::move(both);
  }
  shared.erase(std::unique(shared.begin(), shared.end()), shared.end());
  if (shared.empty()) return;
  r->shared_steps = shared;
  for (size_t k = 0; k < in.size(); ++k) {
    std::vector<StepSpan> kept;
    for (const StepSpan& x : in[k].step_spans)
      if (std::binary_search(shared.begin(), shared.end(), x.number)) kept.push_back(x);
    const StepFinder finder(kept);
    for (const CommKernel& c : in[k].comm)
      if (!is_point_to_point(c.collective) && finder.at(c.step_time_ns()) >= 0)
        r->ranks[k].shared_steps_collective_ns += c.dur_ns;
  }
}

// Leaves each rank's collectives launched in one of the shared steps (started there, where
// there is no launch: the rule the straggler's shared_steps_collective_ns counts by): the ones
// the ranks can be compared on.
static void keep_shared_step_collectives(const std::vector<int64_t>& shared,
                                         std::vector<RankDigest>* in) {
  for (RankDigest& d : *in) {
    std::vector<StepSpan> kept;
    for (const StepSpan& x : d.step_spans)
      if (std::binary_search(shared.begin(), shared.end(), x.number)) kept.push_back(x);
    const StepFinder finder(kept);
    std::vector<CommKernel> inside;
    for (CommKernel& c : d.comm)
      if (finder.at(c.step_time_ns()) >= 0) inside.push_back(std::move(c));
    d.comm = std::move(inside);
  }
}

bool parse_group_ranks(std::string_view text, int64_t group_size, std::vector<int64_t>* members) {
  members->clear();
  auto trim = [](std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
  };
  text = trim(text);
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') return false;
  text = trim(text.substr(1, text.size() - 2));
  std::vector<int64_t> listed;
  size_t ellipsis_at = SIZE_MAX;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (item == "...") {
      if (ellipsis_at != SIZE_MAX) return false;
      ellipsis_at = listed.size();
      continue;
    }
    if (item.empty() || item.size() > 18) return false;
    int64_t v = 0;
    for (char ch : item) {
      if (ch < '0' || ch > '9') return false;
      v = v * 10 + (ch - '0');
    }
    listed.push_back(v);
  }
  if (ellipsis_at == SIZE_MAX) {
    *members = std::move(listed);
    return !members->empty();
  }
  if (ellipsis_at != 1 || listed.size() != 2 || listed[1] < listed[0]) return false;
  // A "Group size" past any real job's is not expanded: a hostile one of 10^12 made a list of
  // 10^12 ranks (only the ranks given can be silent members, and they are few).
  constexpr int64_t kMaxGroupExpanded = int64_t{1} << 24;
  if (group_size != kNoValue && group_size <= kMaxGroupExpanded &&
      listed[1] - listed[0] + 1 == group_size) {
    for (int64_t r = listed[0]; r <= listed[1]; ++r) members->push_back(r);
  } else {
    *members = std::move(listed);
  }
  return true;
}

namespace {

// MultiRankResult::silent_members. Only ranks the traces record (distributedInfo, a recorded
// environment) are global ranks the group's list can be compared with; a send or receive is no
// collective (a member may have no peer to talk to).
void find_silent_members(const std::vector<RankDigest>& in, MultiRankResult* r) {
  for (const RankDigest& d : in)
    if (d.source != RankSource::kDistributedInfo && d.source != RankSource::kEnvironment) return;
  struct Group {
    std::string ranks_text;
    int64_t size = kNoValue;
    std::map<int64_t, uint64_t> issued;  // rank -> collectives of the group
  };
  std::map<std::string, Group> groups;
  for (const RankDigest& d : in) {
    for (const CommKernel& c : d.comm) {
      if (c.process_group.empty() || is_point_to_point(c.collective)) continue;
      Group& g = groups[c.process_group];
      if (g.ranks_text.empty() && !c.group_ranks.empty()) {
        g.ranks_text = c.group_ranks;
        g.size = c.group_size;
      }
      ++g.issued[d.rank];
    }
  }
  for (const auto& [name, g] : groups) {
    std::vector<int64_t> members;
    if (!parse_group_ranks(g.ranks_text, g.size, &members)) continue;
    uint64_t most = 0;
    for (int64_t m : members) {
      auto it = g.issued.find(m);
      if (it != g.issued.end()) most = std::max(most, it->second);
    }
    if (most == 0) continue;
    std::string shown = g.ranks_text.substr(1, g.ranks_text.size() - 2);
    for (int64_t m : members) {
      if (g.issued.count(m)) continue;
      bool held = false;  // a rank no file given holds is ranks.missing's, not silent
      for (const RankDigest& d : in) held = held || d.rank == m;
      if (held) r->silent_members.push_back({name, m, shown, most});
    }
  }
}

}  // namespace

MultiRankResult compare_ranks(std::vector<RankDigest> in, AlignMode align) {
  MultiRankResult r;
  std::stable_sort(in.begin(), in.end(),
                   [](const RankDigest& a, const RankDigest& b) { return a.rank < b.rank; });
  for (size_t k = 0; k < in.size(); ++k) {
    r.ranks.push_back(row_from_digest(in[k]));
    if (k > 0 && in[k].rank == in[k - 1].rank) r.duplicate_ranks = true;
  }
  find_missing_ranks(&r);
  if (in.empty()) {
    r.alignment.requested = r.alignment.mode = align;
    return r;
  }
  // The steps every capture holds first: the collectives are compared over them alone (a
  // capture begun steps later traced fewer). HTA's late-start rule reads each rank's own steps.
  count_shared_steps(in, &r);
  r.late_start = late_start(in, r.ranks);
  if (!r.shared_steps.empty()) keep_shared_step_collectives(r.shared_steps, &in);
  find_silent_members(in, &r);
  for (size_t k = 0; k < in.size(); ++k)  // sends and receives are not matched (match_channels)
    for (const CommKernel& c : in[k].comm)
      if (!is_point_to_point(c.collective)) ++r.ranks[k].compared_collectives;
  const std::vector<Channel> channels = match_channels(in, &r);
  // Rows per communicator, up to its shortest list; then in order of issue on the first rank
  // that has them.
  struct Pending {
    CollectiveRow row;
    std::vector<size_t> at;  // per rank: the index in its comm list
    int64_t ts = 0;
    bool names_differ = false;
  };
  std::vector<Pending> pending;
  for (const Channel& ch : channels) {
    // Its members: every rank, or those of a group of some of the ranks (match_channels).
    size_t shortest = SIZE_MAX, first = SIZE_MAX;
    for (size_t k = 0; k < ch.kernels.size(); ++k) {
      if (ch.kernels[k].empty()) continue;
      shortest = std::min(shortest, ch.kernels[k].size());
      if (first == SIZE_MAX) first = k;
    }
    if (first == SIZE_MAX) continue;
    for (size_t i = 0; i < shortest; ++i) {
      Pending p;
      p.row.channel = ch.label;
      p.row.sequence = i;
      p.row.name_text = in[first].comm[ch.kernels[first][i]].name;
      p.ts = in[first].comm[ch.kernels[first][i]].ts_ns;
      for (size_t k = 0; k < in.size(); ++k) {
        if (ch.kernels[k].empty()) {
          p.at.push_back(kNotInGroup);
          continue;
        }
        p.at.push_back(ch.kernels[k][i]);
        if (in[k].comm[ch.kernels[k][i]].name != p.row.name_text) p.names_differ = true;
      }
      pending.push_back(std::move(p));
    }
  }
  // Sends and receives: the i-th send of rank a to b is the i-th receive on b from a. Ranks by
  // their number (the peer args are global ranks); not when two files claim one rank.
  std::map<int64_t, size_t> index_of_rank;
  for (size_t k = 0; k < in.size(); ++k) index_of_rank.emplace(in[k].rank, k);
  std::map<std::pair<size_t, size_t>, std::vector<size_t>> sends, recvs;  // (from, to) -> kernels
  for (size_t k = 0; k < in.size(); ++k) {
    for (size_t i = 0; i < in[k].comm.size(); ++i) {
      const CommKernel& c = in[k].comm[i];
      if (!is_point_to_point(c.collective)) continue;
      auto peer = index_of_rank.find(c.peer);
      const bool send = c.collective == "send", recv = c.collective == "recv";
      if (r.duplicate_ranks || c.peer == kNoValue || peer == index_of_rank.end() ||
          peer->second == k || !(send || recv)) {
        ++r.p2p_unmatched;
        continue;
      }
      if (send)
        sends[{k, peer->second}].push_back(i);
      else
        recvs[{peer->second, k}].push_back(i);
    }
  }
  for (const auto& s : sends) {
    const std::vector<size_t>& to = recvs[s.first];
    const size_t a = s.first.first, b = s.first.second, n = std::min(s.second.size(), to.size());
    r.p2p_unmatched += s.second.size() - n;
    for (size_t i = 0; i < n; ++i) {
      Pending p;
      p.row.channel = "p2p " + std::to_string(in[a].rank) + "->" + std::to_string(in[b].rank);
      p.row.sequence = i;
      p.row.name_text = in[a].comm[s.second[i]].name;
      p.ts = in[a].comm[s.second[i]].ts_ns;
      p.at.assign(in.size(), kNotInGroup);
      p.at[a] = s.second[i];
      p.at[b] = to[i];
      pending.push_back(std::move(p));
    }
    r.p2p_pairs += n;
  }
  for (const auto& v : recvs)  // receives no send of the files given matches
    r.p2p_unmatched += v.second.size() - std::min(v.second.size(), sends[v.first].size());
  std::stable_sort(pending.begin(), pending.end(),
                   [](const Pending& a, const Pending& b) { return a.ts < b.ts; });
  std::vector<StepFinder> finders;
  for (const RankDigest& d : in) finders.emplace_back(d.step_spans);
  for (size_t i = 0; i < pending.size(); ++i) {
    Pending& p = pending[i];
    CollectiveRow& row = p.row;
    row.index = i;
    if (p.names_differ && r.names_match) {
      r.names_match = false;
      r.first_mismatch = i;
      if (r.mismatch_channel.empty()) r.mismatch_channel = row.channel;
    }
    int64_t lo = INT64_MAX;
    for (size_t k = 0; k < in.size(); ++k) {
      if (p.at[k] == kNotInGroup) {
        row.dur_ns.push_back(kNoValue);
        continue;
      }
      row.dur_ns.push_back(in[k].comm[p.at[k]].dur_ns);
      lo = std::min(lo, in[k].comm[p.at[k]].dur_ns);
    }
    row.transfer_ns = lo;
    for (size_t k = 0; k < in.size(); ++k) {
      if (p.at[k] == kNotInGroup) continue;
      RankRow& rr = r.ranks[k];
      int64_t wait = row.dur_ns[k] - lo;
      rr.transfer_ns += lo;
      rr.wait_ns += wait;
      int si = finders[k].at(in[k].comm[p.at[k]].step_time_ns());
      if (si >= 0) rr.step_wait_ns[static_cast<size_t>(si)] += wait;
    }
    describe_message(in, p.at, &row);
    r.collectives.push_back(std::move(row));
  }
  r.collective_groups = group_collectives(r.collectives);
  r.alignment = align_ranks(in, align);
  return r;
}

}  // namespace ks
