// Small helpers shared by the rules: formatted titles, the time window a share is of, the GPU
// vendor (some rules only hold for one), and where in the Python code a CPU op was called.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "analysis/analyze.h"
#include "analysis/warmup.h"
#include "findings/finding.h"
#include "util/text_match.h"  // icontains

namespace ks {

std::string strf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// Microseconds for evidence fields ("_us" keys).
inline double us_of(int64_t ns) {
  return static_cast<double>(ns) / 1e3;
}

// The time shares are of: the steps when there are some, else the GPU span, else the trace.
int64_t analysis_window_ns(const Trace& trace, const Analyses& a);
// "of step time" / "of the GPU span" / "of the trace", to match analysis_window_ns.
const char* analysis_window_name(const Analyses& a);
// GPU op time summed over several devices (one process driving 8 GPUs: DataParallel, a model or
// pipeline split) can be up to that many windows long: its share is of every device's window,
// the window times the devices with work (gpu_idle.devices; 1 with one device).
int64_t devices_window_ns(const Trace& trace, const Analyses& a);
// analysis_window_name, or "the 8 GPUs' step time" with several devices.
std::string devices_window_name(const Analyses& a);

enum class GpuVendor { kNone, kNvidia, kAmd, kIntel, kOther };
// From deviceProperties names and the runtime API (hip* calls: AMD; the SYCL backends' ur*,
// ze*, pi* calls: Intel XPU). kOther: an accelerator that is none of them (MTIA). CUDA
// kernel-name rules apply to NVIDIA and AMD only.
GpuVendor gpu_vendor(const Trace& trace, const Analyses& a);

// The name a PyTorch device string has on this vendor's GPUs: "xpu" on Intel, else "cuda"
// (ROCm builds of PyTorch call their GPUs "cuda" too), for the code the fixes suggest.
const char* torch_device_name(GpuVendor v);

// Anything timed at all (a slice, an instant or a counter sample): without, capture.empty says
// so alone, and the rules about how the capture was made have nothing to be about.
bool has_timed_events(const Trace& t);

// A trace written by PyTorch's profiler (it has CPU ops, runtime calls or GPU ops).
bool looks_like_pytorch_trace(const Trace& t);

// Adds where the program made a call, when known (python_source.h): the Python line of a CPU op
// as evidence "python_source"; in an Nsight Systems export with CUDA backtraces, the native
// function that made a CUDA call as evidence "caller" (unless `with_caller` is false: the
// finding names it already).
void add_call_site(const Trace& t, uint32_t slice, Finding* f, bool with_caller = true);

}  // namespace ks
