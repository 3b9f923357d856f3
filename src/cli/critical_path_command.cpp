#include "cli/critical_path_command.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "analysis/critical_path.h"
#include "analysis/launch_join.h"
#include "cli/loaded_trace.h"
#include "cli/options.h"
#include "report/critical_path_report.h"

namespace ks::cli {
namespace {

const char kUsage[] =
    "Usage: kinetoscope critical-path TRACE [options]\n"
    "\n"
    "The critical path of one step, as Holistic Trace Analysis' critical_path_analysis builds\n"
    "it: a graph of CPU op nesting, launches, kernels on their streams and CUDA syncs; its\n"
    "longest path, split by what bounds it (cpu_bound, gpu_compute_bound,\n"
    "gpu_kernel_launch_overhead, gpu_kernel_kernel_overhead), and the events on it in order.\n"
    "If an event on the path gets faster, the step does; elsewhere it may not.\n"
    "\n"
    "Options:\n"
    "  --annotation NAME   the window is an event whose name contains NAME (as HTA matches it;\n"
    "                      default: the report's window: the first ProfilerStep (the second\n"
    "                      when the first is a warm-up step), else the first NVTX step\n"
    "                      range, else the first iteration inferred from the\n"
    "                      repeating launches, else the whole trace)\n"
    "  --instance N        the N-th such event in time order, from 0 (default 0)\n"
    "  --whole-trace       the whole trace as the window\n"
    "  --no-zero-weight-launch-edges  leave out HTA's zero-weight launch -> kernel edges\n"
    "                      (CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE=0)\n"
    "  --format text|md|json  output format (default text); json: docs/report-schema.md\n"
    "  -o, --output FILE   write to FILE instead of standard output\n"
    "\n"
    "Exit status: 0 written; 1 the trace could not be read, or the window was not found;\n"
    "2 usage error.\n";

int usage(const std::string& msg) {
  return usage_error("critical-path", msg);
}

}  // namespace

int critical_path_command(const std::vector<std::string>& args) {
  std::string file, format = "text", output;
  CriticalPathOptions options;
  ArgWalker w(args);
  while (w.next()) {
    const std::string& a = w.arg();
    std::string v;
    if (w.flag({"-h", "--help"})) {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (w.value({"--annotation"}, &options.annotation)) {
      if (w.missing()) return usage(a + " needs a name");
      if (options.annotation.empty()) options.whole_trace = true;  // HTA's "" is the whole trace
    } else if (w.value({"--instance"}, &v)) {
      if (w.missing()) return usage(a + " needs a number");
      char* end = nullptr;
      errno = 0;
      long long n = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || n < 0) return usage("--instance takes a number >= 0");
      // strtoll clamps an overflow to LLONG_MAX: that is not the instance asked for.
      if (errno == ERANGE) return usage("--instance out of range: " + v);
      options.instance = n;
    } else if (w.flag({"--whole-trace"})) {
      options.whole_trace = true;
    } else if (w.flag({"--no-zero-weight-launch-edges"})) {
      options.zero_weight_launch_edges = false;
    } else if (w.value({"--format"}, &format)) {
      if (w.missing()) return usage(a + " needs text, md or json");
      if (format != "text" && format != "md" && format != "json")
        return usage("unknown format '" + format + "' (text, md or json)");
    } else if (w.value({"-o", "--output"}, &output)) {
      if (w.missing()) return usage(a + " needs a file");
    } else if (w.unknown_option()) {
      return usage("unknown option '" + a + "'");
    } else if (!file.empty()) {
      return usage("one trace at a time");
    } else {
      file = a;
    }
  }
  if (file.empty()) return usage("no trace file given");
  if (options.instance != 0 && options.annotation.empty())
    return usage("--instance needs --annotation");
  LoadedTrace loaded;
  if (!load_trace_or_say(file, &loaded)) return 1;
  const Trace& t = loaded.trace();
  const LaunchJoin join = build_launch_join(t);
  // With no window asked for, the report's (analysis/critical_path.h, set_default_window), so
  // the command shows the whole path of what the report summarized.
  if (options.annotation.empty() && !options.whole_trace) {
    const StepsResult steps = find_steps(t, join, false);
    const IterationsResult iterations =
        steps.found == 0 ? infer_iterations(t, join) : IterationsResult();
    set_default_window(steps, iterations, &options);
  }
  const CriticalPathResult r = critical_path(t, join, options);
  const std::string text = format == "json" ? critical_path_json(t, r)
                           : format == "md" ? critical_path_markdown(t, r)
                                            : critical_path_text(t, r);
  if (!write_output(text, output)) return 1;
  if (!r.ok) {
    std::fprintf(stderr, "kinetoscope critical-path: %s\n", r.error.c_str());
    return 1;
  }
  return 0;
}

}  // namespace ks::cli
