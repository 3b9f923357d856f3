// The trace diff report (`kinetoscope diff BASE TEST`, the page's "Compare two traces"): the
// step-time delta, then GPU ops and CPU ops by name with count and time deltas, sorted by the
// size of the time change, and the names only one trace has. JSON (schema kinetoscope.diff/1,
// docs/report-schema.md), text and Markdown.
#pragma once
#include <string>

#include "analysis/trace_diff.h"

namespace ks {

constexpr const char* kDiffSchema = "kinetoscope.diff/1";

std::string trace_diff_json(const TraceDiff& diff);
std::string trace_diff_text(const TraceDiff& diff);
std::string trace_diff_markdown(const TraceDiff& diff);

// What a row is: "added" (only in TEST), "removed" (only in BASE), "changed", "same".
const char* diff_row_status(const DiffRow& row);

}  // namespace ks
