// Sections of the JSON report written by other files than json_report.cpp, so each stays small.
#pragma once
#include "analysis/analyze.h"
#include "util/json_writer.h"

namespace ks {

// json_analyses.cpp: the HTA / TB-plugin / nsys analyses, in docs/report-schema.md order.
void write_analyses_json(JsonWriter& w, const Trace& trace, const Analyses& analyses);

}  // namespace ks
