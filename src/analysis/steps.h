// Steps from `ProfilerStep#N` slices on the CPU (torch.profiler's prof.step()), with
// device-adjusted bounds as the TB plugin computes them:
//   start = max(previous step's end, host start)
//   end   = max(host end, end of the last GPU op launched by runtime calls inside the host step)
// With no step markers there are no steps; analyses then use the whole trace as one window.
// HTA drops the last step by default (its GPU work is often cut off); `drop_last` does the same.
//
// Traces without ProfilerStep (Nsight Systems exports, or PyTorch runs profiled without
// prof.step()) can mark steps with NVTX / user annotation ranges instead:
//   - a user-named range (`step_range`, CLI --step-range NAME): the CPU-side slices named NAME
//     (or NAME followed by a separator and a number: "NAME 12", "NAME_12", "NAME#12"), on the
//     thread that has the most of them, nested repeats dropped. It wins over ProfilerStep.
//   - else, when no ProfilerStep exists, a range named like a step (is_step_like_name(): "step",
//     "train_step", "training_step", "iteration", "iter", "train_iter", ..., case-insensitive,
//     with an optional number after a space, '_', '-', '#' or ':'), kept only when its
//     instances on one thread are at least two and do not overlap. With several such names the
//     one with the most instances wins (then the earliest).
//   - else, with no such range, NVTX marks (nvtxMark: instants, no length) named like a step
//     ("train_step", "iteration 12"), or named NAME with --step-range NAME when no range is:
//     one thread's marks of one name, at least three, each step from one mark to the next (the
//     time after the last mark has no end in the trace and is no step). Such a step has no
//     slice of its own (Step::slice is kNoStepSlice): findings point at its time range.
//   - else, a range of the program's own name at the top level of its thread, repeated without
//     overlap (three or more, or two numbered in increasing order) and covering a tenth of the
//     trace, each instance with the GPU work launched inside it (an asynchronous dispatch covers
//     its launches on the host, its GPU work after): an inference server's "execute_model"
//     iterations in a Kineto trace, a loop's NVTX range in an Nsight Systems export, JAX/XLA's
//     "XlaModule:#hlo_module=jit_train_step,program_id=N#" per jitted step. Not a library's range
//     (is_library_range), PyTorch's own (is_framework_range) or a phase of the loop ("forward", one
//     of two ranges that alternate); the note says the steps came from it (repeated_range).
// Steps found from ranges are numbered by the number in their name, else 0, 1, 2, ... in time
// order; the device-adjusted bounds are computed as for ProfilerStep.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/duration_stats.h"
#include "analysis/launch_join.h"
#include "analysis/step_kinds.h"
#include "model/trace.h"

