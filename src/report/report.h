// One report per trace: the facts, the analyses and the findings, ready to be written as JSON
// (the documented schema in docs/report-schema.md; the page shows exactly this), text (a
// terminal) or Markdown (a pull request or an issue).
#pragma once
#include <string>
#include <vector>

#include "analysis/analyze.h"
#include "findings/finding.h"
#include "import/import_error.h"
#include "model/trace.h"

namespace ks {

constexpr const char* kReportSchema = "kinetoscope.report/1";
constexpr const char* kVersion = "0.1.0";

struct Report {
  const Trace* trace = nullptr;
  Analyses analyses;
  std::vector<Finding> findings;
};

Report build_report(const Trace& trace, const AnalysisOptions& options);

std::string report_json(const Report& report);
std::string report_text(const Report& report);
std::string report_markdown(const Report& report);

// The JSON the page receives for a file that could not be read.
std::string import_error_json(const ImportError& error);

// Shared by the writers: counts of what the trace holds.
struct TrackCounts {
  uint64_t processes = 0, threads = 0, gpu_devices = 0, gpu_streams = 0;
};
TrackCounts count_tracks(const Trace& trace);

}  // namespace ks
