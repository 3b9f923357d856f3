// kinetoscope math TRACE [--format text|md|json] [--drop-last-step] [--step-range NAME] [-o FILE]
// The math-efficiency table (src/analysis/math_efficiency.h): FLOPs per op from the recorded
// shapes, achieved TFLOP/s against the GPU's peak, MFU per step.
#pragma once
#include <string>
#include <vector>

namespace ks::cli {

// `args` without the leading "math". Exit status: 0 written, 1 the input is not a readable
// trace (one line on standard error), 2 usage error.
int math_command(const std::vector<std::string>& args);

}  // namespace ks::cli
