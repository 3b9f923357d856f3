#include "model/slice_kind.h"

namespace ks {

SliceKind slice_kind_from_category(std::string_view cat) {
  // Longest-lived spellings first; comparisons are exact, as Kineto writes them.
  if (cat == "kernel" || cat == "Kernel") return SliceKind::kKernel;
  if (cat == "cpu_op" || cat == "Operator" || cat.empty()) return SliceKind::kCpuOp;
  // Kineto's ActivityType names for the host side of other devices: Intel XPU builds write
  // xpu_runtime / xpu_driver, out-of-tree backends (PrivateUse1) privateuse1_runtime /
  // privateuse1_driver, around the same kernel / gpu_memcpy events and ac2g flows.
  if (cat == "cuda_runtime" || cat == "Runtime" || cat == "mtia_runtime" ||
      cat == "cuda_runtime_api" || cat == "xpu_runtime" || cat == "privateuse1_runtime")
    return SliceKind::kRuntime;
  if (cat == "cuda_driver" || cat == "xpu_driver" || cat == "privateuse1_driver")
    return SliceKind::kDriver;
  if (cat == "gpu_memcpy" || cat == "Memcpy") return SliceKind::kMemcpy;
  if (cat == "gpu_memset" || cat == "Memset") return SliceKind::kMemset;
  if (cat == "user_annotation") return SliceKind::kUserAnnotation;
  if (cat == "gpu_user_annotation") return SliceKind::kGpuUserAnnotation;
  if (cat == "python_function") return SliceKind::kPythonFunction;
  if (cat == "cuda_sync" || cat == "xpu_sync") return SliceKind::kSync;
  return SliceKind::kOther;
}

const char* slice_kind_name(SliceKind k) {
  switch (k) {
    case SliceKind::kOther:
      return "other";
    case SliceKind::kCpuOp:
      return "cpu_op";
    case SliceKind::kUserAnnotation:
      return "user_annotation";
    case SliceKind::kGpuUserAnnotation:
      return "gpu_user_annotation";
    case SliceKind::kPythonFunction:
      return "python_function";
    case SliceKind::kRuntime:
      return "runtime";
    case SliceKind::kDriver:
      return "driver";
    case SliceKind::kKernel:
      return "kernel";
    case SliceKind::kMemcpy:
      return "memcpy";
    case SliceKind::kMemset:
      return "memset";
    case SliceKind::kSync:
      return "sync";
    case SliceKind::kAsync:
      return "async";
  }
  return "other";
}

}  // namespace ks
