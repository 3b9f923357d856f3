#include "cli/math_command.h"

#include <cstdio>
#include <memory>

#include "analysis/launch_join.h"
#include "analysis/math_efficiency.h"
#include "analysis/steps.h"
#include "cli/loaded_trace.h"
#include "cli/options.h"
#include "import/file_reader.h"
#include "report/math_report.h"

namespace ks::cli {

namespace {

const char kMathUsage[] =
    "Usage: kinetoscope math TRACE [--format text|md|json] [--drop-last-step]\n"
    "                       [--step-range NAME] [-o FILE]\n"
    "\n"
    "How well the GPU does the model's math, from the input shapes a trace recorded with\n"
    "torch.profiler.profile(record_shapes=True): per op (aten::mm, addmm, bmm, baddbmm, linear,\n"
    "matmul, convolutions, scaled_dot_product_attention and its flash/efficient/cuDNN backends,\n"
    "grouped by shapes and dtype) the FLOPs from the shapes (formulas in\n"
    "src/analysis/op_flops.h), the kernels it launched, achieved TFLOP/s, the GPU's dense peak\n"
    "for the dtype (src/analysis/gpu_peaks.cpp, from the vendors' datasheets) and % of peak; per\n"
    "step the model FLOPs, MFU and the share of kernel time in math at >= 50% of peak.\n"
    "\n"
    "Options:\n"
    "  --format text|md|json  output format (default text); json is kinetoscope.math/1\n"
    "                         (docs/report-schema.md, \"Math efficiency\")\n"
    "  --drop-last-step       leave out the last ProfilerStep\n"
    "  --step-range NAME      steps from the NVTX / user annotation ranges named NAME\n"
    "  -o, --output FILE      write to FILE instead of standard output\n"
    "\n"
    "Exit status: 0 written; 1 the input is not a readable trace; 2 usage error.\n";

int usage(const std::string& msg) {
  return usage_error("math", msg);
}

}  // namespace

int math_command(const std::vector<std::string>& args) {
  std::string format = "text", output, path, step_range;
  bool drop_last = false;
  ArgWalker w(args);
  while (w.next()) {
    const std::string& a = w.arg();
    if (w.flag({"-h", "--help"})) {
      std::fputs(kMathUsage, stdout);
      return 0;
    } else if (w.value({"--format", "-f"}, &format, "--format=")) {
      if (w.missing()) return usage(a + " needs a value");
    } else if (w.flag({"--drop-last-step"})) {
      drop_last = true;
    } else if (w.value({"--step-range"}, &step_range)) {
      if (w.missing() || step_range.empty()) return usage("--step-range needs a name");
    } else if (w.value({"-o", "--output"}, &output)) {
      if (w.missing()) return usage(a + " needs a file name");
    } else if (w.unknown_option()) {
      return usage("unknown option '" + a + "'");
    } else if (path.empty()) {
      path = a;
    } else {
      return usage("math takes one trace file");
    }
  }
  if (format == "markdown") format = "md";
  if (format != "text" && format != "md" && format != "json")
    return usage("unknown format '" + format + "' (text, md or json)");
  if (path.empty()) return usage("no trace file given");

  LoadedTrace loaded;
  if (!load_trace_or_say(path, &loaded)) return 1;
  const Trace& t = loaded.trace();
  LaunchJoin join = build_launch_join(t);
  StepsResult steps = find_steps(t, join, drop_last, step_range);
  MathEfficiency m = compute_math_efficiency(t, join, steps);
  const std::string name = base_name(path);
  std::string out = format == "json" ? math_json(m, name)
                    : format == "md" ? math_markdown(m, name)
                                     : math_text(m, name);
  if (!write_output(out, output)) return 1;
  return 0;
}

}  // namespace ks::cli
