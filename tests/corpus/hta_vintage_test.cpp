// Older Kineto traces (V100, 2021-2022: integer microsecond timestamps, many 0 us memsets and
// helper kernels, several GPUs listed) have properties none of our reference traces has, and an
// unseen one gave idle categories, launch statistics and kernel sums apart from HTA's (issue 16).
// Each property gets a small trace here, with what HTA's rule gives worked out by hand from its
// code (the commit of ../shared/reference):
//   - ties: two ops of one stream starting in the same microsecond (a 0 us op and the next one).
//     HTA sorts a stream's ops by ts alone (sort_values(by="ts"), not a stable sort; on small
//     frames numpy's quicksort is an insertion sort, which keeps the file's order: Kineto writes
//     a stream's ops in the order they ran). A stream runs its ops one after another, so of two
//     that start together the shorter ran first; we used to put the longer first (the order
//     that nests CPU ops), which made a gap of minus the long op's length and a gap after it
//     measured from the 0 us op's end, the long op's time, often host wait. Fixed here;
//   - one correlation id on two runtime calls (ids restarted by a second profiler session in one
//     file, or another tool's events merged in): HTA's index join keeps the last such call in
//     the file (df.loc[...] = ... with repeated labels: the last write wins); its launch
//     statistics merge every pair (a launch counted twice); its step filter merges the GPU ops
//     with every CPU event of that id (the op counted twice in the kernel table). We take the
//     call that could have launched the op: the latest one that started at or before it;
//   - the same stream number on two devices (one process driving several GPUs): HTA's idle
//     breakdown walks `stream == s` across devices as one sequence; ours is per device and
//     stream;
//   - a GPU op without "dur": HTA drops the event (dropna on dur); we keep it as 0 us, with the
//     diagnostic of an X event without dur;
//   - overlapping ops on one stream (older CUPTI): both sides take the gap to the previous op in
//     start order, as the definition says, also when negative.
// docs/hta-differences.md lists each with the rule that detects it in a trace.
#include <catch2/catch.hpp>

#include "analysis/analyze.h"
#include "analysis/idle_breakdown.h"
#include "analysis/launch_join.h"
#include "analysis/launch_stats.h"
#include "helpers.h"

using namespace ks_test;

namespace {

struct Idle {
  ks::IdleBreakdown b;
  std::unique_ptr<ks::Trace> t;
};

Idle idle_of(const std::string& json) {
  Idle r;
  r.t = load(json);
  r.b = ks::compute_idle_breakdown(*r.t, ks::build_launch_join(*r.t), nullptr);
  return r;
}

const ks::StreamIdle& only_stream(const Idle& r) {
  REQUIRE(r.b.streams.size() == 1);
  return r.b.streams[0];
}

int64_t gaps(const ks::StreamIdle& s, ks::IdleCause c) {
  return static_cast<int64_t>(s.gaps[static_cast<int>(c)].count);
}

// A 2022-style Kineto event: ts and dur in integer microseconds.
std::string gpu(const char* name, const char* cat, int device, int stream, long ts, long dur,
                int corr) {
  return std::string(R"({"ph":"X","cat":")") + cat + R"(","name":")" + name + R"(","pid":)" +
         std::to_string(device) + R"(,"tid":)" + std::to_string(stream) + R"(,"ts":)" +
         std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) + R"(,"args":{"device":)" +
         std::to_string(device) + R"(,"stream":)" + std::to_string(stream) + R"(,"correlation":)" +
         std::to_string(corr) + "}}";
}
std::string runtime(const char* name, long ts, long dur, int corr) {
  return std::string(R"({"ph":"X","cat":"cuda_runtime","name":")") + name +
         R"(","pid":100,"tid":100,"ts":)" + std::to_string(ts) + R"(,"dur":)" +
         std::to_string(dur) + R"(,"args":{"correlation":)" + std::to_string(corr) + "}}";
}
std::string trace(const std::vector<std::string>& events) {
  std::string out = R"({"schemaVersion":1,"traceEvents":[)";
  for (size_t i = 0; i < events.size(); ++i) out += (i ? ",\n" : "\n") + events[i];
  return out + "]}";
}

}  // namespace

