// kinetoscope stats EXPORT.sqlite [--report NAME]... [--format text|csv|json] [-o FILE]
#pragma once
#include <string>
#include <vector>

namespace ks::cli {

// `args` without the leading "stats". Exit status: 0 written, 1 the input is not a readable
// Nsight Systems export (one line on standard error), 2 usage error.
int stats_command(const std::vector<std::string>& args);

}  // namespace ks::cli
