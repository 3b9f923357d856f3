#include "report/critical_path_report.h"

#include <algorithm>
#include <numeric>

#include "util/compact_name.h"
#include "util/format.h"
#include "util/markdown.h"
#include "util/safe_text.h"

namespace ks {
namespace {

// The labels shown, in HTA's order of its summary (the empty label is its weight-0 edges).
constexpr CpBound kShown[] = {CpBound::kCpu,
                              CpBound::kGpuCompute,
                              CpBound::kGpuCommunication,
                              CpBound::kGpuKernelKernel,
                              CpBound::kGpuLaunch,
                              CpBound::kNone};

const char* short_type(CpEdgeType t) {
  switch (t) {
    case CpEdgeType::kOperator:
      return "operator";
    case CpEdgeType::kDependency:
      return "dependency";
    case CpEdgeType::kLaunchDelay:
      return "launch_delay";
    case CpEdgeType::kKernelKernelDelay:
      return "kernel_kernel_delay";
    case CpEdgeType::kSyncDependency:
      return "sync_dependency";
  }
  return "";
}

std::string_view event_name(const Trace& t, int32_t slice) {
  return slice < 0 ? std::string_view("(top of stack)")
                   : t.str(t.slices.name[static_cast<size_t>(slice)]);
}

std::string window_line(const CriticalPathResult& r) {
  std::string s = display_safe(r.window_label, 120);
  if (!r.annotation.empty())
    s += " (annotation \"" + display_safe(r.annotation, 120) + "\", instance " +
         std::to_string(r.instance) + ")";
  s += ", " + format_duration(r.window_end - r.window_begin) + " window";
  return s;
}

}  // namespace

std::string critical_path_sentence(const CriticalPathResult& r) {
  if (!r.ok || r.total <= 0) return "";
  const CpBound d = r.dominant();
  const std::string pct = format_pct(100.0 * r.share(d));
  const std::string total = format_duration(r.total);
  // Under 60% no side dominates: both the CPU and the GPU work on the path would need to shrink.
  if (r.share(d) < 0.6) {
    std::string split;
    for (CpBound b : kShown) {
      if (b == CpBound::kNone || r.bound[static_cast<int>(b)] == 0) continue;
      split += (split.empty() ? "" : ", ") + std::string(cp_bound_name(b)) + " " +
               format_pct(100.0 * r.share(b));
    }
    return "no one side bounds the step's critical path (" + total + "): " + split;
  }
  switch (d) {
    case CpBound::kGpuCompute:
      return "the step is " + pct + " GPU-compute-bound on its critical path (" + total +
             "): faster kernels shorten it; CPU-side work is not what limits it";
    case CpBound::kGpuCommunication:
      return "the step is " + pct + " bound by GPU communication on its critical path (" + total +
             "): collectives limit it";
    case CpBound::kGpuKernelKernel:
      return "the step's critical path (" + total + ") is " + pct +
             " gaps between GPU kernels: fusing or graphing kernels shortens it";
    case CpBound::kGpuLaunch:
      return "the step's critical path (" + total + ") is " + pct +
             " kernel launch delays: the GPU waits for launches";
    default:
      return "the step is " + pct + " CPU-bound on its critical path (" + total +
             "): GPU work is not what limits it";
  }
}

namespace {

// The result as JSON fields (docs/report-schema.md, "critical_path"), and its path as a table
// (text and Markdown show it when `path_shown`, from the window's start): `max_path` > 0 keeps
// only that many edges of the path (the heaviest, in path order) and says how many were left out.
void add_critical_path_json(ReportSection* s, const Trace& t, const CriticalPathResult& r,
                            size_t max_path, bool path_shown) {
  s->field("ok", Cell::flag(r.ok));
  s->field("error", r.ok ? Cell::absent() : Cell::str(r.error));
  s->field("window", Cell::str(r.window_label));
  s->field("annotation", Cell::str(r.annotation));
  s->field("instance", Cell::integer(r.instance));
  s->field("window_slice", Cell::integer(r.window_slice));
  // Times from the trace's time zero (facts.origin_ns()), as everywhere in the JSON report.
  const int64_t t0 = t.facts.origin_ns();
  s->field("window_begin_us", Cell::ns(r.window_begin - t0));
  s->field("window_end_us", Cell::ns(r.window_end - t0));
  s->field("path_total_us", Cell::ns(r.total));
  s->begin_object("bound_by_us");
  for (CpBound b : kShown) s->field(cp_bound_name(b), Cell::ns(r.bound[static_cast<int>(b)]));
  s->end_object();
  s->begin_object("bound_by_pct");
  for (CpBound b : kShown) s->field(cp_bound_name(b), Cell::number(100.0 * r.share(b)));
  s->end_object();
  s->field("dominant", Cell::str(cp_bound_name(r.ok ? r.dominant() : CpBound::kNone)));
  s->field("summary", Cell::str(s->own(critical_path_sentence(r))));
  s->field("graph_nodes", Cell::count(r.nodes));
  s->field("graph_edges", Cell::count(r.edges));
  s->field("events_on_path", Cell::count(r.path.size()));
  // The path, or its heaviest edges (kept in path order).
  std::vector<size_t> keep(r.path.size());
  std::iota(keep.begin(), keep.end(), size_t{0});
  if (max_path > 0 && keep.size() > max_path) {
    std::stable_sort(keep.begin(), keep.end(),
                     [&r](size_t a, size_t b) { return r.path[a].weight > r.path[b].weight; });
    keep.resize(max_path);
    std::sort(keep.begin(), keep.end());
  }
  s->field("path_left_out", Cell::count(r.path.size() - keep.size()));
  Table& path = s->table("path");
  path.columns = {
      Column("slice"),
      Column("name").text("event", Show::kName).md("event", Show::kName).left().max_len(100, 200),
      Column("ts_us"),
      Column(nullptr)
          .text("start (us)", Show::kMicros, 14)
          .md("start (us)", Show::kMicros)
          .digits(3),
      Column("duration_us").text("weight", Show::kDuration, 10, 2).md("weight", Show::kDuration),
      Column("edge_type"),
      Column(nullptr).text("edge", Show::kPlain, 20, 2).md("edge", Show::kPlain).left(),
      Column("bound_by").text("bound_by", Show::kPlain, 27).md("bound_by", Show::kPlain).left()};
  path.shown = {3, 4, 6, 7, 1};
  for (size_t k : keep) {
    const CpPathEdge& e = r.path[k];
    path.row() = {Cell::integer(e.slice),
                  Cell::str(event_name(t, e.slice)),
                  Cell::ns(e.from_ts - t0),
                  Cell::ns(e.from_ts - r.window_begin),
                  Cell::ns(e.weight),
                  Cell::str(cp_edge_type_name(e.type)),
                  Cell::str(short_type(e.type)),
                  Cell::str(cp_bound_name(e.bound))};
  }
  path.md_blank_after = false;
  if (!path_shown) path.json_only();
}

// What bounds the path, per label: the text lists the labels with time on the path (the
// communication label only when there is some), Markdown every label.
void add_bound_tables(ReportSection* s, const CriticalPathResult& r) {
  for (bool markdown : {false, true}) {
    Table& t = s->table(nullptr);
    t.columns = {Column(nullptr), Column(nullptr), Column(nullptr)};
    if (markdown) {
      t.columns[0].md("bound_by", Show::kName).left();
      t.columns[1].md("time", Show::kDuration);
      t.columns[2].md("share", Show::kPct);
      t.md_blank_after = false;
    } else {
      t.columns[0].text("", Show::kPlain, 28).left();
      t.columns[1].text("", Show::kDuration, 12);
      t.columns[2].text("", Show::kPct, 6, 2);
      t.text_header = false;
    }
    for (CpBound b : kShown) {
      const int64_t v = r.bound[static_cast<int>(b)];
      if (b == CpBound::kNone || (!markdown && v == 0 && b == CpBound::kGpuCommunication)) continue;
      t.row() = {Cell::str(cp_bound_name(b)), Cell::ns(v), Cell::number(100.0 * r.share(b))};
    }
  }
}

// `kinetoscope critical-path`: the window, what bounds it, the whole path.
ReportSection command_section(const Trace& t, const CriticalPathResult& r) {
  ReportSection s(nullptr);
  if (!r.ok) {
    s.line("Critical path: none (" + r.error + ")");
    s.paragraph("# Critical path\n\nNone: " + markdown_text(r.error) + "\n");
    add_critical_path_json(&s, t, r, 0, false);
    return s;
  }
  const std::string sentence = critical_path_sentence(r);
  s.line("Critical path of " + window_line(r));
  s.line("  path total " + format_duration(r.total) + " over " + std::to_string(r.path.size()) +
         " edges (graph: " + std::to_string(r.nodes) + " nodes, " + std::to_string(r.edges) +
         " edges)");
  if (!sentence.empty()) s.line("  " + sentence);
  s.line("\nWhat bounds it (HTA's bound_by):");
  s.paragraph("# Critical path\n\nWindow: " + markdown_text(window_line(r)) + ". Path total **" +
              format_duration(r.total) + "** over " + std::to_string(r.path.size()) +
              " edges.\n\n" + (sentence.empty() ? "" : markdown_text(sentence) + ".\n\n"));
  add_bound_tables(&s, r);
  s.line("\nPath, in order (edges of weight 0 are dependencies and syncs):");
  s.paragraph("\n## Path\n\n");
  add_critical_path_json(&s, t, r, 0, true);
  if (r.path.empty()) {
    s.line("  none: the window has no edge (no CPU op or GPU kernel in it is on a path)");
    s.paragraph("None: the window has no edge (no CPU op or GPU kernel in it is on a path).\n");
  }
  return s;
}

}  // namespace

std::string critical_path_json(const Trace& t, const CriticalPathResult& r) {
  JsonWriter w;
  w.begin_object();
  write_section_json(w, command_section(t, r));
  w.end_object();
  std::string out = w.take();
  out += '\n';
  return out;
}

std::string critical_path_text(const Trace& t, const CriticalPathResult& r) {
  std::string out;
  append_section_text(&out, command_section(t, r));
  return out;
}

std::string critical_path_markdown(const Trace& t, const CriticalPathResult& r) {
  std::string out;
  append_section_markdown(&out, command_section(t, r));
  return out;
}

namespace {

// The heaviest events on the path (by their summed weight on it), at most `n`.
std::vector<std::pair<int32_t, int64_t>> heaviest(const CriticalPathResult& r, size_t n) {
  // Summed by slice with one sort (a path has tens of thousands of edges: no search per edge).
  std::vector<std::pair<int32_t, int64_t>> edges;
  for (const CpPathEdge& e : r.path)
    if (e.slice >= 0 && e.weight > 0) edges.emplace_back(e.slice, e.weight);
  std::sort(edges.begin(), edges.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<int32_t, int64_t>> by_slice;
  for (const auto& e : edges) {
    if (!by_slice.empty() && by_slice.back().first == e.first)
      by_slice.back().second += e.second;
    else
      by_slice.push_back(e);
  }
  std::stable_sort(by_slice.begin(), by_slice.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (by_slice.size() > n) by_slice.resize(n);
  return by_slice;
}

std::string shares_line(const CriticalPathResult& r) {
  std::string s;
  for (CpBound b : kShown) {
    if (b == CpBound::kNone ||
        (b == CpBound::kGpuCommunication && r.bound[static_cast<int>(b)] == 0))
      continue;
    if (!s.empty()) s += ", ";
    s += std::string(cp_bound_name(b)) + " " + format_pct(100.0 * r.share(b));
  }
  return s;
}

}  // namespace

ReportSection critical_path_section(const Trace& t, const CriticalPathResult& r) {
  ReportSection s("critical_path");
  add_critical_path_json(&s, t, r, 20,
                         false);  // the CLI's critical-path and the page give all edges
  if (!r.ok || r.total <= 0) return s;
  s.linef("What bounds the step (critical path of %s, as HTA computes it): %s",
          display_safe(r.window_label, 100).c_str(), format_duration(r.total).c_str());
  s.line("  " + shares_line(r));
  s.line("  " + critical_path_sentence(r));
  const auto top = heaviest(r, 3);
  std::string text, md;
  for (size_t i = 0; i < top.size(); ++i) {
    const std::string_view name = event_name(t, top[i].first);
    const std::string time = " " + format_duration(top[i].second);
    text += (i ? ", " : "") + display_safe(compact_name(name, 60), 60) + time;
    md += std::string(i ? "," : "") + " " + markdown_code_cell(name, 120) + time;
  }
  if (!top.empty()) s.line("  heaviest on the path: " + text);
  s.line("  (the whole path, another step: kinetoscope critical-path TRACE --help)\n");
  s.paragraph("## What bounds the step\n\nCritical path of " + markdown_text(r.window_label) +
              " (as HTA's critical_path_analysis computes it): **" + format_duration(r.total) +
              "**; " + markdown_text(shares_line(r)) + ". " +
              markdown_text(critical_path_sentence(r)) + ".\n\n" +
              (top.empty() ? "" : "Heaviest on the path:" + md + ".\n\n"));
  return s;
}

}  // namespace ks
