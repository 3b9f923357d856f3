// What the CPU thread that feeds the GPU was doing while the GPU waited for it. For each idle gap
// the GPU spent waiting on the host (idle_causes.h, host_wait), the thread of the call that
// launched the op ending the gap is followed through the gap, and each instant is given to the
// innermost recorded activity on that thread:
//   - the innermost call: an OS runtime call (Nsight Systems' osrt: nanosleep, read, poll, ...),
//     a CUDA API call, a cuDNN or cuBLAS call, an MPI call, Nsight Systems' own work (its "Profiler
//     overhead" row), a CPU op or a Python function (Kineto), whichever is innermost;
//   - inside the innermost user range (NVTX push/pop or record_function) that is not a step.
// An Nsight Systems export keeps a thread's NVTX ranges, CUDA calls and OS runtime calls on
// separate tracks ("<tid> NVTX", "<tid> CUDA API", "<tid> OS runtime"): they are one thread here.
// Time with nothing recorded is "nothing recorded" (Python without ops, time.sleep in a Kineto
// trace, work the profiler did not trace). An export with context switches (the "off CPU"
// slices of a thread's "CPU state" row) splits it: "off CPU (no call traced)" when the thread was
// switched out (a lock such as the GIL, a page fault, a system call nsys does not trace) and "on
// CPU (no call traced)" when it ran code nothing traced (Python between operators, the program's
// own). Ours; nsys' GUI shows the same by eye, row by row.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/launch_join.h"
#include "analysis/steps.h"
#include "model/trace.h"

namespace ks {

// What kind of activity, for the advice a finding gives.
enum class HostActivityKind : uint8_t {
  kNothingRecorded,
  kSleep,     // nanosleep, clock_nanosleep, usleep, sleep
  kBlocked,   // poll, select, futex, sem_wait, pthread_cond_wait, recv, waitpid, ...
  kFileIo,    // read, write, fopen, open, fread, ...
  kLaunch,    // a CUDA API call that launched GPU work (a kernel, a copy), itself slow
  kCudaCall,  // another CUDA API call that is not a sync (those are the "sync" cause)
  kCpuWork,   // a CPU op, a Python function, another OS call, or only a user range
  kOffCpu,    // no call recorded, and the thread was switched out (context switches)
  kOnCpu,     // no call recorded, and the thread was on a core (context switches)
  kProfiler,  // Nsight Systems' own work on the thread (PROFILER_OVERHEAD: CUPTI buffer flushes)
  kMpi,       // an MPI call (nsys --trace=mpi): mostly waiting for the other ranks
};

struct HostActivity {
  std::string label;  // "load_batch (NVTX) > nanosleep (OS runtime)", "aten::copy_", ...
  std::string call;   // the innermost call's bare name ("nanosleep"), "" when none
  HostActivityKind kind = HostActivityKind::kNothingRecorded;
  int64_t ns = 0;
};

struct GapActivity {
  int64_t total_ns = 0;           // the gaps' length, summed
  uint64_t gaps = 0;              // gaps followed
  std::vector<HostActivity> top;  // up to 5, most time first
  // h's share of the gaps' time, in percent.
  double pct(const HostActivity& h) const {
    return total_ns > 0 ? 100.0 * static_cast<double>(h.ns) / static_cast<double>(total_ns) : 0;
  }
  // The activity holding half the gaps' time or more (what a finding names), else nullptr.
  const HostActivity* lead() const {
    return !top.empty() && total_ns > 0 && 2 * top.front().ns >= total_ns ? &top.front() : nullptr;
  }
  // What a finding says the launching thread was doing, after "the launching thread was ":
  // "in write (OS runtime)", "off CPU (no call traced)"; "" when no activity leads or the lead is
  // "nothing recorded".
  std::string lead_phrase() const;
};

// `gaps`: (begin, end, the GPU op ending the gap) of the gaps to follow; gaps whose op has no
// launching call are skipped. At most `max_gaps` are followed (the longest first).
struct GapToFollow {
  int64_t begin_ns = 0, end_ns = 0;
  uint32_t next_op = 0;
};
GapActivity activity_in_gaps(const Trace& trace, const LaunchJoin& join, const StepsResult& steps,
                             std::vector<GapToFollow> gaps, size_t max_gaps);

// "nanosleep" -> kSleep, "poll" -> kBlocked, "fread" -> kFileIo; kCpuWork for other names.
HostActivityKind os_call_kind(std::string_view name);

}  // namespace ks
