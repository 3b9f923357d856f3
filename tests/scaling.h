// Worst-case scaling checks (issue #17), shared by tests/report/scaling_test.cpp and
// tests/analysis/math_scaling_test.cpp: a degenerate shape is generated at N and 4N events and
// timed through a pipeline; 4N may take at most 2.5 x 2.5 = 6.25 times as long as N (2.5 per
// doubling, over two doublings). Linear and N log N work stays near 4-5x; a quadratic walk gives
// ~16x.
//
// Why two doublings and not one: on a small VM a working set that crosses a cache size between N
// and 2N costs one doubling ~3x even for linear work; measured over two doublings it averages
// out, while quadratic work is still 2.5 times over the bound. Each run is a child process
// (fork) timed by its CPU time (user + system), as the CLI runs: a long-lived test process's
// heap, grown and fragmented by the tests before, made 4N cost up to 8.6x N for work that the
// CLI does in 4.2x. N and 4N are run interleaved, best of up to 5 each, so a busy spell of the
// machine weighs on both sizes alike. Run them alone with `ks_tests "[scaling]"`.
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <string>
#include <utility>

#include <catch2/catch.hpp>

namespace ks_test {

struct ScalingRun {
  double seconds = 0;  // filled by run_in_child
  bool ok = true;      // the pipeline's own checks held (a child's CHECKs would be lost)
  size_t json_bytes = 0, text_bytes = 0, md_bytes = 0;  // what the pipeline wrote
};

using ScalingGen = std::function<std::string(size_t)>;
using ScalingPipeline = std::function<ScalingRun(const std::string&)>;

constexpr double kMaxRatio4N = 2.5 * 2.5;

// `run` on `json` in a child process; its sizes come back through a pipe, its time is the
// child's user + system CPU time. seconds < 0: the child failed.
inline ScalingRun run_in_child(const ScalingPipeline& run, const std::string& json) {
  ScalingRun r;
  r.seconds = -1;
  int fds[2];
  if (pipe(fds) != 0) return r;
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const ScalingRun out = run(json);
    const bool sent = write(fds[1], &out, sizeof out) == static_cast<ssize_t>(sizeof out);
    _exit(sent ? 0 : 1);
  }
  close(fds[1]);
  ScalingRun got;
  const bool read_all =
      pid > 0 && read(fds[0], &got, sizeof got) == static_cast<ssize_t>(sizeof got);
  close(fds[0]);
  int status = 0;
  rusage ru{};
  if (pid <= 0 || wait4(pid, &status, 0, &ru) != pid || !read_all || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0)
    return r;
  got.seconds = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                1e-6 * static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
  return got;
}

// Returns the best runs at N and 4N after checking their ratio.
inline std::pair<ScalingRun, ScalingRun> check_scaling(const ScalingGen& gen, size_t n,
                                                       const ScalingPipeline& run) {
  const std::string small = gen(n), large = gen(4 * n);
  ScalingRun a = run_in_child(run, small), b = run_in_child(run, large);
  REQUIRE(a.seconds >= 0);
  REQUIRE(b.seconds >= 0);
  CHECK(a.ok);
  CHECK(b.ok);
  for (int round = 1; round < 5; ++round) {
    if (round >= 2 && b.seconds <= kMaxRatio4N * a.seconds) break;
    const ScalingRun x = run_in_child(run, small);
    if (x.seconds >= 0 && x.seconds < a.seconds) a = x;
    const ScalingRun y = run_in_child(run, large);
    if (y.seconds >= 0 && y.seconds < b.seconds) b = y;
  }
  INFO("N=" << n << ": " << a.seconds << " s; 4N: " << b.seconds << " s; ratio "
            << b.seconds / a.seconds << " (at most " << kMaxRatio4N << ")");
  CHECK(b.seconds <= kMaxRatio4N * a.seconds);
  return {a, b};
}

}  // namespace ks_test
