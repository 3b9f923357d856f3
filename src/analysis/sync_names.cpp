#include "analysis/sync_names.h"

#include "analysis/gpu_op_summary.h"
#include "util/text_match.h"

namespace ks {

namespace {

// The API prefixes, longest first so that "cuda" is not read as "cu" + "da...".
constexpr std::string_view kPrefixes[] = {"cuda", "hip", "cu"};
// After the prefix: the synchronize calls, exactly.
constexpr std::string_view kSynchronize[] = {"DeviceSynchronize", "StreamSynchronize",
                                             "EventSynchronize", "CtxSynchronize",
                                             "ThreadSynchronize"};
// After the prefix: the copy and set families, any suffix but "Async".
constexpr std::string_view kCopy = "Memcpy";
constexpr std::string_view kSet = "Memset";
// Intel XPU (Kineto's XPUPTI plugin names its xpu_runtime / xpu_driver events after the SYCL
// backends' calls): the Unified Runtime's and the older PI's queue finish and event waits, and
// Level Zero's host synchronizations. Their copies (urEnqueueUSMMemcpy,
// urEnqueueMemBufferRead) block or not by a "blocking" argument the trace does not keep: not
// counted by name.
constexpr std::string_view kXpuSynchronize[] = {"urQueueFinish",
                                                "urEventWait",
                                                "piQueueFinish",
                                                "piEventsWait",
                                                "zeCommandQueueSynchronize",
                                                "zeCommandListHostSynchronize",
                                                "zeEventHostSynchronize",
                                                "zeFenceHostSynchronize"};

std::string_view api_prefix(std::string_view n) {
  for (std::string_view p : kPrefixes)
    if (starts_with(n, p) && n.size() > p.size() &&
        (n[p.size()] >= 'A' && n[p.size()] <= 'Z'))  // cuda|Memcpy, not cudaify
      return p;
  return {};
}

}  // namespace

std::string_view sync_base_name(std::string_view n) {
  // Nsight Systems: "_v3020"; the driver's ABI versions: "_v2".
  size_t digits = 0;
  while (digits < n.size() && n[n.size() - 1 - digits] >= '0' && n[n.size() - 1 - digits] <= '9')
    ++digits;
  if (digits > 0 && n.size() > digits + 2 && n[n.size() - digits - 1] == 'v' &&
      n[n.size() - digits - 2] == '_')
    n = n.substr(0, n.size() - digits - 2);
  if (ends_with(n, "_ptsz") || ends_with(n, "_ptds")) n = n.substr(0, n.size() - 5);
  return n;
}

bool is_xpu_synchronize(std::string_view n) {
  for (std::string_view s : kXpuSynchronize)
    if (n == s) return true;
  return false;
}

SyncFamily sync_family(std::string_view name) {
  std::string_view n = sync_base_name(name);
  if (is_xpu_synchronize(n)) return SyncFamily::kSynchronize;
  std::string_view p = api_prefix(n);
  if (p.empty()) return SyncFamily::kNone;
  std::string_view rest = n.substr(p.size());
  for (std::string_view s : kSynchronize)
    if (rest == s) return SyncFamily::kSynchronize;
  if (ends_with(rest, "Async")) return SyncFamily::kNone;
  if (starts_with(rest, kCopy)) return SyncFamily::kCopy;
  if (starts_with(rest, kSet)) return SyncFamily::kSet;
  return SyncFamily::kNone;
}

bool call_blocks_host(SyncFamily family, const Trace& t, const LaunchJoin& join, uint32_t call) {
  if (family == SyncFamily::kNone) return false;
  if (family == SyncFamily::kSynchronize) return true;
  // HIP's copy kinds do not tell: ROCm's tracer labels the device-to-host copy of .item()
  // (hipMemcpyWithStream under aten::_local_scalar_dense) "Memcpy DtoD (Device -> Device)" in
  // the MI300 captures (tests/golden: mi300_ddp_resnet18_rccl), and it blocked. Its name decides.
  if (api_prefix(sync_base_name(t.str(t.slices.name[call]))) == "hip") return true;
  const int32_t op = call < join.partner.size() ? join.partner[call] : -1;
  if (op < 0) return true;
  const SliceKind kind = t.slices.kind[static_cast<size_t>(op)];
  const std::string_view name = t.str(t.slices.name[static_cast<size_t>(op)]);
  if (family == SyncFamily::kCopy)
    return kind != SliceKind::kMemcpy || memory_op_kind(kind, name) != MemoryOpKind::kDtoD;
  // A set: "Memset (Device)", "Memset (Device Static)" leave the host free; Pinned, Managed.
  if (kind != SliceKind::kMemset) return true;
  return name.find("(Device") == std::string_view::npos;
}

const char* sync_api(std::string_view name) {
  if (sync_family(name) == SyncFamily::kNone) return "";
  if (is_xpu_synchronize(sync_base_name(name))) return "XPU";
  std::string_view p = api_prefix(sync_base_name(name));
  if (p == "cuda") return "CUDA";
  if (p == "hip") return "HIP";
  return "CUDA driver";
}

}  // namespace ks
