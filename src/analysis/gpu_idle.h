// GPU busy and idle time inside the steps (or, with no steps, over the GPU span: HTA's
// temporal-breakdown window). Busy is the union of kernel/memcpy/memset intervals over every
// stream and device; idle is the rest of the window. The largest idle gaps are kept with their
// ranges, for findings and for jumping to them on the timeline.
#pragma once
#include <vector>

#include "analysis/intervals.h"
#include "analysis/launch_join.h"
#include "analysis/steps.h"

namespace ks {

struct GpuIdleResult {
  bool has_gpu_ops = false;
  bool window_is_steps = false;  // false: the GPU span was used
  int64_t window_ns = 0;
  int64_t busy_ns = 0;
  double idle_pct = 0;
  std::vector<double> idle_pct_per_step;  // parallel to steps
  std::vector<Interval> largest_gaps;     // up to 5, longest first
  std::vector<Interval> busy;             // merged busy intervals, whole trace
  // One process driving several GPUs (model or pipeline split, DataParallel): the union above
  // reads busy while the GPUs take turns, so each device's own idle over the same window is kept
  // too. Empty with fewer than two devices.
  struct DeviceIdle {
    int64_t device = 0;
    int64_t busy_ns = 0;
    double idle_pct = 0;
  };
  std::vector<DeviceIdle> devices;  // by device id
  // A device the process barely touched: its GPU ops take under 1% of the busiest device's op
  // time and under 1% of the window. Typically a tensor or CUDA call on the default device
  // before torch.cuda.set_device(LOCAL_RANK), which leaves a CUDA context on GPU 0 in every
  // rank. Not among `devices` (the per-device rows and rules are about where the work runs),
  // which then holds the rest only when two or more remain.
  struct StrayDevice {
    int64_t device = 0;
    uint64_t ops = 0;
    int64_t op_ns = 0;                       // the union of its ops, whole trace
    int64_t first_ns = 0, first_end_ns = 0;  // its first op
  };
  std::vector<StrayDevice> stray_devices;  // by device id
  int64_t main_device = 0;  // the device with the most op time, when there are stray ones
  bool is_stray(int64_t device) const;
};

GpuIdleResult compute_gpu_idle(const Trace& trace, const LaunchJoin& join,
                               const StepsResult& steps);

}  // namespace ks
