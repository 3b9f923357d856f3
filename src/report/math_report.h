// The math-efficiency section (analysis/math_efficiency.h) as text, Markdown and JSON, for
// `kinetoscope math TRACE` and the page's table. JSON schema: kinetoscope.math/1
// (docs/report-schema.md, "Math efficiency").
#pragma once
#include <string>

#include "analysis/math_efficiency.h"
#include "util/json_writer.h"

namespace ks {

// One of the op's longest kernels is a Winograd or FFT convolution (cuDNN/MIOpen name them so):
// those do fewer multiplications than the direct formula counts, so % of peak can pass 100
// (resnet50's 3x3 convolutions reach 168% of a V100's fp32 peak). The FLOPs stay the model's.
bool uses_winograd_or_fft(const MathOpRow& r);

// The JSON object's members (kinetoscope.math/1), for a report that nests it under "math".
void write_math_json(JsonWriter& w, const MathEfficiency& m, const std::string& trace_name);
std::string math_text(const MathEfficiency& m, const std::string& trace_name);
std::string math_markdown(const MathEfficiency& m, const std::string& trace_name);
std::string math_json(const MathEfficiency& m, const std::string& trace_name);

}  // namespace ks
