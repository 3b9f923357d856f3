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

// The processes of an export that ran GPU work (kernels, copies or memsets), ordered by the GPU
// each worked on, then pid: with `nsys profile torchrun --nproc_per_node=N`, one export holds N
// such processes, the ranks, each driving GPU LOCAL_RANK. Empty on a SQLite failure.
struct NsysGpuProcess {
  int64_t pid = 0;
  // The GPU the process did most of its GPU work on (the most summed op time; the lowest of
  // equals, so the lowest it named when none was timed; 0 when every row's device was NULL). Not
  // the lowest it touched: a worker that made a tensor on cuda:0 before torch.cuda.set_device(r)
  // works on GPU r, and keyed by GPU 0 every such worker read as one GPU's ranks.
  int64_t device = 0;
  // What tells a rank from a helper (nsys_rank_plan): the span of its timed GPU ops (0, 0 when
  // none was timed), their summed time, and whether a kernel was a collective (NCCL, RCCL, HCCL).
  int64_t first_ns = 0, last_ns = 0;
  int64_t op_ns = 0;
  bool collective = false;
};
std::vector<NsysGpuProcess> nsys_gpu_processes(const NsysDatabase& db);

// Which of an export's GPU processes are ranks of one job, each read as its own trace. Every GPU
// a process drives first makes one rank, its main process the one with the most GPU time; another
// process on the same GPU is a rank of its own only when it looks like one: a collective kernel,
// or GPU work spread over at least half of the export's GPU span (mpirun -np 2 on one GPU, MPS).
// The rest are helpers (torch.compile's autotuning subprocess, a DataLoader worker that touched
// CUDA, a health check): short, on a GPU the job drives, with nothing to say to the other ranks.
// They are read with the rank of their GPU, as their kernels took its GPU's time, and a
// diagnostic names them. The recorded environment (RANK, OMPI_COMM_WORLD_RANK...) is the nsys
// launcher's, one for the whole export, so it cannot tell processes apart.
struct NsysRank {
  int64_t pid = 0;     // the main process, whose pid names the rank
  int64_t device = 0;  // the GPU its main process works on (NsysGpuProcess::device)
  std::vector<int64_t> helpers;
};
struct NsysRankPlan {
  // In nsys_gpu_processes() order. Fewer than two, or more than kMaxExportRanks: the export is
  // one trace (too_many says which).
  std::vector<NsysRank> ranks;
  size_t helpers = 0;                   // processes read with a rank
  size_t rank_like = 0;                 // ranks found, before the cap
  bool too_many = false;                // rank_like > kMaxExportRanks: read as one trace
  std::vector<int64_t> shared_devices;  // GPUs that two or more ranks drive, sorted
  bool split() const { return ranks.size() >= 2; }
  const NsysRank* find(int64_t pid) const;
};
// Each rank is a full read of the export's tables, so their number is bounded: one node's GPUs
// (8, 16 on the largest) times a few processes each under MPS. An export with more rank-like
// processes (8,000 one-kernel processes took 38 s read one by one) is analysed as one trace.
constexpr size_t kMaxExportRanks = 32;
NsysRankPlan nsys_rank_plan(const std::vector<NsysGpuProcess>& procs);

struct NsysImportOptions {
  std::string source_name;  // the file's name, as the report shows it
  // Read only this process (its CPU rows, its GPU ops, the metrics of its GPUs); negative: all.
  // With plan: the rank's helpers are read with it, and the GPU work of other processes on the
  // GPUs it shares with other ranks goes to facts.other_processes_gpu_work.
  int64_t only_pid = -1;
  const NsysRankPlan* plan = nullptr;
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
