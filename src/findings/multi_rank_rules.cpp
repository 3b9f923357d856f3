#include "findings/multi_rank_rules.h"

#include <algorithm>
#include <cstdio>

#include "findings/rule_helpers.h"
#include "util/format.h"

namespace ks {

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

// Median of a per-rank value over every rank but `skip`.
template <typename F>
double median_of_others(const MultiRankResult& r, size_t skip, F value) {
  std::vector<double> v;
  for (size_t k = 0; k < r.ranks.size(); ++k)
    if (k != skip) v.push_back(value(r.ranks[k]));
  return median(v);
}

double typical_step_ns(const MultiRankResult& r) {
  std::vector<double> v;
  for (const RankRow& row : r.ranks)
    if (row.steps) v.push_back(row.step_median_ns);
  return median(v);
}

std::string rank_name(const RankRow& row) {
  return "rank " + std::to_string(row.rank);
}

// What a number counted over the shared steps covers.
std::string shared_steps_text(const MultiRankResult& r) {
  return std::to_string(r.shared_steps.size()) +
         " steps every rank's capture holds (the captures hold different steps), from step " +
         std::to_string(r.shared_steps.front());
}

void collective_mismatch(const MultiRankResult& r, std::vector<Finding>* out) {
  if (r.counts_match && r.names_match) return;
  Finding f;
  f.id = "ranks.collective_mismatch";
  f.severity = Severity::kCritical;
  if (!r.counts_match) {
    size_t lo = SIZE_MAX, hi = 0;
    for (const RankRow& row : r.ranks) {
      lo = std::min<size_t>(lo, row.compared_collectives);
      hi = std::max<size_t>(hi, row.compared_collectives);
    }
    f.title = "Ranks ran different numbers of collectives (" + std::to_string(lo) + " to " +
              std::to_string(hi) + ")";
  } else {
    f.title = "Ranks ran different collectives at position " + std::to_string(r.first_mismatch);
  }
  // Collectives are matched per communicator (multi_rank.h): say which one disagrees.
  if (!r.mismatch_channel.empty()) {
    f.title += " in " + r.mismatch_channel;
    f.text("communicator", r.mismatch_channel);
  }
  f.meaning =
      "Every rank of a data-parallel job must issue the same collectives in the same "
      "order; when they do not, the job hangs or silently desynchronizes (or the traces "
      "cover different windows of the run).";
  f.fix =
      "Check that every rank takes the same code path (no rank-dependent branches around "
      "collectives) and that the traces were captured over the same steps.";
  f.fix_code = "torch.distributed.monitored_barrier()  # or TORCH_DISTRIBUTED_DEBUG=DETAIL";
  // Captures that hold different steps are compared over the steps they share (multi_rank.h).
  if (!r.shared_steps.empty()) f.text("counted_over", shared_steps_text(r));
  for (const RankRow& row : r.ranks)
    f.number(rank_name(row) + " collectives", static_cast<double>(row.compared_collectives));
  out->push_back(std::move(f));
}

// A host range (a step's direct child, or the time outside any) that rank s spends longer in
// than the other ranks' median: the largest such excess, of the named ranges or of the time
// outside any op.
struct RangeExcess {
  std::string name;
  double ns = 0, others = 0;
  double excess() const { return ns - others; }
};

RangeExcess largest_range_excess(const MultiRankResult& r, size_t s, bool outside) {
  RangeExcess best;
  for (const NamedNs& x : r.ranks[s].step_ranges) {
    if ((x.name == kOutsideAnyOp) != outside) continue;
    const double o = median_of_others(r, s, [&x](const RankRow& y) {
      return static_cast<double>(named_ns(y.step_ranges, x.name));
    });
    if (static_cast<double>(x.ns) - o > best.excess())
      best = {x.name, static_cast<double>(x.ns), o};
  }
  return best;
}

std::string vs_others(double its, double others) {
  return format_duration(static_cast<int64_t>(its)) + " vs " +
         format_duration(static_cast<int64_t>(others)) + " on the others";
}

// Whether most of the matched collectives' time (transfer and wait) is in all-to-alls: an
// expert-parallel mixture of experts (tokens sent to their experts and back) or sharded
// embedding tables (DLRM). A rank that computes longer there holds more of the routed work.
bool mostly_all_to_all(const MultiRankResult& r) {
  int64_t a2a = 0, all = 0;
  for (const CollectiveGroup& g : r.collective_groups) {
    const int64_t ns = g.transfer_ns + g.wait_ns;
    all += ns;
    if (starts_with(collective_key(g.collective), "alltoall")) a2a += ns;
  }
  return all > 0 && 2 * a2a > all;
}

// What makes straggler s slow, when the ranks show it by more than `clear` (5% of its step
// time), and the fix to match. The named host range a slow rank alone runs long (a
// record_function of its own) says most; the GPU-side signs (longer kernels, idle gaps) come
// next; its CPU time outside any op last.
std::string straggler_cause(const MultiRankResult& r, size_t s, double clear, Finding* f) {
  const RankRow& row = r.ranks[s];
  auto get = [&r, s](int64_t RankRow::*field) {
    return std::make_pair(static_cast<double>(r.ranks[s].*field),
                          median_of_others(r, s, [field](const RankRow& x) {
                            return static_cast<double>(x.*field);
                          }));
  };
  const auto loader = get(&RankRow::dataloader_ns);
  const auto compute = get(&RankRow::compute_ns);
  const auto gaps = get(&RankRow::idle_gap_ns);
  const RangeExcess named = largest_range_excess(r, s, false);
  const RangeExcess outside = largest_range_excess(r, s, true);
  const bool compute_clear = compute.first > 1.1 * compute.second;
  if (loader.first - loader.second > clear) {
    f->fix =
        "Give this rank's DataLoader more workers, check its storage/network path and input "
        "sharding (uneven shards make one rank read more).";
    f->fix_code = "DataLoader(dataset, num_workers=8, pin_memory=True, persistent_workers=True)";
    return "data loading (" + vs_others(loader.first, loader.second) + ")";
  }
  // Of the signs that are clear, the one by which this rank exceeds the others most.
  const double by_named = named.excess() > clear ? named.excess() : 0;
  const double by_compute = compute_clear ? compute.first - compute.second : 0;
  const double by_gaps = gaps.first - gaps.second > clear ? gaps.first - gaps.second : 0;
  const std::string named_text =
      "host range " + named.name + ": " + vs_others(named.ns, named.others);
  const std::string untraced =
      "CPU time outside any traced op: " + vs_others(outside.ns, outside.others);
  if (by_named > 0 && by_named >= by_compute && by_named >= by_gaps) {
    f->fix = "Look at what " + named.name +
             " does on this rank and not on the others (uneven work, a task only this rank "
             "runs, a slower host); move it off the step or spread it over the ranks.";
    return named_text;
  }
  if (by_compute > 0 && by_compute >= by_gaps) {
    f->fix =
        "Look for uneven work (sequence lengths, load imbalance) or a slower/throttled GPU on "
        "this rank (nvidia-smi -q -d CLOCK,PERFORMANCE).";
    // With all-to-alls the uneven work is the routing's (a hot expert receiving more tokens,
    // databricks/megablocks#100; a heavier embedding table): the fix is to balance it.
    if (mostly_all_to_all(r))
      f->fix =
          "The ranks exchange their work by all-to-all (a mixture of experts' tokens, sharded "
          "embedding tables): this rank holds more of the routed work, hot experts or tables. "
          "Balance the load: the router's load-balancing loss or capacity factor, hot experts "
          "replicated or moved (vLLM's EPLB, Megatron's --moe-router-load-balancing-type), a "
          "sharding plan that balances the tables' cost; else check this rank's GPU "
          "(nvidia-smi -q -d CLOCK,PERFORMANCE).";
    return "compute (" + format_duration(static_cast<int64_t>(compute.first)) + " of kernels vs " +
           format_duration(static_cast<int64_t>(compute.second)) + " on the others)";
  }
  if (by_gaps > 0) {
    // The GPU idles; what its CPU does longer than the others' says why, when the ranks show it.
    std::string cpu;  // short: the evidence text is shown up to 120 characters
    if (by_named > 0)
      cpu = "; on its CPU: " + named.name + " " + format_duration(static_cast<int64_t>(named.ns)) +
            " vs " + format_duration(static_cast<int64_t>(named.others));
    else if (outside.excess() > clear)
      cpu = "; on its CPU: outside any op " + format_duration(static_cast<int64_t>(outside.ns)) +
            " vs " + format_duration(static_cast<int64_t>(outside.others));
    f->fix =
        "See what this rank's CPU does during its GPU idle gaps (a sync, GC, logging): the "
        "idle-gap finding and the stacked timelines show where.";
    return "GPU idle gaps in its steps (" + std::to_string(row.idle_gaps) + " gaps, " +
           format_duration(row.idle_gap_ns) + " idle)" + cpu;
  }
  if (outside.excess() > clear) {
    f->fix =
        "Profile this rank's Python between ops (py-spy, or record_function ranges around data "
        "handling, logging and checkpoints) and compare it with a fast rank's.";
    return untraced;
  }
  f->fix = "Compare this rank's timeline with a fast rank's in the same step.";
  return "unknown from the traces (look at its timeline against another rank's)";
}

// Whether any rank sends or receives point to point over NCCL (a pipeline parallel job).
bool has_nccl_send_recv(const MultiRankResult& r) {
  for (const RankRow& x : r.ranks)
    if (x.p2p_sum_ns > 0) return true;
  return false;
}

// The straggler is the rank with the shortest communication time: the others wait for it
// inside their collectives (and, in an MPI job, in their point-to-point receives and waits).
// NCCL send/recv are left out (is_point_to_point): in a pipeline the first stage waits for the
// backward and the last for the forward by design, and on a 2-stage pipeline of equal stages
// counting them named the last stage the straggler (28 ms of send/recv against 55 ms).
void straggler(const MultiRankResult& r, std::vector<Finding>* out) {
  if (r.ranks.size() < 2) return;
  bool p2p = false;
  for (const RankRow& x : r.ranks) p2p = p2p || x.mpi_p2p_ns > 0;
  const bool nccl_p2p = has_nccl_send_recv(r);
  // Captures holding different steps compare over the steps they share: a rank whose capture
  // began a few steps late traced fewer collectives, and its short total named it the straggler.
  // MPI point-to-point time is a union over the capture, so MPI jobs keep the totals.
  const bool shared = !r.shared_steps.empty() && !p2p;
  auto comm = [shared](const RankRow& x) {
    if (shared) return static_cast<double>(x.shared_steps_collective_ns);
    return static_cast<double>(x.collective_sum_ns - x.p2p_sum_ns) +
           static_cast<double>(x.mpi_p2p_ns);
  };
  // Some collective time on some rank, matched across all ranks or not: with tensor and data
  // parallel groups together (Kineto's "Process Group Name"), every group holds only some of the
  // ranks and none is matched, yet the slow rank still waits least (a 2x2 job with rank 1 slow
  // named no straggler, its peers 4.8 ms longer in their all-reduces).
  bool any = false;
  for (const RankRow& x : r.ranks) any = any || comm(x) > 0;
  if (!any) return;
  size_t s = 0;
  for (size_t k = 1; k < r.ranks.size(); ++k)
    if (comm(r.ranks[k]) < comm(r.ranks[s])) s = k;
  const RankRow& row = r.ranks[s];
  double others = median_of_others(r, s, comm);
  double step = typical_step_ns(r);
  double steps =
      std::max<double>(1.0, static_cast<double>(shared ? r.shared_steps.size() : row.steps));
  // Quiet unless clear: well below the others, and by a visible share of the step time.
  if (others <= 0 || comm(row) > 0.6 * others) return;
  if (step > 0 && (others - comm(row)) / steps < 0.05 * step) return;
  // A pipeline: a stage that reaches the collectives last because it waited in its sends and
  // receives (GPipe's first stage ends the backward last, by the schedule) is no straggler; a
  // slow stage makes its neighbours wait in theirs and waits least in all. So with NCCL
  // send/recv the straggler must also be below the others in all its communication.
  if (nccl_p2p && !shared) {
    auto all = [](const RankRow& x) {
      return static_cast<double>(x.collective_sum_ns) + static_cast<double>(x.mpi_p2p_ns);
    };
    if (all(row) >= median_of_others(r, s, all)) return;
  }
  Finding f;
  f.id = "ranks.straggler";
  f.severity = Severity::kWarning;
  f.title = "Rank " + std::to_string(row.rank) + " is the straggler: its " +
            (p2p ? "MPI communication takes " : "collectives take ") +
            format_duration(static_cast<int64_t>(comm(row))) + ", the others " +
            format_duration(static_cast<int64_t>(others));
  f.meaning =
      p2p ? "The other ranks reach each exchange first and wait inside MPI (their collectives, "
            "receives and MPI_Wait calls) for this rank, so their communication runs long and "
            "its runs short: the whole job moves at this rank's pace."
          : "The other ranks reach each collective first and wait inside it for this rank, so "
            "their communication kernels run long and its run short: the whole job moves at "
            "this rank's pace.";
  f.number("rank", static_cast<double>(row.rank));
  f.number("its_communication_us", comm(row) / 1e3, 3, "us");
  f.number("others_median_us", others / 1e3, 3, "us");
  if (p2p) f.number("its_mpi_p2p_us", static_cast<double>(row.mpi_p2p_ns) / 1e3, 3, "us");
  if (nccl_p2p)
    f.number("its_send_recv_left_out_us", static_cast<double>(row.p2p_sum_ns) / 1e3, 3, "us");
  f.text("rule", "shortest communication time (TB plugin: the rank that waits least)");
  if (shared) f.text("counted_over", shared_steps_text(r));
  f.text("likely_cause", straggler_cause(r, s, 0.05 * step * steps, &f));
  if (r.late_start.computed && s < r.late_start.flagged.size())
    f.number("late_start_flags", static_cast<double>(r.late_start.flagged[s]));
  for (const RankRow& x : r.ranks)
    f.number(rank_name(x) + " wait_us", static_cast<double>(x.wait_ns) / 1e3, 3, "us");
  out->push_back(std::move(f));
}

// A pipeline's slowest stage. With NCCL sends and receives between the ranks (pipeline
// parallel) the straggler rule reads nothing in them: every stage waits there by the schedule
// (GPipe's first stage for the whole fill and drain), so the time a stage spends in its
// send/recv says where it sits in the pipeline more than who is slow. But every micro-batch
// passes through every stage, so the pipeline goes no faster than its slowest stage: the stages
// after it wait in their receives for its activations, those before it for its gradients. That
// stage shows as GPU compute per step above the other stages' (a 4-stage GPipe job whose stage 2
// computed 1.5x as long named no straggler: 14.6 ms of compute a step against 9.7 ms; the
// others' send/recv time grew by 2.3 to 6.5 ms a step, its own did not). Quiet unless the
// stage's compute per step is above 1.2x the others' median and by 5% of the typical step: the
// thresholds of ranks.compute_skew, which this finding replaces for that rank in such a job.
struct SlowStage {
  size_t index = SIZE_MAX;  // into r.ranks; SIZE_MAX: none
  double compute = 0, others = 0;
  // Every rank above the thresholds, by index, the slowest among them: with data parallel
  // replicas of the pipeline (PP x DP), the same stage of each replica.
  std::vector<size_t> slow;
};

double per_step(const RankRow& x, int64_t ns) {
  return static_cast<double>(ns) / std::max<double>(1.0, static_cast<double>(x.steps));
}

SlowStage slow_pipeline_stage_of(const MultiRankResult& r) {
  SlowStage s;
  if (r.ranks.size() < 2 || !has_nccl_send_recv(r)) return s;
  const double step = typical_step_ns(r);
  if (step <= 0) return s;
  auto compute_of = [](const RankRow& x) { return per_step(x, x.compute_ns); };
  for (size_t k = 0; k < r.ranks.size(); ++k) {
    const double compute = compute_of(r.ranks[k]);
    const double others = median_of_others(r, k, compute_of);
    if (others <= 0 || compute <= 1.2 * others || compute - others < 0.05 * step) continue;
    s.slow.push_back(k);
    if (s.index == SIZE_MAX || compute > s.compute) {
      s.index = k;
      s.compute = compute;
      s.others = others;
    }
  }
  return s;
}

void slow_pipeline_stage(const MultiRankResult& r, std::vector<Finding>* out) {
  const SlowStage s = slow_pipeline_stage_of(r);
  if (s.index == SIZE_MAX) return;
  const RankRow& row = r.ranks[s.index];
  auto send_recv = [](const RankRow& x) { return per_step(x, x.p2p_sum_ns); };
  const double its_p2p = send_recv(row);
  const double others_p2p = median_of_others(r, s.index, send_recv);
  Finding f;
  f.id = "ranks.slow_pipeline_stage";
  f.severity = Severity::kWarning;
  f.title = strf(
      "Rank %lld is the pipeline's slowest stage: %.2fx the other stages' GPU compute per step "
      "(%s vs %s)",
      static_cast<long long>(row.rank), s.compute / s.others,
      format_duration(static_cast<int64_t>(s.compute)).c_str(),
      format_duration(static_cast<int64_t>(s.others)).c_str());
  f.meaning =
      "The ranks send and receive activations and gradients to each other (NCCL send/recv: "
      "pipeline parallel), and every micro-batch passes through every stage, so the pipeline "
      "goes no faster than its slowest stage: the stages after it wait in their receives for "
      "its activations, the stages before it for its gradients. Their wait is in their "
      "send/recv time, which the straggler rule leaves out (a stage waits there by the schedule "
      "too).";
  f.fix =
      "Move layers off this stage: split the model unevenly (an embedding, a head, a loss or "
      "more layers on one stage weigh as layers do); if its layers are the same as the "
      "others', its GPU is slower: check its clocks (nvidia-smi -q -d CLOCK,PERFORMANCE).";
  f.fix_code =
      "# Megatron: --pipeline-model-parallel-layout \"Et*3|t*4|t*4|t*3,L\"\n"
      "# torch.distributed.pipelining: move a split point\n"
      "pipe = pipeline(model, mb_args=(x,), split_spec={\"layers.7\": SplitPoint.BEGINNING})";
  f.number("rank", static_cast<double>(row.rank));
  f.number("compute_per_step_us", s.compute / 1e3, 3, "us");
  f.number("others_median_compute_per_step_us", s.others / 1e3, 3, "us");
  f.number("compute_ratio", s.compute / s.others, 2);
  f.number("its_send_recv_per_step_us", its_p2p / 1e3, 3, "us");
  f.number("others_median_send_recv_per_step_us", others_p2p / 1e3, 3, "us");
  f.text("rule",
         "GPU compute per step above 1.2x the other ranks' median, by 5% of the typical step, "
         "in a job with NCCL send/recv");
  if (s.slow.size() > 1) {
    std::string all;
    for (size_t k : s.slow) all += (all.empty() ? "" : ", ") + std::to_string(r.ranks[k].rank);
    f.text("slow_ranks", all);  // each told here, none also as a compute skew
  }
  for (const RankRow& x : r.ranks)
    f.number(rank_name(x) + " send_recv_per_step_us", send_recv(x) / 1e3, 3, "us");
  out->push_back(std::move(f));
}

void late_start(const MultiRankResult& r, std::vector<Finding>* out) {
  const LateStart& ls = r.late_start;
  if (!ls.computed || ls.flagged.empty()) return;
  size_t best = 0;
  for (size_t k = 1; k < ls.flagged.size(); ++k)
    if (ls.flagged[k] > ls.flagged[best]) best = k;
  uint64_t steps = r.ranks[best].steps;
  // Flagged in most steps, and clearly more often than any other rank.
  for (size_t k = 0; k < ls.flagged.size(); ++k)
    if (k != best && ls.flagged[k] * 2 > ls.flagged[best]) return;
  if (steps == 0 || ls.flagged[best] * 2 < steps) return;
  Finding f;
  f.id = "ranks.late_start";
  f.severity = Severity::kInfo;
  f.title = "Rank " + std::to_string(r.ranks[best].rank) +
            " starts its collectives last (HTA's late-start rule)";
  f.meaning =
      "In most steps this rank reaches the most variable collective later than the "
      "others (start time relative to its step), which is what a straggler does.";
  f.fix =
      "Read together with the straggler finding; the rank's timeline before the collective "
      "shows what delays it.";
  f.text("kernel", ls.kernel);
  f.number("rank", static_cast<double>(r.ranks[best].rank));
  f.number("steps_flagged", static_cast<double>(ls.flagged[best]));
  f.number("steps", static_cast<double>(steps));
  out->push_back(std::move(f));
}

void skew(const MultiRankResult& r, std::vector<Finding>* out) {
  if (r.ranks.size() < 2) return;
  double step = typical_step_ns(r);
  // A pipeline's slow stages have their own finding, with the pipeline's fix.
  const std::vector<size_t> slow_stages = slow_pipeline_stage_of(r).slow;
  for (size_t k = 0; k < r.ranks.size(); ++k) {
    const RankRow& row = r.ranks[k];
    double steps = std::max<double>(1.0, static_cast<double>(row.steps));
    double loader_others = median_of_others(
        r, k, [](const RankRow& x) { return static_cast<double>(x.dataloader_ns); });
    if (step > 0 &&
        (static_cast<double>(row.dataloader_ns) - loader_others) / steps > 0.05 * step) {
      Finding f;
      f.id = "ranks.dataloader_skew";
      f.severity = Severity::kWarning;
      f.title = "Rank " + std::to_string(row.rank) + " waits for data longer than the others (" +
                format_duration(row.dataloader_ns) + " vs " +
                format_duration(static_cast<int64_t>(loader_others)) + ")";
      f.meaning = "One rank's input pipeline is slower, and every collective waits for it.";
      f.fix = "More DataLoader workers on that rank; check its storage path and the sharding.";
      f.fix_code = "DataLoader(dataset, num_workers=8, pin_memory=True)";
      f.number("rank", static_cast<double>(row.rank));
      f.number("dataloader_us", static_cast<double>(row.dataloader_ns) / 1e3, 3, "us");
      f.number("others_median_us", loader_others / 1e3, 3, "us");
      out->push_back(std::move(f));
    }
    double compute_others =
        median_of_others(r, k, [](const RankRow& x) { return static_cast<double>(x.compute_ns); });
    const bool slow_stage =
        std::find(slow_stages.begin(), slow_stages.end(), k) != slow_stages.end();
    if (!slow_stage && compute_others > 0 &&
        static_cast<double>(row.compute_ns) > 1.2 * compute_others &&
        (static_cast<double>(row.compute_ns) - compute_others) / steps > 0.05 * step) {
      Finding f;
      f.id = "ranks.compute_skew";
      f.severity = Severity::kWarning;
      f.title = "Rank " + std::to_string(row.rank) + " computes longer than the others (" +
                format_duration(row.compute_ns) + " vs " +
                format_duration(static_cast<int64_t>(compute_others)) + " of kernels)";
      f.meaning =
          "The same model step takes this rank's GPU longer: uneven work (batch shapes) "
          "or a slower, throttled or shared GPU.";
      f.fix = "Balance the work per rank; check the GPU's clocks and temperature.";
      f.number("rank", static_cast<double>(row.rank));
      f.number("compute_us", static_cast<double>(row.compute_ns) / 1e3, 3, "us");
      f.number("others_median_us", compute_others / 1e3, 3, "us");
      out->push_back(std::move(f));
    }
  }
}

// A rank whose GPU sits idle inside its steps more often and longer than the others' (gaps of
// 100 us or more between two GPU ops of a step, net of data loading, which has its own rule):
// something on that rank's host stalls it mid-step (a sync, GC, logging, a slow Python path),
// and every collective after the stall waits for it. Quiet unless the rank's gap idle time is
// more than twice the other ranks' median, exceeds it by 5% of a step per step, and it has
// more gaps than the median.
void idle_gap_straggler(const MultiRankResult& r, std::vector<Finding>* out) {
  if (r.ranks.size() < 2) return;
  double step = typical_step_ns(r);
  if (step <= 0) return;
  for (size_t k = 0; k < r.ranks.size(); ++k) {
    const RankRow& row = r.ranks[k];
    double steps = std::max<double>(1.0, static_cast<double>(row.steps));
    double idle_others =
        median_of_others(r, k, [](const RankRow& x) { return static_cast<double>(x.idle_gap_ns); });
    double gaps_others =
        median_of_others(r, k, [](const RankRow& x) { return static_cast<double>(x.idle_gaps); });
    double idle = static_cast<double>(row.idle_gap_ns);
    if (idle <= 2 * idle_others || (idle - idle_others) / steps < 0.05 * step ||
        static_cast<double>(row.idle_gaps) <= gaps_others)
      continue;
    Finding f;
    f.id = "ranks.idle_gap_straggler";
    f.severity = Severity::kWarning;
    char buf[240];
    std::snprintf(buf, sizeof(buf),
                  "Rank %lld has extra GPU idle gaps inside its steps (%llu gaps, %s idle; the "
                  "others' median %.0f gaps, %s)",
                  static_cast<long long>(row.rank), static_cast<unsigned long long>(row.idle_gaps),
                  format_duration(row.idle_gap_ns).c_str(), gaps_others,
                  format_duration(static_cast<int64_t>(idle_others)).c_str());
    f.title = buf;
    f.meaning =
        "Between two GPU ops of the same step this rank's GPU waits for its host more "
        "often and longer than the other ranks' do, and the collectives after each stall "
        "wait for this rank: the job runs at its pace.";
    f.fix =
        "Open this rank's timeline at a gap (stacked timelines below) and see what its CPU "
        "does there: a synchronizing call, garbage collection, logging or checkpoint I/O, "
        "a rank-dependent code path.";
    f.number("rank", static_cast<double>(row.rank));
    f.number("idle_gaps", static_cast<double>(row.idle_gaps));
    f.number("idle_gap_us", idle / 1e3, 3, "us");
    f.number("others_median_gaps", gaps_others);
    f.number("others_median_idle_gap_us", idle_others / 1e3, 3, "us");
    f.number("steps", static_cast<double>(row.steps));
    f.text("rule", "GPU idle gaps of 100 us or more inside steps, net of data loading");
    out->push_back(std::move(f));
  }
}

// Fewer files than the world size the traces record: a straggler among the ranks not given shows
// only as every given rank waiting in its collectives, and "the ranks behave alike" covers only
// the ranks given.
void missing_ranks(const MultiRankResult& r, std::vector<Finding>* out) {
  if (r.missing_ranks.empty()) return;
  std::string which;
  for (size_t k = 0; k < r.missing_ranks.size(); ++k) {
    if (k == 8) {
      which += strf(", ... (%zu in all)", r.missing_ranks.size());
      break;
    }
    which += (k ? ", " : "") + std::to_string(r.missing_ranks[k]);
  }
  const size_t given = static_cast<size_t>(r.world_size) - r.missing_ranks.size();
  Finding f;
  f.id = "ranks.missing";
  f.severity = Severity::kWarning;
  f.title = strf("%zu of %lld ranks given (world_size %lld): rank%s %s missing", given,
                 static_cast<long long>(r.world_size), static_cast<long long>(r.world_size),
                 r.missing_ranks.size() > 1 ? "s" : "", which.c_str());
  f.meaning =
      "The traces record a larger world than the files given. The comparison covers only the "
      "ranks given: a straggler among the others shows only as every given rank waiting for "
      "it in its collectives.";
  f.fix = "Give every rank's trace (or a sample that includes the slowest rank).";
  f.number("world_size", static_cast<double>(r.world_size));
  f.number("ranks_given", static_cast<double>(given));
  f.text("missing_ranks", which);
  out->push_back(std::move(f));
}

// A member of a process group (its "Process Group Ranks") that issued none of the collectives
// the other members issued: a collective waits for every member, so either the others waited
// for it until the capture ended (a hang building, the NCCL watchdog's timeout to come), or this
// rank's code took another path (a condition on the rank: the last pipeline stage skipping the
// embedding-group all-reduce). Without the ranks text nobody can tell a member from an outsider,
// and such a group is compared among the ranks that issued it (match_channels).
void silent_group_members(const MultiRankResult& r, std::vector<Finding>* out) {
  if (r.silent_members.empty()) return;
  const MultiRankResult::SilentMember& m = r.silent_members.front();
  Finding f;
  f.id = "ranks.group_member_silent";
  f.severity = Severity::kWarning;
  f.title = strf("Rank %lld issued none of process group %s's %llu collectives (members %s)",
                 static_cast<long long>(m.rank), m.process_group.c_str(),
                 static_cast<unsigned long long>(m.group_collectives), m.members.c_str());
  if (r.silent_members.size() > 1)
    f.title += strf("; %zu such members in all", r.silent_members.size());
  f.meaning =
      "Kineto lists the group's members (\"Process Group Ranks\") and this rank is one, yet "
      "it issued none of the group's collectives while the other members issued them. A "
      "collective completes only when every member joins: the others wait for it (a hang, "
      "ended by the NCCL watchdog's timeout), or this rank's code took another path than "
      "theirs.";
  f.fix =
      "Check the code path that issues this group's collectives on that rank (a condition on "
      "the rank or the pipeline stage, an exception swallowed); every member must call each "
      "collective of the group, in the same order.";
  f.number("rank", static_cast<double>(m.rank));
  f.text("process_group", m.process_group);
  f.text("members", m.members);
  f.number("group_collectives", static_cast<double>(m.group_collectives));
  f.number("silent_members", static_cast<double>(r.silent_members.size()));
  for (size_t k = 1; k < r.silent_members.size() && k < 8; ++k)
    f.text(strf("also_%zu", k),
           strf("rank %lld, group %s", static_cast<long long>(r.silent_members[k].rank),
                r.silent_members[k].process_group.c_str()));
  out->push_back(std::move(f));
}

void rank_source(const MultiRankResult& r, std::vector<Finding>* out) {
  // A rank the trace records itself (Kineto's distributedInfo, the rank in the environment an
  // Nsight Systems export recorded) is known, not guessed: nothing to say about it.
  bool all_recorded = true;
  for (const RankRow& row : r.ranks)
    if (row.source != RankSource::kDistributedInfo && row.source != RankSource::kEnvironment)
      all_recorded = false;
  if (all_recorded && !r.duplicate_ranks) return;
  Finding f;
  f.id = "ranks.identity";
  f.severity = r.duplicate_ranks ? Severity::kWarning : Severity::kInfo;
  // Processes of Nsight Systems exports, ranked by their GPU (and numbered on across several
  // exports in the order given: number_export_processes).
  std::vector<std::string> exports;
  for (const RankRow& row : r.ranks) {
    if (row.source != RankSource::kExportProcess) continue;
    std::string e = export_of(row.file);
    if (std::find(exports.begin(), exports.end(), e) == exports.end()) exports.push_back(e);
  }
  // Processes of a Kineto file that merged several nodes' ranks on one GPU pid.
  bool file_processes = false;
  for (const RankRow& row : r.ranks) file_processes |= row.source == RankSource::kFileProcess;
  if (file_processes && !r.duplicate_ranks) {
    f.title = "Ranks were taken from the processes that launched the GPU work in the file";
    f.meaning =
        "The file holds several ranks' traces merged into one (their GPU work on one GPU process, "
        "as each node numbers its GPUs from 0, or on GPU processes of their own), so each rank "
        "is read as the process whose runtime calls launched its kernels, numbered in pid "
        "order; the file does not say which rank each process was.";
    f.fix =
        "Keep one trace file per rank (each with Kineto's distributedInfo) instead of merging "
        "them, or give the merged files in node order.";
    for (const RankRow& row : r.ranks)
      f.text(row.file, rank_name(row) + " from " + rank_source_name(row.source));
    out->push_back(std::move(f));
    return;
  }
  f.title = r.duplicate_ranks    ? "Two files claim the same rank"
            : exports.size() > 1 ? strf(
                                       "Ranks were taken from the processes in %zu exports "
                                       "(by GPU, then pid), numbered on in the order the "
                                       "files were given",
                                       exports.size())
            : !exports.empty()
                ? "Ranks were taken from the processes in the export (by GPU, then pid)"
                : "Some ranks were taken from the file name or load order";
  f.meaning =
      r.duplicate_ranks && all_recorded
          ? "Two or more files record the same rank (Kineto's distributedInfo.rank, or the rank "
            "in the environment an Nsight Systems export recorded): the same file given twice, "
            "or traces of different runs given together. Their numbers are counted as separate "
            "ranks in the comparison."
      : exports.empty()
          ? "Not every trace records its rank (Kineto's distributedInfo.rank, or a rank in the "
            "environment an Nsight Systems export recorded), so some were guessed; a wrong "
            "guess misaligns the comparison."
          // Processes that share a GPU, or each see their own as device 0
          // (CUDA_VISIBLE_DEVICES), are told apart by pid alone: "by GPU" would be untrue there.
          : "An Nsight Systems export does not record the rank each process was given, so "
            "the ranks follow the GPU each process worked on most, then its pid where processes "
            "share a GPU or each sees its own as device 0 (and the order of the exports); a "
            "wrong guess misaligns the comparison.";
  f.fix = r.duplicate_ranks && all_recorded ? "Give each rank's trace once, all from the same run."
          : exports.empty()
              ? "Profile with torch.distributed initialized (Kineto then writes "
                "distributedInfo); start nsys once per rank inside the launcher (its export "
                "then records the rank); or name files rank-N."
              : "Give the exports in node order, or write one report per rank (nsys profile -o "
                "report_%q{RANK} inside the command torchrun runs).";
  for (const RankRow& row : r.ranks)
    f.text(row.file, rank_name(row) + " from " + rank_source_name(row.source));
  out->push_back(std::move(f));
}

}  // namespace

std::vector<Finding> run_multi_rank_findings(const MultiRankResult& r) {
  std::vector<Finding> out;
  collective_mismatch(r, &out);
  straggler(r, &out);
  slow_pipeline_stage(r, &out);
  late_start(r, &out);
  skew(r, &out);
  idle_gap_straggler(r, &out);
  rank_source(r, &out);
  missing_ranks(r, &out);
  silent_group_members(r, &out);
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    return static_cast<int>(a.severity) < static_cast<int>(b.severity);
  });
  return out;
}

}  // namespace ks
