// Two kinds of steps (analysis/step_kinds.h): a gap in the step times that the GPU work
// follows (prefill and decode) is two kinds; the same gap with the same GPU work (a stall) is not.
#include <catch2/catch.hpp>

#include "analysis/step_kinds.h"
#include "analysis/steps.h"

namespace {

// Steps one after the other; step i lasts dur_us[i] and runs work_us[i] of GPU work.
std::vector<ks::Step> steps_of(const std::vector<int64_t>& dur_us,
                               const std::vector<int64_t>& work_us) {
  std::vector<ks::Step> out;
  int64_t at = 0;
  for (size_t i = 0; i < dur_us.size(); ++i) {
    ks::Step s;
    s.number = static_cast<int64_t>(i);
    s.begin = at;
    s.end = at + dur_us[i] * 1000;
    s.gpu_work_ns = work_us[i] * 1000;
    at = s.end;
    out.push_back(s);
  }
  return out;
}

}  // namespace

TEST_CASE("Prefill and decode steps are two kinds, a stall is not", "[analysis][steps]") {
  // 3 prefill steps (6 ms, 4x the GPU work) among 9 decode steps (1.5 ms), the first a prefill.
  std::vector<int64_t> dur, work;
  for (int i = 0; i < 12; ++i) {
    const bool prefill = i == 0 || i == 5 || i == 9;
    dur.push_back(prefill ? 6000 + i : 1500 + i);
    work.push_back(prefill ? 4000 : 1000);
  }
  ks::StepKinds k = ks::find_step_kinds(steps_of(dur, work));
  REQUIRE(k.found);
  CHECK(k.long_stats.count == 3);
  CHECK(k.short_stats.count == 9);
  CHECK(k.is_long[0]);
  CHECK_FALSE(k.is_long[1]);
  CHECK(k.gpu_work_ratio == Approx(4.0));
  // The same step times with the same GPU work in every step: the long ones stalled.
  ks::StepKinds stall = ks::find_step_kinds(steps_of(dur, std::vector<int64_t>(12, 1000)));
  CHECK_FALSE(stall.found);
  // Two long steps are slow steps, not a kind.
  std::vector<int64_t> two(dur), two_work(work);
  two[9] = 1500, two_work[9] = 1000;
  CHECK_FALSE(ks::find_step_kinds(steps_of(two, two_work)).found);
  // Steady steps: no gap.
  CHECK_FALSE(
      ks::find_step_kinds(steps_of(std::vector<int64_t>(12, 1500), std::vector<int64_t>(12, 1000)))
          .found);
}
