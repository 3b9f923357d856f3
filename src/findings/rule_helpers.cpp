#include "findings/rule_helpers.h"

#include <cctype>
#include <cstdarg>
#include <cstdio>

#include "analysis/python_source.h"

namespace ks {

std::string strf(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  return buf;
}

int64_t analysis_window_ns(const Trace& t, const Analyses& a) {
  if (a.steps.stats.total_ns > 0) return a.steps.stats.total_ns;
  if (a.temporal.span_ns > 0) return a.temporal.span_ns;
  return t.span_ns();
}

const char* analysis_window_name(const Analyses& a) {
  if (a.steps.stats.total_ns > 0) return "step time";
  if (a.temporal.span_ns > 0) return "the GPU span";
  return "the trace";
}

int64_t devices_window_ns(const Trace& trace, const Analyses& a) {
  const size_t devices = std::max<size_t>(1, a.gpu_idle.devices.size());
  return analysis_window_ns(trace, a) * static_cast<int64_t>(devices);
}

std::string devices_window_name(const Analyses& a) {
  const size_t devices = a.gpu_idle.devices.size();
  if (devices < 2) return analysis_window_name(a);
  return strf("the %zu GPUs' %s", devices, analysis_window_name(a));
}

namespace {
bool has(std::string_view s, std::string_view p) {
  return s.find(p) != std::string_view::npos;
}
}  // namespace

GpuVendor gpu_vendor(const Trace& t, const Analyses& a) {
  for (const DeviceProperties& d : t.devices) {
    if (has(d.name, "AMD") || has(d.name, "Radeon") || has(d.name, "Instinct"))
      return GpuVendor::kAmd;
    if (has(d.name, "NVIDIA") || has(d.name, "Tesla") || has(d.name, "Quadro") ||
        has(d.name, "GeForce") || has(d.name, "RTX"))
      return GpuVendor::kNvidia;
    if (has(d.name, "Intel")) return GpuVendor::kIntel;
  }
  bool cuda = false;
  // A two-letter API prefix and then a capital: urEnqueueKernelLaunch, not "url...".
  auto api = [](std::string_view n, std::string_view p) {
    return n.size() > p.size() && n.substr(0, p.size()) == p && n[p.size()] >= 'A' &&
           n[p.size()] <= 'Z';
  };
  for (uint32_t i : a.join.runtime_by_ts) {
    std::string_view n = t.str(t.slices.name[i]);
    if (n.substr(0, 3) == "hip") return GpuVendor::kAmd;
    if (api(n, "ur") || api(n, "ze") || api(n, "pi")) return GpuVendor::kIntel;
    if (n.substr(0, 4) == "cuda" || n.substr(0, 2) == "cu") cuda = true;
  }
  if (cuda) return GpuVendor::kNvidia;
  return a.join.gpu_ops_by_ts.empty() ? GpuVendor::kNone : GpuVendor::kOther;
}

const char* torch_device_name(GpuVendor v) {
  return v == GpuVendor::kIntel ? "xpu" : "cuda";
}

bool looks_like_pytorch_trace(const Trace& t) {
  const SliceTable& s = t.slices;
  for (uint32_t i = 0; i < s.size(); ++i) {
    const SliceKind k = s.kind[i];
    if (k == SliceKind::kRuntime || is_gpu_op(k)) return true;
    if (k != SliceKind::kCpuOp) continue;
    // A slice without a category is read as a CPU op (the legacy autograd profiler writes
    // none), but so is every event of a hand-written or non-PyTorch trace: without a category,
    // only a PyTorch-looking name (aten::linear, autograd::..., c10d::...) counts.
    if (!t.str(s.cat[i]).empty() || t.str(s.name[i]).find("::") != std::string_view::npos)
      return true;
  }
  return false;
}

bool has_timed_events(const Trace& t) {
  return t.slices.size() + t.instants.size() + t.counters.size() > 0;
}

void add_call_site(const Trace& t, uint32_t slice, Finding* f, bool with_caller) {
  std::string where = python_source_of(t, slice);
  if (!where.empty()) f->text("python_source", where);
  if (!with_caller) return;
  std::string caller = native_caller_of(t, slice);
  if (!caller.empty()) f->text("caller", caller);
}

}  // namespace ks
