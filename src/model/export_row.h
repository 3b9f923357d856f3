// Where an event of an Nsight Systems export came from. An export has no byte offsets, so its
// EventSource.offset holds the table's code in the top byte and the row's number (1-based, in
// SELECT order) below it, and its length is 0. The importer writes it (nsys_rows.h); the
// details view re-queries the row by it, and the diagnostics say "NVTX_EVENTS row 2" by it
// instead of a byte number that means nothing.
#pragma once
#include <cstdint>
#include <iterator>
#include <string_view>

namespace ks {

enum class ExportTable : uint64_t {
  kRuntime = 1,
  kKernel,
  kMemcpy,
  kMemset,
  kSync,
  kNvtx,
  kOsrt,
  kGraphTrace,
  kMemoryUsage,
  kSched,
  kProfilerOverhead,
  kCudnn,
  kCublas,
  kMpiP2p,
  kMpiCollectives,
  kMpiStartWait,
  kMpiOther
};

// The rows of an export's thread, as its tracks name them ("4242 NVTX", "4242 CUDA API", ...),
// in the importer's Row order (nsys_rows.h): one thread to the analyses (export_thread_of).
inline constexpr std::string_view kExportThreadRows[] = {
    "NVTX", "CUDA API", "OS runtime", "CPU state", "Profiler overhead", "cuDNN", "cuBLAS", "MPI"};

constexpr uint64_t kExportRowMask = (uint64_t{1} << 56) - 1;

inline uint64_t export_row_offset(ExportTable t, uint64_t row) {
  return (static_cast<uint64_t>(t) << 56) | (row & kExportRowMask);
}

inline uint64_t export_row_of(uint64_t offset) {
  return offset & kExportRowMask;
}
inline ExportTable export_table_code(uint64_t offset) {
  return static_cast<ExportTable>(offset >> 56);
}

// The table's name, or "" when the offset is not an export row (0: the whole file).
inline std::string_view export_table_of(uint64_t offset) {
  constexpr std::string_view kNames[] = {
      "",
      "CUPTI_ACTIVITY_KIND_RUNTIME",
      "CUPTI_ACTIVITY_KIND_KERNEL",
      "CUPTI_ACTIVITY_KIND_MEMCPY",
      "CUPTI_ACTIVITY_KIND_MEMSET",
      "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
      "NVTX_EVENTS",
      "OSRT_API",
      "CUPTI_ACTIVITY_KIND_GRAPH_TRACE",
      "CUDA_GPU_MEMORY_USAGE_EVENTS",
      "SCHED_EVENTS",
      "PROFILER_OVERHEAD",
      "CUDNN_EVENTS",
      "CUBLAS_EVENTS",
      "MPI_P2P_EVENTS",
      "MPI_COLLECTIVES_EVENTS",
      "MPI_START_WAIT_EVENTS",
      "MPI_OTHER_EVENTS",
  };
  const uint64_t code = offset >> 56;
  return code < std::size(kNames) ? kNames[code] : std::string_view();
}

}  // namespace ks
