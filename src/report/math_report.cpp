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

namespace {

// The trace, its GPU and peak, what was counted (JSON: schema .. totals); without shapes, the
// hint that says how to get them, and nothing else in text and Markdown.
ReportSection summary_section(const MathEfficiency& m, const std::string& trace_name) {
  ReportSection s(nullptr);
  s.field("schema", Cell::str("kinetoscope.math/1"));
  s.field("trace", Cell::str(trace_name));
  s.field("shapes_recorded", Cell::flag(m.has_shapes));
  const char* hint = m.record_shapes_off ? math_no_shapes_hint(m)
                                         : "no GEMM, convolution or attention op carries shapes";
  s.field("hint", m.has_shapes ? Cell::null() : Cell::str(hint));
  s.begin_object("gpu");
  s.field("device_name", Cell::str(m.gpu_name));
  s.field("known", Cell::flag(m.peak != nullptr));
  if (m.peak) {
    s.field("peak_row", Cell::str(m.peak->gpu));
    s.field("source", Cell::str(m.peak->source));
    s.field("url", Cell::str(m.peak->url));
    Table& peaks = s.nested_table();
    std::vector<Cell>& row = peaks.row();
    for (MathDtype d : kPeakDtypes) {
      double p = peak_tflops(*m.peak, d);
      if (p <= 0) continue;
      peaks.columns.push_back(Column(math_dtype_name(d)).json(1));
      row.push_back(Cell::number(p));
    }
    s.field("peak_tflops", Cell::object(&peaks));
  }
  s.end_object();
  s.begin_object("totals");
  s.field("counted_ops", Cell::count(m.counted_ops));
  s.field("flops", Cell::number(m.total_flops), 0);
  s.field("math_kernel_us", Cell::ns(m.total_math_ns));
  s.field("kernel_us", Cell::ns(m.total_kernel_ns));
  s.end_object();

  s.line("Math efficiency: " + display_safe(trace_name, 200));
  s.line("GPU: " + gpu_line(m));
  s.paragraph("## Math efficiency: " + markdown_text(trace_name, 200) +
              "\n\nGPU: " + markdown_text(gpu_line(m)) + "\n\n");
  if (!m.has_shapes) {
    s.line(m.record_shapes_off ? math_no_shapes_hint(m)
                               : "shapes were recorded, but no GEMM, convolution or attention op "
                                 "carries them: nothing to count");
    s.paragraph(std::string(hint) + "\n");
    return s;
  }
  s.line("Counted: " + std::to_string(m.counted_ops) + " ops, " + tflop(m.total_flops) +
         " TFLOP; their kernels " + format_duration(m.total_math_ns) + " of " +
         format_duration(m.total_kernel_ns) + " kernel time");
  if (!m.steps.empty()) {
    s.line("\nSteps (MFU = model FLOPs / (step time x peak of the step's main dtype))");
    if (!m.uncounted.empty())
      s.line("(a lower bound: ops whose FLOPs are unknown are left out, see \"Not counted\")");
  }
  return s;
}

// The ops by GPU time, with their FLOPs, achieved TFLOP/s and % of peak: text and Markdown the
// first kTextRows (text with each op's longest kernel under it), JSON the first kJsonRows.
ReportSection ops_section(const MathEfficiency& m) {
  ReportSection s(nullptr);
  s.field("ops_total", Cell::count(m.ops.size()));
  s.line("\nOps by GPU time (FLOPs from shapes: src/analysis/op_flops.h)");
  Table& t = s.table("ops");
  t.columns = {
      Column("name").text("op", Show::kName, 40).md("op", Show::kName).left().max_len(40, 0),
      Column("shapes")
          .text("shapes", Show::kText, 28)
          .md("shapes", Show::kText)
          .left()
          .max_len(28, 60),
      Column("family"),
      Column("dtype").text("dtype", Show::kPlain, 5).md("dtype", Show::kPlain).md_left(),
      Column("formula"),
      Column("count").text("count", Show::kPlain, 6).md("count", Show::kPlain),
      Column("flops_each").json(0),
      Column(nullptr).text("GFLOP each", Show::kPlain, 10).md("GFLOP each", Show::kPlain).digits(3),
      Column("flops").json(0),
      Column("gpu_us").text("GPU time", Show::kDuration, 10).md("GPU time", Show::kDuration),
      Column("kernels"),
      Column("achieved_tflops")
          .json(3)
          .text("TFLOP/s", Show::kPlain, 8)
          .md("TFLOP/s", Show::kPlain)
          .digits(1),
      Column("peak_tflops")
          .json(1)
          .text("peak", Show::kPlain, 8)
          .md("peak", Show::kPlain)
          .digits(1),
      Column("pct_of_peak").json(3).text("%peak", Show::kPct, 7).md("% of peak", Show::kPct),
      Column("winograd_or_fft"),
      Column("top_kernels"),
      Column(nullptr).md("kernel", Show::kName).md_left().max_len(0, 80)};
  t.text_indent = "";
  t.text_rows = t.md_rows = kTextRows;
  t.md_blank_after = false;
  for (size_t i = 0; i < m.ops.size() && i < kJsonRows; ++i) {
    const MathOpRow& r = m.ops[i];
    Table& kernels = s.nested_table();
    kernels.columns = {Column("name"), Column("us")};
    for (const auto& [name, ns] : r.top_kernels) kernels.row() = {Cell::str(name), Cell::ns(ns)};
    const bool winograd = uses_winograd_or_fft(r);
    t.row() = {Cell::str(r.name),
               Cell::str(r.shapes),
               Cell::str(math_family_name(r.family)),
               Cell::str(math_dtype_name(r.dtype)),
               Cell::str(r.formula),
               Cell::count(r.count),
               Cell::number(r.flops_each),
               Cell::number(r.flops_each / 1e9),
               Cell::number(r.flops),
               Cell::ns(r.gpu_ns),
               Cell::count(r.kernels),
               r.gpu_ns > 0 ? Cell::number(r.achieved_tflops) : Cell::null(),
               r.peak_tflops > 0 ? Cell::number(r.peak_tflops) : Cell::null(),
               r.pct_of_peak >= 0 ? Cell::number(r.pct_of_peak) : Cell::null(),
               Cell::flag(winograd),
               Cell::rows(&kernels),
               r.top_kernels.empty() ? Cell::null() : Cell::str(r.top_kernels.front().first)};
    std::vector<std::string>& notes = t.text_notes.emplace_back();
    if (!r.top_kernels.empty())
      notes.push_back("    kernel: " + display_safe(r.top_kernels.front().first, 110));
    if (winograd)
      notes.push_back(
          "    Winograd/FFT kernels: fewer multiplies than the formula counts, so % of peak can "
          "pass 100");
  }
  if (m.ops.size() > kTextRows) {
    const std::string more = std::to_string(m.ops.size() - kTextRows) + " more (";
    s.line("... " + more + "--format json lists all)");
    s.paragraph("\n" + more + "`--format json` lists them)\n");
  }
  return s;
}

// Ops whose FLOPs are unknown, with why.
ReportSection not_counted_section(const MathEfficiency& m) {
  ReportSection s(nullptr);
  if (!m.uncounted.empty()) {
    s.line("\nNot counted (FLOPs unknown)");
    s.paragraph("\nNot counted (FLOPs unknown):\n\n");
  }
  Table& t = s.table("not_counted");
  t.columns = {Column("name").text("", Show::kText).left().max_len(60, 0),
               Column("count").text("", Show::kPlain).prefix("x").suffix(":"),
               Column("reason").text("", Show::kPlain)};
  t.text_header = false;
  std::string list;
  for (size_t i = 0; i < m.uncounted.size() && i < kJsonRows; ++i) {
    const MathUncounted& u = m.uncounted[i];
    t.row() = {Cell::str(u.name), Cell::count(u.count), Cell::str(u.reason)};
    list += "- " + markdown_code_cell(u.name) + " x" + std::to_string(u.count) + ": " +
            markdown_text(u.reason) + "\n";
  }
  s.paragraph(list);
  return s;
}

}  // namespace

