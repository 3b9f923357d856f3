// `kinetoscope critical-path` output (text, Markdown, JSON) of one CriticalPathResult, and the
// short "what bounds the step" summary the full report carries. JSON fields:
// docs/report-schema.md ("critical_path").
#pragma once
#include <string>

#include "analysis/critical_path.h"
#include "report/report_table.h"

namespace ks {

// The whole result: window, total, bound_by_us, and every edge of the path in order.
std::string critical_path_text(const Trace& t, const CriticalPathResult& r);
std::string critical_path_markdown(const Trace& t, const CriticalPathResult& r);
std::string critical_path_json(const Trace& t, const CriticalPathResult& r);

// The report's "critical_path" section: the JSON with the 20 heaviest edges of the path, and
// the short "what bounds the step" of the text and Markdown (nothing when there is no path).
ReportSection critical_path_section(const Trace& t, const CriticalPathResult& r);

// One sentence: "the step is 98.1% CPU-bound on its critical path (2.41 ms): ...".
std::string critical_path_sentence(const CriticalPathResult& r);

}  // namespace ks
