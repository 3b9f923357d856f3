// What bounds the step, from its critical path (analysis/critical_path.h): when one side holds
// most of the path, making the other side faster does not make the step faster. HTA reports the
// same split (critical_path_analysis summary) and leaves the reading to the user; these rules say
// it when it is clear-cut:
//   - cpu_bound >= 80% of the path: the GPU is not what limits the step;
// A GPU-bound path is the healthy state and raises nothing (the report's section still says it:
// report/critical_path_report.cpp).
//   - launch delays + kernel-kernel gaps >= 25%: the GPU waits between kernels on the path
//     (fewer, larger kernels or CUDA graphs shorten it).
// Both are information: they say where to look, and the rules that measure the causes (GPU idle,
// launch-bound, syncs) carry the warnings.
// 80% is HTA's documentation's reading of "bound" (most of the path), 25% the share at which
// launch overhead findings elsewhere in this report (kernels.launch_bound) speak up.
#include <algorithm>

#include "findings/compile_advice.h"
#include "findings/rules.h"

namespace ks {

namespace {

// The heaviest events on the path (up to 5), for the finding's events and ranges.
void add_heaviest(const CriticalPathResult& r, CpBound want, Finding* f) {
  std::vector<const CpPathEdge*> edges;
  for (const CpPathEdge& e : r.path)
    if (e.bound == want && e.slice >= 0 && e.weight > 0) edges.push_back(&e);
  std::stable_sort(edges.begin(), edges.end(),
                   [](const CpPathEdge* a, const CpPathEdge* b) { return a->weight > b->weight; });
  std::vector<uint32_t> seen;
  for (const CpPathEdge* e : edges) {
    const auto s = static_cast<uint32_t>(e->slice);
    if (std::find(seen.begin(), seen.end(), s) != seen.end()) continue;
    seen.push_back(s);
    f->events.push_back(s);
    if (seen.size() == 5) break;
  }
}

void add_shares(const CriticalPathResult& r, Finding* f) {
  f->number("path_total_us", us_of(r.total), 1, "us");
  f->number("cpu_bound_pct", 100.0 * r.share(CpBound::kCpu), 1, "%");
  f->number("gpu_compute_bound_pct",
            100.0 * (r.share(CpBound::kGpuCompute) + r.share(CpBound::kGpuCommunication)), 1, "%");
  f->number("gpu_kernel_launch_overhead_pct", 100.0 * r.share(CpBound::kGpuLaunch), 1, "%");
  f->number("gpu_kernel_kernel_overhead_pct", 100.0 * r.share(CpBound::kGpuKernelKernel), 1, "%");
  f->text("window", r.window_label);
}

}  // namespace

void rule_critical_path_bound(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  const CriticalPathResult& r = in.analyses.critical_path;
  // Only where there is GPU work to weigh against (a CPU-only trace is trivially CPU-bound).
  if (!r.ok || r.total <= 0 || !in.analyses.gpu_expected) return;
  const double cpu = r.share(CpBound::kCpu);
  const double overhead = r.share(CpBound::kGpuLaunch) + r.share(CpBound::kGpuKernelKernel);
  Finding f;
  if (cpu >= 0.8) {
    f.id = "critical_path.cpu_bound";
    f.severity = Severity::kInfo;
    f.title = strf(
        "The step is %s CPU-bound on its critical path (%s of %s): GPU work is "
        "not what limits it",
        format_pct(100.0 * cpu).c_str(),
        format_duration(r.bound[static_cast<int>(CpBound::kCpu)]).c_str(),
        format_duration(r.total).c_str());
    f.meaning =
        "Along the longest chain of dependent work in the step, CPU ops and runtime calls take "
        "most of the time: faster kernels would not shorten the step, less CPU work would.";
    f.fix =
        "Shorten the CPU ops on the path (the events listed): fewer small ops (fuse, "
        "torch.compile), CUDA graphs to replay launches, no allocations or host syncs inside the "
        "step.";
    f.fix_code = "model = torch.compile(model)  # or capture the step in a CUDA graph";
    fit_launch_overhead_fix(compile_use(t, in.analyses), &f.fix, &f.fix_code);
    add_heaviest(r, CpBound::kCpu, &f);
  } else if (overhead >= 0.25) {
    f.id = "critical_path.gpu_overhead";
    f.severity = Severity::kInfo;
    f.title = strf(
        "%s of the step's critical path (%s) is launch delays and gaps between "
        "kernels",
        format_pct(100.0 * overhead).c_str(), format_duration(r.total).c_str());
    f.meaning =
        "On the longest chain of dependent work the GPU waits for kernels to be launched or to "
        "start after the previous one: overhead, not work, limits the step.";
    f.fix = "Fewer, larger kernels (fusion, torch.compile) or CUDA graphs.";
    f.fix_code = "model = torch.compile(model, mode=\"reduce-overhead\")";
    fit_launch_overhead_fix(compile_use(t, in.analyses), &f.fix, &f.fix_code);
    add_heaviest(r, CpBound::kGpuLaunch, &f);
  } else {
    return;
  }
  // A window spent mostly capturing CUDA graphs: its launches were recorded, not run, so its
  // path is the capture's (CPU work, or the GPU waiting between the few kernels that ran), and
  // advice to use CUDA graphs would be advice to do what it is doing.
  const std::vector<Interval>& captures = in.analyses.graph_captures.windows;
  if (r.window_end > r.window_begin &&
      2 * length_within(captures, r.window_begin, r.window_end) >= r.window_end - r.window_begin) {
    f.fix =
        "This window is mostly CUDA graph capture, whose launches are recorded, not run: a "
        "one-time set-up, not a step. Profile the graph replays to see what bounds a step "
        "(capture.graph_capture says how).";
    f.fix_code.clear();
  }
  // HTA's path weighs the events on it, not the gaps between dependent events (a thread's
  // untraced time, waits on another rank): on a step that waits much, the path is a fraction of
  // the step, and a reader comparing the two numbers needs to be told why.
  const int64_t window = r.window_end - r.window_begin;
  const bool path_under_half = window > 0 && 2 * r.total < window;
  if (path_under_half)
    f.meaning += strf(
        " The path's %s counts the events on it; the rest of the %s window lies between them "
        "(untraced time and waits, which HTA's critical path gives no weight).",
        format_duration(r.total).c_str(), format_duration(window).c_str());
  add_shares(r, &f);
  if (path_under_half) f.number("window_length_us", us_of(window), 1, "us");
  f.range(r.window_begin, r.window_end, r.window_label);
  out->push_back(std::move(f));
}

}  // namespace ks
