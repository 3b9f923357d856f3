// The TensorBoard plugin's step time breakdown: how much of the steps (or the trace) went to
// kernels, copies, communication, the data loader, CPU work and other, per step (JSON) and in
// total. Without steps or GPU work (a browser or CPU profile) the terminal and Markdown say
// nothing: the breakdown would be "other" 100%.
#include <string>

#include "report/sections/sections.h"
#include "util/format.h"

namespace ks {

namespace {

const char* role(int k) {
  return step_role_name(static_cast<StepRole>(k));
}

}  // namespace

ReportSection step_breakdown_section(const Trace& t, const StepBreakdown& b, bool has_gpu_ops) {
  ReportSection s("step_breakdown");
  s.field("window", Cell::str(b.whole_trace ? "whole_trace" : "steps"));
  s.field("total_us", Cell::ns(b.window_ns));
  s.begin_object("parts");
  for (int k = 0; k < kStepRoles; ++k)
    s.field(std::string(role(k)) + "_us", Cell::ns(b.total_ns[k]));
  s.end_object();
  s.begin_object("parts_pct");
  for (int k = 0; k < kStepRoles; ++k)
    s.field(std::string(role(k)) + "_pct", Cell::number(b.pct(static_cast<StepRole>(k))));
  s.end_object();
  Table& rows = s.table();
  rows.columns = {Column("number"), Column("start_us"), Column("dur_us")};
  for (int k = 0; k < kStepRoles; ++k)
    rows.columns.push_back(Column(s.own(std::string(role(k)) + "_us").data()));
  for (const StepParts& p : b.steps) {
    if (!rows.room_for_row(p.end_ns - p.begin_ns)) continue;  // the totals above cover all
    rows.row() = {Cell::optional(p.step_number), Cell::ns(p.begin_ns - t.facts.origin_ns()),
                  Cell::ns(p.end_ns - p.begin_ns)};
    for (int k = 0; k < kStepRoles; ++k) rows.rows.back().push_back(Cell::ns(p.ns[k]));
  }
  if (b.window_ns <= 0 || (b.whole_trace && !has_gpu_ops)) return s;
  std::string parts;
  for (int k = 0; k < kStepRoles; ++k)
    parts +=
        (k ? ", " : "") + std::string(role(k)) + " " + format_pct(b.pct(static_cast<StepRole>(k)));
  s.linef("Step breakdown (%s, %s): %s", b.whole_trace ? "whole trace" : "all steps",
          format_duration(b.window_ns).c_str(), parts.c_str());
  s.paragraph("## Step breakdown\n\n");
  Table& shares = s.table(nullptr);  // Markdown only
  shares.columns = {Column(nullptr).md("Part", Show::kPlain).left(),
                    Column(nullptr).md("Time", Show::kDuration),
                    Column(nullptr).md("Share", Show::kPct)};
  for (int k = 0; k < kStepRoles; ++k)
    shares.row() = {Cell::str(role(k)), Cell::ns(b.total_ns[k]),
                    Cell::number(b.pct(static_cast<StepRole>(k)))};
  return s;
}

}  // namespace ks
