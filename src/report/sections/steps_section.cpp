// Steps: where they came from, their duration statistics, and one row per step with its GPU
// idle share (the `gpu` section's per-step idle). The GPU busy/idle summary is gpu_section.
#include <algorithm>
#include <string>

#include "analysis/xla_program.h"
#include "report/sections/sections.h"
#include "util/format.h"
#include "util/markdown.h"
#include "util/safe_text.h"

namespace ks {

namespace {

// The text and Markdown sentences above the table (none in JSON).
void add_steps_prose(ReportSection* s, const StepsResult& r, const std::string& how) {
  if (r.stats.count == 0) {
    s->line(how.empty() ? "Steps: none (no ProfilerStep#N markers); the trace is one window"
                        : "Steps: none (" + display_safe(how, 400) + "); the trace is one window");
    s->paragraph(how.empty() ? "## Steps\n\nNo ProfilerStep markers: the trace is one window.\n\n"
                             : "## Steps\n\nNo steps (" + markdown_cell(how, 400) +
                                   "): the trace is one window.\n\n");
    return;
  }
  s->linef("Steps (%llu%s): min %s, median %s, max %s, spread %.1f%%, CV %.1f%%",
           static_cast<unsigned long long>(r.stats.count), r.dropped_last ? ", last dropped" : "",
           format_duration(r.stats.min_ns).c_str(),
           format_duration(static_cast<int64_t>(r.stats.median_ns)).c_str(),
           format_duration(r.stats.max_ns).c_str(), r.spread_pct, r.cv_pct);
  if (!how.empty()) s->line("  steps " + display_safe(how, 400));
  s->paragraph("## Steps\n\n" + (how.empty() ? "" : "Steps " + markdown_cell(how, 400) + ".\n\n") +
               "min " + format_duration(r.stats.min_ns) + ", median " +
               format_duration(static_cast<int64_t>(r.stats.median_ns)) + ", max " +
               format_duration(r.stats.max_ns) + ", spread " + format_fixed(r.spread_pct, 1) +
               "%, CV " + format_fixed(r.cv_pct, 1) + "%" +
               (r.dropped_last ? " (last step dropped)" : "") + "\n\n");
}

// Without steps: the iterations the repeating launch sequence shows (src/analysis/iterations.h),
// as a JSON object, a sentence and a table of their times. They give step times and their
// stability to a capture without markers; the report's window stays the whole trace.
void add_inferred_iterations(ReportSection* s, const Trace& t, const IterationsResult& it) {
  s->begin_object("inferred_iterations");
  s->field("found", Cell::flag(it.found));
  if (it.found) {
    s->field("from", Cell::str(it.from_launches ? "launch_order" : "stream_order"));
    s->field("ops_per_iteration", Cell::count(it.period_ops));
    s->field("ops", Cell::count(it.total_ops));
    s->field("ops_before_first", Cell::count(it.first_op));
    s->field("match_pct", Cell::number(it.match_pct));
    s->field("count", Cell::count(it.stats.count));
    s->field("min_us", Cell::ns(it.stats.min_ns));
    s->field("median_us", Cell::ns(it.stats.median_ns));
    s->field("mean_us", Cell::ns(it.stats.avg_ns));
    s->field("max_us", Cell::ns(it.stats.max_ns));
    s->field("stddev_us", Cell::ns(it.stats.stddev_ns));
    s->field("spread_pct", Cell::number(it.spread_pct));
    s->field("cv_pct", Cell::number(it.cv_pct));
    const std::string stats = "min " + format_duration(it.stats.min_ns) + ", median " +
                              format_duration(static_cast<int64_t>(it.stats.median_ns)) + ", max " +
                              format_duration(it.stats.max_ns) + ", spread " +
                              format_fixed(it.spread_pct, 1) + "%, CV " +
                              format_fixed(it.cv_pct, 1) + "%";
    const std::string what = std::to_string(it.stats.count) + " iterations of " +
                             std::to_string(it.period_ops) + " GPU ops (" +
                             format_fixed(it.match_pct, 1) + "% of ops recur one iteration later)";
    s->line("  the GPU work repeats: " + what + ": " + stats);
    s->line("  (inferred from the order of the launches, not used as steps)");
    s->paragraph("The GPU work repeats: " + what + ": " + stats +
                 ". Inferred from the order of the launches, not used as steps.\n\n");
    Table& tb = s->table("rows");
    tb.columns = {
        Column("number").text("iteration", Show::kPlain, 11).md("Iteration", Show::kPlain),
        Column("start_us").text("start (ms)", Show::kMs, 12).md("Start (ms)", Show::kMs).digits(3),
        Column("end_us"),
        Column("dur_us").text("dur (ms)", Show::kMs, 12).md("Duration (ms)", Show::kMs).digits(3),
        Column("host_start_us"),
        Column("host_end_us")};
    const int64_t t0 = t.facts.origin_ns();
    for (size_t i = 0; i < it.iterations.size(); ++i) {
      const Iteration& x = it.iterations[i];
      if (!tb.room_for_row(x.dur())) continue;
      tb.row() = {Cell::count(i),    Cell::ns(x.begin - t0),      Cell::ns(x.end - t0),
                  Cell::ns(x.dur()), Cell::ns(x.host_begin - t0), Cell::ns(x.host_end - t0)};
    }
    // A long capture repeats thousands of times: the sentence's statistics say it in a terminal,
    // the JSON (and the page) keep the first kMaxTableRows rows.
    constexpr size_t kMaxShownIterations = 20;
    if (it.iterations.size() > kMaxShownIterations) tb.json_only();
  }
  s->end_object();
}

}  // namespace

ReportSection steps_section(const Trace& t, const StepsResult& r, const IterationsResult& inferred,
                            const GpuIdleResult& idle) {
  const int64_t t0 = t.facts.origin_ns();
  ReportSection s("steps");
  s.field("found", Cell::count(r.found));
  // Only where steps are not ProfilerStep's (or an nsys export has none): PyTorch reports keep
  // their bytes (docs/report-schema.md, `steps`).
  std::string how = steps_note(r, t.facts.format == TraceFormat::kNsysSqlite);
  // No steps in a JAX/XLA program's export: JAX's advice, not torch's (xla_program.h).
  if (r.source == StepSource::kNone && r.requested_range.empty() &&
      t.facts.format == TraceFormat::kNsysSqlite && is_xla_program(t))
    how = std::string("no NVTX range named like a step: ") + kJaxStepAdvice;
  if (!how.empty()) {
    s.field("source", Cell::str(step_source_name(r.source)));
    s.field("range", Cell::str(r.range_name));
    s.field("note", Cell::str(s.own(how)));
    // The --step-range NAME asked for, whatever the steps came from (ranges, marks, none): the
    // page's box keeps showing it after Apply.
    if (!r.requested_range.empty()) s.field("requested", Cell::str(r.requested_range));
  }
  s.field("dropped_last", Cell::flag(r.dropped_last));
  s.field("count", Cell::count(r.stats.count));
  s.field("total_us", Cell::ns(r.stats.total_ns));
  s.field("min_us", Cell::ns(r.stats.min_ns));
  s.field("median_us", Cell::ns(r.stats.median_ns));
  s.field("mean_us", Cell::ns(r.stats.avg_ns));
  s.field("max_us", Cell::ns(r.stats.max_ns));
  s.field("stddev_us", Cell::ns(r.stats.stddev_ns));
  s.field("spread_pct", Cell::number(r.spread_pct));
  s.field("cv_pct", Cell::number(r.cv_pct));
  add_steps_prose(&s, r, how);
  if (r.first_cut) {
    s.field("first_step_left_out", Cell::str("begun_before_capture"));
    s.field("first_step_left_out_us", Cell::ns(r.first_cut_dur));
    s.field("first_step_left_out_start_us", Cell::ns(r.first_cut_begin - t0));
    const std::string note =
        "the first step (" + format_duration(r.first_cut_dur) + ", begun at " +
        format_duration(r.first_cut_begin - t0) +
        ") is left out: it began before the capture started (the capture started mid-run, "
        "inside it), so its GPU work before the start was never traced";
    s.line("  " + note);
    s.paragraph("Note: " + note + ".\n\n");
  }
  if (r.last_cut != StepsResult::LastStepCut::kNone) {
    const bool open = r.last_cut == StepsResult::LastStepCut::kOpen;
    s.field("last_step_left_out", Cell::str(open ? "open_at_capture_end" : "short"));
    s.field("last_step_left_out_us", Cell::ns(r.last_cut_dur));
    s.field("last_step_left_out_start_us", Cell::ns(r.last_host_begin - t0));
    const std::string note =
        "the last step (" + format_duration(r.last_cut_dur) + ", begun at " +
        format_duration(r.last_host_begin - t0) + ") is left out: " +
        (open ? "its range was still open when the capture stopped, so its length is the "
                "capture's cut"
              : "under a quarter of the others' median, it was cut short by the profiler's stop "
                "(the last prof.step() opens a step the capture's end closes)");
    s.line("  " + note);
    s.paragraph("Note: " + note + ".\n\n");
  }
  // Nested or overlapping markers are left out (real steps follow one another); said like the
  // other events a report leaves out, so a hand-written or merged file's missing steps show.
  if (r.overlapping_left_out > 0) {
    s.field("overlapping_left_out", Cell::count(r.overlapping_left_out));
    s.field("first_overlapping_start_us", Cell::ns(r.first_overlapping_begin - t0));
    const std::string what = r.source == StepSource::kUserRange ? "ranges" : "step markers";
    const std::string note =
        std::to_string(r.overlapping_left_out) + " " + what +
        " nested in or overlapping an earlier step are left out (steps follow one another; "
        "the first, \"" +
        display_safe(r.first_overlapping_name, 80) + "\" at " +
        format_duration(r.first_overlapping_begin - t0) + ", begins inside the step before it)";
    s.line("  " + note);
    s.paragraph("Note: " + markdown_cell(note, 400) + ".\n\n");
  }
  // A GPU-bound loop runs ahead of the GPU: the capture's first step then starts with the GPU
  // still busy with the warm-up steps' work (Step.queued_ns). Said when it is a visible share.
  if (!r.steps.empty() && r.steps.front().queued_ns * 10 >= r.steps.front().dur() &&
      r.steps.front().queued_ns > 0) {
    const Step& first = r.steps.front();
    s.field("first_step_queued_us", Cell::ns(first.queued_ns));
    const std::string note =
        "in the first step the GPU spends " + format_duration(first.queued_ns) +
        " on work queued before it (the loop ran ahead of the GPU): its own time is " +
        format_duration(first.own_dur());
    s.line("  " + note);
    s.paragraph("Note: " + note + ".\n\n");
  }

  Table& tb = s.table();
  tb.columns = {
      Column("name").text("step", Show::kText, 22).md("Step", Show::kText).left().max_len(0, 120),
      Column("number"),
      Column("start_us").text("start (ms)", Show::kMs, 12).md("Start (ms)", Show::kMs).digits(3),
      Column("end_us"),
      Column("dur_us").text("dur (ms)", Show::kMs, 12).md("Duration (ms)", Show::kMs).digits(3),
      Column("host_start_us"),
      Column("host_end_us"),
      Column("gpu_idle_pct").text("GPU idle", Show::kPct, 10).md("GPU idle", Show::kPct)};
  tb.text_rows = tb.md_rows = kMaxStepRowsShown;
  tb.text_more_note = true;
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const Step& st = r.steps[i];
    if (!tb.room_for_row(st.dur())) continue;  // the statistics above cover every step
    tb.row() = {
        Cell::str(step_name(t, st)),
        Cell::integer(st.number),
        Cell::ns(st.begin - t0),
        Cell::ns(st.end - t0),
        Cell::ns(st.dur()),
        Cell::ns(st.host_begin - t0),
        Cell::ns(st.host_end - t0),
        i < idle.idle_pct_per_step.size() ? Cell::share(idle.idle_pct_per_step[i]) : Cell::null()};
  }
  if (r.found == 0 && idle.has_gpu_ops) add_inferred_iterations(&s, t, inferred);
  return s;
}