namespace ks {

// Step::slice of a step between two NVTX marks: it is no slice on any track.
constexpr uint32_t kNoStepSlice = UINT32_MAX;

struct Step {
  int64_t number = 0;
  uint32_t slice = 0;            // the ProfilerStep slice (or range); kNoStepSlice for marks
  uint32_t mark = kNoStepSlice;  // steps from marks: the mark opening it (trace.instants)
  bool has_slice() const { return slice != kNoStepSlice; }
  int64_t host_begin = 0, host_end = 0;
  int64_t begin = 0, end = 0;  // device-adjusted
  // The first step only: how long, from its start, the GPU was still running work queued before
  // it (launched before the step, or before the capture: GPU ops with no launch in the trace).
  // A GPU-bound loop runs ahead of the GPU, so a capture's first step inherits the warm-up
  // steps' backlog (a real H200 capture: 165 ms of a 358 ms first step); the step rules compare
  // its own time, dur() - queued_ns.
  int64_t queued_ns = 0;
  // GPU work in the step: the durations of the GPU ops that start inside [begin, end), summed
  // (over streams and devices): what tells a long step that did more work from a stalled one.
  int64_t gpu_work_ns = 0;
  int64_t dur() const { return end - begin; }
  int64_t own_dur() const { return end - begin - queued_ns; }
};

enum class StepSource : uint8_t { kNone, kProfilerStep, kStepLikeRange, kUserRange, kNvtxMarks };

struct StepsResult {
  StepSource source = StepSource::kNone;
  std::string range_name;       // for ranges and marks: the name as the trace writes it
  std::string requested_range;  // the step_range asked for ("" if none), found or not
  std::vector<Step> steps;      // in time order, after drop_last when asked
  bool dropped_last = false;
  // The last step was cut by the capture's end, not by the loop, and is left out as drop_last
  // would: its range began and never ended (nsys --duration stopped inside it), or it launched
  // no GPU work and is under a quarter of the other steps' median (torch.profiler without a
  // schedule: the last prof.step() opens a step the profiler's exit closes a moment later).
  enum class LastStepCut : uint8_t { kNone, kOpen, kShort };
  LastStepCut last_cut = LastStepCut::kNone;
  int64_t last_cut_dur = 0;  // its length as the trace has it
  // The first step was cut by the capture's start and is left out: an Nsight Systems export's
  // step range that began before the session's zero (the capture started mid-run, inside it:
  // its GPU work before the start is missing). Its host start and length as the trace has them.
  bool first_cut = false;
  int64_t first_cut_begin = 0, first_cut_dur = 0;
  uint64_t found = 0;  // ProfilerStep markers found, before dropping
  // Markers (ProfilerStep#N, or --step-range instances) left out because they began inside an
  // earlier kept one (nested or overlapping: a hand-written or merged file; real steps follow one
  // another), and the first one's name and host start, so the report can say what it left out.
  uint64_t overlapping_left_out = 0;
  std::string first_overlapping_name;
  int64_t first_overlapping_begin = 0;
  // ProfilerStep#N markers in several processes (ranks merged into one file): how many
  // processes have them, and the pid whose steps these are (profiler_step_process in steps.cpp).
  uint64_t step_processes = 0;
  std::string step_process_pid;
  // kStepLikeRange from a range of the program's own name (not named like a step): one repeated
  // at the top level of its thread, each instance read as an iteration; the note says so.
  bool repeated_range = false;
  int64_t last_host_begin = 0;  // host start of the last step found (dropped or not)
  int64_t last_host_end = 0;    // host end of the last step found
  DurationStats stats;          // over own_dur(); total_ns is the sum of dur() (the steps' window)
  double spread_pct = 0;        // (max - min) / median * 100
  double cv_pct = 0;            // stddev / mean * 100
  // Two kinds of steps (prefill and decode): analysis/step_kinds.h; found false when not.
  StepKinds kinds;
  // Calls of one-time work (allocator, module loading, autotuning: analysis/warmup.h) per step,
  // parallel to steps: evidence that a first step is a warm-up.
  std::vector<uint32_t> one_time_calls;
};

// NVTX ranges a library or the framework pushes, not the program's loop: PyTorch operators
// (emit_nvtx: "aten::mm, seq = 12", "aten::empty"; any C++ "ns::name"), NCCL/RCCL collectives
// ("ncclAllReduce", which NCCL annotates on the calling thread), cuDNN, cuBLAS and CUDA calls.
bool is_library_range(std::string_view name);

// Ranges PyTorch records around its own calls, at the top level of a loop without
// ProfilerStep: the optimizer's ("Optimizer.step#SGD.step", "Optimizer.zero_grad#..."), the
// DataLoader's ("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"), DDP's and FSDP's
// forward, torch.compile's regions. Each repeats once per iteration but is a phase of it, not the
// iteration: never steps.
bool is_framework_range(std::string_view name);

// Whether an NVTX range is one emit_nvtx (or nsys --pytorch=autograd-nvtx) pushes around a
// PyTorch op call ("aten::...", any "ns::name", or "..., seq = N"): the first kind of
// is_library_range.
bool is_emit_nvtx_op_range(std::string_view range_name);
// "aten::mm, seq = 12, op_id = 7, sizes = [[4, 8], [8, 2]]" -> "aten::mm": the op an emit_nvtx
// range is a call of; other names as they are.
std::string_view emit_nvtx_op_name(std::string_view range_name);

StepsResult find_steps(const Trace& trace, const LaunchJoin& join, bool drop_last,
                       const std::string& step_range = std::string());

// The name a step is shown by: its slice's, or the mark's that opens it.
std::string_view step_name(const Trace& trace, const Step& step);

// "train_step", "Step 3", "iteration_12", ... (the rule above). *base gets the lower-case name
// without its number ("step"), *number the number or -1.
bool is_step_like_name(std::string_view name, std::string* base, int64_t* number);

// What the report says about where the steps came from, or how to get steps; "" for ProfilerStep
// steps and for a trace without steps that is not an Nsight Systems export (`nsys_export`), so
// PyTorch reports read as before.
std::string steps_note(const StepsResult& r, bool nsys_export);
// "source" in the JSON report: "profiler_step", "nvtx_range", "step_range", "nvtx_marks" or
// "none".
const char* step_source_name(StepSource s);

// Parses "ProfilerStep#123"; false for other names.
bool parse_profiler_step(std::string_view name, int64_t* number);

}  // namespace ks
