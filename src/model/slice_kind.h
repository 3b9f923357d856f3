// What a slice is, from its Kineto category (`cat`). One byte per slice, so analyses test an
// enum instead of comparing strings. Covers current Kineto names, the 2021 names (Operator,
// Runtime, Kernel, Memcpy, Memset), AMD (hip* under cuda_runtime) and MTIA (mtia_runtime).
#pragma once
#include <cstdint>
#include <string_view>

namespace ks {

enum class SliceKind : uint8_t {
  kOther,
  kCpuOp,              // cpu_op, Operator, legacy events without a category
  kUserAnnotation,     // user_annotation (ProfilerStep#N, record_function)
  kGpuUserAnnotation,  // gpu_user_annotation: ranges drawn on GPU streams
  kPythonFunction,     // python_function (with_stack)
  kRuntime,            // cuda_runtime, Runtime, mtia_runtime
  kDriver,             // cuda_driver
  kKernel,             // kernel, Kernel
  kMemcpy,             // gpu_memcpy, Memcpy
  kMemset,             // gpu_memset, Memset
  kSync,               // cuda_sync (CUDA event/stream sync seen on the GPU timeline)
  kAsync,              // b/e async pairs
};

SliceKind slice_kind_from_category(std::string_view cat);

// Kineto's CUPTI range profiler (experimental_config profiler_metrics): one slice per kernel or
// range carrying metric values, its times a made-up split of the capture. Not GPU work (kOther);
// the CUDA activity is off when it runs, so such a capture has no kernels.
constexpr const char kCuptiRangeCategory[] = "cuda_profiler_range";
const char* slice_kind_name(SliceKind k);

// A GPU op is a kernel, memcpy or memset: what HTA and the TB plugin call GPU activity.
inline bool is_gpu_op(SliceKind k) {
  return k == SliceKind::kKernel || k == SliceKind::kMemcpy || k == SliceKind::kMemset;
}
// Slices drawn on the GPU side of the timeline.
inline bool is_gpu_side(SliceKind k) {
  return is_gpu_op(k) || k == SliceKind::kGpuUserAnnotation || k == SliceKind::kSync;
}

}  // namespace ks
