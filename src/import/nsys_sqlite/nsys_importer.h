// Fills the columnar model (model/trace.h) from an Nsight Systems export, through the same
// TraceBuilder the JSON importer uses, so analyses, findings and views never ask which format a
// trace came from. How nsys rows map onto the model is documented in docs/report-schema.md
// ("Nsight Systems exports") and at the top of nsys_importer.cpp.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "import/import_error.h"
#include "import/nsys_sqlite/nsys_database.h"
#include "model/trace.h"

namespace ks {

// The processes of an export that ran GPU work (kernels, copies or memsets), ordered by the
// lowest GPU each used, then pid: with `nsys profile torchrun --nproc_per_node=N`, one export
// holds N such processes, the ranks, each driving GPU LOCAL_RANK. Empty on a SQLite failure.
struct NsysGpuProcess {
  int64_t pid = 0;
  int64_t first_device = 0;
};
std::vector<NsysGpuProcess> nsys_gpu_processes(const NsysDatabase& db);

struct NsysImportOptions {
  std::string source_name;  // the file's name, as the report shows it
  // Read only this process (its CPU rows, its GPU ops, the metrics of its GPUs); negative: all.
  int64_t only_pid = -1;
  // When set and all processes are read: filled with what nsys_gpu_processes() would answer,
  // gathered from the rows as they are read (the page asks after every import, and a second scan
  // of the GPU tables took 0.8-1.6 s of a 400 MB export's load).
  std::vector<NsysGpuProcess>* gpu_processes = nullptr;
};

// The most slices, flows and launch infos (kernels and copies) an import of the export can add,
// for reserving the model's columns before it (push_back would double them, and a doubling
// briefly holds old and new). Rows are counted as max(rowid) (exports are written once, rowids
// 1..rows: one B-tree descent, not a scan), bounded by the file's size (a row takes more than 16
// bytes) so a hostile rowid cannot ask for more. Every table that adds slices counts (a context
// switch out and in make one off-CPU slice): the few slices of one left out, read last, once
// doubled every column of a 400 MB export (+680 MB, and 2 s of page faults natively).
struct NsysRowBound {
  uint64_t slices = 0, flows = 0, launch_infos = 0;
  uint64_t calls = 0;  // CUDA API calls, which GPU ops name by correlation id
};
NsysRowBound nsys_row_bound(const NsysDatabase& db);

// Returns nullptr and fills *error when the export cannot be used (e.g. no CUPTI kernel table and
// nothing else to show); what was merely absent goes to the trace's Diagnostics.
std::unique_ptr<Trace> import_nsys(const NsysDatabase& db, const NsysImportOptions& options,
                                   ImportError* error);

}  // namespace ks
