// The one table of runtime/driver calls that block the CPU until the GPU is done (the
// "synchronizing calls" of sync_events, idle_causes and the sync findings), by family rather
// than by exact name, so that traces from other toolchains are covered:
//   - synchronize calls: {cuda, cu, hip} x {Device, Stream, Event, Ctx, Thread}Synchronize
//     (cudaStreamSynchronize, cuCtxSynchronize, hipDeviceSynchronize, ...);
//   - Intel XPU's queue and event waits: urQueueFinish, urEventWait (Unified Runtime),
//     piQueueFinish, piEventsWait (PI), ze{CommandQueue,CommandListHost,EventHost,FenceHost}
//     Synchronize (Level Zero);
//   - synchronous copies and sets: every name of the cudaMemcpy / cuMemcpy / hipMemcpy and
//     cudaMemset / cuMemset / hipMemset families that is not an ...Async variant (cudaMemcpy2D,
//     cudaMemcpy3D, cudaMemcpyToSymbol, cudaMemcpyFromSymbol, cudaMemcpyPeer, cuMemcpyHtoD,
//     cuMemsetD32, hipMemcpyDtoH, hipMemcpyWithStream, ...): the CUDA and HIP documentation
//     say these return once the copy is done (or, for pageable memory, staged).
// A copy or a set blocks the host only for some memory, which the GPU op it launched names
// (call_blocks_host below); the name alone is the answer when no op is joined to the call.
// Names are compared after stripping the suffixes other tools add: Nsight Systems writes the
// API version (cudaStreamSynchronize_v3020), the driver its ABI version (cuMemcpyHtoD_v2), and
// per-thread default stream variants end in _ptsz / _ptds.
#pragma once
#include <cstdint>
#include <string_view>

#include "analysis/launch_join.h"
#include "model/trace.h"

namespace ks {

enum class SyncFamily { kNone, kSynchronize, kCopy, kSet };

// The name without a trailing "_v<digits>" and then "_ptsz"/"_ptds".
std::string_view sync_base_name(std::string_view name);
// Which family of synchronizing call `name` is, kNone for every other name.
SyncFamily sync_family(std::string_view name);
// Intel XPU's queue and event waits (the list above: urQueueFinish, ...), by base name.
bool is_xpu_synchronize(std::string_view base_name);
inline bool is_sync_runtime_call(std::string_view name) {
  return sync_family(name) != SyncFamily::kNone;
}
// Whether the call `call` (of family `family`) blocked the host, by CUDA's "API synchronization
// behavior" (CUDA Runtime API reference): a synchronize always; a synchronous copy unless it was
// device to device ("For transfers from device memory to device memory, no host-side
// synchronization is performed"); a synchronous memset only on host memory ("asynchronous with
// respect to the host except when the target is pinned host memory or a Unified Memory
// region"). The memory is read off the GPU op the call launched (join.partner: "Memcpy DtoD
// (Device -> Device)", "Memset (Device)"); a copy or set with no op joined, or a HIP one (ROCm's
// copy kinds are not reliable), counts, as its name says.
bool call_blocks_host(SyncFamily family, const Trace& t, const LaunchJoin& join, uint32_t call);

// "CUDA", "CUDA driver", "HIP" or "XPU" for a synchronizing call's name, "" for others.
const char* sync_api(std::string_view name);

}  // namespace ks
