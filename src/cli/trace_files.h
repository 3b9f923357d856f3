// Which files on the command line are traces: a folder stands for the trace files in it (not
// recursive), in name order. Shared by `report` and `digest`.
#pragma once
#include <string>
#include <vector>

namespace ks::cli {

// *.json, *.json.gz (PyTorch/Chrome traces) and *.sqlite (Nsight Systems exports); a fleet
// digest (*.digest.json) is not a trace.
bool is_trace_name(const std::string& name);

// Appends `path` itself, or, for a folder, the trace files in it in name order.
void expand_path(const std::string& path, std::vector<std::string>* out);

}  // namespace ks::cli
