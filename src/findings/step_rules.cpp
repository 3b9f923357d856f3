// Step boundaries and step time: the first thing a reader checks. Are there steps at all; is
// the first captured step a warm-up; do the steady steps agree; were enough steps captured.
#include "analysis/step_trend.h"
#include "analysis/xla_program.h"
#include "findings/rules.h"

namespace ks {

namespace {
// How a step is named in titles: "ProfilerStep#12", or "train_step #3" for steps from a range
// (or marks: src/analysis/steps.h), so an Nsight Systems report names the range the user wrote.
std::string step_label(const StepsResult& st, int64_t number) {
  if (st.source == StepSource::kStepLikeRange || st.source == StepSource::kUserRange ||
      st.source == StepSource::kNvtxMarks)
    return st.range_name + " #" + std::to_string(number);
  return "ProfilerStep#" + std::to_string(number);
}
// Without markers the GPU work may still repeat (src/analysis/iterations.h): the title gives the
// step time and its stability the user came for, the evidence the numbers, the timeline the
// slowest iteration.
void mention_inferred_iterations(const IterationsResult& it, Finding* f) {
  if (!it.found) return;
  f->title += strf("; the GPU work repeats as %llu iterations, median %s, CV %.1f%%",
                   static_cast<unsigned long long>(it.stats.count),
                   format_duration(static_cast<int64_t>(it.stats.median_ns)).c_str(), it.cv_pct);
  f->meaning +=
      " Step times can still be read from the iterations inferred from the launches (the same "
      "sequence of GPU ops repeats); the per-step breakdowns and other analyses take the whole "
      "capture.";
  f->number("inferred_iterations", static_cast<double>(it.stats.count));
  f->number("ops_per_iteration", static_cast<double>(it.period_ops));
  f->number("match_pct", it.match_pct, 1, "%");
  f->number("median_us", it.stats.median_ns / 1e3, 3, "us");
  f->number("cv_pct", it.cv_pct, 1, "%");
  size_t slowest = 0;
  for (size_t i = 1; i < it.iterations.size(); ++i)
    if (it.iterations[i].dur() > it.iterations[slowest].dur()) slowest = i;
  const Iteration& x = it.iterations[slowest];
  f->range(x.begin, x.end, strf("slowest iteration #%zu (inferred)", slowest));
}

}  // namespace

void rule_no_steps(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  if (in.analyses.steps.found > 0 || !looks_like_pytorch_trace(t)) return;
  Finding f;
  f.id = "steps.none";
  if (t.facts.format == TraceFormat::kNsysSqlite) {
    // Nsight Systems: steps come from NVTX ranges (src/analysis/steps.h).
    f.severity = Severity::kInfo;
    f.title = "No step ranges: the capture is analyzed as one window";
    f.meaning =
        "The export has no NVTX range named like a step (train_step, step, iteration...), so "
        "step times, per-step breakdowns and step-based findings are not available.";
    if (is_xla_program(t)) {  // XLA's own NVTX names: torch's call is no help in JAX
      std::string fix = kJaxStepAdvice;
      fix[0] = static_cast<char>(fix[0] - 'a' + 'A');
      f.fix = fix + ".";
      f.fix_code = kJaxStepCode;
    } else {
      f.fix =
          "Wrap each training step in an NVTX range and capture with --trace=cuda,nvtx (or name "
          "an existing range with --step-range NAME).";
      f.fix_code = "with torch.cuda.nvtx.range(\"train_step\"):\n    train_step(batch)";
    }
    mention_inferred_iterations(in.analyses.iterations, &f);
    out->push_back(std::move(f));
    return;
  }
  f.severity = Severity::kInfo;
  f.title = "No ProfilerStep markers: the trace is analyzed as one window";
  f.meaning =
      "prof.step() was not called (or the trace was not written by torch.profiler), so "
      "step times, per-step breakdowns and step-based findings are not available.";
  f.fix = "Call prof.step() at the end of every training iteration.";
  f.fix_code = "for batch in loader:\n    train_step(batch)\n    prof.step()";
  mention_inferred_iterations(in.analyses.iterations, &f);
  out->push_back(std::move(f));
}

// The first captured step much slower than the rest: one-time work (CUDA context, allocator
// growth, cuDNN autotuning, DataLoader workers starting, JIT) was recorded as if it were a step.
void rule_warmup_step(const RuleInput& in, std::vector<Finding>* out) {
  const StepsResult& st = in.analyses.steps;
  double ratio = 0;
  const size_t k = warmup_step_count(st, &ratio);
  if (k == 0) return;
  const Step& first = st.steps.front();
  const Step& last = st.steps[k - 1];
  std::vector<int64_t> rest;
  for (size_t i = k; i < st.steps.size(); ++i) rest.push_back(st.steps[i].dur());
  DurationStats others = compute_duration_stats(rest);
  const std::string median = format_duration(static_cast<int64_t>(others.median_ns));
  Finding f;
  f.id = "steps.warmup_in_window";
  f.severity = Severity::kWarning;
  if (k == 1) {
    f.title = strf("First captured step %s is %.1fx slower than the others (%s vs %s)",
                   step_label(st, first.number).c_str(), ratio,
                   format_duration(first.own_dur()).c_str(), median.c_str());
  } else {
    // Several warm-up steps: each is compared with the steady steps after them, never with
    // each other (a median over the warm-up steps too would hide them).
    f.title = strf(
        "First %zu captured steps %s to %s are %.1fx slower or more than the others "
        "(%s and more vs %s)",
        k, step_label(st, first.number).c_str(), step_label(st, last.number).c_str(), ratio,
        format_duration(static_cast<int64_t>(ratio * others.median_ns)).c_str(), median.c_str());
  }
  f.meaning =
      "The first step inside the profiling window still did one-time work (CUDA/cuDNN "
      "initialization, allocator growth, autotuning, DataLoader workers starting): it is "
      "not a steady-state step and distorts averages taken over the capture.";
  f.fix =
      "Let the profiler's schedule skip and warm up a few steps before recording, or leave "
      "this step out when quoting step times.";
  f.fix_code = "schedule=torch.profiler.schedule(wait=1, warmup=2, active=3)";
  f.number("first_step", static_cast<double>(first.number));
  f.number("first_step_us", us_of(first.own_dur()), 3, "us");
  f.number("others_median_us", others.median_ns / 1e3, 3, "us");
  f.number("ratio", ratio, 2, "x");
  f.number("steps", static_cast<double>(st.steps.size()));
  if (k > 1) {
    f.number("warmup_steps", static_cast<double>(k));
    f.number("last_warmup_step", static_cast<double>(last.number));
  }
  f.range(first.begin, k == 1 ? first.end : last.end,
          (k == 1 ? "warm-up step " : "warm-up steps to ") + step_label(st, last.number));
  if (first.has_slice()) f.events.push_back(first.slice);  // steps between marks have none
  out->push_back(std::move(f));
}

// One timed window of the loop: a step, or (without steps) an inferred iteration.
struct LoopWindow {
  int64_t dur = 0, begin = 0, end = 0;
  std::string label;      // "ProfilerStep#12", "train_step #3", "iteration #4 (inferred)"
  int64_t number = 0;     // the step's number, or the iteration's index
  int64_t slice = -1;     // the step's marker slice; -1 for an iteration or a step between marks
  int64_t gpu_work = -1;  // the GPU work that starts in the step; -1 for an iteration
};

// The steps that take kWarmupRatio times the median or more (the ones a reader must explain),
// by number; `every` is their interval when they recur at a fixed one (three or more, equally
// spaced by two or more: a checkpoint or an eval every N steps), else 0.
struct SlowWindows {
  std::vector<int64_t> numbers;
  int64_t every = 0;
};
constexpr size_t kSlowListed = 8;  // numbers the evidence lists
SlowWindows slow_windows(const std::vector<LoopWindow>& w, size_t from, double median_ns) {
  SlowWindows out;
  if (median_ns <= 0) return out;
  for (size_t i = from; i < w.size(); ++i)
    if (static_cast<double>(w[i].dur) >= kWarmupRatio * median_ns)
      out.numbers.push_back(w[i].number);
  if (out.numbers.size() < 3) return out;
  const int64_t step = out.numbers[1] - out.numbers[0];
  for (size_t i = 2; i < out.numbers.size(); ++i)
    if (out.numbers[i] - out.numbers[i - 1] != step) return out;
  if (step >= 2) out.every = step;
  return out;
}

// Two kinds of steps (analysis/step_kinds.h): each steady, the long ones doing more GPU work.
// Not unstable: the report names the two populations, so step times are quoted per kind.
static void two_kinds_of_steps(const StepsResult& st, std::vector<Finding>* out) {
  const StepKinds& k = st.kinds;
  Finding f;
  f.id = "steps.two_kinds";
  f.severity = Severity::kInfo;
  f.title = strf(
      "Two kinds of steps: %llu long (median %s) and %llu short (median %s); the long ones do "
      "%.1fx the GPU work",
      static_cast<unsigned long long>(k.long_stats.count),
      format_duration(static_cast<int64_t>(k.long_stats.median_ns)).c_str(),
      static_cast<unsigned long long>(k.short_stats.count),
      format_duration(static_cast<int64_t>(k.short_stats.median_ns)).c_str(), k.gpu_work_ratio);
  f.meaning =
      "The step times fall into two groups, each steady, and the long steps run "
      "proportionally more GPU work: the loop does two kinds of work (an inference server's "
      "prefill and decode steps, a training loop's evaluation steps), not stalls. An average "
      "over all steps mixes the two.";
  f.fix =
      "Quote and compare step times per kind (the long ones with each other, the short ones "
      "with each other); to speed up one kind, look at its own steps on the timeline.";
  f.number("steps", static_cast<double>(st.steps.size()));
  f.number("long_steps", static_cast<double>(k.long_stats.count));
  f.number("short_steps", static_cast<double>(k.short_stats.count));
  f.number("long_median_us", k.long_stats.median_ns / 1e3, 3, "us");
  f.number("short_median_us", k.short_stats.median_ns / 1e3, 3, "us");
  f.number("gpu_work_ratio", k.gpu_work_ratio, 2, "x");
  std::string listed;
  size_t shown = 0, first_long = st.steps.size();
  for (size_t i = 0; i < st.steps.size(); ++i) {
    if (!k.is_long[i]) continue;
    if (first_long == st.steps.size()) first_long = i;
    if (shown++ < kSlowListed)
      listed += (listed.empty() ? "" : ", ") + std::to_string(st.steps[i].number);
  }
  if (shown > kSlowListed) listed += ", ...";
  f.text("long_step_numbers", listed);
  const Step& x = st.steps[first_long];
  f.range(x.begin, x.end, "first long step " + step_label(st, x.number));
  if (x.has_slice()) f.events.push_back(x.slice);
  out->push_back(std::move(f));
}

// Step times whose CV reaches kInfoCvPct are reported (as unstable, or growing), a warning from
// kWarnCvPct: a quarter of the mean makes any average over the steps misleading.
constexpr double kInfoCvPct = 10.0, kWarnCvPct = 25.0;

// Step times that rise steadily (analysis/step_trend.h): the loop's work grows, which the
// unstable rule would read as stalls. Whether the GPU work grows with the steps tells the two
// causes apart: the inputs (a KV cache, a sequence) grow, or only the host's time does
// (something kept across steps and walked each step).
static void growing_steps(const std::vector<LoopWindow>& w, size_t from, const StepTrend& trend,
                          double cv, bool inferred, std::vector<Finding>* out) {
  const LoopWindow& first = w[from];
  const LoopWindow& last = w.back();
  const char* what = inferred ? "iteration" : "step";
  std::vector<int64_t> gpu;
  for (size_t i = from; i < w.size() && !inferred; ++i) gpu.push_back(w[i].gpu_work);
  // The GPU work grows with the steps when its own slope is half the step time's or more.
  const double gpu_slope = gpu.empty() ? 0 : trend_slope(gpu);
  const bool gpu_grows = !gpu.empty() && gpu_slope >= 0.5 * trend.slope_ns;
  Finding f;
  f.id = "steps.growing";
  f.severity = cv >= kWarnCvPct ? Severity::kWarning : Severity::kInfo;
  f.title = strf("%s time grows steadily: %s (%s) to %s (%s), %s a %s",
                 inferred ? "Iteration" : "Step", format_duration(first.dur).c_str(),
                 first.label.c_str(), format_duration(last.dur).c_str(), last.label.c_str(),
                 ("+" + format_duration(static_cast<int64_t>(trend.slope_ns))).c_str(), what);
  if (!inferred)
    f.title += gpu_grows ? "; the GPU work grows with it"
                         : "; the GPU work does not (the host's time grows)";
  f.meaning = strf(
      "Each %s takes longer than the one before, by about the same amount: the work per %s "
      "grows over the capture (generation with a KV cache or a sequence one token longer "
      "each %s; in training, something kept across %ss and processed again each time). "
      "It is not a stall: there is no typical %s, and an average over the capture depends "
      "on where the capture started and stopped.",
      what, what, what, what, what);
  if (gpu_grows)
    f.fix =
        "Expected while decoding with a growing KV cache: quote step times at a given length "
        "(or per token), and bound the growth where it hurts (a static or paged KV cache, a "
        "maximum length). In training, find the input that grows from step to step.";
  else
    f.fix =
        "The host does more each step: look for what the loop keeps across steps (a list of "
        "tensors or losses, a hook or a graph that grows, logging that walks a history) and "
        "compare the first and last step on the timeline.";
  f.number(inferred ? "iterations" : "steps", static_cast<double>(w.size() - from));
  if (from > 0) f.text("left_out", strf("the %zu warm-up first %s(s)", from, what));
  f.number("first_us", us_of(first.dur), 3, "us");
  f.number("last_us", us_of(last.dur), 3, "us");
  f.number("growth_per_step_us", trend.slope_ns / 1e3, 3, "us");
  f.number("growth_pct", 100.0 * (trend.last_fit_ns / trend.first_fit_ns - 1.0), 1, "%");
  f.number("r2", trend.r2, 3);
  f.number("cv_pct", cv, 1, "%");
  if (!inferred) {
    f.number("gpu_work_first_us", us_of(first.gpu_work), 3, "us");
    f.number("gpu_work_last_us", us_of(last.gpu_work), 3, "us");
    f.number("gpu_work_growth_per_step_us", gpu_slope / 1e3, 3, "us");
    f.text("gpu_work_grows", gpu_grows ? "yes" : "no");
  }
  f.range(last.begin, last.end,
          "last (longest) " + std::string(inferred ? "" : "step ") + last.label);
  if (last.slice >= 0) f.events.push_back(static_cast<uint32_t>(last.slice));
  out->push_back(std::move(f));
}

// Step times that vary a lot make every per-step number (and any speed-up claim) unreliable.
// A warm-up first step is reported by rule_warmup_step and left out here. Without steps, the
// iterations the launches repeat in (analysis/iterations.h) are checked the same way, their own
// warm-up first one left out by the same ratio.
void rule_unstable_steps(const RuleInput& in, std::vector<Finding>* out) {
  const StepsResult& st = in.analyses.steps;
  const IterationsResult& it = in.analyses.iterations;
  const bool inferred = st.steps.empty() && it.found;
  if (!inferred && st.kinds.found) return two_kinds_of_steps(st, out);
  std::vector<LoopWindow> w;
  size_t from = 0;
  if (!inferred) {
    from = first_steady_step(st);
    for (const Step& x : st.steps)
      w.push_back({x.own_dur(), x.begin + x.queued_ns, x.end, step_label(st, x.number), x.number,
                   x.has_slice() ? static_cast<int64_t>(x.slice) : -1, x.gpu_work_ns});
  } else {
    for (size_t i = 0; i < it.iterations.size(); ++i) {
      const Iteration& x = it.iterations[i];
      w.push_back({x.dur(), x.begin, x.end, strf("iteration #%zu (inferred)", i),
                   static_cast<int64_t>(i), -1});
    }
    if (w.size() >= 3) {
      std::vector<int64_t> rest;
      for (size_t i = 1; i < w.size(); ++i) rest.push_back(w[i].dur);
      const DurationStats r = compute_duration_stats(rest);
      if (r.median_ns > 0 && static_cast<double>(w.front().dur) / r.median_ns >= kWarmupRatio)
        from = 1;
    }
  }
  if (w.size() < from + 3) return;
  std::vector<int64_t> durs;
  for (size_t i = from; i < w.size(); ++i) durs.push_back(w[i].dur);
  const StepTrend trend = step_trend(durs);  // before the stats reorder durs
  DurationStats s = compute_duration_stats(durs);
  const double cv = s.avg_ns > 0 ? s.stddev_ns / s.avg_ns * 100 : 0;
  if (cv < kInfoCvPct) return;
  if (trend.growing) return growing_steps(w, from, trend, cv, inferred, out);
  size_t slowest = from;
  for (size_t i = from + 1; i < w.size(); ++i)
    if (w[i].dur > w[slowest].dur) slowest = i;
  const LoopWindow& slow = w[slowest];
  const char* what = inferred ? "iteration" : "step";
  const SlowWindows sw = slow_windows(w, from, s.median_ns);
  Finding f;
  f.id = "steps.unstable";
  f.severity = cv >= kWarnCvPct ? Severity::kWarning : Severity::kInfo;
  f.title = strf("%s time varies: %s to %s (CV %.1f%%)%s", inferred ? "Iteration" : "Step",
                 format_duration(s.min_ns).c_str(), format_duration(s.max_ns).c_str(), cv,
                 inferred ? "; iterations inferred from the repeating launches" : "");
  if (sw.every > 0)
    f.title += strf("; %zu slow %ss, one every %lld %ss", sw.numbers.size(), what,
                    static_cast<long long>(sw.every), what);
  f.meaning =
      "Steps of the same loop should take about the same time; large variation points "
      "to intermittent stalls (data loading, synchronization, allocator, other "
      "processes) and makes averages misleading.";
  f.fix =
      "Compare the slowest step with a typical one on the timeline; look for the stall that "
      "only the slow step has.";
  f.number(inferred ? "iterations" : "steps", static_cast<double>(s.count));
  if (from == 1) f.text("left_out", strf("the warm-up first %s", what));
  if (from > 1) f.text("left_out", strf("the %zu warm-up first %ss", from, what));
  f.number("min_us", us_of(s.min_ns), 3, "us");
  f.number("median_us", s.median_ns / 1e3, 3, "us");
  f.number("max_us", us_of(s.max_ns), 3, "us");
  f.number("cv_pct", cv, 1, "%");
  f.number(inferred ? "slowest_iteration" : "slowest_step", static_cast<double>(slow.number));
  if (sw.numbers.size() >= 2) {
    f.number(inferred ? "slow_iterations" : "slow_steps", static_cast<double>(sw.numbers.size()));
    std::string listed;
    for (size_t i = 0; i < sw.numbers.size() && i < kSlowListed; ++i)
      listed += (i ? ", " : "") + std::to_string(sw.numbers[i]);
    if (sw.numbers.size() > kSlowListed) listed += ", ...";
    f.text(inferred ? "slow_iteration_numbers" : "slow_step_numbers", listed);
  }
  if (sw.every > 0) {
    f.number("slow_every", static_cast<double>(sw.every));
    f.meaning +=
        " Here the slow ones recur at a fixed interval: work the loop does every so many "
        "steps (a checkpoint, an evaluation, logging, a garbage collection), not a random "
        "stall.";
    f.fix = "Look at what the loop does every " + std::to_string(sw.every) + " " + what +
            "s; make it asynchronous (a background checkpoint writer), less frequent, or leave "
            "those steps out when quoting step times.";
  }
  f.range(slow.begin, slow.end, "slowest " + std::string(inferred ? "" : "step ") + slow.label);
  if (slow.slice >= 0) f.events.push_back(static_cast<uint32_t>(slow.slice));
  out->push_back(std::move(f));
}

// Fewer active steps than the schedule implies (issue's reading order, item 1): the step numbers
// recorded are not consecutive, so steps inside the window were lost (several profiling cycles
// in one file, or a part of the trace cut away). A capture of one or two steps is not reported:
// profiling a single step (schedule active=1, one inference request, one step of an
// 8-rank job) is a deliberate choice, not a fault of the run, and the steps section already
// shows how many there are.
void rule_few_steps(const RuleInput& in, std::vector<Finding>* out) {
  const StepsResult& st = in.analyses.steps;
  if (st.found == 0) return;
  // Numbers missing between the first and the last step recorded (all steps, dropped or not).
  std::vector<int64_t> numbers;
  for (const Step& s : st.steps) numbers.push_back(s.number);
  std::sort(numbers.begin(), numbers.end());
  int64_t missing = 0, gap_after = -1;
  for (size_t i = 1; i < numbers.size(); ++i) {
    if (numbers[i] - numbers[i - 1] > 1) {
      missing += numbers[i] - numbers[i - 1] - 1;
      if (gap_after < 0) gap_after = numbers[i - 1];
    }
  }
  if (missing == 0) return;
  Finding f;
  f.id = "steps.few_active";
  f.severity = Severity::kInfo;
  f.title = strf("%lld step number%s missing inside the capture (after %s)",
                 static_cast<long long>(missing), missing == 1 ? " is" : "s are",
                 step_label(st, gap_after).c_str());
  f.meaning =
      "The recorded steps are not consecutive: some steps inside the window were not "
      "recorded, so the capture has fewer active steps than its step numbers imply "
      "(several profiling cycles in one file, or a lost part of the trace).";
  f.fix =
      "Record one cycle of consecutive active steps after a warm-up; with repeat > 1, write "
      "each cycle to its own file (on_trace_ready).";
  f.fix_code = "schedule=torch.profiler.schedule(wait=1, warmup=1, active=5, repeat=1)";
  f.number("steps_found", static_cast<double>(st.found));
  f.number("missing_numbers", static_cast<double>(missing));
  f.number("first_number", static_cast<double>(numbers.front()));
  f.number("last_number", static_cast<double>(numbers.back()));
  // The gap on the timeline: from the end of the step before it to the start of the next.
  for (size_t i = 1; i < st.steps.size(); ++i) {
    if (st.steps[i].number - st.steps[i - 1].number <= 1) continue;
    f.range(
        st.steps[i - 1].end, st.steps[i].begin,
        strf("steps #%lld..#%lld not recorded", static_cast<long long>(st.steps[i - 1].number + 1),
             static_cast<long long>(st.steps[i].number - 1)));
    break;
  }
  out->push_back(std::move(f));
}

}  // namespace ks
