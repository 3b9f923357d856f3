// The report's header: what the file is (format, size, events by phase and category, span),
// its processes, threads and GPU streams, the device, the rank and how it was captured.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/export_row.h"
#include "report/report.h"
#include "report/sections/sections.h"
#include "util/format.h"
#include "util/markdown.h"
#include "util/safe_text.h"

namespace ks {

namespace {

Cell text_or_null(std::string_view s) {
  return s.empty() ? Cell::null() : Cell::str(s);
}

Cell capture_flag(int v) {  // -1: the trace does not say
  return v < 0 ? Cell::null() : Cell::flag(v != 0);
}

// Phases and categories are the file's text, one key per distinct value: 100,000 distinct 1 KiB
// `ph` values made a 102 MB JSON report of this object alone. A real trace has under 20 phases
// and under 40 categories; past this many keys the report keeps the most frequent (ties in key
// order) and says what it left out, as the name tables do.
constexpr size_t kMaxCountKeys = 100;

struct BoundedCounts {
  std::vector<const std::pair<const std::string, uint64_t>*> kept;  // in key order
  uint64_t omitted_keys = 0, omitted_events = 0;
};

BoundedCounts bounded_counts(const std::map<std::string, uint64_t>& counts) {
  BoundedCounts b;
  for (const auto& kv : counts) b.kept.push_back(&kv);
  if (b.kept.size() <= kMaxCountKeys) return b;
  // The map's order is the key order, so a stable sort by count breaks ties by key.
  std::stable_sort(b.kept.begin(), b.kept.end(),
                   [](const auto* a, const auto* c) { return a->second > c->second; });
  for (size_t i = kMaxCountKeys; i < b.kept.size(); ++i) {
    ++b.omitted_keys;
    b.omitted_events += b.kept[i]->second;
  }
  b.kept.resize(kMaxCountKeys);
  std::sort(b.kept.begin(), b.kept.end(),
            [](const auto* a, const auto* c) { return a->first < c->first; });
  return b;
}

// JSON: `key` as an object of the kept counts, then `key`_omitted ({keys, events}) only when
// some were left out.
void add_counts(ReportSection* s, const char* key, const std::map<std::string, uint64_t>& counts,
                const char* empty_key) {
  const BoundedCounts b = bounded_counts(counts);
  s->begin_object(key);
  for (const auto* kv : b.kept)
    s->field(empty_key && kv->first.empty() ? std::string(empty_key) : kv->first,
             Cell::count(kv->second));
  s->end_object();
  if (b.omitted_keys == 0) return;
  s->begin_object(std::string(key) + "_omitted");
  s->field("keys", Cell::count(b.omitted_keys));
  s->field("events", Cell::count(b.omitted_events));
  s->end_object();
}

// The text header's "X 5, B 2": at most this many phases, each made safe for a terminal (a phase
// is the file's text: an escaped ESC or U+202E in it reached the terminal as written) and cut.
constexpr size_t kMaxPhasesInText = 16;
constexpr size_t kMaxPhaseTextBytes = 24;

std::string phases_text(const std::map<std::string, uint64_t>& counts) {
  std::string out;
  size_t shown = 0;
  uint64_t more = 0;
  for (const auto& kv : counts) {
    if (shown == kMaxPhasesInText) {
      ++more;
      continue;
    }
    out += (out.empty() ? "" : ", ") + display_safe(kv.first, kMaxPhaseTextBytes) + " " +
           std::to_string(kv.second);
    ++shown;
  }
  if (more) out += ", and " + std::to_string(more) + " more phases";
  return out;
}

void add_trace_prose(ReportSection* s, const Trace& t, const TrackCounts& c) {
  const TraceFacts& f = t.facts;
  const std::string phases = phases_text(f.events_by_phase);
  const std::string size = format_bytes(static_cast<int64_t>(f.json_bytes)) +
                           (f.format == TraceFormat::kNsysSqlite ? " of SQLite" : " of JSON") +
                           (f.source_gzip ? " (gzip)" : "");
  const std::string counts = std::to_string(c.processes) + " processes, " +
                             std::to_string(c.threads) + " threads, " +
                             std::to_string(c.gpu_devices) + " GPU devices, " +
                             std::to_string(c.gpu_streams) + " GPU streams";
  std::string device = t.devices.empty()                ? "none named"
                       : t.devices.front().name.empty() ? "(unnamed)"
                                                        : display_safe(t.devices.front().name);
  const DistributedInfo& d = t.distributed;
  std::string rank = d.rank == kNoValue ? "-" : std::to_string(d.rank);
  if (d.world_size != kNoValue) rank += "/" + std::to_string(d.world_size);
  s->line("Kinetoscope report: " + display_safe(f.source_name));
  s->linef("Trace: %s, %s, %llu events (%s), span %s", trace_format_name(f.format), size.c_str(),
           static_cast<unsigned long long>(f.events_total), phases.c_str(),
           format_duration(t.span_ns()).c_str());
  // Where an export's times count from: said once, since they are not from the first event.
  const std::string zero = f.has_session_start
                               ? "count from the session start, as in Nsight "
                                 "Systems; the first event is at " +
                                     format_duration(f.first_event_after_origin_ns())
                               : "";
  // An export's capture: the nsys version, how long it ran, the command profiled.
  std::string capture = f.format == TraceFormat::kNsysSqlite ? f.trace_name : "";
  if (f.capture_ns > 0)
    capture += (capture.empty() ? "capture " : ", capture ") + format_duration(f.capture_ns);
  if (!f.capture_command.empty())
    capture += (capture.empty() ? "" : ": ") + display_safe(f.capture_command, 160);
  s->line("       " + counts + "; device: " + device + "; rank: " + rank +
          (zero.empty() && capture.empty() ? "\n" : ""));
  if (!zero.empty()) s->line("       times " + zero + (capture.empty() ? "\n" : ""));
  if (!capture.empty()) s->line("       " + capture + "\n");
  std::string md = "# Kinetoscope report: " + markdown_code_cell(f.source_name) +
                   "\n\n- Format: " + trace_format_name(f.format) + ", " + size + ", " +
                   std::to_string(f.events_total) + " events, span " +
                   format_duration(t.span_ns()) + "\n- " + counts + "\n";
  if (!zero.empty()) md += "- Times " + zero + "\n";
  if (!capture.empty()) md += "- Capture: " + markdown_text(capture, 200) + "\n";
  if (!t.devices.empty()) md += "- Device: " + markdown_cell(t.devices.front().name, 120) + "\n";
  if (d.rank != kNoValue)
    md += "- Rank: " + std::to_string(d.rank) +
          (d.world_size != kNoValue ? " of " + std::to_string(d.world_size) : "") + "\n";
  s->paragraph(md);
}

}  // namespace

ReportSection trace_section(const Trace& t) {
  const TraceFacts& f = t.facts;
  const TrackCounts c = count_tracks(t);
  ReportSection s("trace");
  s.field("file", Cell::str(f.source_name));
  s.field("gzip", Cell::flag(f.source_gzip));
  s.field("format", Cell::str(trace_format_name(f.format)));
  s.field("json_bytes", Cell::count(f.json_bytes));
  s.field("events_total", Cell::count(f.events_total));
  add_counts(&s, "events_by_phase", f.events_by_phase, nullptr);
  add_counts(&s, "categories", f.categories, "(none)");
  s.field("span_us", Cell::ns(t.span_ns()));
  s.field("start_ns", Cell::str(s.own(std::to_string(f.start_ns))));
  // Every _us time in the report counts from origin_ns (report-schema.md, "Conventions").
  s.field("time_zero", Cell::str(f.has_session_start ? "session_start" : "first_event"));
  s.field("origin_ns", Cell::str(s.own(std::to_string(f.origin_ns()))));
  s.field("first_event_us", Cell::ns(f.first_event_after_origin_ns()));
  s.field("slices", Cell::count(t.slices.size()));
  s.field("processes", Cell::count(c.processes));
  s.field("threads", Cell::count(c.threads));
  s.field("gpu_devices", Cell::count(c.gpu_devices));
  s.field("gpu_streams", Cell::count(c.gpu_streams));
  if (t.devices.empty()) {
    s.field("device", Cell::null());
  } else {
    const DeviceProperties& d = t.devices.front();
    s.begin_object("device");
    s.field("name", Cell::str(d.name));
    s.field("total_memory_bytes", Cell::optional(d.total_memory));
    s.field("num_sms", Cell::optional(d.num_sms));
    s.field("compute_capability", d.compute_major == kNoValue
                                      ? Cell::null()
                                      : Cell::str(s.own(std::to_string(d.compute_major) + "." +
                                                        std::to_string(d.compute_minor))));
    s.field("count", Cell::count(t.devices.size()));
    s.end_object();
  }
  s.field("rank", Cell::optional(t.distributed.rank));
  s.field("world_size", Cell::optional(t.distributed.world_size));
  s.field("backend", text_or_null(t.distributed.backend));
  s.field("schema_version", text_or_null(f.schema_version));
  s.begin_object("capture");
  s.field("record_shapes", capture_flag(f.record_shapes));
  s.field("profile_memory", capture_flag(f.profile_memory));
  s.field("with_stack", capture_flag(f.with_stack));
  s.field("with_flops", capture_flag(f.with_flops));
  s.field("with_modules", capture_flag(f.with_modules));
  s.field("call_stacks_seen", Cell::flag(f.saw_call_stack));
  s.field("input_shapes_seen", Cell::flag(f.saw_input_dims));
  // An export's capture, as the text header's "Capture:" line: the profiler and its version, how
  // long the capture ran, the command profiled (null when the trace does not say).
  s.field("profiler",
          f.format == TraceFormat::kNsysSqlite ? text_or_null(f.trace_name) : Cell::null());
  s.field("duration_us", f.capture_ns > 0 ? Cell::ns(f.capture_ns) : Cell::null());
  s.field("command", text_or_null(f.capture_command));
  s.end_object();
  add_trace_prose(&s, t, c);
  return s;
}

// Diagnostics: what the importer met and how it read it, with where it met the first: a byte
// offset of the JSON, or an export's table and row (model/export_row.h; a byte number there
// would mean nothing). JSON keeps `first_offset` for both and adds `first_table`/`first_row` for
// an export; text says "(first at byte N)" or "(first in NVTX_EVENTS row 2)", and nothing where
// the note is about the whole export.
ReportSection diagnostics_section(const Diagnostics& d, TraceFormat format) {
  const bool export_rows = format == TraceFormat::kNsysSqlite;
  ReportSection s(nullptr);  // a top-level array
  s.line("Diagnostics:");
  Table& tb = s.table("diagnostics");
  tb.columns = {Column("code").text("", Show::kPlain, 26).left(),
                Column("severity").text("", Show::kPlain, 8).left(),
                Column("message").text("", Show::kPlain),
                Column("count").text("", Show::kPlain).prefix("x"),
                Column("first_offset").text("", Show::kPlain).prefix("(first at byte ").suffix(")"),
                Column("excerpt"),
                Column("first_table"),
                Column("first_row"),
                Column(nullptr).text("", Show::kPlain, 0, 0)};  // an export's " (first in T row N)"
  tb.shown = export_rows ? std::vector<size_t>{1, 0, 3, 8, 2} : std::vector<size_t>{1, 0, 3, 4, 2};
  tb.text_header = false;
  for (int i = 0; i < static_cast<int>(Diag::kCount); ++i) {
    const DiagEntry& e = d.get(static_cast<Diag>(i));
    if (!e.count) continue;
    const DiagInfo& info = diag_info(static_cast<Diag>(i));
    const std::string_view table = export_rows ? export_table_of(e.first_offset) : "";
    const uint64_t row = export_row_of(e.first_offset);
    tb.row() = {Cell::str(info.code),
                Cell::str(diag_severity_name(info.severity)),
                Cell::str(s.own(d.message(static_cast<Diag>(i)))),
                Cell::count(e.count),
                Cell::count(e.first_offset),
                Cell::str(e.excerpt),
                table.empty() ? Cell::absent() : Cell::str(table),
                table.empty() ? Cell::absent() : Cell::count(row),
                Cell::str(table.empty() ? ""
                                        : s.own(" (first in " + std::string(table) + " row " +
                                                std::to_string(row) + ")"))};
  }
  if (tb.rows.empty()) s.line("  none: the input was read as written");
  return s;
}

}  // namespace ks
