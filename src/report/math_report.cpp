#include "report/math_report.h"

#include <algorithm>
#include <cctype>

#include "report/report_table.h"
#include "util/format.h"
#include "util/json_writer.h"
#include "util/markdown.h"
#include "util/safe_text.h"

namespace ks {

namespace {

constexpr size_t kTextRows = 25;
// JSON lists this many ops (longest GPU time first) and says how many there are: a file with
// a million distinct shapes must not give a report a million rows long.
constexpr size_t kJsonRows = 200;

const MathDtype kPeakDtypes[] = {MathDtype::kFp64, MathDtype::kFp32, MathDtype::kTf32,
                                 MathDtype::kFp16, MathDtype::kBf16, MathDtype::kFp8,
                                 MathDtype::kInt8};

std::string gpu_line(const MathEfficiency& m) {
  std::string name = m.gpu_name.empty() ? "no deviceProperties" : display_safe(m.gpu_name, 80);
  if (!m.peak) return name + ": unknown GPU (no peak: no % of peak, no MFU)";
  std::string out = name + " = " + m.peak->gpu + ", dense peak TFLOP/s:";
  for (MathDtype d : kPeakDtypes) {
    double p = peak_tflops(*m.peak, d);
    if (p > 0) out += std::string(" ") + math_dtype_name(d) + " " + format_fixed(p, 1);
  }
  return out + " (" + m.peak->source + ", " + m.peak->url + ")";
}

std::string tflop(double flops) {
  return format_fixed(flops / 1e12, 3);
}
std::string gflop(double flops) {
  return format_fixed(flops / 1e9, 3);
}
std::string pct_or_dash(double pct) {
  return pct < 0 ? "-" : format_fixed(pct, 1) + "%";
}

// The steps with their FLOPs and MFU: the JSON's `steps` and the text and Markdown tables.
ReportSection steps_table(const MathEfficiency& m) {
  ReportSection s(nullptr);
  Table& t = s.table("steps");
  t.columns = {Column("step").text("step", Show::kPlain, 8).md("step", Show::kPlain),
               Column("dur_us").text("time", Show::kDuration, 12).md("time", Show::kDuration),
               Column("flops").json(0),
               Column(nullptr).text("TFLOP", Show::kPlain, 12).md("TFLOP", Show::kPlain).digits(3),
               Column("dtype").text("dtype", Show::kPlain, 6).md("dtype", Show::kPlain).md_left(),
               Column("peak_tflops").json(1),
               Column("mfu_pct").json(3).text("MFU", Show::kPct, 8).md("MFU", Show::kPct),
               Column("kernel_us"),
               Column("math_kernel_us")
                   .text("math time", Show::kDuration, 12)
                   .md("math time", Show::kDuration),
               Column("fast_math_kernel_us"),
               Column("fast_math_share_pct")
                   .json(3)
                   .text(">=50% peak", Show::kPct, 12)
                   .md(">=50% peak share", Show::kPct)};
  t.text_indent = "";
  for (const MathStepRow& r : m.steps)
    t.row() = {Cell::integer(r.number),
               Cell::ns(r.dur_ns),
               Cell::number(r.flops),
               Cell::number(r.flops / 1e12),
               Cell::str(math_dtype_name(r.dominant)),
               Cell::number(r.peak_tflops),
               r.mfu_pct < 0 ? Cell::null() : Cell::number(r.mfu_pct),
               Cell::ns(r.kernel_ns),
               Cell::ns(r.math_ns),
               Cell::ns(r.fast_math_ns),
               r.fast_math_share_pct < 0 ? Cell::null() : Cell::number(r.fast_math_share_pct)};
  return s;
}

bool contains_ci(std::string_view s, std::string_view what) {
  return std::search(s.begin(), s.end(), what.begin(), what.end(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) ==
                  std::tolower(static_cast<unsigned char>(b));
         }) != s.end();
}

}  // namespace

bool uses_winograd_or_fft(const MathOpRow& r) {
  for (const auto& k : r.top_kernels)
    if (contains_ci(k.first, "winograd") || contains_ci(k.first, "fft")) return true;
  return false;
}

