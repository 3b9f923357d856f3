#include "analysis/warmup.h"

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "analysis/name_cache.h"
#include "util/text_match.h"

namespace ks {

namespace {

// `s` contains `lower` (lower case), whatever the case of `s`.
bool contains_lower(std::string_view s, std::string_view lower) {
  for (size_t i = 0; i + lower.size() <= s.size(); ++i) {
    size_t j = 0;
    while (j < lower.size() && std::tolower(static_cast<unsigned char>(s[i + j])) == lower[j]) ++j;
    if (j == lower.size()) return true;
  }
  return false;
}

}  // namespace

const char* const kOneTimeWorkGroups[3] = {"allocator (cudaMalloc/cudaFree)",
                                           "module loading / JIT", "autotuning"};

const char* one_time_work_group(std::string_view n) {
  static const char* const kAlloc[] = {"cudaMalloc", "cudaFree",      "cudaHostAlloc",
                                       "cuMemAlloc", "cuMemFree",     "hipMalloc",
                                       "hipFree",    "hipHostMalloc", "hipExtMallocWithFlags"};
  for (const char* p : kAlloc)
    if (starts_with(n, p)) return kOneTimeWorkGroups[0];
  // CUPTI's overhead records (Kineto's "overhead" category) for CUDA's lazy loading, 11.7 and
  // later: a kernel's code is loaded on its first launch.
  static const char* const kModules[] = {
      "cuModuleLoad", "cuLibraryLoad", "cudaLibraryLoad",       "hipModuleLoad",
      "nvrtc",        "hiprtc",        "Lazy Function Loading", "Runtime Triggered Module Loading"};
  for (const char* p : kModules)
    if (starts_with(n, p)) return kOneTimeWorkGroups[1];
  if (contains_lower(n, "cudnnfind") || contains_lower(n, "miopenfind") ||
      contains_lower(n, "autotune"))
    return kOneTimeWorkGroups[2];
  return nullptr;
}

std::vector<uint32_t> one_time_calls_per_step(const Trace& t, const std::vector<Step>& steps) {
  std::vector<uint32_t> calls(steps.size(), 0);
  if (steps.empty()) return calls;
  const SliceTable& s = t.slices;
  auto is_one_time =
      make_name_cache(t, [](std::string_view n) { return one_time_work_group(n) != nullptr; });
  for (uint32_t i = 0; i < s.size(); ++i) {
    const SliceKind k = s.kind[i];
    if (k != SliceKind::kRuntime && k != SliceKind::kDriver && k != SliceKind::kCpuOp &&
        k != SliceKind::kUserAnnotation && k != SliceKind::kOther)
      continue;
    if (!is_one_time(s.name[i])) continue;
    auto it = std::upper_bound(steps.begin(), steps.end(), s.ts[i],
                               [](int64_t x, const Step& st) { return x < st.begin; });
    if (it == steps.begin() || s.ts[i] >= std::prev(it)->end) continue;
    ++calls[static_cast<size_t>(std::prev(it) - steps.begin())];
  }
  return calls;
}

bool first_step_is_warmup(const StepsResult& st, double* ratio) {
  const size_t n = st.steps.size();
  if (n < 2) return false;
  if (n == 2 &&
      (st.one_time_calls.size() != 2 || st.one_time_calls[0] == 0 || st.one_time_calls[1] != 0))
    return false;
  std::vector<int64_t> rest;
  for (size_t i = 1; i < n; ++i) rest.push_back(st.steps[i].dur());
  DurationStats s = compute_duration_stats(rest);
  if (s.median_ns <= 0) return false;
  // Its own time: a backlog of GPU work queued before it is not the step being slow.
  const double r = static_cast<double>(st.steps.front().own_dur()) / s.median_ns;
  if (ratio) *ratio = r;
  return r >= kWarmupRatio;
}

size_t warmup_step_count(const StepsResult& st, double* ratio) {
  // A first step of the long kind (a prefill) is one of the loop's own: others like it follow.
  if (st.kinds.found && st.kinds.is_long.front()) return 0;
  if (!first_step_is_warmup(st, ratio)) return 0;
  const size_t n = st.steps.size();
  // From the longest run down: a shorter run's median would count the later warm-up steps in.
  for (size_t k = n >= 2 ? n - 2 : 0; k > 1; --k) {
    std::vector<int64_t> rest;
    for (size_t i = k; i < n; ++i) rest.push_back(st.steps[i].dur());
    const DurationStats s = compute_duration_stats(rest);
    if (s.median_ns <= 0) continue;
    int64_t fastest = INT64_MAX;
    for (size_t i = 0; i < k; ++i) fastest = std::min(fastest, st.steps[i].own_dur());
    const double r = static_cast<double>(fastest) / s.median_ns;
    if (r < kWarmupRatio) continue;
    if (ratio) *ratio = r;
    return k;
  }
  return 1;
}

size_t first_steady_step(const StepsResult& st) {
  return warmup_step_count(st, nullptr);
}

}  // namespace ks
