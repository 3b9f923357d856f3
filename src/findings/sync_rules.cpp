// The CPU/GPU relationship: places where the CPU stops and waits for the GPU. Each one drains
// the launch queue, so the GPU idles while the CPU catches up afterwards.
#include <cstdio>

#include "findings/rules.h"

namespace ks {

void rule_dtoh_in_steps(const RuleInput& in, std::vector<Finding>* out) {
  const SyncResult& s = in.analyses.sync;
  if (s.dtoh_in_steps_count == 0) return;
  const Trace& t = in.trace;
  const CopyOrigin& top = s.dtoh_in_steps.front();
  Finding f;
  f.id = "sync.dtoh_in_step";
  f.severity = Severity::kWarning;
  char buf[200];
  std::snprintf(buf, sizeof(buf), "%llu device-to-host cop%s inside steps (%llu of %zu steps)",
                static_cast<unsigned long long>(s.dtoh_in_steps_count),
                s.dtoh_in_steps_count == 1 ? "y" : "ies",
                static_cast<unsigned long long>(s.steps_with_dtoh),
                in.analyses.steps.steps.size());
  f.title = buf;
  f.meaning = "A copy from GPU to CPU inside the training step makes the CPU wait until the GPU "
              "has finished everything queued before it (.item(), .cpu(), .tolist(), printing "
              "or logging a tensor): the CPU cannot run ahead.";
  f.fix = "Keep values on the GPU inside the loop; accumulate metrics as tensors and read them "
          "once every N steps.";
  f.fix_code = "running_loss += loss.detach()  # not loss.item()\nif step % 100 == 0:\n"
               "    print(running_loss.item() / 100)";
  f.number("copies", static_cast<double>(s.dtoh_in_steps_count));
  f.number("steps_with_copies", static_cast<double>(s.steps_with_dtoh));
  f.text("issued_by", top.cpu_ops);
  f.number("issued_by_count", static_cast<double>(top.count));
  f.number("bytes", static_cast<double>(top.bytes), 0, "B");
  for (uint32_t g : top.examples) {
    f.range(t.slices.ts[g], t.slices.end(g), std::string(t.str(t.slices.name[g])));
    f.events.push_back(g);
  }
  out->push_back(std::move(f));
}

void rule_sync_calls(const RuleInput& in, std::vector<Finding>* out) {
  const SyncResult& s = in.analyses.sync;
  if (s.count == 0) return;
  const Trace& t = in.trace;
  const SyncCallRow& top = s.calls.front();
  // A handful of short syncs (end of a benchmark loop) is normal; many or long ones are not.
  const StepsResult& steps = in.analyses.steps;
  int64_t window = steps.stats.total_ns > 0 ? steps.stats.total_ns : t.span_ns();
  double share = window > 0 ? 100.0 * static_cast<double>(s.total_ns) / static_cast<double>(window) : 0;
  Finding f;
  f.id = "sync.runtime_calls";
  f.severity = share >= 5.0 ? Severity::kWarning : Severity::kInfo;
  char buf[200];
  std::snprintf(buf, sizeof(buf), "%llu synchronizing CUDA call%s, %s in total (%.1f%% of %s)",
                static_cast<unsigned long long>(s.count), s.count == 1 ? "" : "s",
                format_duration(s.total_ns).c_str(),
                share, steps.stats.total_ns > 0 ? "step time" : "the trace");
  f.title = buf;
  f.meaning = "cudaDeviceSynchronize / cudaStreamSynchronize / cudaEventSynchronize and "
              "synchronous cudaMemcpy block the CPU until the GPU catches up; inside a training "
              "loop they serialize CPU and GPU (lockstep).";
  f.fix = "Remove explicit synchronizations from the loop (they are often left over from "
          "timing code); use non_blocking=True copies from pinned memory.";
  f.fix_code = "x = x.to('cuda', non_blocking=True)  # with DataLoader(pin_memory=True)";
  f.number("calls", static_cast<double>(s.count));
  f.number("total_us", static_cast<double>(s.total_ns) / 1e3, 3, "us");
  f.number("share_pct", share, 1, "%");
  f.text("top_call", std::string(t.str(top.name)));
  f.number("top_call_count", static_cast<double>(top.count));
  f.number("top_call_max_us", static_cast<double>(top.max_ns) / 1e3, 3, "us");
  for (uint32_t i : top.longest) {
    f.range(t.slices.ts[i], t.slices.end(i), std::string(t.str(t.slices.name[i])));
    f.events.push_back(i);
  }
  out->push_back(std::move(f));
}

}  // namespace ks
