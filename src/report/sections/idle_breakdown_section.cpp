// HTA's idle time breakdown per GPU stream: host wait, kernel wait (gaps shorter than 30 us)
// and other, with the gaps' statistics per cause (JSON). The terminal and Markdown show one
// row per stream, only when the trace has GPU ops.
#include <string>

#include "report/sections/sections.h"
#include "util/format.h"

namespace ks {

namespace {

std::string stream_label(int64_t device, int64_t stream) {
  std::string s = "stream " + (stream == kNoValue ? std::string("?") : std::to_string(stream));
  if (device != kNoValue) s = "device " + std::to_string(device) + " " + s;
  return s;
}

}  // namespace

ReportSection idle_breakdown_section(const IdleBreakdown& b, bool has_gpu_ops) {
  ReportSection s("idle_breakdown");
  s.field("kernel_wait_threshold_us", Cell::ns(kKernelWaitThresholdNs));
  for (int c = 0; c < kIdleCauses; ++c)
    s.field(std::string(idle_cause_name(static_cast<IdleCause>(c))) + "_us",
            Cell::ns(b.idle_ns[c]));
  if (has_gpu_ops)
    s.linef("Idle time per stream (host wait / kernel wait / other, gaps < %s are kernel wait):",
            format_duration(kKernelWaitThresholdNs).c_str());
  Table& tb = s.table("streams");
  tb.columns = {Column(nullptr).text("", Show::kPlain, 22).md("Stream", Show::kPlain).left(),
                Column("device"), Column("stream"),
                Column("ops").text("", Show::kPlain, 7).suffix(" ops").md("Ops", Show::kPlain),
                Column("idle_us")
                    .text("", Show::kDuration, 10, 2)
                    .prefix("idle ")
                    .text_left()
                    .md("Idle", Show::kDuration)};
  const char* keys[kIdleCauses] = {"host_wait_us", "kernel_wait_us", "other_us"};
  const char* headers[kIdleCauses] = {"Host wait", "Kernel wait", "Other"};
  for (int c = 0; c < kIdleCauses; ++c)
    tb.columns.push_back(Column(keys[c])
                             .text("", Show::kDuration)
                             .prefix(c == 0 ? "= " : "/ ")
                             .md(headers[c], Show::kDuration));
  const size_t gaps = tb.columns.size();
  for (int c = 0; c < kIdleCauses; ++c)
    for (Column& col : duration_stats_columns())
      tb.columns.push_back(col.in("gaps", idle_cause_name(static_cast<IdleCause>(c))));
  for (int c = 0; c < kIdleCauses; ++c)  // the gaps' counts: "(12)" after each cause's time
    tb.columns[gaps + 7 * c].text("", Show::kPlain).prefix("(").suffix(")");
  tb.shown = {0, 3, 4, 5, gaps, 6, gaps + 7, 7, gaps + 14};
  tb.text_header = false;
  // A trace may hold thousands of streams (a generator, a stream per request): the terminal and
  // Markdown list the first 32, the JSON the first kMaxTableRows; the totals above count all.
  tb.text_rows = tb.md_rows = 32;
  tb.text_more_note = true;
  for (const StreamIdle& st : b.streams) {
    if (!tb.room_for_row(st.idle_total_ns())) continue;
    std::vector<Cell>& row = tb.row();
    row = {Cell::str(s.own(stream_label(st.device, st.stream))), Cell::optional(st.device),
           Cell::optional(st.stream), Cell::count(st.ops), Cell::ns(st.idle_total_ns())};
    for (int c = 0; c < kIdleCauses; ++c) row.push_back(Cell::ns(st.idle_ns[c]));
    for (int c = 0; c < kIdleCauses; ++c) add_duration_stats_cells(&row, st.gaps[c]);
  }
  if (!has_gpu_ops) tb.json_only();
  // HTA's definition sums each op's gap to the one before it in start order, so ops of one
  // stream that overlap (older CUPTI, MTIA) give a negative kernel wait: say so where it shows,
  // a bare "-17.38 ms" of idle time reads as a bug.
  size_t overlapping = 0;
  for (const StreamIdle& st : b.streams) overlapping += st.idle_ns[1] < 0 ? 1 : 0;
  if (has_gpu_ops && overlapping > 0) {
    std::string why =
        std::to_string(overlapping) + (overlapping == 1 ? " stream's" : " streams'") +
        " kernel wait is negative: ops of one stream overlap in this trace, and each gap is "
        "measured from the op before it in start order (HTA's definition); the GPU time "
        "breakdown counts the overlap once.";
    s.line("  " + why);
    s.paragraph(why + "\n\n");
  }
  return s;
}

}  // namespace ks
