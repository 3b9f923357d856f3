#include "analysis/multi_rank.h"

#include <algorithm>
#include <map>

#include "analysis/intervals.h"
#include "analysis/kernel_class.h"

namespace ks {

bool is_dataloader_slice(std::string_view n) {
  if (n.rfind("enumerate(DataPipe)#", 0) == 0) return true;
  return n.rfind("enumerate(DataLoader)#", 0) == 0 && n.find("__next__") != std::string_view::npos;
}

namespace {

int step_index_at(const std::vector<StepSpan>& steps, int64_t ts) {
  for (size_t i = 0; i < steps.size(); ++i)
    if (ts >= steps[i].begin_ns && ts < steps[i].end_ns) return static_cast<int>(i);
  return -1;
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
  std::vector<Interval> all, compute, comm, loader;
  for (uint32_t g : a.join.gpu_ops_by_ts) {
    Interval iv{s.ts[g], s.end(g)};
    all.push_back(iv);
    if (s.kind[g] != SliceKind::kKernel) {
      d.memcpy_ns += s.dur[g];
      continue;
    }
    std::string_view name = t.str(s.name[g]);
    if (hta_category(s.kind[g], name) == HtaCategory::kCommunication) {
      comm.push_back(iv);
      d.comm.push_back({std::string(name), t.tracks[s.track[g]].stream, s.ts[g], s.dur[g]});
    } else {
      compute.push_back(iv);
    }
  }
  for (uint32_t i = 0; i < s.size(); ++i)
    if (!is_gpu_side(s.kind[i]) && is_dataloader_slice(t.str(s.name[i])))
      loader.push_back({s.ts[i], s.end(i)});
  all = merge_intervals(std::move(all));
  compute = merge_intervals(std::move(compute));
  comm = merge_intervals(std::move(comm));
  d.busy_ns = total_length(all);
  if (!all.empty()) d.gpu_span_ns = all.back().end - all.front().begin;
  d.compute_ns = total_length(compute);
  d.communication_ns = total_length(comm);
  d.overlap_ns = total_length(intersect(compute, comm));
  d.dataloader_ns = total_length(merge_intervals(std::move(loader)));
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
  row.step_wait_ns.assign(row.step_numbers.size(), 0);
  row.idle_ns = d.gpu_span_ns - d.busy_ns;
  row.overlap_pct = d.communication_ns ? 100.0 * static_cast<double>(d.overlap_ns) /
                                             static_cast<double>(d.communication_ns)
                                       : 0;
  row.collectives = d.comm.size();
  for (const CommKernel& k : d.comm) row.collective_sum_ns += k.dur_ns;
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
  struct Last { double norm_start; int64_t dur; };
  std::map<std::pair<int64_t, std::string>, std::vector<std::map<int64_t, Last>>> table;
  for (size_t k = 0; k < in.size(); ++k) {
    for (const CommKernel& c : in[k].comm) {
      if (static_cast<double>(c.dur_ns) < 0.01 * mean_step) continue;
      int si = step_index_at(in[k].step_spans, c.ts_ns);
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
    std::sort(v.begin(), v.end(), [](const std::pair<double, size_t>& a,
                                     const std::pair<double, size_t>& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    for (size_t i = 0; i < v.size() && i < 2; ++i) ++r.flagged[v[i].second];
  }
  return r;
}

}  // namespace

MultiRankResult compare_ranks(std::vector<RankDigest> in) {
  MultiRankResult r;
  std::stable_sort(in.begin(), in.end(),
                   [](const RankDigest& a, const RankDigest& b) { return a.rank < b.rank; });
  for (size_t k = 0; k < in.size(); ++k) {
    r.ranks.push_back(row_from_digest(in[k]));
    if (k > 0 && in[k].rank == in[k - 1].rank) r.duplicate_ranks = true;
  }
  if (in.empty()) return r;
  size_t shortest = SIZE_MAX;
  for (const RankDigest& d : in) {
    shortest = std::min(shortest, d.comm.size());
    if (d.comm.size() != in[0].comm.size()) r.counts_match = false;
  }
  // The i-th collective of every rank is the same collective; names are compared up to the
  // first mismatch (a desync), durations up to the shortest list.
  for (size_t i = 0; i < shortest; ++i) {
    CollectiveRow row;
    row.index = i;
    row.name_text = in[0].comm[i].name;
    int64_t lo = INT64_MAX;
    for (const RankDigest& d : in) {
      if (r.names_match && d.comm[i].name != row.name_text) {
        r.names_match = false;
        r.first_mismatch = i;
      }
      row.dur_ns.push_back(d.comm[i].dur_ns);
      lo = std::min(lo, d.comm[i].dur_ns);
    }
    row.transfer_ns = lo;
    for (size_t k = 0; k < in.size(); ++k) {
      RankRow& rr = r.ranks[k];
      int64_t wait = row.dur_ns[k] - lo;
      rr.transfer_ns += lo;
      rr.wait_ns += wait;
      int si = step_index_at(in[k].step_spans, in[k].comm[i].ts_ns);
      if (si >= 0) rr.step_wait_ns[static_cast<size_t>(si)] += wait;
    }
    r.collectives.push_back(std::move(row));
  }
  r.late_start = late_start(in, r.ranks);
  return r;
}

}  // namespace ks
