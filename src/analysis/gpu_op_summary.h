// Summaries of GPU ops with the nsys columns (Time %, Total, Instances, Avg, Med, Min, Max,
// StdDev, Name): kernels by name (`cuda_gpu_kern_sum`, plus HTA category and our class), and
// memory ops by kind (`cuda_gpu_mem_time_sum` + `cuda_gpu_mem_size_sum`: bytes, GB/s).
// Time % is of all listed time (all kernels / all memory ops), not of wall time.
#pragma once
#include <string>
#include <vector>

#include "analysis/duration_stats.h"
#include "analysis/kernel_class.h"
#include "model/trace.h"

namespace ks {

struct KernelRow {
  StringId name = 0;
  HtaCategory category = HtaCategory::kComputation;
  KernelClass klass = KernelClass::kOther;
  bool tensor_core = false;
  DurationStats stats;
  double percent = 0;
};

struct KernelSummary {
  std::vector<KernelRow> rows;  // by total time, then name
  uint64_t count = 0;
  int64_t total_ns = 0;
};

// The memory-op kinds, from Kineto's op names ("Memcpy HtoD (Pageable -> Device)"). kUnified:
// unified-memory page migrations of an Nsight Systems export ("Memcpy Unified DtoH (Managed ->
// Managed)", copyKind CUDA_MEMCPY_KIND_UVM_*): the driver moved pages on a fault or a prefetch,
// the program issued no copy; they are no HtoD/DtoH traffic and no .item(). Intel XPU names its
// copies in PTI's letters ("Memcpy M2D": host memory to device), read the same way.
enum class MemoryOpKind { kHtoD, kDtoH, kDtoD, kPtoP, kHtoH, kMemset, kUnified, kOther };
const char* memory_op_kind_name(MemoryOpKind k);
MemoryOpKind memory_op_kind(SliceKind kind, std::string_view name);
// "Pageable" host memory in the op name (XPU: "M", host memory not allocated as USM, on one side
// of a host-device copy): copies that cannot overlap and run slowly.
bool is_pageable_copy(std::string_view name);

struct MemoryOpRow {
  MemoryOpKind kind = MemoryOpKind::kOther;
  DurationStats stats;
  int64_t bytes = 0;
  double gb_per_s = 0;  // bytes / total time
  uint64_t pageable = 0;
  double percent = 0;
};

struct MemoryOpSummary {
  std::vector<MemoryOpRow> rows;  // by total time
  uint64_t count = 0;
  int64_t total_ns = 0;
};

// `included` (one flag per slice) limits the ops counted, for HTA's drop-last-step convention;
// nullptr counts every op.
KernelSummary summarize_kernels(const Trace& trace, const std::vector<bool>* included);
MemoryOpSummary summarize_memory_ops(const Trace& trace, const std::vector<bool>* included);

}  // namespace ks