std::string math_text(const MathEfficiency& m, const std::string& trace_name) {
  std::string o;
  append_line(&o, "Math efficiency: %s", display_safe(trace_name, 200).c_str());
  append_line(&o, "GPU: %s", gpu_line(m).c_str());
  if (!m.has_shapes) {
    append_line(&o, "%s",
                m.record_shapes_off
                    ? math_no_shapes_hint(m)
                    : "shapes were recorded, but no GEMM, convolution or attention op "
                      "carries them: nothing to count");
    return o;
  }
  append_line(&o, "Counted: %llu ops, %s TFLOP; their kernels %s of %s kernel time",
              static_cast<unsigned long long>(m.counted_ops), tflop(m.total_flops).c_str(),
              format_duration(m.total_math_ns).c_str(), format_duration(m.total_kernel_ns).c_str());
  if (!m.steps.empty()) {
    o += "\nSteps (MFU = model FLOPs / (step time x peak of the step's main dtype))\n";
    if (!m.uncounted.empty())
      o += "(a lower bound: ops whose FLOPs are unknown are left out, see \"Not counted\")\n";
    append_section_text(&o, steps_table(m));
  }
  o += "\nOps by GPU time (FLOPs from shapes: src/analysis/op_flops.h)\n";
  append_line(&o, "%-40s %-28s %5s %6s %10s %10s %8s %8s %7s", "op", "shapes", "dtype", "count",
              "GFLOP each", "GPU time", "TFLOP/s", "peak", "%peak");
  size_t shown = 0;
  for (const MathOpRow& r : m.ops) {
    if (shown++ == kTextRows) break;
    append_line(&o, "%-40s %-28s %5s %6llu %10s %10s %8s %8s %7s", display_safe(r.name, 40).c_str(),
                display_safe(r.shapes, 28).c_str(), math_dtype_name(r.dtype),
                static_cast<unsigned long long>(r.count), gflop(r.flops_each).c_str(),
                format_duration(r.gpu_ns).c_str(),
                r.gpu_ns > 0 ? format_fixed(r.achieved_tflops, 1).c_str() : "-",
                r.peak_tflops > 0 ? format_fixed(r.peak_tflops, 1).c_str() : "-",
                pct_or_dash(r.pct_of_peak).c_str());
    if (!r.top_kernels.empty())
      append_line(&o, "    kernel: %s", display_safe(r.top_kernels.front().first, 110).c_str());
    if (uses_winograd_or_fft(r))
      append_line(&o,
                  "    Winograd/FFT kernels: fewer multiplies than the formula counts, so "
                  "%% of peak can pass 100");
  }
  if (m.ops.size() > kTextRows)
    append_line(&o, "... %zu more (--format json lists all)", m.ops.size() - kTextRows);
  if (!m.uncounted.empty()) {
    o += "\nNot counted (FLOPs unknown)\n";
    for (const MathUncounted& u : m.uncounted)
      append_line(&o, "  %s x%llu: %s", display_safe(u.name, 60).c_str(),
                  static_cast<unsigned long long>(u.count), u.reason.c_str());
  }
  return o;
}

std::string math_markdown(const MathEfficiency& m, const std::string& trace_name) {
  std::string o = "## Math efficiency: " + markdown_text(trace_name, 200) + "\n\n";
  o += "GPU: " + markdown_text(gpu_line(m)) + "\n\n";
  if (!m.has_shapes) {
    o += std::string(m.record_shapes_off ? math_no_shapes_hint(m)
                                         : "no GEMM, convolution or attention op carries shapes") +
         "\n";
    return o;
  }
  append_section_markdown(&o, steps_table(m));  // nothing without steps
  o += "| op | shapes | dtype | count | GFLOP each | GPU time | TFLOP/s | peak | % of peak | "
       "kernel |\n|---|---|---|---:|---:|---:|---:|---:|---:|---|\n";
  size_t shown = 0;
  for (const MathOpRow& r : m.ops) {
    if (shown++ == kTextRows) break;
    o += "| " + markdown_code_cell(r.name) + " | " + markdown_cell(r.shapes, 60) + " | " +
         math_dtype_name(r.dtype) + " | " + std::to_string(r.count) + " | " + gflop(r.flops_each) +
         " | " + format_duration(r.gpu_ns) + " | " +
         (r.gpu_ns > 0 ? format_fixed(r.achieved_tflops, 1) : "-") + " | " +
         (r.peak_tflops > 0 ? format_fixed(r.peak_tflops, 1) : "-") + " | " +
         pct_or_dash(r.pct_of_peak) + " | " +
         (r.top_kernels.empty() ? std::string("-")
                                : markdown_code_cell(r.top_kernels.front().first, 80)) +
         " |\n";
  }
  if (m.ops.size() > kTextRows)
    o += "\n" + std::to_string(m.ops.size() - kTextRows) + " more (`--format json` lists them)\n";
  if (!m.uncounted.empty()) {
    o += "\nNot counted (FLOPs unknown):\n\n";
    for (const MathUncounted& u : m.uncounted)
      o += "- " + markdown_code_cell(u.name) + " x" + std::to_string(u.count) + ": " +
           markdown_text(u.reason) + "\n";
  }
  return o;
}

