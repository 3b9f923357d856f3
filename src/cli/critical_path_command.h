// `kinetoscope critical-path TRACE [--annotation NAME] [--instance N] [--whole-trace]
// [--format text|md|json] [-o FILE]`: what bounds one step, as HTA's critical_path_analysis
// computes it (analysis/critical_path.h). Native only.
#pragma once
#include <string>
#include <vector>

namespace ks::cli {

// `args` are the words after "critical-path". Returns the exit status (0 written; 1 the trace
// could not be read or has no such window; 2 usage).
int critical_path_command(const std::vector<std::string>& args);

}  // namespace ks::cli