std::vector<ReportSection> math_sections(const MathEfficiency& m, const std::string& trace_name) {
  std::vector<ReportSection> out;
  out.push_back(summary_section(m, trace_name));
  out.push_back(steps_table(m));
  out.push_back(ops_section(m));
  out.push_back(not_counted_section(m));
  return out;
}

std::string math_text(const MathEfficiency& m, const std::string& trace_name) {
  std::string o;
  std::vector<ReportSection> sections = math_sections(m, trace_name);
  append_section_text(&o, sections[0]);
  if (!m.has_shapes) return o;
  for (size_t i = 1; i < sections.size(); ++i) append_section_text(&o, sections[i]);
  return o;
}

std::string math_markdown(const MathEfficiency& m, const std::string& trace_name) {
  std::string o;
  std::vector<ReportSection> sections = math_sections(m, trace_name);
  append_section_markdown(&o, sections[0]);
  if (!m.has_shapes) return o;
  for (size_t i = 1; i < sections.size(); ++i) append_section_markdown(&o, sections[i]);
  return o;
}

void write_math_json(JsonWriter& w, const MathEfficiency& m, const std::string& trace_name) {
  for (const ReportSection& s : math_sections(m, trace_name)) write_section_json(w, s);
}

std::string math_json(const MathEfficiency& m, const std::string& trace_name) {
  JsonWriter w;
  w.begin_object();
  write_math_json(w, m, trace_name);
  w.end_object();
  return w.take() + "\n";
}

}  // namespace ks
