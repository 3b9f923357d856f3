// Where each step's time went (TensorBoard profiler plugin, tb_plugin/.../event_parser.py
// StepParser and overall_parser.py; ANALYSES.md "Step time breakdown"). Every event is given a
// role; the roles claim the step's time in this priority order, each taking only what no
// earlier role has taken, so the parts never overlap and sum to the step:
//   Kernel         kernels other than communication kernels
//   Memcpy, Memset GPU copies and sets
//   Communication  communication kernels (nccl/rccl/hccl) and CPU ops named nccl:* / gloo:*
//   Runtime        CUDA/HIP runtime and driver calls
//   DataLoader     enumerate(DataLoader)#*.__next__ and enumerate(DataPipe)#* ranges
//   CPU Exec       every other CPU op and user annotation (ProfilerStep itself excluded;
//                  python_function stack frames are not ops and are left out, as the plugin does)
//   Other          the rest of the step (nothing recorded ran: Python, waiting, ...).
// Steps are the device-adjusted ProfilerStep windows; a trace without steps is one window over
// the whole trace (the plugin uses the CPU ops' span adjusted to the GPU, see
// docs/hta-differences.md).
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "analysis/steps.h"

namespace ks {

enum class StepRole {
  kKernel = 0,
  kMemcpy,
  kMemset,
  kCommunication,
  kRuntime,
  kDataLoader,
  kCpuExec,
  kOther
};
constexpr int kStepRoles = 8;
const char* step_role_name(StepRole r);  // "kernel", "memcpy", ..., "cpu_exec", "other"

// Data loading: DataLoader/DataPipe iterator ranges (enumerate(DataLoader)#...__next__), or a
// range the program named for it ("data_loading", "load_batch", "next batch", ...: NVTX ranges
// in an Nsight Systems export, record_function in a Kineto trace).
bool is_dataloader_range(std::string_view name);
bool is_communication_cpu_op(std::string_view name);

struct StepParts {
  int64_t step_number = -1;  // -1 for the whole-trace window
  int64_t begin_ns = 0, end_ns = 0;
  int64_t ns[kStepRoles] = {0, 0, 0, 0, 0, 0, 0, 0};
};

struct StepBreakdown {
  bool whole_trace = false;      // no steps: one window over the trace
  std::vector<StepParts> steps;  // parallel to StepsResult::steps (or the one window)
  int64_t total_ns[kStepRoles] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t window_ns = 0;
  double pct(StepRole r) const {
    return window_ns > 0 ? 100.0 * static_cast<double>(total_ns[static_cast<int>(r)]) /
                               static_cast<double>(window_ns)
                         : 0;
  }
};

StepBreakdown compute_step_breakdown(const Trace& trace, const StepsResult& steps);

}  // namespace ks
