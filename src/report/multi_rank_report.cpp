#include "report/multi_rank_report.h"

#include <algorithm>
#include <cstdio>

#include "findings/multi_rank_rules.h"
#include "report/findings_json.h"
#include "report/report.h"
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

// Step numbers present on any rank, ascending: the heat map's columns.
std::vector<int64_t> all_step_numbers(const MultiRankResult& r) {
  std::vector<int64_t> steps;
  for (const RankRow& row : r.ranks)
    steps.insert(steps.end(), row.step_numbers.begin(), row.step_numbers.end());
  std::sort(steps.begin(), steps.end());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
  return steps;
}

void write_heat_row(JsonWriter& w, const RankRow& row, const std::vector<int64_t>& steps,
                    const std::vector<int64_t>& values) {
  w.begin_array();
  for (int64_t n : steps) {
    auto it = std::find(row.step_numbers.begin(), row.step_numbers.end(), n);
    if (it == row.step_numbers.end())
      w.null();
    else
      w.micros(values[static_cast<size_t>(it - row.step_numbers.begin())]);
  }
  w.end_array();
}

// The per-step metrics of the heat maps and the per-step means, in output order.
struct StepMetric {
  const char* key;   // JSON key (µs)
  const char* head;  // text/Markdown column
  int64_t (*get)(const StepSpan&);
};
const StepMetric kStepMetrics[] = {
    {"compute_us", "compute", [](const StepSpan& s) { return s.compute_ns; }},
    {"communication_us", "comm", [](const StepSpan& s) { return s.communication_ns; }},
    {"overlap_us", "overlap", [](const StepSpan& s) { return s.overlap_ns; }},
    {"idle_us", "idle", [](const StepSpan& s) { return s.idle_ns(); }},
    {"host_wait_us", "host wait", [](const StepSpan& s) { return s.host_wait_ns; }},
    {"dataloader_us", "data", [](const StepSpan& s) { return s.dataloader_ns; }},
    {"memcpy_us", "memcpy", [](const StepSpan& s) { return s.memcpy_ns; }},
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

void field_or_null(JsonWriter& w, std::string_view key, int64_t v) {
  w.key(key);
  if (v < 0)
    w.null();
  else
    w.value(v);
}

void field_or_null(JsonWriter& w, std::string_view key, double v, int digits) {
  w.key(key);
  if (v < 0)
    w.null();
  else
    w.value(v, digits);
}

void micros_or_null(JsonWriter& w, std::string_view key, int64_t ns) {
  w.key(key);
  if (ns == kNoValue)
    w.null();
  else
    w.micros(ns);
}

void write_alignment(JsonWriter& w, const MultiRankResult& r) {
  const Alignment& al = r.alignment;
  w.key("alignment").begin_object();
  w.field("requested", align_mode_name(al.requested));
  w.field("mode", align_mode_name(al.mode));
  field_or_null(w, "step", al.step);
  w.key("ranks").begin_array();
  for (size_t k = 0; k < al.ranks.size() && k < r.ranks.size(); ++k) {
    const RankAlignment& ra = al.ranks[k];
    w.begin_object();
    w.field("rank", r.ranks[k].rank);
    w.field_micros("offset_us", ra.offset_ns);
    w.field_micros("first_event_us", ra.first_event_ns);
    micros_or_null(w, "step_start_us", ra.step_start_ns);
    micros_or_null(w, "step_end_us", ra.step_end_ns);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

}  // namespace

std::string multi_rank_json(const MultiRankReport& m, const std::vector<std::string>& reports) {
  const MultiRankResult& r = m.result;
  JsonWriter w;
  w.begin_object();
  w.field("schema", kMultiRankSchema);
  w.field("generator", std::string_view(std::string("kinetoscope ") + kVersion));
  w.key("ranks").begin_array();
  for (const RankRow& row : r.ranks) {
    w.begin_object();
    w.field("rank", row.rank);
    w.field("rank_source", rank_source_name(row.source));
    w.field("file", std::string_view(row.file));
    w.field("steps", row.steps);
    w.field("step_median_us", row.step_median_ns / 1e3, 3);
    w.field_micros("gpu_span_us", row.gpu_span_ns);
    w.field_micros("busy_us", row.busy_ns);
    w.field_micros("compute_us", row.compute_ns);
    w.field_micros("communication_us", row.communication_ns);
    w.field_micros("overlap_us", row.overlap_ns);
    w.field("overlap_pct", row.overlap_pct, 2);
    w.field_micros("idle_us", row.idle_ns);
    w.field_micros("host_wait_us", row.host_wait_ns);
    w.field_micros("dataloader_us", row.dataloader_ns);
    w.field_micros("memcpy_us", row.memcpy_ns);
    w.field("collectives", row.collectives);
    w.field_micros("collective_sum_us", row.collective_sum_ns);
    w.field_micros("transfer_us", row.transfer_ns);
    w.field_micros("wait_us", row.wait_ns);
    w.field("idle_gaps", row.idle_gaps);
    w.field_micros("idle_gap_us", row.idle_gap_ns);
    // Means over the rank's steps (null without steps).
    w.key("step_mean");
    if (row.step_detail.empty()) {
      w.null();
    } else {
      w.begin_object();
      w.field("step_us", mean_ns(row.step_ns) / 1e3, 3);
      w.field("collective_wait_us", mean_ns(row.step_wait_ns) / 1e3, 3);
      for (const StepMetric& m : kStepMetrics)
        w.field(m.key, mean_ns(step_values(row, m.get)) / 1e3, 3);
      w.end_object();
    }
    w.end_object();
  }
  w.end_array();
  write_alignment(w, r);
  std::vector<int64_t> steps = all_step_numbers(r);
  w.key("heatmap").begin_object();
  w.key("steps").begin_array();
  for (int64_t n : steps) w.value(n);
  w.end_array();
  w.key("step_time_us").begin_array();
  for (const RankRow& row : r.ranks) write_heat_row(w, row, steps, row.step_ns);
  w.end_array();
  w.key("collective_wait_us").begin_array();
  for (const RankRow& row : r.ranks) write_heat_row(w, row, steps, row.step_wait_ns);
  w.end_array();
  for (const StepMetric& m : kStepMetrics) {
    w.key(m.key).begin_array();
    for (const RankRow& row : r.ranks) write_heat_row(w, row, steps, step_values(row, m.get));
    w.end_array();
  }
  w.end_object();
  w.key("collectives").begin_object();
  w.field("counts_match", r.counts_match);
  w.field("names_match", r.names_match);
  if (r.mismatch_channel.empty())
    w.key("mismatch_channel").null();
  else
    w.field("mismatch_channel", std::string_view(r.mismatch_channel));
  w.field("matched", static_cast<uint64_t>(r.collectives.size()));
  w.key("rows").begin_array();
  for (const CollectiveRow& c : r.collectives) {
    w.begin_object();
    w.field("index", static_cast<uint64_t>(c.index));
    w.field("channel", std::string_view(c.channel));
    w.field("sequence", static_cast<uint64_t>(c.sequence));
    w.field("name", std::string_view(c.name_text));
    w.field_micros("transfer_us", c.transfer_ns);
    w.key("dur_us").begin_array();
    for (int64_t d : c.dur_ns) w.micros(d);
    w.end_array();
    w.field("collective", std::string_view(c.collective));
    w.field("dtype", std::string_view(c.dtype));
    field_or_null(w, "in_nelems", c.in_nelems);
    field_or_null(w, "out_nelems", c.out_nelems);
    field_or_null(w, "group_size", c.group_size);
    field_or_null(w, "bytes", c.bytes);
    field_or_null(w, "algbw_gbps", c.algbw_gbps, 3);
    field_or_null(w, "busbw_gbps", c.busbw_gbps, 3);
    w.end_object();
  }
  w.end_array();
  w.key("by_name").begin_array();
  for (const CollectiveGroup& g : r.collective_groups) {
    w.begin_object();
    w.field("name", std::string_view(g.name_text));
    w.field("collective", std::string_view(g.collective));
    w.field("count", g.count);
    w.field("sized", g.sized);
    w.field("bytes", g.bytes);
    w.field_micros("transfer_us", g.transfer_ns);
    w.field_micros("wait_us", g.wait_ns);
    field_or_null(w, "busbw_gbps", g.busbw_gbps, 3);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  w.key("late_start").begin_object();
  w.field("computed", r.late_start.computed);
  w.field("kernel", std::string_view(r.late_start.kernel));
  w.key("flagged_steps").begin_array();
  for (uint64_t n : r.late_start.flagged) w.value(n);
  w.end_array();
  w.end_object();
  write_findings_json(w, nullptr, m.findings);
  w.key("reports").begin_array();
  for (size_t i : m.order)
    if (i < reports.size()) w.raw(reports[i]);
  w.end_array();
  w.end_object();
  return w.take();
}

namespace {

std::string ms(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f", static_cast<double>(ns) / 1e6);
  return buf;
}

// The rank table, as rows of cells (shared by text and Markdown).
std::vector<std::vector<std::string>> rank_table(const MultiRankResult& r) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"rank", "from", "steps", "step med (ms)", "compute (ms)", "comm (ms)", "overlap",
                  "idle (ms)", "host wait (ms)", "data (ms)", "memcpy (ms)", "wait (ms)", "gaps",
                  "gap idle (ms)"});
  for (const RankRow& row : r.ranks) {
    rows.push_back({std::to_string(row.rank), rank_source_name(row.source),
                    std::to_string(row.steps), ms(static_cast<int64_t>(row.step_median_ns)),
                    ms(row.compute_ns), ms(row.communication_ns), format_pct(row.overlap_pct),
                    ms(row.idle_ns), ms(row.host_wait_ns), ms(row.dataloader_ns), ms(row.memcpy_ns),
                    ms(row.wait_ns), std::to_string(row.idle_gaps), ms(row.idle_gap_ns)});
  }
  return rows;
}

std::string gbps(double v) {
  if (v < 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f", v);
  return buf;
}

// Per rank, the mean over its steps of each per-step metric. Empty when no rank has steps.
std::vector<std::vector<std::string>> step_mean_table(const MultiRankResult& r) {
  std::vector<std::vector<std::string>> rows;
  bool any = false;
  for (const RankRow& row : r.ranks) any = any || !row.step_detail.empty();
  if (!any) return rows;
  std::vector<std::string> head = {"rank", "steps", "step (ms)", "wait (ms)"};
  for (const StepMetric& m : kStepMetrics) head.push_back(std::string(m.head) + " (ms)");
  rows.push_back(head);
  for (const RankRow& row : r.ranks) {
    if (row.step_detail.empty()) continue;
    auto cell = [](double ns) { return ms(static_cast<int64_t>(ns + 0.5)); };
    std::vector<std::string> cells = {std::to_string(row.rank), std::to_string(row.steps),
                                      cell(mean_ns(row.step_ns)), cell(mean_ns(row.step_wait_ns))};
    for (const StepMetric& m : kStepMetrics)
      cells.push_back(cell(mean_ns(step_values(row, m.get))));
    rows.push_back(cells);
  }
  return rows;
}

// The matched collectives by name, with message sizes and bus bandwidth where the trace has
// collective args. Empty when nothing was matched.
// " in stream 7" / " in group 3": where the first mismatch is.
std::string in_channel(const MultiRankResult& r) {
  return r.mismatch_channel.empty() ? std::string() : " in " + r.mismatch_channel;
}

std::vector<std::vector<std::string>> collective_table(const MultiRankResult& r) {
  std::vector<std::vector<std::string>> rows;
  if (r.collective_groups.empty()) return rows;
  rows.push_back(
      {"kernel", "collective", "calls", "bytes", "transfer (ms)", "wait (ms)", "busbw (GB/s)"});
  for (const CollectiveGroup& g : r.collective_groups) {
    rows.push_back({g.name_text, g.collective.empty() ? "-" : g.collective, std::to_string(g.count),
                    g.sized ? format_bytes(g.bytes) : "-", ms(g.transfer_ns), ms(g.wait_ns),
                    gbps(g.busbw_gbps)});
  }
  return rows;
}

// One line per rank: where its clock is put on the common axis.
std::vector<std::vector<std::string>> alignment_table(const MultiRankResult& r) {
  std::vector<std::vector<std::string>> rows;
  const Alignment& al = r.alignment;
  rows.push_back({"rank", "offset (ms)", "first event (ms)",
                  "step " + (al.step == kNoValue ? std::string("-") : std::to_string(al.step)) +
                      " starts (ms)"});
  for (size_t k = 0; k < al.ranks.size() && k < r.ranks.size(); ++k) {
    const RankAlignment& ra = al.ranks[k];
    rows.push_back({std::to_string(r.ranks[k].rank), ms(ra.offset_ns), ms(ra.first_event_ns),
                    ra.step_start_ns == kNoValue ? "-" : ms(ra.step_start_ns)});
  }
  return rows;
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

// Right-aligned columns, the first `left` of them left-aligned.
std::string text_table(const std::vector<std::vector<std::string>>& table, size_t left) {
  std::string o;
  if (table.empty()) return o;
  std::vector<size_t> width(table[0].size(), 0);
  for (const auto& row : table)
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  for (const auto& row : table) {
    o += " ";
    for (size_t c = 0; c < row.size(); ++c) {
      const std::string& cell = row[c];
      std::string pad(width[c] - cell.size(), ' ');
      o += c < left ? " " + cell + pad : " " + pad + cell;
    }
    while (!o.empty() && o.back() == ' ') o.pop_back();
    o += "\n";
  }
  return o;
}

// Left-aligned columns are text from the traces: escaped; the first `code` of them (kernel
// names) as code spans, as the single report writes names.
std::string markdown_table(const std::vector<std::vector<std::string>>& table, size_t left,
                           size_t code = 0) {
  std::string o;
  for (size_t i = 0; i < table.size(); ++i) {
    o += "|";
    for (size_t c = 0; c < table[i].size(); ++c) {
      const std::string& cell = table[i][c];
      o += " " +
           (i == 0 || c >= left ? cell
            : c < code          ? markdown_code_cell(cell, 200)
                                : markdown_cell(cell, 120)) +
           " |";
    }
    o += "\n";
    if (i == 0) {
      o += "|";
      for (size_t c = 0; c < table[i].size(); ++c) o += c < left ? "---|" : "---:|";
      o += "\n";
    }
  }
  return o;
}

}  // namespace

std::string multi_rank_text(const MultiRankReport& m, const std::vector<std::string>& reports) {
  const MultiRankResult& r = m.result;
  std::string o = "Kinetoscope multi-rank report: " + std::to_string(r.ranks.size()) + " ranks\n\n";
  o += "Findings (" + std::to_string(m.findings.size()) + ")\n";
  if (m.findings.empty()) o += "  none: the ranks behave alike\n";
  for (const Finding& f : m.findings) {
    std::string sev = severity_name(f.severity);
    for (char& c : sev) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    o += "  [" + sev + "] " + f.title + "  (" + f.id + ")\n      " + f.meaning + "\n";
    if (!f.fix.empty()) o += "      fix: " + f.fix + "\n";
  }
  o += "\n";
  o += text_table(rank_table(r), 0);
  std::vector<std::vector<std::string>> means = step_mean_table(r);
  if (!means.empty()) o += "\nPer step (mean over each rank's steps)\n" + text_table(means, 0);
  o += "\nCollectives: " + std::to_string(r.collectives.size()) +
       " matched per communicator by order of issue" +
       (r.counts_match ? "" : " (counts differ between ranks" + in_channel(r) + ")") +
       (r.names_match
            ? ""
            : "; names differ from position " + std::to_string(r.first_mismatch) + in_channel(r)) +
       "\n";
  o += text_table(collective_table(r), 2);
  o += "\n" + alignment_line(r.alignment) + "\n";
  o += text_table(alignment_table(r), 0);
  for (size_t k = 0; k < m.order.size(); ++k) {
    if (m.order[k] >= reports.size()) continue;
    o += "\n---- rank " + std::to_string(r.ranks[k].rank) + " (" + r.ranks[k].file + ")\n";
    o += reports[m.order[k]];
  }
  return o;
}

std::string multi_rank_markdown(const MultiRankReport& m, const std::vector<std::string>& reports) {
  const MultiRankResult& r = m.result;
  std::string o = "# Kinetoscope multi-rank report: " + std::to_string(r.ranks.size()) +
                  " ranks\n\n## Findings\n\n";
  if (m.findings.empty()) o += "None: the ranks behave alike.\n\n";
  for (const Finding& f : m.findings) {
    o += "### " + std::string(severity_name(f.severity)) + ": " + markdown_text(f.title) + "\n\n" +
         f.meaning + "\n\n";
    if (!f.fix.empty()) o += "**Fix:** " + f.fix + "\n\n";
  }
  o += "## Ranks\n\n" + markdown_table(rank_table(r), 2) + "\n";
  std::vector<std::vector<std::string>> means = step_mean_table(r);
  if (!means.empty())
    o += "Per step (mean over each rank's steps):\n\n" + markdown_table(means, 0) + "\n";
  o += "## Collectives\n\n" + std::to_string(r.collectives.size()) +
       " matched per communicator by order of issue" +
       (r.counts_match ? "" : " (counts differ between ranks" + in_channel(r) + ")") +
       (r.names_match
            ? ""
            : "; names differ from position " + std::to_string(r.first_mismatch) + in_channel(r)) +
       ".\n\n";
  std::vector<std::vector<std::string>> coll = collective_table(r);
  if (!coll.empty()) o += markdown_table(coll, 2, 1) + "\n";
  o += "## Alignment\n\n" + alignment_line(r.alignment) + ".\n\n" +
       markdown_table(alignment_table(r), 0) + "\n";
  for (size_t i : m.order)
    if (i < reports.size()) o += reports[i] + "\n";
  return o;
}

}  // namespace ks
