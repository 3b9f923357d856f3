// Native only: an Nsight Systems export on disk -> Trace (FileByteSource + NsysDatabase +
// import_nsys), for the CLI and the tests.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "import/import_error.h"
#include "import/nsys_sqlite/nsys_importer.h"
#include "model/trace.h"

namespace ks {

// Whether the file starts with SQLite's 16-byte header (what the CLI sniffs, not the name).
bool file_is_sqlite(const std::string& path);

// With gpu_processes: also the export's processes with GPU work, gathered while reading (what
// nsys_gpu_processes() answers, without its scan of the GPU tables).
std::unique_ptr<Trace> import_nsys_file(const std::string& path, ImportError* error,
                                        std::vector<NsysGpuProcess>* gpu_processes = nullptr);

// An export that holds several ranks (`nsys profile torchrun --nproc_per_node=N ...` writes one
// export for all N; which processes are ranks: nsys_rank_plan), read once per rank: each trace
// holds one rank's rows (its helpers' too) and its GPUs', named "FILE pid P", with
// distributed.rank = its place in the plan (by the GPU it worked on most) and world_size = N. Empty
// when the export has fewer than two ranks or more than kMaxExportRanks, or on failure (*error
// filled).
std::vector<std::unique_ptr<Trace>> import_nsys_file_by_process(const std::string& path,
                                                                ImportError* error);
// The same for an export whose GPU processes are known (import_nsys_file's gpu_processes): when
// they make no ranks the file is not opened again.
std::vector<std::unique_ptr<Trace>> import_nsys_file_by_process(
    const std::string& path, const std::vector<NsysGpuProcess>& procs, ImportError* error);

}  // namespace ks
