// Native only: an Nsight Systems export on disk -> Trace (FileByteSource + NsysDatabase +
// import_nsys), for the CLI and the tests.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "import/import_error.h"
#include "model/trace.h"

namespace ks {

// Whether the file starts with SQLite's 16-byte header (what the CLI sniffs, not the name).
bool file_is_sqlite(const std::string& path);

std::unique_ptr<Trace> import_nsys_file(const std::string& path, ImportError* error);

// An export that holds several processes with GPU work (`nsys profile torchrun
// --nproc_per_node=N ...` writes one export for all N ranks), read once per process: each trace
// holds one process's rows and its GPUs', named "FILE pid P", with distributed.rank = its place
// in nsys_gpu_processes() order (lowest GPU first) and world_size = N. Empty when the export has
// fewer than two such processes, or on failure (*error filled).
std::vector<std::unique_ptr<Trace>> import_nsys_file_by_process(const std::string& path,
                                                                ImportError* error);

}  // namespace ks
