#include "report/multi_rank_report.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "findings/multi_rank_rules.h"
#include "report/report.h"
#include "report/report_table.h"
#include "report/sections/sections.h"
#include "util/format.h"
#include "util/json_writer.h"
#include "util/markdown.h"

namespace ks {

MultiRankReport combine_ranks(const std::vector<RankDigest>& given, AlignMode align) {
  MultiRankReport m;
  std::vector<RankDigest> digests = given;
  number_export_processes(&digests);
  m.order.resize(digests.size());
  for (size_t i = 0; i < digests.size(); ++i) m.order[i] = i;
  // The same stable order compare_ranks uses.
  std::stable_sort(m.order.begin(), m.order.end(),
                   [&digests](size_t a, size_t b) { return digests[a].rank < digests[b].rank; });
  m.result = compare_ranks(digests, align);
  m.findings = run_multi_rank_findings(m.result);
  return m;
}

namespace {

constexpr const char* kRanksAlike = "the ranks behave alike";

// Step numbers present on any rank, ascending: the heat map's columns.
std::vector<int64_t> all_step_numbers(const MultiRankResult& r) {
  std::vector<int64_t> steps;
  for (const RankRow& row : r.ranks)
    steps.insert(steps.end(), row.step_numbers.begin(), row.step_numbers.end());
  std::sort(steps.begin(), steps.end());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
  return steps;
}

// One rank's row of a heat map: its value at each of `steps`, kNullMicros where it has none.
// A number the rank has twice takes its first step's value. Found through the rank's numbers
// sorted once (a search of the rank's steps per column took 41 s for 4 ranks of 40 k steps).
std::vector<int64_t> heat_row(const RankRow& row, const std::vector<int64_t>& steps,
                              const std::vector<int64_t>& values) {
  std::vector<std::pair<int64_t, size_t>> index;  // (number, position), the first of each number
  for (size_t i = 0; i < row.step_numbers.size(); ++i) index.push_back({row.step_numbers[i], i});
  std::sort(index.begin(), index.end());
  std::vector<int64_t> out;
  for (int64_t n : steps) {
    auto it = std::lower_bound(index.begin(), index.end(), std::make_pair(n, size_t{0}));
    out.push_back(it == index.end() || it->first != n ? kNullMicros : values[it->second]);
  }
  return out;
}

// The per-step metrics of the heat maps and the per-step means, in output order.
struct StepMetric {
  const char* key;   // JSON key (µs)
  const char* head;  // text/Markdown column
  int64_t (*get)(const StepSpan&);
};
const StepMetric kStepMetrics[] = {
    {"compute_us", "compute (ms)", [](const StepSpan& s) { return s.compute_ns; }},
    {"communication_us", "comm (ms)", [](const StepSpan& s) { return s.communication_ns; }},
    {"overlap_us", "overlap (ms)", [](const StepSpan& s) { return s.overlap_ns; }},
    {"idle_us", "idle (ms)", [](const StepSpan& s) { return s.idle_ns(); }},
    {"host_wait_us", "host wait (ms)", [](const StepSpan& s) { return s.host_wait_ns; }},
    {"dataloader_us", "data (ms)", [](const StepSpan& s) { return s.dataloader_ns; }},
    {"memcpy_us", "memcpy (ms)", [](const StepSpan& s) { return s.memcpy_ns; }},
};

std::vector<int64_t> step_values(const RankRow& row, int64_t (*get)(const StepSpan&)) {
  std::vector<int64_t> v;
  for (const StepSpan& s : row.step_detail) v.push_back(get(s));
  return v;
}

double mean_ns(const std::vector<int64_t>& v) {
  if (v.empty()) return 0;
  double sum = 0;
  for (int64_t x : v) sum += static_cast<double>(x);
  return sum / static_cast<double>(v.size());
}

// The text and Markdown tables' columns: milliseconds with 3 decimals, each as wide as it needs.
Column ms_column(const char* key, const char* head) {
  return Column(key).text(head, Show::kMs, kAutoWidth).md(head, Show::kMs).digits(3);
}
Column plain_column(const char* key, const char* head) {
  return Column(key).text(head, Show::kPlain, kAutoWidth).md(head, Show::kPlain);
}
Cell int_or_null(int64_t v) {
  return v < 0 ? Cell::null() : Cell::integer(v);
}
Cell number_or_null(double v) {
  return v < 0 ? Cell::null() : Cell::number(v);
}

// Per rank: the totals (JSON `ranks`, the text's and Markdown's rank table), then the means
// over its steps (JSON `step_mean`, null without steps; the "Per step" table).
ReportSection ranks_section(const MultiRankResult& r) {
  ReportSection s(nullptr);
  s.paragraph("\n## Ranks\n\n");
  Table& t = s.table("ranks");
  t.columns = {
      plain_column("rank", "rank").md_left(),
      plain_column("rank_source", "from").md("from", Show::kText).md_left().max_len(0, 120),
      Column("file"), plain_column("steps", "steps"), Column("step_median_us").json(3),
      // The step statistics' measure: own times (a first step's queued backlog left out), so
      // it can be shorter than the per-step table's whole steps; the header says which.
      ms_column(nullptr, "own step med (ms)"), Column("gpu_span_us"), Column("busy_us"),
      ms_column("compute_us", "compute (ms)"), ms_column("communication_us", "comm (ms)"),
      Column("overlap_us"),
      Column("overlap_pct").text("overlap", Show::kPct, kAutoWidth).md("overlap", Show::kPct),
      // Over the GPU span (first GPU op to last), not the steps the gpu.idle finding measures.
      ms_column("idle_us", "span idle (ms)"), ms_column("host_wait_us", "host wait (ms)"),
      ms_column("dataloader_us", "data (ms)"), ms_column("memcpy_us", "memcpy (ms)"),
      Column("collectives"), Column("collective_sum_us"), Column("transfer_us"),
      ms_column("wait_us", "wait (ms)"), plain_column("idle_gaps", "gaps"),
      ms_column("idle_gap_us", "gap idle (ms)"),
      Column("step_us").in("step_mean").or_null().json(3),
      Column("collective_wait_us").in("step_mean").json(3)};
  for (const StepMetric& m : kStepMetrics) t.columns.push_back(Column(m.key).in("step_mean"));
  for (const RankRow& row : r.ranks) {
    std::vector<Cell>& cells = t.row();
    cells = {Cell::integer(row.rank),      Cell::str(rank_source_name(row.source)),
             Cell::str(row.file),          Cell::count(row.steps),
             Cell::ns(row.step_median_ns), Cell::ns(static_cast<int64_t>(row.step_median_ns)),
             Cell::ns(row.gpu_span_ns),    Cell::ns(row.busy_ns),
             Cell::ns(row.compute_ns),     Cell::ns(row.communication_ns),
             Cell::ns(row.overlap_ns),     Cell::number(row.overlap_pct),
             Cell::ns(row.idle_ns),        Cell::ns(row.host_wait_ns),
             Cell::ns(row.dataloader_ns),  Cell::ns(row.memcpy_ns),
             Cell::count(row.collectives), Cell::ns(row.collective_sum_ns),
             Cell::ns(row.transfer_ns),    Cell::ns(row.wait_ns),
             Cell::count(row.idle_gaps),   Cell::ns(row.idle_gap_ns)};
    const bool steps = !row.step_detail.empty();
    cells.push_back(steps ? Cell::ns(mean_ns(row.step_ns)) : Cell::absent());
    cells.push_back(steps ? Cell::ns(mean_ns(row.step_wait_ns)) : Cell::absent());
    for (const StepMetric& m : kStepMetrics)
      cells.push_back(steps ? Cell::ns(mean_ns(step_values(row, m.get))) : Cell::absent());
  }
  t.shown = {0, 1, 3, 5, 8, 9, 11, 12, 13, 14, 15, 19, 20, 21};
  // Captures that hold different steps: the totals are each capture's own, the waits only the
  // shared steps' (collectives are matched there alone): say which span each column covers.
  // JSON: the step numbers every capture holds (null when all hold the same), so the page
  // words the same note.
  s.field("shared_steps", r.shared_steps.empty() ? Cell::null() : Cell::int_list(&r.shared_steps));
  if (!r.shared_steps.empty()) {
    const std::string note =
        "The captures hold different steps: compute, comm and the other totals cover each "
        "rank's whole capture; wait covers the collectives of the " +
        std::to_string(r.shared_steps.size()) + " steps every rank's capture holds, from step " +
        std::to_string(r.shared_steps.front()) + ", as the straggler finding counts them";
    s.line("  " + note);
    s.paragraph("\n" + note + ".\n\n");
  }

  bool any_steps = false;
  for (const RankRow& row : r.ranks) any_steps = any_steps || !row.step_detail.empty();
  if (!any_steps) return s;
  s.line("\nPer step (mean over each rank's steps)");
  s.paragraph("Per step (mean over each rank's steps):\n\n");
  Table& means = s.table(nullptr);
  means.columns = {plain_column(nullptr, "rank"), plain_column(nullptr, "steps"),
                   ms_column(nullptr, "whole step (ms)"), ms_column(nullptr, "wait (ms)")};
  for (const StepMetric& m : kStepMetrics) means.columns.push_back(ms_column(nullptr, m.head));
  // Rounded to the nanosecond, as the JSON's means are not: the table shows milliseconds.
  auto rounded = [](double ns) { return Cell::ns(static_cast<int64_t>(ns + 0.5)); };
  for (const RankRow& row : r.ranks) {
    if (row.step_detail.empty()) continue;
    std::vector<Cell>& cells = means.row();
    cells = {Cell::integer(row.rank), Cell::count(row.steps), rounded(mean_ns(row.step_ns)),
             rounded(mean_ns(row.step_wait_ns))};
    for (const StepMetric& m : kStepMetrics)
      cells.push_back(rounded(mean_ns(step_values(row, m.get))));
  }
  return s;
}

std::string alignment_line(const Alignment& al) {
  std::string o = "Alignment: ";
  if (al.mode == AlignMode::kStep) {
    o += "step " + std::to_string(al.step) + " starts at 0 on every rank";
  } else {
    o += "global minimum (HTA): the earliest event of any rank is 0";
    if (al.requested == AlignMode::kStep) o += " (no step is on every rank)";
  }
  return o;
}

// Where each rank's clock is put on the common axis.
ReportSection alignment_section(const MultiRankResult& r) {
  const Alignment& al = r.alignment;
  ReportSection s("alignment");
  s.field("requested", Cell::str(align_mode_name(al.requested)));
  s.field("mode", Cell::str(align_mode_name(al.mode)));
  s.field("step", int_or_null(al.step));
  s.line("\n" + alignment_line(al));
  s.paragraph("## Alignment\n\n" + alignment_line(al) + ".\n\n");
  Table& t = s.table("ranks");
  const char* starts =
      s.own_c("step " + (al.step == kNoValue ? std::string("-") : std::to_string(al.step)) +
              " starts (ms)");
  t.columns = {plain_column("rank", "rank"), ms_column("offset_us", "offset (ms)"),
               ms_column("first_event_us", "first event (ms)"), ms_column("step_start_us", starts),
               Column("step_end_us")};
  for (size_t k = 0; k < al.ranks.size() && k < r.ranks.size(); ++k) {
    const RankAlignment& ra = al.ranks[k];
    auto optional_ns = [](int64_t ns) { return ns == kNoValue ? Cell::null() : Cell::ns(ns); };
    t.row() = {Cell::integer(r.ranks[k].rank), Cell::ns(ra.offset_ns), Cell::ns(ra.first_event_ns),
               optional_ns(ra.step_start_ns), optional_ns(ra.step_end_ns)};
  }
  return s;
}

// Rank x step matrices of each per-step metric (JSON only: the page draws them).
ReportSection heatmap_section(const MultiRankResult& r) {
  ReportSection s("heatmap");
  const std::vector<int64_t>& steps = s.keep_ints.emplace_back(all_step_numbers(r));
  s.field("steps", Cell::int_list(&steps));
  auto matrix = [&](const char* key, auto values_of) {
    std::vector<std::vector<int64_t>>& m = s.keep_matrix.emplace_back();
    for (const RankRow& row : r.ranks) m.push_back(heat_row(row, steps, values_of(row)));
    s.field(key, Cell::micros_rows(&m));
  };
  matrix("step_time_us", [](const RankRow& row) { return row.step_ns; });
  matrix("collective_wait_us", [](const RankRow& row) { return row.step_wait_ns; });
  for (const StepMetric& m : kStepMetrics)
    matrix(m.key, [&m](const RankRow& row) { return step_values(row, m.get); });
  return s;
}

// " in stream 7" / " in group 3": where the first mismatch is.
std::string in_channel(const MultiRankResult& r) {
  return r.mismatch_channel.empty() ? std::string() : " in " + r.mismatch_channel;
}

// The collectives matched across ranks (JSON `rows`), and grouped by kernel name with message
// sizes and bus bandwidth where the trace has collective args (`by_name`, the tables).
ReportSection collectives_section(const MultiRankResult& r) {
  ReportSection s("collectives");
  s.field("counts_match", Cell::flag(r.counts_match));
  s.field("names_match", Cell::flag(r.names_match));
  s.field("mismatch_channel",
          r.mismatch_channel.empty() ? Cell::null() : Cell::str(r.mismatch_channel));
  s.field("matched", Cell::count(r.collectives.size()));
  s.field("p2p_pairs", Cell::count(r.p2p_pairs));
  s.field("p2p_unmatched", Cell::count(r.p2p_unmatched));
  const std::string summary =
      std::to_string(r.collectives.size()) + " matched per communicator by order of issue" +
      (r.shared_steps.empty() ? ""
                              : " over the " + std::to_string(r.shared_steps.size()) +
                                    " steps every rank's capture holds, from step " +
                                    std::to_string(r.shared_steps.front())) +
      (r.p2p_pairs ? ", " + std::to_string(r.p2p_pairs) + " of them send/recv pairs" : "") +
      (r.p2p_unmatched ? "; " + std::to_string(r.p2p_unmatched) +
                             " sends/receives not measured (no peer rank in their args, or no "
                             "counterpart in the files given)"
                       : "") +
      (r.counts_match ? "" : " (counts differ between ranks" + in_channel(r) + ")") +
      (r.names_match
           ? ""
           : "; names differ from position " + std::to_string(r.first_mismatch) + in_channel(r));
  s.line("\nCollectives: " + summary);
  s.paragraph("## Collectives\n\n" + summary + ".\n\n");

  Table& rows = s.table();
  rows.columns = {Column("index"),
                  Column("channel"),
                  Column("sequence"),
                  Column("name"),
                  Column("transfer_us"),
                  Column("dur_us"),
                  Column("collective"),
                  Column("dtype"),
                  Column("in_nelems"),
                  Column("out_nelems"),
                  Column("group_size"),
                  Column("bytes"),
                  Column("algbw_gbps").json(3),
                  Column("busbw_gbps").json(3)};
  // A long capture of many ranks matches tens of thousands of collectives: the JSON lists the
  // first kMaxTableRows (report_table.h), `matched` and the groups below count all.
  for (const CollectiveRow& c : r.collectives) {
    if (!rows.room_for_row(c.transfer_ns)) continue;
    // null for a rank outside the collective's group (a group of some of the ranks).
    std::vector<int64_t>& dur = s.keep_ints.emplace_back(c.dur_ns);
    for (int64_t& d : dur)
      if (d == kNoValue) d = kNullMicros;
    rows.row() = {
        Cell::count(c.index),         Cell::str(c.channel),        Cell::count(c.sequence),
        Cell::str(c.name_text),       Cell::ns(c.transfer_ns),     Cell::micros_list(&dur),
        Cell::str(c.collective),      Cell::str(c.dtype),          int_or_null(c.in_nelems),
        int_or_null(c.out_nelems),    int_or_null(c.group_size),   int_or_null(c.bytes),
        number_or_null(c.algbw_gbps), number_or_null(c.busbw_gbps)};
  }

  Table& groups = s.table("by_name");
  groups.columns = {
      Column("name")
          .text("kernel", Show::kName, kAutoWidth)
          .md("kernel", Show::kName)
          .left()
          .max_len(0, 200),
      Column("collective")
          .text("collective", Show::kPlain, kAutoWidth)
          .md("collective", Show::kText)
          .left()
          .max_len(0, 120)
          .empty_as_null(),
      plain_column("count", "calls"),
      Column("sized"),
      Column("bytes"),
      Column(nullptr).text("bytes", Show::kBytes, kAutoWidth).md("bytes", Show::kBytes),
      ms_column("transfer_us", "transfer (ms)"),
      ms_column("wait_us", "wait (ms)"),
      Column("busbw_gbps")
          .json(3)
          .text("busbw (GB/s)", Show::kPlain, kAutoWidth)
          .md("busbw (GB/s)", Show::kPlain)};
  for (const CollectiveGroup& g : r.collective_groups)
    groups.row() = {Cell::str(g.name_text),      Cell::str(g.collective),
                    Cell::count(g.count),        Cell::count(g.sized),
                    Cell::integer(g.bytes),      g.sized ? Cell::integer(g.bytes) : Cell::null(),
                    Cell::ns(g.transfer_ns),     Cell::ns(g.wait_ns),
                    number_or_null(g.busbw_gbps)};
  return s;
}

// HTA's straggler rule's inputs (JSON only: the ranks view marks the flagged steps).
ReportSection late_start_section(const MultiRankResult& r) {
  ReportSection s("late_start");
  s.field("computed", Cell::flag(r.late_start.computed));
  s.field("kernel", Cell::str(r.late_start.kernel));
  std::vector<int64_t>& flagged = s.keep_ints.emplace_back();
  for (uint64_t n : r.late_start.flagged) flagged.push_back(static_cast<int64_t>(n));
  s.field("flagged_steps", Cell::int_list(&flagged));
  return s;
}

// Each rank's own report, in rank order, under a line that names it.
ReportSection rank_reports_section(const MultiRankReport& m,
                                   const std::vector<std::string>& reports) {
  ReportSection s(nullptr);
  std::vector<std::string_view>& docs = s.keep_views.emplace_back();
  for (size_t k = 0; k < m.order.size(); ++k) {
    if (m.order[k] >= reports.size()) continue;
    const RankRow& row = m.result.ranks[k];
    docs.push_back(reports[m.order[k]]);
    // The reports are viewed, not copied: each is the size of a whole report, and only one
    // format's writer reads them.
    s.text_block("\n---- rank " + std::to_string(row.rank) + " (" + row.file + ")\n",
                 reports[m.order[k]]);
    s.paragraph("", reports[m.order[k]]);
    s.paragraph("\n");
  }
  s.field("reports", Cell::raw_list(&docs));
  return s;
}

}  // namespace

std::string multi_rank_json(const MultiRankReport& m, const std::vector<std::string>& reports) {
  const MultiRankResult& r = m.result;
  JsonWriter w;
  w.begin_object();
  w.field("schema", kMultiRankSchema);
  w.field("generator", std::string_view(std::string("kinetoscope ") + kVersion));
  write_section_json(w, ranks_section(r));
  write_section_json(w, alignment_section(r));
  write_section_json(w, heatmap_section(r));
  write_section_json(w, collectives_section(r));
  write_section_json(w, late_start_section(r));
  write_section_json(w, findings_section(nullptr, m.findings, kRanksAlike));
  write_section_json(w, rank_reports_section(m, reports));
  w.end_object();
  return w.take();
}

std::string multi_rank_text(const MultiRankReport& m, const std::vector<std::string>& reports) {
  const MultiRankResult& r = m.result;
  std::string o = "Kinetoscope multi-rank report: " + std::to_string(r.ranks.size()) + " ranks\n\n";
  append_section_text(&o, findings_section(nullptr, m.findings, kRanksAlike));
  append_section_text(&o, ranks_section(r));
  append_section_text(&o, collectives_section(r));
  append_section_text(&o, alignment_section(r));
  append_section_text(&o, rank_reports_section(m, reports));
  return o;
}

std::string multi_rank_markdown(const MultiRankReport& m, const std::vector<std::string>& reports) {
  const MultiRankResult& r = m.result;
  std::string o = "# Kinetoscope multi-rank report: " + std::to_string(r.ranks.size()) + " ranks\n";
  append_section_markdown(&o, findings_section(nullptr, m.findings, kRanksAlike));
  append_section_markdown(&o, ranks_section(r));
  append_section_markdown(&o, collectives_section(r));
  append_section_markdown(&o, alignment_section(r));
  append_section_markdown(&o, rank_reports_section(m, reports));
  return o;
}

}  // namespace ks
