// Sections of the JSON report written by other files than json_report.cpp, so each stays small.
#pragma once
#include "analysis/analyze.h"
#include "util/json_writer.h"

namespace ks {

// The nsys summary columns of one set of durations: count, total_us, avg_us, median_us, min_us,
// max_us, stddev_us (json_report.cpp). Every summary table of the report writes them this way.
void write_duration_stats_json(JsonWriter& w, const DurationStats& stats);

// Tables of names (kernels, CPU ops, API calls, annotations) list at most this many rows, the
// largest first, then say what they left out (only when they do): `omitted_rows` and
// `omitted_total_us` (their summed time). A trace of 10^6 distinct names gave a 365 MB report; this
// keeps it under a few MB while every total above the rows still counts everything.
constexpr size_t kMaxTableRows = 1000;

// Writes `omitted_rows` and `omitted_total_us` for the rows of `rows` past kMaxTableRows, whose
// time `ns_of(row)` gives; nothing when every row is listed.
template <class Rows, class NsOf>
void write_omitted_rows(JsonWriter& w, const Rows& rows, NsOf ns_of) {
  if (rows.size() <= kMaxTableRows) return;
  int64_t ns = 0;
  for (size_t i = kMaxTableRows; i < rows.size(); ++i) ns += ns_of(rows[i]);
  w.field("omitted_rows", static_cast<uint64_t>(rows.size() - kMaxTableRows));
  w.field_micros("omitted_total_us", ns);
}

// json_analyses.cpp: the HTA / TB-plugin / nsys analyses, in docs/report-schema.md order.
void write_analyses_json(JsonWriter& w, const Trace& trace, const Analyses& analyses);

}  // namespace ks