TEST_CASE("V100 vintage: a 0 us op and the next one start in the same microsecond",
          "[corpus][hta_vintage]") {
  // Stream 7 ran a 0 us memset at 100, then kernel A (100-150), then kernel B at 160, launched
  // at 120 while A ran. HTA (file order at the tie): gaps 0 (A) and 10 (B), both kernel wait.
  // Longer-first at the tie would make the memset's gap -50 and B's gap 60, host wait (B's
  // launch at 120 is after the memset's end at 100).
  const std::string json = trace({
      runtime("cudaMemsetAsync", 90, 4, 1),
      runtime("cudaLaunchKernel", 95, 4, 2),
      runtime("cudaLaunchKernel", 120, 4, 3),
      gpu("Memset (Device)", "gpu_memset", 0, 7, 100, 0, 1),
      gpu("A", "kernel", 0, 7, 100, 50, 2),
      gpu("B", "kernel", 0, 7, 160, 10, 3),
  });
  Idle r = idle_of(json);
  const ks::StreamIdle& s = only_stream(r);
  CHECK(gaps(s, ks::IdleCause::kHostWait) == 0);
  CHECK(gaps(s, ks::IdleCause::kKernelWait) == 2);
  CHECK(s.idle_ns[static_cast<int>(ks::IdleCause::kKernelWait)] == 10000);
  CHECK(s.idle_total_ns() == 10000);
  // The same when the file lists the long op first (CUPTI's buffers are not always in order):
  // the stream ran the 0 us op first whatever the file's order.
  const std::string swapped = trace({
      runtime("cudaMemsetAsync", 90, 4, 1),
      runtime("cudaLaunchKernel", 95, 4, 2),
      runtime("cudaLaunchKernel", 120, 4, 3),
      gpu("A", "kernel", 0, 7, 100, 50, 2),
      gpu("Memset (Device)", "gpu_memset", 0, 7, 100, 0, 1),
      gpu("B", "kernel", 0, 7, 160, 10, 3),
  });
  Idle r2 = idle_of(swapped);
  CHECK(gaps(only_stream(r2), ks::IdleCause::kHostWait) == 0);
  CHECK(only_stream(r2).idle_total_ns() == 10000);
  // The join's GPU op order has the 0 us op first as well (the other walks over it).
  ks::LaunchJoin j = ks::build_launch_join(*r2.t);
  REQUIRE(j.gpu_ops_by_ts.size() == 3);
  CHECK(r2.t->slices.dur[j.gpu_ops_by_ts[0]] == 0);
}

TEST_CASE("V100 vintage: one correlation id on two runtime calls", "[corpus][hta_vintage]") {
  // Correlation 7 is on a cudaLaunchKernel at 10 (an earlier session's, 5 us) and on one at
  // 1000 (2 us); kernel K (correlation 7) ran at 1010 for 3 us. The launch that could have
  // started it is the one at 1000: delay 8 us, not a runtime outlier. HTA's index join takes
  // the last in the file; its launch statistics count both calls (two rows for one op).
  for (bool early_first : {true, false}) {
    INFO("early call first in the file: " << early_first);
    std::vector<std::string> ev = {runtime("cudaLaunchKernel", 10, 5, 7),
                                   runtime("cudaLaunchKernel", 1000, 2, 7)};
    if (!early_first) std::swap(ev[0], ev[1]);
    ev.push_back(gpu("K", "kernel", 0, 7, 1010, 3, 7));
    std::unique_ptr<ks::Trace> t = load(trace(ev));
    ks::LaunchJoin j = ks::build_launch_join(*t);
    REQUIRE(j.gpu_ops_by_ts.size() == 1);
    const int32_t launcher = j.partner[j.gpu_ops_by_ts[0]];
    REQUIRE(launcher >= 0);
    CHECK(t->slices.ts[static_cast<uint32_t>(launcher)] == 1000000);
    ks::LaunchStats ls = ks::compute_launch_stats(*t, j, nullptr);
    CHECK(ls.total.launches == 1);
    CHECK(ls.total.cpu_ns == 2000);
    CHECK(ls.total.delay.total_ns == 8000);
  }
  // A call that started after the op cannot have launched it; with no call before it, the
  // first in the file is kept (clock skew: the op is then counted as before its launch).
  std::unique_ptr<ks::Trace> t =
      load(trace({runtime("cudaLaunchKernel", 2000, 2, 7), runtime("cudaLaunchKernel", 3000, 2, 7),
                  gpu("K", "kernel", 0, 7, 1010, 3, 7)}));
  ks::LaunchJoin j = ks::build_launch_join(*t);
  const int32_t launcher = j.partner[j.gpu_ops_by_ts[0]];
  REQUIRE(launcher >= 0);
  CHECK(t->slices.ts[static_cast<uint32_t>(launcher)] == 2000000);
}

