// torch.compile's own work inside the capture. Dynamo and Inductor wrap their phases in
// record_function("<phase> (dynamo_timed)") (torch/_dynamo/utils.py dynamo_timed, torch 2.1 and
// later: "_compile.compile_inner (dynamo_timed)", "compile_fx_inner (dynamo_timed)",
// "CUDAGraphNode.record (dynamo_timed)"), so a trace shows when the program compiled:
//   - on its first calls: one-time work the capture should start after;
//   - in most steps: recompilation (a guard fails each step: a new shape, a changed Python
//     value), which costs every step and ends in eager fallback past the cache limit.
#include <algorithm>
#include <cstdint>
#include <string_view>

#include "analysis/intervals.h"
#include "analysis/name_cache.h"
#include "findings/rules.h"
#include "util/text_match.h"

namespace ks {

namespace {

// Not the recording of CUDA graphs (cudagraph trees: "CUDAGraphNode.record (dynamo_timed)"):
// that is graph capture, capture.graph_capture's.
bool is_compile_phase(std::string_view n) {
  return ends_with(n, "(dynamo_timed)") && !icontains(n, "cudagraph");
}

}  // namespace

void rule_torch_compile(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  const Analyses& a = in.analyses;
  const SliceTable& s = t.slices;
  auto phase = make_name_cache(t, [](std::string_view n) { return is_compile_phase(n) ? 1 : 0; });
  std::vector<Interval> spans;
  std::vector<uint32_t> phases;
  for (uint32_t i = 0; i < s.size(); ++i) {
    if (is_gpu_side(s.kind[i]) || !phase(s.name[i])) continue;
    spans.push_back({s.ts[i], s.end(i)});
    phases.push_back(i);
  }
  if (spans.empty()) return;
  // Phases nest (compile_inner holds compile_fx_inner holds the code generation): their union.
  const std::vector<Interval> compile = merge_intervals(std::move(spans));
  const std::vector<Step>& steps = a.steps.steps;
  int64_t in_window = 0;
  size_t steps_with = 0;
  if (steps.empty()) {
    in_window = total_length(compile);
  } else {
    for (const Step& st : steps) {
      const int64_t ns = length_within(compile, st.host_begin, st.host_end);
      in_window += ns;
      steps_with += ns > 0;
    }
  }
  const int64_t window = steps.empty() ? t.span_ns() : analysis_window_ns(t, a);
  const double pct =
      window > 0 ? 100.0 * static_cast<double>(in_window) / static_cast<double>(window) : 0;
  constexpr double kInfoPct = 1, kWarnPct = 10;
  if (pct < kInfoPct) return;
  // Three steps or more, compiling in at least half of them: recompilation, not warm-up.
  const bool recompiles = steps.size() >= 3 && steps_with >= 2 && 2 * steps_with >= steps.size();
  Finding f;
  f.id = "capture.torch_compile";
  if (recompiles) {
    f.severity = Severity::kWarning;
    f.title = strf("torch.compile recompiled in %zu of %zu steps (%s, %s of step time)", steps_with,
                   steps.size(), format_duration(in_window).c_str(), format_pct(pct).c_str());
    f.meaning =
        "Dynamo compiles a function again whenever one of its guards fails: a new input shape, "
        "a changed Python value or dtype, a different code path. Each recompilation stops the "
        "step for tracing and code generation, and past torch._dynamo.config.cache_size_limit "
        "recompilations the function runs eagerly.";
    f.fix =
        "Find what changes with TORCH_LOGS=recompiles; mark the dimensions that vary as "
        "dynamic (torch._dynamo.mark_dynamic, or torch.compile(dynamic=True)), pad "
        "variable-length batches to a few sizes, and pass changing Python numbers as tensors.";
    f.fix_code = "TORCH_LOGS=recompiles python train.py";
  } else {
    f.severity = pct >= kWarnPct ? Severity::kWarning : Severity::kInfo;
    f.title =
        strf("torch.compile compiled inside the %s: %s in Dynamo/Inductor (%s of %s)",
             steps.empty() ? "capture" : "steps", format_duration(in_window).c_str(),
             format_pct(pct).c_str(), steps.empty() ? "the capture" : analysis_window_name(a));
    f.meaning =
        "torch.compile traces and compiles a function on its first call (and for each new "
        "input shape): one-time work, seconds to minutes, that the steady-state steps never "
        "do. Step times, idle time and shares over a window that holds it describe the "
        "compilation, not the run.";
    f.fix =
        "Start the profiler after the compiled model has run a few steps (each input shape "
        "once), so the capture holds steady steps only.";
    f.fix_code = "schedule=torch.profiler.schedule(wait=3, warmup=2, active=3)";
  }
  f.number("compile_us", us_of(in_window), 3, "us");
  f.number("share_pct", pct, 1, "%");
  f.number("compilations", static_cast<double>(compile.size()));
  if (!steps.empty()) {
    f.number("steps_with_compile", static_cast<double>(steps_with));
    f.number("steps", static_cast<double>(steps.size()));
  }
  // The outermost phases (in no earlier phase), longest first: the compilations themselves.
  std::stable_sort(phases.begin(), phases.end(), [&s](uint32_t x, uint32_t y) {
    return s.ts[x] != s.ts[y] ? s.ts[x] < s.ts[y] : s.dur[x] > s.dur[y];
  });
  std::vector<uint32_t> outer;
  int64_t covered = INT64_MIN;
  for (uint32_t i : phases) {
    if (s.ts[i] >= covered) outer.push_back(i);
    covered = std::max(covered, s.end(i));
  }
  std::stable_sort(outer.begin(), outer.end(),
                   [&s](uint32_t x, uint32_t y) { return s.dur[x] > s.dur[y]; });
  if (!outer.empty()) f.text("longest_phase", std::string(t.str(s.name[outer.front()])));
  for (size_t k = 0; k < outer.size() && k < 5; ++k) {
    const uint32_t i = outer[k];
    f.range(s.ts[i], s.end(i), std::string(t.str(s.name[i])));
    f.events.push_back(i);
  }
  out->push_back(std::move(f));
}

}  // namespace ks
