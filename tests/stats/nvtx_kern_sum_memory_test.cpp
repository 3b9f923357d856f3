// nvtx_kern_sum under deep NVTX nesting (src/stats/nvtx_kern_sum.cpp): a kernel inside many
// ranges of a few names is gathered per (range name, kernel), not per (range, kernel) pair. The
// pairs, up to kMaxEnclosingRanges per kernel, held about 8 KB per kernel (656 MB for an 11 MB
// export of 80 k kernels).
#include <fstream>
#include <string>

#include "stats/stats_checks.h"

namespace {

// The process's resident peak since the last reset_peak_rss(), in KB (VmHWM).
int64_t rss_kb(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind(field, 0) == 0) return std::stoll(line.substr(std::string(field).size()));
  return -1;
}

bool reset_peak_rss() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  return static_cast<bool>(clear);
}

}  // namespace

TEST_CASE("nsys stats: nvtx_kern_sum memory is bounded by the groups, not the nesting depth",
          "[nsys_stats][built]") {
  ks_test::Db d;
  ks_test::open_nvtx_export(&d);
  // BUILT data: 300 nested push/pop ranges named r0 .. r9 in turn, and 20 k launches of one
  // kernel inside the innermost: each kernel is in the 256 innermost ranges, 25-26 of each name.
  constexpr int kKernels = 20000;
  d.exec(R"(
WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < 299)
INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid)
  SELECT i, 1000000000 - i, 59, 'r' || (i % 10), 1677721700 FROM c;
INSERT INTO StringIds VALUES (1, 'gemm'), (5, 'cudaLaunchKernel_v7000');
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 20000)
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 1000 + 100 * i, 1010 + 100 * i, 1, 1677721700, i,
  5, 0, NULL FROM c;
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 20000)
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId,
  correlationId, globalPid, demangledName, shortName, registersPerThread, gridX, gridY, gridZ,
  blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory, localMemoryPerThread,
  localMemoryTotal, gridId)
  SELECT 1050 + 100 * i, 1050 + 100 * i + (i % 7) + 1, 0, 1, 7, i, 1677721600, 1, 1, 0, 1, 1, 1,
    1, 1, 1, 0, 0, 0, 0, i FROM c;
)");
  const int64_t before = rss_kb("VmRSS:");
  if (!reset_peak_rss() || before < 0) {
    WARN("SKIPPED: /proc/self/clear_refs cannot reset the peak RSS here");
    return;
  }
  const ks::StatsTable t = ks_test::run(d, {"nvtx_kern_sum"})[0];
  const int64_t grown_kb = rss_kb("VmHWM:") - before;
  REQUIRE(t.rows.size() == 10);  // r0 .. r9, one kernel name
  for (const auto& r : t.rows) {
    CHECK(r[5].i == kKernels);              // Kern Inst: every kernel once
    CHECK((r[4].i == 25 || r[4].i == 26));  // NVTX Inst: the innermost 256 ranges of 300
  }
  INFO("peak RSS grew by " << grown_kb << " KB for " << kKernels << " kernels");
  CHECK(grown_kb < 40 * 1024);  // the pairs: about 8 KB per kernel, 160 MB
}
