// Ranks of several nodes merged into one Kineto file whose GPU events share a device pid: each
// node numbers its own GPUs from 0, so a tool that concatenates two nodes' traces puts both
// ranks' kernels on GPU pid 0 (one track, one "device 0"), and each rank's CUPTI counts its own
// correlation ids from 1, so the ids collide. Read as one trace, rank 1's kernels join rank 0's
// launches and two GPUs' work is counted over one window. Split instead by the process that
// launched each GPU op, as the nsys reader splits an export by process
// (import/nsys_sqlite/nsys_file.h, import_nsys_file_by_process), and compared as ranks. So are
// ranks whose traces kept GPU pids of their own: two host processes or more, each the only one
// launching onto its GPU pids, with comparable work (one process driving several GPUs is one
// rank: tests/corpus/one_process_gpus.py).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "model/trace.h"

namespace ks {

// One trace per launching process, in pid order (empty unless a GPU process's ops were launched
// by two or more processes that each launched at least a tenth as many of them as the most, or
// two or more processes each alone drove GPU processes, each launching at least a tenth as many
// ops as the busiest):
// the process's own CPU tracks, the GPU ops it launched (on a GPU pid shared with another
// rank: those whose launch it holds, see merged_ranks.cpp), the GPU processes it alone drove,
// and the processes that launched nothing (DataLoader workers: in every part, since the file
// does not say whose they are). Each part's distributed.rank is its place in that order.
std::vector<std::unique_ptr<Trace>> split_merged_ranks(const Trace& trace);

// The pids of the ranks split_merged_ranks would give, in its order (empty: one trace), and one
// rank's part alone (nullptr past the last): the page reads each rank in a worker of its own.
std::vector<std::string> merged_rank_pids(const Trace& trace);
std::unique_ptr<Trace> merged_rank_part(const Trace& trace, size_t rank);

}  // namespace ks
