// The CPU/GPU relationship: places where the CPU stops and waits for the GPU. Each one drains
// the launch queue, so the GPU idles while the CPU catches up afterwards.
#include <algorithm>
#include <cstdio>
#include <string>

#include "analysis/steps.h"
#include "analysis/sync_names.h"
#include "findings/rules.h"

namespace ks {

namespace {

// What the synchronizations cost: the GPU's idle time right after them, while the CPU refills
// the queue (idle_causes.h, cause "sync"), as a share of the analysis window; and the CPU's time
// blocked in them, which costs nothing where the GPU was busy meanwhile (a GPU-bound loop: the
// CPU waits for work it queued). Real H200 captures showed both: syncs in a GPU-bound loop
// (33% of step time blocked, the GPU 99% busy) and .item() in a launch-bound one (no GPU idle
// after it).
constexpr double kCostlySyncIdlePct = 1.0;
constexpr double kCostlyBlockedPct = 5.0;

int64_t sync_idle_ns(const RuleInput& in) {
  return in.analyses.idle_causes.idle_ns[static_cast<int>(GapCause::kSync)];
}

double sync_idle_pct(const RuleInput& in) {
  const int64_t window = analysis_window_ns(in.trace, in.analyses);
  return window > 0 ? 100.0 * static_cast<double>(sync_idle_ns(in)) / static_cast<double>(window)
                    : 0;
}

// The CPU blocked in synchronizations while the GPU had nothing to run, as a share of the window.
double idle_blocked_pct(const RuleInput& in) {
  const SyncResult& s = in.analyses.sync;
  const int64_t window = analysis_window_ns(in.trace, in.analyses);
  const int64_t idle_blocked = s.blocked_ns - s.gpu_busy_while_blocked_ns;
  return window > 0 ? 100.0 * static_cast<double>(idle_blocked) / static_cast<double>(window) : 0;
}

bool syncs_costly(const RuleInput& in) {
  return sync_idle_pct(in) >= kCostlySyncIdlePct || idle_blocked_pct(in) >= kCostlyBlockedPct;
}

}  // namespace

void rule_dtoh_in_steps(const RuleInput& in, std::vector<Finding>* out) {
  const SyncResult& s = in.analyses.sync;
  if (s.dtoh_in_steps_count == 0) return;
  const Trace& t = in.trace;
  const CopyOrigin& top = s.dtoh_in_steps.front();
  Finding f;
  f.id = "sync.dtoh_in_step";
  const double idle_pct = sync_idle_pct(in);
  f.severity = syncs_costly(in) ? Severity::kWarning : Severity::kInfo;
  char buf[200];
  // Without steps the copies were looked for in the iterations the launches repeat in
  // (iterations.h), and the title says so.
  const char* where = s.in_inferred_iterations ? "iterations" : "steps";
  std::snprintf(buf, sizeof(buf), "%llu device-to-host cop%s inside %s (%llu of %llu %s%s)",
                static_cast<unsigned long long>(s.dtoh_in_steps_count),
                s.dtoh_in_steps_count == 1 ? "y" : "ies", where,
                static_cast<unsigned long long>(s.steps_with_dtoh),
                static_cast<unsigned long long>(s.windows), where,
                s.in_inferred_iterations ? ", inferred from the repeating launches" : "");
  f.title = buf;
  f.meaning =
      "A copy from GPU to CPU inside the training step makes the CPU wait until the GPU "
      "has finished everything queued before it (.item(), .cpu(), .tolist(), printing "
      "or logging a tensor): the CPU cannot run ahead.";
  if (f.severity == Severity::kInfo)
    f.meaning +=
        " Here they cost the GPU little (" + format_duration(sync_idle_ns(in)) +
        " idle after synchronizations): the loop is bound elsewhere, but they will cost once "
        "that is fixed.";
  f.fix =
      "Keep values on the GPU inside the loop; accumulate metrics as tensors and read them "
      "once every N steps.";
  f.fix_code =
      "running_loss += loss.detach()  # not loss.item()\nif step % 100 == 0:\n"
      "    print(running_loss.item() / 100)";
  // Copies of whole tensors (a megabyte or more each) are no value read for a log line: an
  // optimizer offloaded to the CPU (torchao's CPUOffloadOptimizer, DeepSpeed's ZeRO-Offload)
  // copies every gradient to the host and must wait for them before its CPU step (a
  // torch.cuda.synchronize(), pytorch/ao#584); .item() advice was wrong there. What helps is
  // overlapping those copies with the backward and waiting once.
  const int64_t per_copy = top.count > 0 ? top.bytes / static_cast<int64_t>(top.count) : 0;
  constexpr int64_t kTensorCopyBytes = int64_t{1} << 20;
  if (per_copy >= kTensorCopyBytes) {
    f.meaning = "These copies move whole tensors to the host (" + format_bytes(per_copy) +
                " each on average), not a value to read: an optimizer or activations "
                "offloaded to the CPU, a checkpoint, .cpu() of a tensor. A synchronizing call "
                "waited for them, so the CPU stopped until the GPU had finished everything "
                "queued before them.";
    if (f.severity == Severity::kInfo)
      f.meaning += " Here they cost the GPU little (" + format_duration(sync_idle_ns(in)) +
                   " idle after synchronizations).";
    f.fix =
        "If the CPU needs them (an offloaded optimizer), overlap the copies with the backward: "
        "copy each gradient into a pinned buffer with non_blocking=True on a side stream as "
        "soon as it is ready, and wait once, on an event, just before the CPU step. If it "
        "does not, keep the tensors on the GPU, or move them every N steps.";
    f.fix_code =
        "with torch.cuda.stream(copy_stream):  # in a gradient hook\n"
        "    host_grad.copy_(p.grad, non_blocking=True)  # host_grad: pin_memory=True\n"
        "done = copy_stream.record_event()\n"
        "done.synchronize()  # once, before the CPU optimizer step";
  }
  f.number("copies", static_cast<double>(s.dtoh_in_steps_count));
  f.number(s.in_inferred_iterations ? "iterations_with_copies" : "steps_with_copies",
           static_cast<double>(s.steps_with_dtoh));
  f.text("issued_by", top.cpu_ops);
  f.number("issued_by_count", static_cast<double>(top.count));
  f.number("bytes", static_cast<double>(top.bytes), 0, "B");
  if (per_copy >= kTensorCopyBytes)
    f.number("bytes_per_copy", static_cast<double>(per_copy), 0, "B");
  f.number("gpu_idle_after_sync_us", us_of(sync_idle_ns(in)), 3, "us");
  f.number("gpu_idle_after_sync_pct", idle_pct, 1, "%");
  if (!top.examples.empty()) {
    const int32_t launcher = in.analyses.join.partner[top.examples.front()];
    // issued_by ends with the copy's native caller already (sync_events.cpp).
    if (launcher >= 0) add_call_site(t, static_cast<uint32_t>(launcher), &f, false);
  }
  for (uint32_t g : top.examples) {
    f.range(t.slices.ts[g], t.slices.end(g), std::string(t.str(t.slices.name[g])));
    f.events.push_back(g);
  }
  out->push_back(std::move(f));
}

namespace {
// The synchronizing calls of the API the trace used (sync_names.h), for the finding's meaning:
// an XPU or ROCm user looks for the names their trace shows, not CUDA's.
const char* sync_calls_named(const std::string& api) {
  if (api == "XPU")
    return "Queue and event waits (urQueueFinish, urEventWait, zeCommandQueueSynchronize, "
           "zeEventHostSynchronize, ...)";
  if (api == "HIP")
    return "Device, stream and event synchronizations (hipDeviceSynchronize, "
           "hipStreamSynchronize, hipEventSynchronize) and synchronous copies (hipMemcpy, "
           "hipMemcpyWithStream, hipMemcpyDtoH, ...)";
  return "Device, stream and event synchronizations (cudaDeviceSynchronize, "
         "cudaStreamSynchronize, cudaEventSynchronize, their driver cu* and hip* twins) and "
         "synchronous copies (cudaMemcpy, cudaMemcpy2D/3D, cudaMemcpyToSymbol, hipMemcpy, ...)";
}
}  // namespace

void rule_sync_calls(const RuleInput& in, std::vector<Finding>* out) {
  const SyncResult& s = in.analyses.sync;
  if (s.count == 0) return;
  const Trace& t = in.trace;
  const SyncCallRow& top = s.calls.front();
  // A handful of short syncs (end of a benchmark loop) is normal; many or long ones are not.
  const StepsResult& steps = in.analyses.steps;
  int64_t window = steps.stats.total_ns > 0 ? steps.stats.total_ns : t.span_ns();
  double share =
      window > 0 ? 100.0 * static_cast<double>(s.blocked_in_steps_ns) / static_cast<double>(window)
                 : 0;
  // Nsight Systems lists every synchronizing call; what one costs is the CPU blocked in it and
  // the GPU idle after it while the CPU refills the queue (idle_causes.h, cause "sync"). Calls
  // that block the CPU under 5% of the window and leave the GPU no idle time (a final
  // synchronize before the profiler stops, one at the end of a benchmark) cost nothing: not
  // reported.
  constexpr double kWarnPct = 5.0;
  const int64_t idle_after = sync_idle_ns(in);
  if (share < kWarnPct && idle_after == 0) return;
  Finding f;
  f.id = "sync.runtime_calls";
  // A warning when they cost the GPU time; the CPU blocked in them alone (a GPU-bound loop)
  // costs nothing.
  const bool costly = share >= kWarnPct && syncs_costly(in);
  f.severity = costly ? Severity::kWarning : Severity::kInfo;
  char buf[200];
  // Name the API the calls used: the HIP runtime on AMD (hipDeviceSynchronize, ...), the CUDA
  // runtime or driver (cuCtxSynchronize) on NVIDIA (sync_names.h); "CUDA" for a mix of runtime
  // and driver calls (the top call's API alone named 12 runtime calls "driver" calls).
  std::string api;
  for (const SyncCallRow& c : s.calls) {
    const std::string one = sync_api(t.str(c.name));
    api = api.empty() || api == one ? one : one.substr(0, 4) == api.substr(0, 4) ? "CUDA" : "";
    if (api.empty()) break;
  }
  const GpuVendor vendor = gpu_vendor(t, in.analyses);
  if (api.empty())
    api = vendor == GpuVendor::kAmd ? "HIP" : vendor == GpuVendor::kIntel ? "XPU" : "CUDA";
  // Most of the calls' time outside the steps (a final synchronize after the last one): said, so
  // the total and the share do not read as contradicting each other.
  const bool mostly_outside = steps.stats.total_ns > 0 && s.total_ns > 2 * s.blocked_in_steps_ns;
  std::snprintf(buf, sizeof(buf), "%llu synchronizing %s call%s, %s in total (%s of %s%s)",
                static_cast<unsigned long long>(s.count), api.c_str(), s.count == 1 ? "" : "s",
                format_duration(s.total_ns).c_str(), format_pct(share).c_str(),
                steps.stats.total_ns > 0 ? "step time" : "the trace",
                mostly_outside ? "; most of it outside the steps" : "");
  f.title = buf;
  f.meaning = std::string(sync_calls_named(api)) +
              " block the CPU until the GPU catches up; inside a training loop they serialize "
              "CPU and GPU (lockstep).";
  if (!costly && in.analyses.gpu_idle.has_gpu_ops)
    f.meaning += " Here the GPU lost little to them (" + format_duration(idle_after) +
                 " idle after them): while the CPU waited, the GPU had work queued.";
  f.fix =
      "Remove explicit synchronizations from the loop (they are often left over from "
      "timing code); use non_blocking=True copies from pinned memory.";
  f.fix_code = std::string("x = x.to('") + torch_device_name(vendor) +
               "', non_blocking=True)  # with DataLoader(pin_memory=True)";
  f.number("calls", static_cast<double>(s.count));
  f.number("total_us", static_cast<double>(s.total_ns) / 1e3, 3, "us");
  f.number("share_pct", share, 1, "%");
  if (in.analyses.gpu_idle.has_gpu_ops)
    f.number("gpu_idle_after_sync_us", us_of(idle_after), 3, "us");
  f.text("top_call", std::string(t.str(top.name)));
  f.number("top_call_count", static_cast<double>(top.count));
  f.number("top_call_max_us", static_cast<double>(top.max_ns) / 1e3, 3, "us");
  if (!top.longest.empty()) {
    if (!top.called_from.empty()) f.text("called_from", top.called_from);
    add_call_site(t, top.longest.front(), &f);
  }
  for (uint32_t i : top.longest) {
    f.range(t.slices.ts[i], t.slices.end(i), std::string(t.str(t.slices.name[i])));
    f.events.push_back(i);
  }
  out->push_back(std::move(f));
}

// aten::item / aten::_local_scalar_dense in the steps of a CPU-only trace: free here, but the
// same loop on a GPU blocks the CPU at every call (GPU traces: rule_dtoh_in_steps).
void rule_item_per_step(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  const Analyses& a = in.analyses;
  const StepsResult& st = a.steps;
  if (!a.join.gpu_ops_by_ts.empty() || st.steps.empty()) return;
  const SliceTable& s = t.slices;
  std::vector<uint64_t> per_step(st.steps.size(), 0);
  uint64_t calls = 0;
  uint32_t example = 0;
  for (uint32_t i = 0; i < s.size(); ++i) {
    if (s.kind[i] != SliceKind::kCpuOp) continue;
    std::string_view n = t.str(s.name[i]);
    const bool item = n == "aten::item";
    const bool scalar = n == "aten::_local_scalar_dense";
    if (!item && !scalar) continue;
    // Count each call once: _local_scalar_dense under aten::item is the same call.
    if (scalar && s.parent[i] >= 0 &&
        t.str(s.name[static_cast<size_t>(s.parent[i])]) == "aten::item")
      continue;
    auto it = std::upper_bound(st.steps.begin(), st.steps.end(), s.ts[i],
                               [](int64_t x, const Step& step) { return x < step.begin; });
    if (it == st.steps.begin()) continue;
    --it;
    if (s.ts[i] >= it->end) continue;
    if (calls == 0) example = i;
    ++calls;
    ++per_step[static_cast<size_t>(it - st.steps.begin())];
  }
  uint64_t steps_with = 0;
  for (uint64_t n : per_step) steps_with += n > 0 ? 1 : 0;
  if (steps_with * 2 < st.steps.size() || steps_with == 0) return;
  Finding f;
  f.id = "sync.item_per_step";
  f.severity = Severity::kInfo;
  f.title = strf("aten::item in %llu of %zu steps (%llu calls): a CPU/GPU sync on a GPU",
                 static_cast<unsigned long long>(steps_with), st.steps.size(),
                 static_cast<unsigned long long>(calls));
  f.meaning =
      "Reading a tensor's value (.item(), float(t), printing it) costs little on a CPU, "
      "but on a GPU each call waits for all queued work and empties the launch queue: "
      "the CPU and GPU run in lockstep.";
  f.fix = "Accumulate values as tensors and read them every N steps, not every step.";
  f.fix_code =
      "running_loss += loss.detach()  # not loss.item()\nif step % 100 == 0:\n"
      "    print(running_loss.item() / 100)";
  f.number("calls", static_cast<double>(calls));
  f.number("steps_with_calls", static_cast<double>(steps_with));
  f.number("steps", static_cast<double>(st.steps.size()));
  add_call_site(t, example, &f);
  f.range(s.ts[example], s.end(example), "aten::item");
  f.events.push_back(example);
  out->push_back(std::move(f));
}

}  // namespace ks
