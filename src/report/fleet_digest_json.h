// The fleet digest (`kinetoscope digest`, docs/fleet.md: kinetoscope.digest/1): what the
// multi-rank analyses need from one trace, small (a few hundred bytes per step and per
// collective, whatever the trace's size) and mergeable exactly, so a fleet of hundreds of ranks
// is reduced where each trace lies and only digests travel (fleet/ merges them on Dask).
// Holds the rank's totals and steps (the rank digest's numbers), its collectives as columns,
// kernel and CPU-op statistics as moments (count, sum, min, max, sum of squares) with a
// quantile sketch (analysis/quantile_sketch.h), the trace's own findings, and the host it ran
// on (from the file's path: Kineto's traces do not name it).
#pragma once
#include <string>
#include <string_view>

#include "analysis/multi_rank.h"
#include "report/report.h"

namespace ks {

constexpr const char* kFleetDigestSchema = "kinetoscope.digest/1";

struct HostName {
  std::string name;    // "" when neither the name nor the path says
  std::string source;  // "file_name" (tensorboard_trace_handler's HOST_PID.MS.pt.trace.json),
                       // "directory" (the folder holding the file), "none"
};
// The host a trace came from, by its path: torch.profiler's tensorboard_trace_handler names
// files "{hostname}_{pid}.{ms}.pt.trace.json[.gz]"; else a parent folder named like a node
// (anything but ".", "..", or a generic name such as "traces").
HostName host_from_path(std::string_view path);

// `path` is the file as given (for the host), `file_bytes` its size on disk.
std::string fleet_digest_json(const Report& report, const RankDigest& digest, std::string_view path,
                              uint64_t file_bytes);

}  // namespace ks