ReportSection gpu_section(const GpuIdleResult& g, const GraphCaptures& captures) {
  ReportSection s("gpu");
  s.field("has_gpu_ops", Cell::flag(g.has_gpu_ops));
  s.field("window", Cell::str(g.window_is_steps ? "steps" : (g.has_gpu_ops ? "gpu_span" : "none")));
  s.field("window_us", Cell::ns(g.window_ns));
  s.field("busy_us", Cell::ns(g.busy_ns));
  s.field("idle_pct", Cell::share(g.idle_pct));
  // Several GPUs in one process: each device's own busy time and idle share over the same
  // window (busy_us above is any device busy, which hides devices that take turns). The text
  // says it in a line below; JSON readers get the numbers.
  if (!g.devices.empty()) {
    Table& tb = s.table("devices");
    tb.columns = {Column("device"), Column("busy_us"), Column("idle_pct")};
    // Bounded as every table (a generated file may name 80 k devices): the first rows.
    for (const GpuIdleResult::DeviceIdle& d : g.devices)
      if (tb.room_for_row(d.busy_ns))
        tb.row() = {Cell::integer(d.device), Cell::ns(d.busy_ns), Cell::share(d.idle_pct)};
    tb.json_only();
  }
  // Idle time while CUDA graphs were captured (their launches recorded, not run): only where a
  // capture was traced.
  if (captures.any()) s.field("idle_in_graph_capture_us", Cell::ns(captures.idle_in_capture_ns));
  if (g.has_gpu_ops) {
    std::string capture;
    const int64_t idle = g.window_ns - g.busy_ns;
    if (captures.any() && idle > 0 && captures.idle_in_capture_ns > 0)
      capture = "; " +
                format_pct(100.0 * static_cast<double>(captures.idle_in_capture_ns) /
                           static_cast<double>(idle)) +
                " of the idle time while CUDA graphs were captured";
    s.linef("GPU: busy %s of %s (%s idle, window: %s%s)", format_duration(g.busy_ns).c_str(),
            format_duration(g.window_ns).c_str(), format_pct(g.idle_pct).c_str(),
            g.window_is_steps ? "steps" : "GPU span", capture.c_str());
    // Several GPUs in one process: the union above hides devices that take turns.
    if (!g.devices.empty()) {
      std::string each;
      if (g.devices.size() <= 8) {
        for (const GpuIdleResult::DeviceIdle& d : g.devices)
          each += (each.empty() ? "GPU " : ", GPU ") + std::to_string(d.device) + " " +
                  format_pct(d.idle_pct);
      } else {  // bounded: the least and the most idle
        auto by_idle = [](const GpuIdleResult::DeviceIdle& a, const GpuIdleResult::DeviceIdle& b) {
          return a.idle_pct < b.idle_pct;
        };
        const auto lo = std::min_element(g.devices.begin(), g.devices.end(), by_idle);
        const auto hi = std::max_element(g.devices.begin(), g.devices.end(), by_idle);
        each = format_pct(lo->idle_pct) + " (GPU " + std::to_string(lo->device) + ") to " +
               format_pct(hi->idle_pct) + " (GPU " + std::to_string(hi->device) + ")";
      }
      s.linef("  idle per device (same window; above: any of the %zu busy): %s", g.devices.size(),
              each.c_str());
    }
  }
  s.line("");
  return s;
}

}  // namespace ks
