// GPU time by the op that launched it (analysis/gpu_time_by_op.h): the TensorBoard plugin's
// operator view (device self and total time). The terminal and Markdown show the top 10 by self
// time, when any GPU op was launched inside an op; JSON up to kMaxTableRows rows.
#include <string>

#include "report/sections/sections.h"
#include "util/format.h"

namespace ks {

ReportSection gpu_by_op_section(const GpuTimeByOp& g) {
  ReportSection s("gpu_by_op");
  s.field("source", Cell::str(op_source_name(g.source)));
  s.field("gpu_ops", Cell::count(g.gpu_ops));
  s.field("gpu_us", Cell::ns(g.gpu_ns));
  s.field("attributed_ops", Cell::count(g.attributed_ops));
  s.field("attributed_us", Cell::ns(g.attributed_ns));
  s.field("unlaunched_ops", Cell::count(g.unlaunched_ops));
  s.field("unlaunched_us", Cell::ns(g.unlaunched_ns));
  const bool shown = g.attributed_ops > 0;
  if (shown) {
    const double share =
        g.gpu_ns > 0 ? 100.0 * static_cast<double>(g.attributed_ns) / static_cast<double>(g.gpu_ns)
                     : 0.0;
    const std::string what =
        std::to_string(g.attributed_ops) + " of " + std::to_string(g.gpu_ops) +
        " GPU ops launched inside an op, " + format_pct(share) + " of GPU time" +
        (g.unlaunched_ops > 0
             ? "; " + std::to_string(g.unlaunched_ops) + " with no launching call in the trace"
             : std::string()) +
        " (self: the innermost op around the launch; total: any op around it" +
        (g.source == OpSource::kNvtxOps ? "; ops from the NVTX ranges of emit_nvtx)" : ")");
    s.line("GPU time by launching op: " + what);
    s.paragraph("## GPU time by launching op\n\n" + what + ".\n\n");
  }
  Table& tb = s.table();
  tb.columns = {
      Column("name").text("Op", Show::kName, 0, 2).md("Op", Show::kName).left().max_len(70, 100),
      Column("gpu_ops").text("GPU ops", Show::kPlain, 8).md("GPU ops", Show::kPlain),
      Column("self_us").text("Self", Show::kDuration, 10).md("Self", Show::kDuration),
      Column("total_us").text("Total", Show::kDuration, 10).md("Total", Show::kDuration),
      Column("non_math_us"),
      Column("self_pct").text("Self%", Show::kPlain, 6).digits(1).md("Self %", Show::kPlain),
      Column("total_pct").text("Total%", Show::kPlain, 7).digits(1).md("Total %", Show::kPlain)};
  enum { kName, kOps, kSelf, kTotal, kNonMath, kSelfPct, kTotalPct };
  tb.shown = {kSelfPct, kSelf, kTotalPct, kTotal, kOps, kName};
  tb.text_rows = tb.md_rows = 10;
  tb.text_more_note = true;
  tb.add_rows_capped(
      g.rows,
      [&](const OpGpuTimeRow& r) {
        tb.row() = {Cell::str(s.own(r.name)), Cell::count(r.gpu_ops),  Cell::ns(r.self_ns),
                    Cell::ns(r.total_ns),     Cell::ns(r.non_math_ns), Cell::number(r.self_pct),
                    Cell::number(r.total_pct)};
      },
      [](const OpGpuTimeRow& r) { return r.self_ns; });
  if (shown)
    s.line("");
  else
    tb.json_only();
  return s;
}

}  // namespace ks
