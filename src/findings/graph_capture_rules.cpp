// A trace of CUDA graph capture (analysis/graph_capture.h): the launches in it were recorded,
// not run, so its idle GPU and CPU-bound steps are the capture's, a one-time set-up.
#include <algorithm>

#include "findings/rules.h"

namespace ks {

double graph_capture_idle_share(const Analyses& a) {
  const int64_t idle = a.gpu_idle.window_ns - a.gpu_idle.busy_ns;
  return idle > 0
             ? static_cast<double>(a.graph_captures.idle_in_capture_ns) / static_cast<double>(idle)
             : 0;
}

const char* const kGraphCaptureIdleFix =
    "Kernels launched while a CUDA graph is being captured are recorded into the graph, not "
    "run: the GPU does that work when the graph is replayed (cudaGraphLaunch). This idle time "
    "is the capture's, a one-time set-up; profile the replays to see the run's own idle time "
    "(capture.graph_capture says how).";

void rule_graph_capture(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  const Analyses& a = in.analyses;
  const GraphCaptures& g = a.graph_captures;
  const int64_t window = a.gpu_idle.window_ns;
  if (!g.any() || window <= 0) return;
  const double pct = 100.0 * static_cast<double>(g.in_window_ns) / static_cast<double>(window);
  constexpr double kInfoPct = 5, kWarnPct = 25;
  if (pct < kInfoPct) return;
  const char* window_name = a.gpu_idle.window_is_steps ? "step time" : "the GPU span";
  Finding f;
  f.id = "capture.graph_capture";
  f.severity = pct >= kWarnPct ? Severity::kWarning : Severity::kInfo;
  f.title = strf(
      "CUDA graph capture takes %s of %s (%llu capture%s, %s): kernels launched while "
      "capturing are recorded, not run",
      format_pct(pct).c_str(), window_name, static_cast<unsigned long long>(g.captures),
      g.captures == 1 ? "" : "s", format_duration(total_length(g.windows)).c_str());
  f.meaning =
      "Between cudaStreamBeginCapture and cudaStreamEndCapture the launches on the captured "
      "stream are recorded into a graph, which runs only when it is replayed (cudaGraphLaunch): "
      "meanwhile the GPU idles and the CPU does all the work. The idle time, kernel counts and "
      "CPU-bound critical path of this window describe a one-time set-up (vLLM and SGLang "
      "capture their graphs at start-up; torch.compile's reduce-overhead mode and "
      "torch.cuda.graphs on their first calls), not the steady state.";
  f.fix =
      "Profile after the graphs are captured, when the run replays them: skip the first steps "
      "with torch.profiler's schedule, or, for a server, profile requests once its start-up "
      "capture is done.";
  if (g.replays == 0) f.fix += " This trace holds no replay (no cudaGraphLaunch call).";
  f.fix_code =
      t.facts.format == TraceFormat::kNsysSqlite
          ? "nsys profile --trace=cuda,nvtx,osrt --capture-range=cudaProfilerApi "
            "--capture-range-end=stop python serve.py  # torch.cuda.profiler.start() after "
            "the capture"
          : "schedule=torch.profiler.schedule(wait=5, warmup=2, active=3)  # steps after the "
            "graphs are captured";
  f.number("captures", static_cast<double>(g.captures));
  f.number("capture_us", us_of(total_length(g.windows)), 3, "us");
  f.number("share_pct", pct, 1, "%");
  f.number("gpu_idle_in_capture_us", us_of(g.idle_in_capture_ns), 3, "us");
  f.number("gpu_idle_in_capture_pct", 100.0 * graph_capture_idle_share(a), 1, "%");
  f.number("instantiations", static_cast<double>(g.instantiations));
  f.number("instantiate_us", us_of(g.instantiate_ns), 3, "us");
  f.number("replays", static_cast<double>(g.replays));
  // The longest windows, in time order.
  std::vector<Interval> shown = g.windows;
  std::stable_sort(shown.begin(), shown.end(),
                   [](const Interval& x, const Interval& y) { return x.length() > y.length(); });
  if (shown.size() > 5) shown.resize(5);
  std::sort(shown.begin(), shown.end(),
            [](const Interval& x, const Interval& y) { return x.begin < y.begin; });
  for (const Interval& w : shown)
    f.range(w.begin, w.end, "CUDA graph capture " + format_duration(w.length()));
  if (g.first_call >= 0) f.events.push_back(static_cast<uint32_t>(g.first_call));
  out->push_back(std::move(f));
}

}  // namespace ks
