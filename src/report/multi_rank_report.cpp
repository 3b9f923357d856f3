#include "report/multi_rank_report.h"

#include <algorithm>
#include <cstdio>

#include "findings/multi_rank_rules.h"
#include "report/findings_json.h"
#include "report/report.h"
#include "util/format.h"
#include "util/json_writer.h"

namespace ks {

MultiRankReport combine_ranks(const std::vector<RankDigest>& digests) {
  MultiRankReport m;
  m.order.resize(digests.size());
  for (size_t i = 0; i < digests.size(); ++i) m.order[i] = i;
  // The same stable order compare_ranks uses.
  std::stable_sort(m.order.begin(), m.order.end(),
                   [&digests](size_t a, size_t b) { return digests[a].rank < digests[b].rank; });
  m.result = compare_ranks(digests);
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
    if (it == row.step_numbers.end()) w.null();
    else w.micros(values[static_cast<size_t>(it - row.step_numbers.begin())]);
  }
  w.end_array();
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
    w.field_micros("dataloader_us", row.dataloader_ns);
    w.field_micros("memcpy_us", row.memcpy_ns);
    w.field("collectives", row.collectives);
    w.field_micros("collective_sum_us", row.collective_sum_ns);
    w.field_micros("transfer_us", row.transfer_ns);
    w.field_micros("wait_us", row.wait_ns);
    w.end_object();
  }
  w.end_array();
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
  w.end_object();
  w.key("collectives").begin_object();
  w.field("counts_match", r.counts_match);
  w.field("names_match", r.names_match);
  w.field("matched", static_cast<uint64_t>(r.collectives.size()));
  w.key("rows").begin_array();
  for (const CollectiveRow& c : r.collectives) {
    w.begin_object();
    w.field("index", static_cast<uint64_t>(c.index));
    w.field("name", std::string_view(c.name_text));
    w.field_micros("transfer_us", c.transfer_ns);
    w.key("dur_us").begin_array();
    for (int64_t d : c.dur_ns) w.micros(d);
    w.end_array();
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
  rows.push_back({"rank", "from", "steps", "step med (ms)", "compute (ms)", "comm (ms)",
                  "overlap", "idle (ms)", "data (ms)", "memcpy (ms)", "wait (ms)"});
  for (const RankRow& row : r.ranks) {
    rows.push_back({std::to_string(row.rank), rank_source_name(row.source),
                    std::to_string(row.steps), ms(static_cast<int64_t>(row.step_median_ns)),
                    ms(row.compute_ns), ms(row.communication_ns), format_pct(row.overlap_pct),
                    ms(row.idle_ns), ms(row.dataloader_ns), ms(row.memcpy_ns), ms(row.wait_ns)});
  }
  return rows;
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
  auto table = rank_table(r);
  std::vector<size_t> width(table[0].size(), 0);
  for (const auto& row : table)
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  for (const auto& row : table) {
    o += " ";
    for (size_t c = 0; c < row.size(); ++c) {
      std::string cell = row[c];
      o += " " + std::string(width[c] - cell.size(), ' ') + cell;
    }
    o += "\n";
  }
  o += "\nCollectives: " + std::to_string(r.collectives.size()) + " matched by order of issue" +
       (r.counts_match ? "" : " (counts differ between ranks)") +
       (r.names_match ? "" : "; names differ from position " + std::to_string(r.first_mismatch)) +
       "\n";
  for (size_t k = 0; k < m.order.size(); ++k) {
    if (m.order[k] >= reports.size()) continue;
    o += "\n---- rank " + std::to_string(r.ranks[k].rank) + " (" + r.ranks[k].file + ")\n";
    o += reports[m.order[k]];
  }
  return o;
}

std::string multi_rank_markdown(const MultiRankReport& m, const std::vector<std::string>& reports) {
  const MultiRankResult& r = m.result;
  std::string o = "# Kinetoscope multi-rank report: " + std::to_string(r.ranks.size()) + " ranks\n\n## Findings\n\n";
  if (m.findings.empty()) o += "None: the ranks behave alike.\n\n";
  for (const Finding& f : m.findings) {
    o += "### " + std::string(severity_name(f.severity)) + ": " + f.title + "\n\n" + f.meaning + "\n\n";
    if (!f.fix.empty()) o += "**Fix:** " + f.fix + "\n\n";
  }
  o += "## Ranks\n\n";
  auto table = rank_table(r);
  for (size_t i = 0; i < table.size(); ++i) {
    o += "|";
    for (const std::string& c : table[i]) o += " " + c + " |";
    o += "\n";
    if (i == 0) {
      o += "|";
      for (size_t c = 0; c < table[i].size(); ++c) o += c < 2 ? "---|" : "---:|";
      o += "\n";
    }
  }
  o += "\n";
  for (size_t i : m.order)
    if (i < reports.size()) o += reports[i] + "\n";
  return o;
}

}  // namespace ks
