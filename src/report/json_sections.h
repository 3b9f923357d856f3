// Sections of the JSON report written by other files than json_report.cpp, so each stays small.
#pragma once
#include "analysis/analyze.h"
#include "util/json_writer.h"

namespace ks {

// The nsys summary columns of one set of durations: count, total_us, avg_us, median_us, min_us,
// max_us, stddev_us (json_report.cpp). Every summary table of the report writes them this way.
void write_duration_stats_json(JsonWriter& w, const DurationStats& stats);

// json_analyses.cpp: the HTA / TB-plugin / nsys analyses, in docs/report-schema.md order.
void write_analyses_json(JsonWriter& w, const Trace& trace, const Analyses& analyses);

}  // namespace ks