std::string math_json(const MathEfficiency& m, const std::string& trace_name) {
  JsonWriter w;
  w.begin_object();
  w.field("schema", "kinetoscope.math/1");
  w.field("trace", trace_name);
  w.field("shapes_recorded", m.has_shapes);
  w.key("hint");
  if (m.has_shapes)
    w.null();
  else
    w.value(m.record_shapes_off ? math_no_shapes_hint(m)
                                : "no GEMM, convolution or attention op carries shapes");
  w.key("gpu").begin_object();
  w.field("device_name", m.gpu_name);
  w.field("known", m.peak != nullptr);
  if (m.peak) {
    w.field("peak_row", m.peak->gpu);
    w.field("source", m.peak->source);
    w.field("url", m.peak->url);
    w.key("peak_tflops").begin_object();
    for (MathDtype d : kPeakDtypes) {
      double p = peak_tflops(*m.peak, d);
      if (p > 0) w.field(math_dtype_name(d), p, 1);
    }
    w.end_object();
  }
  w.end_object();
  w.key("totals").begin_object();
  w.field("counted_ops", m.counted_ops);
  w.field("flops", m.total_flops, 0);
  w.field_micros("math_kernel_us", m.total_math_ns);
  w.field_micros("kernel_us", m.total_kernel_ns);
  w.end_object();
  write_section_json(w, steps_table(m));
  w.field("ops_total", static_cast<uint64_t>(m.ops.size()));
  w.key("ops").begin_array();
  size_t listed = 0;
  for (const MathOpRow& r : m.ops) {
    if (listed++ == kJsonRows) break;
    w.begin_object();
    w.field("name", r.name);
    w.field("shapes", r.shapes);
    w.field("family", math_family_name(r.family));
    w.field("dtype", math_dtype_name(r.dtype));
    w.field("formula", r.formula);
    w.field("count", r.count);
    w.field("flops_each", r.flops_each, 0);
    w.field("flops", r.flops, 0);
    w.field_micros("gpu_us", r.gpu_ns);
    w.field("kernels", r.kernels);
    w.key("achieved_tflops");
    if (r.gpu_ns > 0)
      w.value(r.achieved_tflops, 3);
    else
      w.null();
    w.key("peak_tflops");
    if (r.peak_tflops > 0)
      w.value(r.peak_tflops, 1);
    else
      w.null();
    w.key("pct_of_peak");
    if (r.pct_of_peak >= 0)
      w.value(r.pct_of_peak, 3);
    else
      w.null();
    w.field("winograd_or_fft", uses_winograd_or_fft(r));
    w.key("top_kernels").begin_array();
    for (const auto& [name, ns] : r.top_kernels) {
      w.begin_object();
      w.field("name", name);
      w.field_micros("us", ns);
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.key("not_counted").begin_array();
  listed = 0;
  for (const MathUncounted& u : m.uncounted) {
    if (listed++ == kJsonRows) break;
    w.begin_object();
    w.field("name", u.name);
    w.field("count", u.count);
    w.field("reason", u.reason);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  std::string out = w.take();
  out += "\n";
  return out;
}

}  // namespace ks