TEST_CASE("V100 vintage: one process, four GPUs, the same stream number on each",
          "[corpus][hta_vintage]") {
  // Devices 0 and 1 each run stream 7: 100-110 and 120-130 on device 0, 105-125 on device 1.
  // Per device and stream: one gap of 10 us on device 0, none on device 1. HTA walks stream 7
  // across devices (100-110, 105-125, 120-130): gaps -5 and -5.
  Idle r = idle_of(trace({
      runtime("cudaLaunchKernel", 10, 2, 1),
      runtime("cudaLaunchKernel", 11, 2, 2),
      runtime("cudaLaunchKernel", 12, 2, 3),
      gpu("A", "kernel", 0, 7, 100, 10, 1),
      gpu("A", "kernel", 0, 7, 120, 10, 2),
      gpu("A", "kernel", 1, 7, 105, 20, 3),
  }));
  REQUIRE(r.b.streams.size() == 2);
  CHECK(r.b.streams[0].device == 0);
  CHECK(r.b.streams[0].idle_total_ns() == 10000);
  CHECK(r.b.streams[1].device == 1);
  CHECK(r.b.streams[1].idle_total_ns() == 0);
}

TEST_CASE("V100 vintage: a GPU op without dur, and overlapping ops on one stream",
          "[corpus][hta_vintage]") {
  // No "dur": HTA drops the event; we keep the op (it ran) as 0 us and say so.
  std::string no_dur = trace({runtime("cudaLaunchKernel", 10, 2, 1),
                              R"({"ph":"X","cat":"kernel","name":"K","pid":0,"tid":7,"ts":100,)"
                              R"("args":{"device":0,"stream":7,"correlation":1}})"});
  std::unique_ptr<ks::Trace> t = load(no_dur);
  ks::KernelSummary ks_sum = ks::summarize_kernels(*t, nullptr);
  REQUIRE(ks_sum.rows.size() == 1);
  CHECK(ks_sum.rows[0].stats.count == 1);
  CHECK(ks_sum.rows[0].stats.total_ns == 0);
  CHECK(diag_count(*t, ks::Diag::kCompleteWithoutDur) == 1);
  // A (100-200) overlaps B (150-160); C at 170. As HTA (and the definition): B's gap is -50,
  // C's 10 from B's end; the sum is -40.
  Idle r = idle_of(trace({
      runtime("cudaLaunchKernel", 10, 2, 1),
      runtime("cudaLaunchKernel", 11, 2, 2),
      runtime("cudaLaunchKernel", 12, 2, 3),
      gpu("A", "kernel", 0, 7, 100, 100, 1),
      gpu("B", "kernel", 0, 7, 150, 10, 2),
      gpu("C", "kernel", 0, 7, 170, 10, 3),
  }));
  CHECK(only_stream(r).idle_total_ns() == -40000);
  CHECK(gaps(only_stream(r), ks::IdleCause::kKernelWait) == 2);
}
