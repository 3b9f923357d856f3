// What the training loop spends its steps on besides the model: data loading, communication
// between GPUs, the multi-GPU strategy, memory headroom. Thresholds from the TB plugin's
// recommendations (ANALYSES.md): DataLoader > 5% of step time, communication > 10%,
// DataParallel on more than one GPU, peak memory > 90% of the device.
#include <algorithm>

#include "analysis/gpu_intervals.h"
#include "analysis/intervals.h"
#include "analysis/kernel_class.h"
#include "analysis/multi_rank.h"
#include "analysis/name_cache.h"
#include "analysis/step_breakdown.h"
#include "analysis/steps.h"
#include "findings/rules.h"
#include "util/text_match.h"

namespace ks {

namespace {}  // namespace

void rule_dataloader(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  const Analyses& a = in.analyses;
  const StepBreakdown& b = a.step_breakdown;
  if (b.whole_trace || b.steps.empty()) return;
  // Steady steps only: a warm-up first step also starts the DataLoader workers.
  const size_t from = first_steady_step(a.steps);
  int64_t loader_ns = 0, window_ns = 0;
  for (size_t i = from; i < b.steps.size(); ++i) {
    loader_ns += b.steps[i].ns[static_cast<int>(StepRole::kDataLoader)];
    window_ns += b.steps[i].end_ns - b.steps[i].begin_ns;
  }
  constexpr double kWarnPct = 5.0;
  const double pct =
      window_ns > 0 ? 100.0 * static_cast<double>(loader_ns) / static_cast<double>(window_ns) : 0;
  if (pct <= kWarnPct) return;
  // The __next__ ranges themselves: time per step, share of the host step, GPU idle under them.
  const SliceTable& s = t.slices;
  int64_t next_ns = 0, host_ns = 0, busy_under = 0;
  std::string iterator;
  uint32_t longest = 0;
  bool any = false;
  for (size_t i = from; i < a.steps.steps.size(); ++i)
    host_ns += a.steps.steps[i].host_end - a.steps.steps[i].host_begin;
  // CPU ranges belong to the step whose host range holds them: a step's device-adjusted begin
  // is later than its host begin while the previous step's GPU work still runs, and the
  // __next__ that opens the step starts right at its host begin (planted in a real trace,
  // tests/corpus/planted.py: one steady step's 60 ms __next__ was left out).
  const Step& first = a.steps.steps[from];
  const int64_t steady_begin = std::min(first.begin, first.host_begin),
                steady_end = std::max(a.steps.steps.back().end, a.steps.steps.back().host_end);
  auto is_loader =
      make_name_cache(t, [](std::string_view n) { return is_dataloader_range(n) ? 1 : 0; });
  for (uint32_t i = 0; i < s.size(); ++i) {
    if (s.kind[i] != SliceKind::kUserAnnotation && s.kind[i] != SliceKind::kCpuOp) continue;
    if (s.ts[i] < steady_begin || s.ts[i] >= steady_end) continue;
    if (!is_loader(s.name[i])) continue;
    std::string_view name = t.str(s.name[i]);
    next_ns += s.dur[i];
    busy_under += length_within(a.gpu_idle.busy, s.ts[i], s.end(i));
    if (!any || s.dur[i] > s.dur[longest]) longest = i;
    any = true;
    if (iterator.empty()) iterator = std::string(emit_nvtx_op_name(name));  // without its ids
  }
  const double steps = static_cast<double>(a.steps.steps.size() - from);
  const bool single_process = contains(iterator, "_SingleProcessDataLoaderIter");
  Finding f;
  f.id = "dataloader.slow";
  f.severity = pct >= 20.0 ? Severity::kCritical : Severity::kWarning;
  // A range the program named itself ("data_loading" in NVTX) says so in the title.
  const bool own_range = !iterator.empty() && iterator.rfind("enumerate(", 0) != 0;
  // Per step, the same measure as the share (the step breakdown's DataLoader time), so the two
  // agree: the __next__ ranges' own sum (evidence next_us_per_step) also counts time the
  // breakdown gives to other work, and "33.4% (69.30 ms per step)" read as 39% of the median.
  const std::string per_step =
      format_duration(static_cast<int64_t>(static_cast<double>(loader_ns) / steps));
  f.title = own_range ? strf("Data loading (\"%s\" ranges) takes %s of step time (%s per step)",
                             iterator.c_str(), format_pct(pct).c_str(), per_step.c_str())
                      : strf("DataLoader takes %s of step time (%s per step)",
                             format_pct(pct).c_str(), per_step.c_str());
  f.meaning = single_process
                  ? "Batches are loaded in the training process itself (num_workers=0): every "
                    "step waits while the next batch is read and collated."
                  : "The training loop waits for the next batch: the DataLoader workers do not "
                    "keep up with the model.";
  f.fix = single_process ? "Load in worker processes and pin the batches."
                         : "Use more workers (or make __getitem__ cheaper), prefetch more, pin "
                           "memory.";
  f.fix_code =
      "DataLoader(dataset, batch_size=..., num_workers=8, pin_memory=True,\n"
      "           persistent_workers=True, prefetch_factor=4)";
  f.number("dataloader_pct", pct, 1, "%");
  f.number("next_us_per_step", us_of(next_ns) / steps, 3, "us");
  if (host_ns > 0)
    f.number("next_pct_of_host_step",
             100.0 * static_cast<double>(next_ns) / static_cast<double>(host_ns), 1, "%");
  if (a.gpu_idle.has_gpu_ops && next_ns > 0)
    f.number("gpu_idle_during_next_pct",
             100.0 * static_cast<double>(next_ns - busy_under) / static_cast<double>(next_ns), 1,
             "%");
  f.number("steps", steps);
  if (!iterator.empty()) f.text("iterator", iterator);
  if (any) {
    f.range(s.ts[longest], s.end(longest),
            own_range ? "slowest " + iterator + " range" : "slowest DataLoader __next__");
    f.events.push_back(longest);
  }
  out->push_back(std::move(f));
}

namespace {

// Communication and computation of one rank, and where to look: from the kernels (HTA's
// comm/compute overlap) on a GPU trace; on a CPU-only trace (gloo), from the CPU side, where the
// collectives run as gloo:* / nccl:* ranges on the backend's threads and computation is every
// other CPU op. The step breakdown cannot say how much of a CPU collective is hidden: its
// Communication part claims time before CPU Exec (TB plugin order), so a collective that runs
// while the training thread computes counts in full.
struct CommView {
  bool has_communication = false;
  int64_t communication_ns = 0, computation_ns = 0, overlap_ns = 0;
  double overlap_pct = 0;
  int64_t longest = -1;  // the longest communication slice
  // Communication kernel time in all, and the part in point-to-point sends and receives
  // (is_point_to_point): a pipeline stage's, where exposed time is the bubbles.
  int64_t kernel_sum_ns = 0, p2p_sum_ns = 0;
  // The part in NCCL SendRecv kernels no op names (an Nsight Systems export: the kernel's name
  // alone): NCCL runs a pipeline's sends and receives and an all-to-all as that one kernel.
  int64_t sendrecv_sum_ns = 0;
  // The part in all-gathers and reduce-scatters: sharded data parallel (FSDP, ZeRO-3), where
  // each layer's parameters are gathered before it runs and its gradients scattered after.
  int64_t sharded_sum_ns = 0;
};

// An all-gather or a reduce-scatter, by the collective's name as Kineto writes it
// ("all_gather", "_allgather_base", "all_gather_into_tensor", "reduce_scatter_tensor") or as an
// NCCL kernel's name says it ("allgather", "reduce_scatter").
bool is_sharding_collective(std::string_view collective) {
  const std::string c = collective_key(collective);
  return c.find("allgather") != std::string::npos || c.find("reducescatter") != std::string::npos;
}

CommView cpu_comm_view(const Trace& t, const Analyses& a) {
  const SliceTable& s = t.slices;
  std::vector<Interval> comm, comp;
  CommView v;
  for (uint32_t i = 0; i < s.size(); ++i) {
    if (s.kind[i] != SliceKind::kCpuOp && s.kind[i] != SliceKind::kUserAnnotation) continue;
    const bool is_comm = is_communication_cpu_op(t.str(s.name[i]));
    if (is_comm) {
      comm.push_back({s.ts[i], s.end(i)});
      if (v.longest < 0 || s.dur[i] > s.dur[static_cast<size_t>(v.longest)]) v.longest = i;
    } else if (s.kind[i] == SliceKind::kCpuOp) {
      comp.push_back({s.ts[i], s.end(i)});
    }
  }
  comm = merge_intervals(std::move(comm));
  comp = merge_intervals(std::move(comp));
  const std::vector<Interval> both = intersect(comm, comp);
  // Inside the steps when there are some (the shares are of step time).
  auto within = [&a, &t](const std::vector<Interval>& m) {
    if (a.steps.steps.empty()) return length_within(m, t.facts.start_ns, t.facts.end_ns);
    int64_t n = 0;
    for (const Step& st : a.steps.steps) n += length_within(m, st.begin, st.end);
    return n;
  };
  v.communication_ns = within(comm);
  v.computation_ns = within(comp);
  v.overlap_ns = within(both);
  v.has_communication = v.communication_ns > 0;
  v.overlap_pct = v.has_communication ? 100.0 * static_cast<double>(v.overlap_ns) /
                                            static_cast<double>(v.communication_ns)
                                      : 0;
  return v;
}

CommView gpu_comm_view(const Trace& t, const Analyses& a) {
  const CommOverlap& c = a.comm_overlap;
  CommView v;
  v.has_communication = c.has_communication;
  v.communication_ns = c.communication_ns;
  v.computation_ns = c.computation_ns;
  v.overlap_ns = c.overlap_ns;
  v.overlap_pct = c.overlap_pct;
  // The finding's shares are of the steps (analysis_window_ns), so its communication and overlap
  // are counted in the steps too. HTA's overlap (a.comm_overlap, the report's section) is the
  // whole capture's: where the steps hold part of it (a first step cut by an nsys capture's
  // start and left out), 24.9% of step time read as exposed communication beside a
  // communication part of 18.7%.
  if (!a.steps.steps.empty()) {
    const GpuIntervals g = collect_gpu_intervals(t, a.join, nullptr);
    const std::vector<Interval> both = intersect(g.computation, g.communication);
    auto within = [&a](const std::vector<Interval>& m) {
      int64_t n = 0;
      for (const Step& st : a.steps.steps) n += length_within(m, st.begin, st.end);
      return n;
    };
    v.communication_ns = within(g.communication);
    v.computation_ns = within(g.computation);
    v.overlap_ns = within(both);
    v.has_communication = v.communication_ns > 0;
    v.overlap_pct = v.has_communication ? 100.0 * static_cast<double>(v.overlap_ns) /
                                              static_cast<double>(v.communication_ns)
                                        : 0;
  }
  auto is_comm = make_name_cache(t, [](std::string_view n) {
    return hta_category(SliceKind::kKernel, n) == HtaCategory::kCommunication ? 1 : 0;
  });
  const SliceTable& s = t.slices;
  for (uint32_t g : a.join.gpu_ops_by_ts) {
    if (s.kind[g] != SliceKind::kKernel || !is_comm(s.name[g])) continue;
    if (v.longest < 0 || s.dur[g] > s.dur[static_cast<size_t>(v.longest)]) v.longest = g;
    v.kernel_sum_ns += s.dur[g];
    const std::string collective = collective_of_kernel(t, a.join, g);
    if (is_point_to_point(collective))
      v.p2p_sum_ns += s.dur[g];
    else if (collective == "sendrecv")
      v.sendrecv_sum_ns += s.dur[g];
    if (is_sharding_collective(collective)) v.sharded_sum_ns += s.dur[g];
  }
  return v;
}

}  // namespace

// FSDP's knobs (torch.distributed.fsdp: FSDP2's fully_shard and its explicit prefetching,
// pytorch/pytorch#128884; FSDP1's forward_prefetch and backward_prefetch).
constexpr const char* kShardedFix =
    "Let each all-gather run ahead of its layer (FSDP2 prefetches one layer ahead, more with "
    "set_modules_to_forward_prefetch / set_modules_to_backward_prefetch; FSDP1: "
    "forward_prefetch=True, backward_prefetch=BACKWARD_PRE), and gather less: larger wrapped "
    "blocks (fewer, larger all-gathers), reshard_after_forward=False where memory allows (no "
    "all-gather again in backward), or HSDP (shard within a node, replicate across nodes).";
constexpr const char* kShardedFixCode =
    "fully_shard(block, reshard_after_forward=False)  # FSDP2, per block\n"
    "blocks[i].set_modules_to_forward_prefetch([blocks[i + 1], blocks[i + 2]])";

// Communication time: not hidden behind computation (exposed; HTA's overlap), or large (TB
// plugin: communication > 10% of step time, so only for traces with steps: an excerpt or a
// benchmark without steps has no step for it to be a share of).
void rule_communication(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  const Analyses& a = in.analyses;
  const StepBreakdown& b = a.step_breakdown;
  const bool cpu_only = !a.gpu_idle.has_gpu_ops;
  const CommView c = cpu_only ? cpu_comm_view(t, a) : gpu_comm_view(t, a);
  const int64_t window = analysis_window_ns(t, a);
  const int64_t exposed = c.communication_ns - c.overlap_ns;
  const double exposed_pct =
      window > 0 ? 100.0 * static_cast<double>(exposed) / static_cast<double>(window) : 0;
  // On a GPU trace the breakdown's Communication part is already what no kernel hides; on a
  // CPU-only trace it is not (see CommView), and the exposed share takes its place.
  const double comm_part_pct = cpu_only ? exposed_pct : b.pct(StepRole::kCommunication);
  constexpr double kLowOverlapPct = 50.0, kExposedPct = 5.0, kHeavyPct = 10.0;
  // Without computation there is nothing to overlap with (an excerpt, a comm benchmark).
  const bool not_overlapped = c.has_communication && c.computation_ns > 0 &&
                              c.overlap_pct < kLowOverlapPct && exposed_pct >= kExposedPct;
  const bool heavy = !b.whole_trace && comm_part_pct > kHeavyPct;
  if (!not_overlapped && !heavy) return;
  // The communication kernel with the most time, and its stream.
  const KernelRow* top = nullptr;
  for (const KernelRow& r : a.kernels.rows)
    if (r.category == HtaCategory::kCommunication) {
      top = &r;
      break;
    }
  int64_t top_stream = kNoValue;
  if (top) {
    for (uint32_t g : a.join.gpu_ops_by_ts)
      if (t.slices.name[g] == top->name) {
        top_stream = t.tracks[t.slices.track[g]].stream;
        break;
      }
  }
  const size_t steps = a.steps.steps.size();
  // A GPU trace whose communication part has no collective kernel: the step breakdown counted an
  // Nsight Systems rank's blocking MPI calls (step_breakdown.cpp), the GPU idle meanwhile.
  const bool mpi_calls = !cpu_only && !c.has_communication;
  const char* what = cpu_only ? "Collectives (gloo:* / nccl:* ranges on the CPU)"
                     : mpi_calls
                         ? "Blocking MPI calls (collectives, point-to-point, the waits on them)"
                         : "Collective kernels (all-reduce, all-gather, ...)";
  // Mostly sends and receives: pipeline parallelism, whose exposed communication is the stage
  // waiting for its neighbour (the fill and drain bubbles), which DDP's buckets do not touch.
  const bool pipeline = c.kernel_sum_ns > 0 && 2 * c.p2p_sum_ns > c.kernel_sum_ns;
  // Mostly SendRecv kernels whose collective nothing names (an export: no record_param_comms):
  // a pipeline's sends and receives or an all-to-all, which one the trace cannot tell. The
  // advice covers both; DDP's buckets (the all-reduce case) fit neither.
  const bool send_recv =
      !pipeline && c.kernel_sum_ns > 0 && 2 * (c.p2p_sum_ns + c.sendrecv_sum_ns) > c.kernel_sum_ns;
  // Mostly all-gathers and reduce-scatters: FSDP / ZeRO-3, which has no DDP buckets; its
  // communication hides behind the layers by prefetching the next layer's all-gather, and
  // shrinks with larger wrap units or sharding within a node (HSDP).
  const bool sharded = !pipeline && c.kernel_sum_ns > 0 && 2 * c.sharded_sum_ns > c.kernel_sum_ns;
  Finding f;
  if (not_overlapped) {
    f.id = "comm.not_overlapped";
    f.severity = Severity::kWarning;
    f.title = strf("Communication %s overlapped with compute: %s of %s is exposed communication%s",
                   format_pct(c.overlap_pct).c_str(), format_pct(exposed_pct).c_str(),
                   analysis_window_name(a),
                   pipeline    ? ", mostly pipeline sends and receives"
                   : send_recv ? ", mostly sends and receives (SendRecv kernels)"
                               : "");
  }
  if (not_overlapped && pipeline) {
    f.meaning =
        "Point-to-point sends and receives (NCCL send/recv between pipeline stages) mostly run "
        "while no compute kernel runs: the stage waits for its neighbour stage's activations or "
        "gradients, the pipeline's fill and drain bubbles, or a stage slower than the others.";
    f.fix =
        "Shrink the bubbles: more micro-batches per step, an interleaved or 1F1B schedule "
        "(torch.distributed.pipelining), stages balanced so none waits for a slower "
        "neighbour; compare the ranks to find the slow stage.";
    f.fix_code =
        "schedule = torch.distributed.pipelining.ScheduleInterleaved1F1B(\n"
        "    stages, n_microbatches=4 * num_stages, loss_fn=loss_fn)";
  } else if (not_overlapped && send_recv) {
    f.meaning =
        "NCCL SendRecv kernels mostly run while no compute kernel runs. NCCL runs both a "
        "pipeline's point-to-point sends and receives and an all-to-all as this one kernel, and "
        "nothing here names which: a pipeline stage waiting for its neighbour (the fill and "
        "drain bubbles), or an all-to-all (mixture-of-experts tokens, embedding tables) waiting "
        "for its slowest peer.";
    f.fix =
        "For pipeline stages: more micro-batches per step, an interleaved or 1F1B schedule, "
        "stages balanced so none waits for a slower neighbour. For an all-to-all: overlap it "
        "with independent compute (launch it on its own stream before work that does not need "
        "its result), balance the tokens or rows each peer sends. Compare the ranks to find the "
        "slow one.";
  } else if (not_overlapped && sharded) {
    f.meaning =
        "All-gathers and reduce-scatters (sharded data parallel: FSDP, ZeRO-3 gather each "
        "layer's parameters before it runs and scatter its gradients after) mostly run while no "
        "compute kernel runs: the layers wait for their parameters.";
    f.fix = kShardedFix;
    f.fix_code = kShardedFixCode;
  } else if (not_overlapped) {
    f.meaning = std::string(what) +
                (cpu_only ? " mostly run while no CPU op computes: the training thread waits "
                            "for the network instead of overlapping it with the backward pass."
                          : " mostly run while no compute kernel runs: the GPUs wait for the "
                            "network instead of overlapping it with the backward pass.");
    f.fix =
        "Overlap gradient communication with backward: DistributedDataParallel's bucketed "
        "all-reduce (not one all-reduce after backward), sensible bucket_cap_mb, no "
        "synchronization between backward and the optimizer.";
    f.fix_code = cpu_only ? "model = torch.nn.parallel.DistributedDataParallel(model, "
                            "bucket_cap_mb=25)  # CPU: no device_ids"
                          : "model = torch.nn.parallel.DistributedDataParallel(model, "
                            "device_ids=[rank],\n"
                            "                                                  bucket_cap_mb=25)";
  } else {
    f.id = "comm.heavy";
    f.severity = Severity::kInfo;
    f.title = strf("Communication takes %s of step time", format_pct(comm_part_pct).c_str());
    f.meaning =
        std::string(what) + " take a large share of each step, and no computation hides that part.";
    f.fix =
        mpi_calls
            ? "Balance the ranks' work first (a blocking call waits for the slowest rank: "
              "compare the ranks), then overlap what remains: non-blocking MPI (MPI_Iallreduce, "
              "MPI_Isend/MPI_Irecv) waited on after the next GPU work is launched, CUDA-aware "
              "MPI on device buffers, or NCCL."
        : sharded ? kShardedFix
                  : "Communicate less or less often (gradient accumulation, larger buckets, "
                    "compression, a sharding strategy that fits the network), and overlap what "
                    "remains.";
    if (sharded) f.fix_code = kShardedFixCode;
  }
  f.number("communication_pct", comm_part_pct, 1, "%");
  if (c.has_communication) {
    f.number(cpu_only ? "comm_cpu_us" : "comm_kernel_us", us_of(c.communication_ns), 3, "us");
    if (steps > 0)
      f.number(cpu_only ? "comm_cpu_us_per_step" : "comm_kernel_us_per_step",
               us_of(c.communication_ns) / static_cast<double>(steps), 3, "us");
    f.number("overlap_pct", c.overlap_pct, 1, "%");
    f.number("exposed_pct", exposed_pct, 1, "%");
    if (c.p2p_sum_ns + c.sendrecv_sum_ns > 0)
      f.number("send_recv_pct",
               100.0 * static_cast<double>(c.p2p_sum_ns + c.sendrecv_sum_ns) /
                   static_cast<double>(c.kernel_sum_ns),
               1, "%");
  }
  if (top) {
    f.text("top_comm_kernel", std::string(t.str(top->name)));
    if (top_stream != kNoValue) f.number("top_comm_stream", static_cast<double>(top_stream));
  }
  if (c.longest >= 0) {
    const uint32_t l = static_cast<uint32_t>(c.longest);
    const std::string name(t.str(t.slices.name[l]));
    if (cpu_only) f.text("longest_collective", name);
    f.range(t.slices.ts[l], t.slices.end(l), "longest " + name);
    f.events.push_back(l);
  }
  out->push_back(std::move(f));
}

// torch.nn.DataParallel on several GPUs: one process drives every GPU (GIL, scatter/gather
// through GPU 0); DistributedDataParallel is faster (TB plugin recommendation).
void rule_data_parallel(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  const SliceTable& s = t.slices;
  uint64_t calls = 0;
  uint32_t example = 0;
  // Each name tested once: three substring searches on every CPU slice's name were a visible
  // share of a report on traces of a million slices.
  auto is_data_parallel = make_name_cache(t, [](std::string_view n) {
    return n == "DataParallel.forward" ||
                   (contains(n, "data_parallel.py") && contains(n, "forward")) ||
                   contains(n, "nn.Module: DataParallel")
               ? 1
               : 0;
  });
  for (uint32_t i = 0; i < s.size(); ++i) {
    const SliceKind k = s.kind[i];
    if (k != SliceKind::kCpuOp && k != SliceKind::kUserAnnotation &&
        k != SliceKind::kPythonFunction)
      continue;
    if (is_data_parallel(s.name[i]) && calls++ == 0) example = i;
  }
  if (calls == 0) return;
  std::vector<int64_t> devices;
  for (const DeviceMetrics& d : in.analyses.gpu_metrics.devices) devices.push_back(d.device);
  if (devices.size() < 2) return;
  Finding f;
  f.id = "parallel.data_parallel";
  f.severity = Severity::kWarning;
  f.title = strf("torch.nn.DataParallel drives %zu GPUs from one process", devices.size());
  f.meaning =
      "DataParallel replicates the model and scatters inputs from one Python process "
      "every step; the GIL and the copies through the first GPU make it much slower than "
      "one process per GPU.";
  f.fix = "Use DistributedDataParallel with one process per GPU (torchrun).";
  f.fix_code =
      "torchrun --nproc_per_node=N train.py\n"
      "model = DistributedDataParallel(model.to(rank), device_ids=[rank])";
  f.number("gpus", static_cast<double>(devices.size()));
  f.number("forward_calls", static_cast<double>(calls));
  f.range(s.ts[example], s.end(example), "DataParallel.forward");
  f.events.push_back(example);
  out->push_back(std::move(f));
}

// Peak memory over 90% of the device (TB plugin rule, ANALYSES.md): the next larger batch or
// sequence runs out of memory, and the caching allocator may already be freeing and retrying.
// Not when the memory was taken before the capture and the captured work barely moves it:
// inference servers reserve most of the GPU up front on purpose (vLLM's KV cache,
// gpu_memory_utilization=0.9 by default; SGLang's mem_fraction_static), so the allocated total
// is over 90% before the window's first allocation, and what the window allocates on top fits
// in the headroom left. The work in the window is then not what brings the run near an OOM.
void rule_peak_memory(const RuleInput& in, std::vector<Finding>* out) {
  constexpr double kHighPct = 90.0;
  for (const DeviceMemory& d : in.analyses.memory.devices) {
    if (d.device_total <= 0) continue;
    const bool reserved = d.peak_reserved != kNoValue && d.peak_reserved > 0;
    const int64_t peak = reserved ? d.peak_reserved : d.peak_allocated;
    const double pct = 100.0 * static_cast<double>(peak) / static_cast<double>(d.device_total);
    if (pct <= kHighPct) continue;
    if (d.allocated_before != kNoValue) {
      const double before_pct =
          100.0 * static_cast<double>(d.allocated_before) / static_cast<double>(d.device_total);
      const int64_t window_growth = d.peak_allocated - d.allocated_before;
      if (before_pct > kHighPct && window_growth <= d.device_total - peak) continue;
    }
    // One allocation holding a large part of the device is a cache reserved on purpose (vLLM's
    // KV cache takes 90% of the GPU by design): worth knowing, not a warning.
    const bool preallocated =
        100.0 * static_cast<double>(d.largest_allocation) / static_cast<double>(d.device_total) >=
        30.0;
    Finding f;
    f.id = "memory.peak_high";
    f.severity = preallocated ? Severity::kInfo : Severity::kWarning;
    f.title = strf("Peak %s memory %s is %s of the GPU's %s", reserved ? "reserved" : "allocated",
                   format_bytes(peak).c_str(), format_pct(pct).c_str(),
                   format_bytes(d.device_total).c_str());
    f.meaning = preallocated
                    ? "Most of it is one allocation reserved up front (a pre-allocated cache, such "
                      "as an inference server's KV cache): if that is by design, the headroom "
                      "left is what matters."
                    : "The run is close to running out of GPU memory: a larger input can fail, "
                      "and the allocator may be flushing its cache and retrying (slow "
                      "cudaMalloc/cudaFree).";
    f.fix =
        "Reduce activation memory (mixed precision, activation checkpointing, smaller "
        "micro-batches with gradient accumulation) or shard the model/optimizer state.";
    f.fix_code =
        "from torch.utils.checkpoint import checkpoint\ny = checkpoint(block, x, "
        "use_reentrant=False)";
    f.number("device", static_cast<double>(d.device));
    f.number("peak_bytes", static_cast<double>(peak), 0, "B");
    if (d.peak_allocated != kNoValue)
      f.number("peak_allocated_bytes", static_cast<double>(d.peak_allocated), 0, "B");
    f.number("device_bytes", static_cast<double>(d.device_total), 0, "B");
    f.number("largest_allocation_bytes", static_cast<double>(d.largest_allocation), 0, "B");
    if (d.allocated_before != kNoValue)
      f.number("allocated_before_capture_bytes", static_cast<double>(d.allocated_before), 0, "B");
    f.number("peak_pct", pct, 1, "%");
    const int64_t at = reserved ? d.peak_reserved_ns : d.peak_allocated_ns;
    f.range(at, at, "memory peak");
    out->push_back(std::move(f));
  }
}

// Allocated memory that every steady step leaves higher than the step before (profile_memory=True):
// tensors kept across steps (a loss kept with its graph, a list of outputs, a cache that never
// evicts) leak at a steady rate, and the run ends in an out-of-memory error after as many steps
// as the headroom holds. A loop in steady state frees what each step allocates; the warm-up
// steps (optimizer state, the allocator's growth) are left out. Every one of 4 or more steps
// must rise, by 1% of the device at least in all (64 MiB when the device is unknown), so that
// noise and one-time growth do not read as a leak.
void rule_memory_growth(const RuleInput& in, std::vector<Finding>* out) {
  constexpr size_t kMinSteps = 4;
  const StepsResult& st = in.analyses.steps;
  const size_t from = first_steady_step(st);
  if (st.steps.size() < from + kMinSteps) return;
  std::vector<int64_t> ends;
  for (size_t i = from; i < st.steps.size(); ++i) ends.push_back(st.steps[i].end);
  for (const DeviceMemory& d : in.analyses.memory.devices) {
    if (d.device < 0 || !d.has_allocated) continue;  // GPUs' allocated totals only
    const std::vector<int64_t> level = allocated_at(in.trace, d.device, ends);
    bool rising = level.front() != kNoValue;
    for (size_t i = 1; rising && i < level.size(); ++i) rising = level[i] > level[i - 1];
    if (!rising) continue;
    const int64_t grown = level.back() - level.front();
    const int64_t floor_bytes = d.device_total > 0 ? d.device_total / 100 : (int64_t{64} << 20);
    if (grown < floor_bytes) continue;
    const int64_t per_step = grown / static_cast<int64_t>(level.size() - 1);
    Finding f;
    f.id = "memory.grows_per_step";
    f.severity = Severity::kWarning;
    f.title =
        strf("GPU %lld memory grows %s every step (%s to %s over %zu steps)",
             static_cast<long long>(d.device), format_bytes(per_step).c_str(),
             format_bytes(level.front()).c_str(), format_bytes(level.back()).c_str(), level.size());
    f.meaning =
        "Each step leaves more memory allocated than the step before: tensors are kept across "
        "steps (a loss or output kept with its autograd graph, a list that grows, a cache "
        "that never evicts), and the run will end in an out-of-memory error.";
    f.fix =
        "Keep Python numbers, not tensors, across steps (loss.item() or loss.detach() when "
        "logging), clear lists of outputs, and compare torch.cuda.memory_allocated() between "
        "steps to find what stays.";
    f.fix_code = "losses.append(loss.detach())  # not loss: it keeps the step's graph alive";
    f.number("device", static_cast<double>(d.device));
    f.number("growth_per_step_bytes", static_cast<double>(per_step), 0, "B");
    f.number("steps", static_cast<double>(level.size()));
    f.number("first_step_bytes", static_cast<double>(level.front()), 0, "B");
    f.number("last_step_bytes", static_cast<double>(level.back()), 0, "B");
    if (d.device_total > 0 && d.peak_allocated != kNoValue) {
      f.number("device_bytes", static_cast<double>(d.device_total), 0, "B");
      // How many more steps the headroom above the peak holds at this rate.
      const int64_t left = std::max<int64_t>(0, d.device_total - d.peak_allocated) / per_step;
      f.number("steps_to_full", static_cast<double>(left));
      f.title += strf("; the GPU is full in about %lld more steps", static_cast<long long>(left));
    }
    f.range(st.steps[from].begin, st.steps.back().end, "steps whose memory grows");
    out->push_back(std::move(f));
  }
}

}  // namespace ks
