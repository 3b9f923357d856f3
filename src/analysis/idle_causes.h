// Why the GPU sat idle: every gap in the GPU's busy time (the union of kernels, memcpys and
// memsets on all streams) inside the steps, or the GPU span without steps, gets one cause,
// checked in this order (ours; the "GPU idle gaps" reading of ANALYSES.md, HTA's host-wait
// idea applied to the whole GPU):
//   dataloader  DataLoader `__next__` ranges cover at least half of the gap: the step waited
//               for its input batch;
//   sync        a synchronizing call (cudaDeviceSynchronize, cuStreamSynchronize, a
//               synchronous cudaMemcpy, hipMemcpy, ... the families of sync_names.h; or a launch of
//               a copy from pageable host memory, which blocks the CPU too) covers half the gap or
//               more; or the gap is a host wait (below) shorter than 1 ms while the launch queue is
//               still refilling after a sync: a sync empties the queue, and the GPU then waits
//               for every launch until the CPU gets ahead again. The refill lasts from the
//               sync's return until the CPU is seen ahead again (a gap whose next op was
//               launched 30 us or more before the gap began) or the step after the sync's step
//               has ended; and it is only counted in windows where the CPU does get ahead (10%
//               of their GPU ops or more were launched 30 us or more before they started):
//               where it never does, the waits are the CPU's own (host wait);
//   host_wait   the GPU op that ends the gap was launched after the gap began: the CPU was
//               late (Python, launch overhead). A gap at a step's end ends with the next step's
//               first op: the GPU waited for the CPU to finish the step and launch it;
//   other       everything else (the trace's last gap, an op queued before the gap, waiting on
//               an event, ...).
#pragma once
#include <cstdint>
#include <vector>

#include "analysis/gap_activity.h"
#include "analysis/gpu_idle.h"

namespace ks {

constexpr int64_t kLaunchGapNs = 100000;  // 100 us

enum class GapCause { kDataLoader = 0, kSync = 1, kHostWait = 2, kOther = 3 };
constexpr int kGapCauses = 4;
const char* gap_cause_name(GapCause c);

struct CausedGap {
  int64_t begin_ns = 0, end_ns = 0;
  GapCause cause = GapCause::kOther;
  int32_t next_op = -1;    // the GPU op that ends the gap (-1 at a window's end)
  int32_t sync_call = -1;  // the sync call, for kSync
  int64_t length() const { return end_ns - begin_ns; }
};

struct IdleCauses {
  int64_t window_ns = 0;  // the gpu_idle window
  int64_t idle_ns[kGapCauses] = {0, 0, 0, 0};
  uint64_t gaps[kGapCauses] = {0, 0, 0, 0};
  // Host-wait gaps shorter than kLaunchGapNs: the GPU waiting for single launches (launch
  // overhead), as opposed to the CPU being away for long.
  int64_t short_host_wait_ns = 0;
  uint64_t short_host_wait_gaps = 0;
  std::vector<CausedGap> largest;  // up to 10, longest first
  // Examples of each cause (up to 5 each, longest first), and of short host waits (launch
  // overhead): what a finding shows as its evidence is the dominant cause, not the largest gaps,
  // which are often of another cause.
  std::vector<CausedGap> examples[kGapCauses];
  std::vector<CausedGap> short_host_wait_examples;
  // What the launching thread did during the host waits of kLaunchGapNs or longer (the CPU away,
  // not launch overhead): gap_activity.h, over the longest 4,096 of them.
  GapActivity host_wait_activity;
  int64_t idle_total_ns() const { return idle_ns[0] + idle_ns[1] + idle_ns[2] + idle_ns[3]; }
};

IdleCauses compute_idle_causes(const Trace& trace, const LaunchJoin& join, const StepsResult& steps,
                               const GpuIdleResult& idle);

}  // namespace ks
