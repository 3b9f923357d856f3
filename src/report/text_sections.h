// Sections of the text and Markdown reports written outside text_report.cpp and
// markdown_report.cpp, so each file stays small.
#pragma once
#include <string>

#include "analysis/analyze.h"

namespace ks {

// text_analyses.cpp: the HTA / TB-plugin / nsys analyses, a few lines each.
void append_analyses_text(std::string* out, const Trace& trace, const Analyses& analyses);
void append_analyses_markdown(std::string* out, const Trace& trace, const Analyses& analyses);

}  // namespace ks
