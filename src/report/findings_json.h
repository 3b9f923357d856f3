// Findings as JSON: shared by the single-trace report and the multi-rank report.
#pragma once
#include <vector>

#include "findings/finding.h"
#include "model/trace.h"
#include "util/json_writer.h"

namespace ks {

// Writes "findings": [...]. `trace` gives the time origin and the names of referenced events;
// without one (multi-rank findings) times are written as they are and no events are listed.
void write_findings_json(JsonWriter& w, const Trace* trace, const std::vector<Finding>& findings);

}  // namespace ks
