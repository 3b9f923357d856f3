// Many ranks of one distributed job, compared. Per rank: step time, compute, communication,
// their overlap, GPU idle, data loading and memcpy time. Collectives are matched across ranks per
// communicator and by order of issue within it (see compare_ranks); for each,
// the shortest duration across ranks is the transfer time and the rest, on every other rank,
// is time spent waiting for peers (TB plugin's "synchronizing vs transferring"). The rank that
// waits least is the one the others wait for: the straggler has the shortest communication time.
// HTA's late-start rule is computed too (see late_start below). Also: each collective's message
// size from the collective args (and nccl-tests' bus bandwidth where defined), GPU idle gaps
// inside steps per rank, per-step numbers, and where each rank's clock sits under the chosen
// alignment (step N, or HTA's global minimum).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/analyze.h"
#include "analysis/rank_identity.h"
#include "analysis/step_ranges.h"

namespace ks {

// What the comparison needs from one rank, computed where the rank was loaded (the page loads
// ranks in parallel workers, each with its own model) and combined anywhere: serializable to
// JSON (report/rank_digest_json.h).
// CommKernel.stream of a collective that ran on the CPU (a gloo:* range): gloo jobs, CPU-only
// or with CUDA tensors, have no communication kernels; their ranges last as long as the rank
// waits for its peers, as a kernel does, so the straggler rule reads them the same way.
constexpr int64_t kCpuCollectiveStream = -2;
// CommKernel.stream of an MPI collective of an Nsight Systems export (MPI_Allreduce in
// MPI_COLLECTIVES_EVENTS, --trace=mpi): it too lasts until every rank has joined (a non-blocking
// one, MPI_Iallreduce, in the MPI_Wait* that completes its request, counted with it).
constexpr int64_t kMpiCollectiveStream = -3;

struct CommKernel {
  std::string name;
  int64_t stream = kNoValue;
  int64_t ts_ns = 0;
  int64_t dur_ns = 0;
  // When the host launched it (the CUDA API call joined by correlation), kNoLaunch for a
  // collective run on the CPU (gloo, MPI) or a kernel without a launch: a collective is put in
  // the step it was launched in, since one launched at a step's end may run after it.
  static constexpr int64_t kNoLaunch = INT64_MIN;
  int64_t launch_ns = kNoLaunch;
  int64_t step_time_ns() const { return launch_ns != kNoLaunch ? launch_ns : ts_ns; }
  // From the collective args on the kernel, else on the CPU op that launched it
  // (record_param_comms): "" / kNoValue when the trace has none (Kineto before 2024).
  std::string collective;  // "Collective name": allreduce, allgather, ...
  std::string dtype;       // c10 scalar type name: Float, BFloat16, ...
  int64_t in_nelems = kNoValue;
  int64_t out_nelems = kNoValue;
  int64_t group_size = kNoValue;
  std::string process_group;  // "Process Group Name" ("" when absent)
  // "Process Group Ranks" as written ("[0, 1, 2, 3]"; past 30 ranks "[0, ..., 63]"), "" when
  // absent (PyTorch before 2.2): the group's members, global ranks.
  std::string group_ranks;
  // A send's "Dst Rank" / a receive's "Src Rank": the global rank of its peer (Kineto writes
  // them since PyTorch 2.4); kNoValue when absent: the send/recv is then not matched.
  int64_t peer = kNoValue;
};

struct StepSpan {
  int64_t number = 0;
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
  // What the GPU did inside the step: the per-rank totals below, clipped to [begin, end).
  int64_t busy_ns = 0;
  int64_t compute_ns = 0;
  int64_t communication_ns = 0;
  int64_t overlap_ns = 0;
  int64_t host_wait_ns = 0;
  int64_t dataloader_ns = 0;
  int64_t memcpy_ns = 0;
  int64_t idle_ns() const { return end_ns - begin_ns - busy_ns; }
};
// Who a rank is and what its GPU did, as totals over the trace.
struct RankTotals {
  int64_t rank = 0;
  RankSource source = RankSource::kLoadOrder;
  std::string file;
  uint64_t steps = 0;
  double step_median_ns = 0;
  int64_t step_total_ns = 0;
  int64_t gpu_span_ns = 0;       // first GPU op start to last GPU op end
  int64_t busy_ns = 0;           // union of all GPU ops
  int64_t compute_ns = 0;        // union of computation kernels
  int64_t communication_ns = 0;  // union of communication kernels
  // MPI point-to-point calls and the waits on their requests (nsys --trace=mpi), union: a rank's
  // communication outside its collectives (part of communication_ns).
  int64_t mpi_p2p_ns = 0;
  int64_t overlap_ns = 0;         // |compute ∩ communication|
  int64_t dataloader_ns = 0;      // union of DataLoader __next__ ranges
  int64_t memcpy_ns = 0;          // sum of memcpy + memset durations
  int64_t host_wait_ns = 0;       // GPU idle in gaps whose next op was launched after they began
  int64_t start_ns = 0;           // the trace's first event (its clock), for global-min alignment
  int64_t world_size = kNoValue;  // as the trace records it (distributedInfo.world_size)
  // GPU idle gaps inside steps: between two GPU ops of the same step, at least kIdleGapNs of
  // it not covered by data loading (a rank waiting for input is the data-loader rule's).
  uint64_t idle_gaps = 0;
  int64_t idle_gap_ns = 0;
  // Host time in the steps by the steps' direct children (analysis/step_ranges.h), the
  // kStepRangesKept names with the most: what a straggler's CPU spends longer on.
  std::vector<NamedNs> step_ranges;
};

constexpr size_t kStepRangesKept = 24;

constexpr int64_t kIdleGapNs = 100000;  // 100 us: longer than launch overhead

struct RankDigest : RankTotals {
  std::vector<StepSpan> step_spans;
  std::vector<CommKernel> comm;  // communication kernels by start time
};

RankDigest make_rank_digest(const Trace& trace, const Analyses& analyses, const std::string& file,
                            const RankIdentity& identity);

struct RankRow : RankTotals {
  double overlap_pct = 0;    // of communication
  int64_t idle_ns = 0;       // GPU span - busy
  uint64_t collectives = 0;  // communication kernels
  // Those compared across ranks: the ones that start in a shared step when the captures hold
  // different steps (MultiRankResult::shared_steps), else all of them; NCCL send/recv left out
  // (is_point_to_point: each goes to one peer, not matched across ranks).
  uint64_t compared_collectives = 0;
  int64_t collective_sum_ns = 0;  // sum of their durations
  int64_t p2p_sum_ns = 0;         // the part of it in NCCL send/recv (is_point_to_point)
  // Over matched collectives and send/recv pairs (MultiRankResult::p2p_pairs): the sum of the
  // minimum across their ranks, and what the rank spent in them beyond it.
  int64_t transfer_ns = 0;
  int64_t wait_ns = 0;
  // collective_sum_ns less p2p_sum_ns, counting only collectives that start in one of the
  // MultiRankResult's shared_steps (0 when there are none).
  int64_t shared_steps_collective_ns = 0;
  std::vector<int64_t> step_numbers;
  std::vector<int64_t> step_ns;       // parallel to step_numbers
  std::vector<int64_t> step_wait_ns;  // collective wait per step, parallel to step_numbers
  std::vector<StepSpan> step_detail;  // parallel to step_numbers
};

struct CollectiveRow {
  size_t index = 0;
  std::string channel;  // the communicator it was matched in: "group NAME" or "stream N"
  size_t sequence = 0;  // its position within that communicator
  std::string name_text;
  // Per rank (parallel to ranks); kNoValue on a rank outside the collective's process group
  // (a group of some of the ranks is compared among its members).
  std::vector<int64_t> dur_ns;
  int64_t transfer_ns = 0;  // minimum across the members
  // The message, from the first rank that has collective args (kNoValue / "" when none).
  std::string collective;
  std::string dtype;
  int64_t in_nelems = kNoValue;
  int64_t out_nelems = kNoValue;
  int64_t group_size = kNoValue;
  int64_t bytes = kNoValue;  // max(in, out) elements x dtype size: nccl-tests' "size"
  double algbw_gbps = -1;    // bytes / transfer time, GB/s (1e9); -1 when undefined
  double busbw_gbps = -1;    // algbw x nccl-tests' bus factor; -1 when undefined
};

// The matched collectives grouped by kernel name and collective name.
struct CollectiveGroup {
  std::string name_text;
  std::string collective;
  uint64_t count = 0;
  int64_t bytes = 0;        // sum over the calls with a known size
  uint64_t sized = 0;       // calls with a known size
  int64_t transfer_ns = 0;  // sum of the calls' transfer times
  int64_t wait_ns = 0;      // sum over calls and ranks of the wait for peers
  double busbw_gbps = -1;   // sum of bus bytes / sum of transfer time, when all define it
};

// How the ranks' clocks are put on one axis (the stacked timelines; the JSON says which).
//   kStep: every rank's step N starts at 0 (N = the first step every rank has);
//   kGlobalMin: HTA's Trace._align_all_ranks (hta/common/trace.py): subtract one minimum, the
//     earliest timestamp of any rank, from every rank, so the ranks keep their clock offsets.
enum class AlignMode { kStep, kGlobalMin };
const char* align_mode_name(AlignMode m);
bool parse_align_mode(std::string_view text, AlignMode* out);

struct RankAlignment {
  int64_t offset_ns = 0;       // what is subtracted from the rank's clock, minus the global min
  int64_t first_event_ns = 0;  // the rank's first event after global-min alignment
  int64_t step_start_ns = kNoValue;  // step N's start on the aligned axis
  int64_t step_end_ns = kNoValue;
};

struct Alignment {
  AlignMode requested = AlignMode::kStep;
  AlignMode mode = AlignMode::kStep;  // kGlobalMin when no step is on every rank
  int64_t step = kNoValue;            // N, the first step number every rank has
  int64_t global_min_ns = 0;
  std::vector<RankAlignment> ranks;  // parallel to MultiRankResult::ranks
};

struct LateStart {  // HTA's straggler rule
  bool computed = false;
  std::string kernel;  // the (stream, name) whose duration varies most across ranks
  int64_t stream = kNoValue;
  std::vector<uint64_t> flagged;  // per rank: steps in which it was among the 2 latest starters
};

struct MultiRankResult {
  std::vector<RankRow> ranks;  // sorted by rank
  bool duplicate_ranks = false;
  // The world size the traces record (all that record one agree) and the ranks below it that no
  // file given holds: the comparison covers only the ranks given.
  int64_t world_size = kNoValue;
  std::vector<int64_t> missing_ranks;
  bool counts_match = true;
  bool names_match = true;
  size_t first_mismatch = 0;     // index of the first collective whose names differ
  std::string mismatch_channel;  // the communicator where counts or names differ first
  // Matched per communicator, up to the shortest list of each, in order of issue on the first rank.
  // When the captures hold different steps, only the collectives that start in a shared step are
  // matched and counted: paired from the first step every rank holds, not from each capture's
  // first, so a capture begun later is not a rank short of collectives.
  std::vector<CollectiveRow> collectives;
  std::vector<CollectiveGroup> collective_groups;  // by name, in order of first issue
  LateStart late_start;
  Alignment alignment;
  // When the ranks' captures hold different steps (one rank's capture started or stopped at
  // another step: per-rank nsys --delay, a profiler started late on one rank), the step numbers
  // every rank has; empty when all ranks hold the same steps, or share none. A rank that traced
  // fewer steps traced fewer collectives: totals over each capture no longer compare.
  std::vector<int64_t> shared_steps;
  // NCCL send/recv pairs: the i-th send of rank a to rank b with the i-th receive on b from a
  // (by the peer args, CommKernel::peer), each a row (channel "p2p A->B", durations on a and b
  // only): the shorter of the two is the transfer, the difference the earlier side's wait.
  uint64_t p2p_pairs = 0;
  // Sends and receives not matched: no peer in the args (Kineto before PyTorch 2.4, Nsight
  // Systems), a peer no file given holds, recvAnySource, or no counterpart: not measured.
  uint64_t p2p_unmatched = 0;
  // Members of a process group that issued none of its collectives while other members issued
  // some (a collective needs every member: the others waited for it, or the rank took another
  // path). Known only from "Process Group Ranks", with every rank recorded by the trace itself.
  struct SilentMember {
    std::string process_group;
    int64_t rank = 0;
    std::string members;             // the members as read: "0, 3" or "0, ..., 63"
    uint64_t group_collectives = 0;  // the most any member issued
  };
  std::vector<SilentMember> silent_members;
};

// The members of a process group from its "Process Group Ranks" text: "[0, 1, 2, 3]", or past
// 30 ranks "[first, ..., last]" (PyTorch's ParamCommsUtils truncates it), read as every rank
// from first to last when `group_size` ranks fill that range, else as first and last alone
// (the others are not written; also past 2^24 ranks, more than any job has: a hostile size must
// not make a list of 10^12). False (and nothing) when the text is not of that form.
bool parse_group_ranks(std::string_view text, int64_t group_size, std::vector<int64_t>* members);

// Sorts the digests by rank and compares them. Uses nothing but the digests.
// Collectives are matched per communicator, by sequence within it: with FSDP, tensor/pipeline
// parallelism or several process groups, collectives run on several NCCL streams whose
// interleaving differs between ranks, so the i-th kernel over all streams is not the same
// collective everywhere. The communicator is the kernel's "Process Group Name" arg where Kineto
// writes it ("group NAME"), else its stream: the stream number when every rank has the same set
// of communication streams, else the stream's order of first use on the rank ("stream #k"),
// since stream numbers are a rank's own. A process group that only some ranks have (tensor x
// data parallel sub-groups) is matched among the ranks that issued it, its members (the others'
// durations are kNoValue in its rows); a stream only some ranks have, or a communicator whose
// counts differ among its members, is a mismatch (counts_match false).
MultiRankResult compare_ranks(std::vector<RankDigest> digests, AlignMode align = AlignMode::kStep);

// Several Nsight Systems exports of several GPU processes each (`nsys profile torchrun ...` on
// every node of a job) each rank their processes from 0 (kExportProcess, "FILE pid P"): as the
// ranks of one job they are numbered on across the exports, in the order each export first
// appears (the order the files were given), each keeping its own order. With one such export
// nothing changes. Returns the number of exports seen.
size_t number_export_processes(std::vector<RankDigest>* digests);
// The export a process's rank came from: its file without " pid P" (import_nsys_file_by_process
// names them "FILE pid P").
std::string export_of(const std::string& rank_file);

// Bytes per element of a c10 scalar type name as Kineto writes "dtype" (Float, BFloat16, ...),
// 0 when unknown.
int dtype_size(std::string_view dtype);
// nccl-tests' bus-bandwidth factor (doc/PERFORMANCE.md) for a collective name over n ranks:
// all-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n; broadcast, reduce 1.
// -1 for anything else (send/recv, barrier, ...): no factor is defined for it here.
double bus_factor(std::string_view collective, int64_t n);
// The collective an NCCL kernel's name says, for traces without collective args (an Nsight
// Systems export, Kineto before 2.2): "ncclDevKernel_AllReduce_Sum_f32_RING_LL" and the older
// "ncclKernel_AllReduce_RING_LL_Sum_float" -> "allreduce"; allgather, reduce_scatter,
// broadcast, reduce, sendrecv, alltoall; "" for others (ncclDevKernel_Generic).
std::string collective_from_kernel_name(std::string_view kernel);
// A collective's name as a key to compare: lower case, without '_' ("all_reduce",
// "_allgather_base", "AllToAll" -> "allreduce", "allgatherbase", "alltoall").
std::string collective_key(std::string_view collective);
// A point-to-point transfer by its "Collective name" (send, recv, recvAnySource): one peer, not
// the whole group. A pipeline stage waits in its receives for its neighbour by design (the
// bubbles), so these waits say where a rank sits in the pipeline, not that another is slow.
// NCCL's SendRecv kernel without args is not one: all-to-all runs as SendRecv too.
bool is_point_to_point(std::string_view collective);
// The collective of communication kernel `g` (its args, the launching record_param_comms', or
// its name: add_collective_args' rule), "" when nothing says.
std::string collective_of_kernel(const Trace& t, const LaunchJoin& join, uint32_t g);

// DataLoader iterator slices (TB plugin): enumerate(DataLoader)#...__next__ or
// enumerate(DataPipe)#..., and ranges named for data loading (is_dataloader_range).
bool is_dataloader_slice(std::string_view name);

}  // namespace ks
