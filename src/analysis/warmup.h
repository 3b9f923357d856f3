// One-time work (allocator growth, module loading / JIT, autotuning) and whether the first
// captured step is a warm-up step: the rules and the critical path's default window both take
// steady-state numbers from the steps after it.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "analysis/steps.h"
#include "model/trace.h"

namespace ks {

// The groups of one-time work a steady-state step should not contain.
extern const char* const kOneTimeWorkGroups[3];
// The group a runtime/driver call or CPU range belongs to (one of kOneTimeWorkGroups), or
// nullptr.
const char* one_time_work_group(std::string_view name);
// Calls of one-time work per step (parallel to steps.steps), by the step's device-adjusted range.
std::vector<uint32_t> one_time_calls_per_step(const Trace& t, const std::vector<Step>& steps);

// The first captured step is a warm-up: it takes kWarmupRatio times the median of the others or
// more, with 3 steps or more. With 2 steps one comparison is weak evidence (the second may be the
// odd one), so the first must also hold one-time work (StepsResult::one_time_calls) and the
// second none. `ratio` gets first / median-of-the-others.
constexpr double kWarmupRatio = 1.5;
bool first_step_is_warmup(const StepsResult& steps, double* ratio);
// How many leading steps are warm-up (0 if none): a schedule with too short a warm-up captures
// several. The longest leading run of steps, each taking kWarmupRatio times the median of the
// steps after the run or more, that leaves 2 steps or more after it; `ratio` gets the run's
// fastest step / that median.
size_t warmup_step_count(const StepsResult& steps, double* ratio);
// The steps a steady-state number is taken over: those after the warm-up steps.
size_t first_steady_step(const StepsResult& steps);

}  // namespace ks
