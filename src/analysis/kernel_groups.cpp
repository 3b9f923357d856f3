#include "analysis/kernel_groups.h"

#include <algorithm>
#include <optional>

#include "analysis/gpu_intervals.h"
#include "analysis/name_cache.h"
#include "analysis/nvtx_context.h"

namespace ks {

namespace {

// The innermost enclosing gpu_user_annotation of every slice (0: none), in one pass: slices are
// sorted per track by start, longer first, so a parent's index is below its children's and its
// answer is ready. Walking each kernel's parent chain instead costs depth per kernel: N nested
// identical kernels (one stream, one timestamp) took N^2 steps, minutes for a 92 KB file.
// The step's own GPU range (ProfilerStep#N, around every kernel of the step) is passed over, as
// the steps' NVTX ranges are below: it would name the step, not the work.
std::vector<StringId> innermost_gpu_annotations(const Trace& t) {
  const SliceTable& s = t.slices;
  auto is_step = make_name_cache(t, [](std::string_view name) {
    int64_t n;
    return parse_profiler_step(name, &n) ? 1 : 0;
  });
  std::vector<StringId> note(s.size(), 0);
  for (size_t i = 0; i < s.size(); ++i) {
    const int32_t p = s.parent[i];
    if (p < 0) continue;
    const size_t u = static_cast<size_t>(p);
    note[i] =
        s.kind[u] == SliceKind::kGpuUserAnnotation && !is_step(s.name[u]) ? s.name[u] : note[u];
  }
  return note;
}

// An export's kernels under the innermost NVTX range the program pushed (not a library's:
// emit_nvtx's "aten::mm, seq = 12", NCCL's) open at their launch (nvtx_context.h), when the
// export has NVTX ranges on a launching thread; else empty.
std::vector<StringId> nvtx_at_launch(const Trace& t, const LaunchJoin& join,
                                     const EnclosingNvtxRanges& ranges) {
  if (!ranges.any()) return {};
  auto own =
      make_name_cache(t, [](std::string_view name) { return is_library_range(name) ? 0 : 1; });
  const SliceTable& s = t.slices;
  std::vector<StringId> note(s.size(), 0);
  for (uint32_t i = 0; i < s.size(); ++i)
    if (s.kind[i] == SliceKind::kKernel && join.partner[i] >= 0)
      note[i] = ranges.innermost(static_cast<uint32_t>(join.partner[i]),
                                 [&own](StringId name) { return own(name) == 1; });
  return note;
}

}  // namespace

KernelGroups group_kernels(const Trace& t, const std::vector<bool>* included,
                           const LaunchJoin& join, const StepsResult& steps,
                           const EnclosingNvtxRanges* nvtx) {
  const SliceTable& s = t.slices;
  KernelGroups r;
  constexpr size_t kClasses = static_cast<size_t>(KernelClass::kOther) + 1;
  std::vector<std::vector<int64_t>> by_class(kClasses);
  std::vector<HtaCategory> category(kClasses, HtaCategory::kComputation);
  NamedStatsBuilder by_annotation;
  // class in the low 4 bits, HTA category above
  auto classify = make_name_cache(t, [](std::string_view name) {
    return static_cast<int>(kernel_class(SliceKind::kKernel, name)) |
           static_cast<int>(hta_category(SliceKind::kKernel, name)) << 4;
  });
  std::vector<StringId> notes;
  if (t.facts.format == TraceFormat::kNsysSqlite) {
    std::optional<EnclosingNvtxRanges> own;
    notes = nvtx_at_launch(t, join, nvtx ? *nvtx : own.emplace(t, steps, 1));
  }
  r.nvtx_at_launch = !notes.empty();
  if (notes.empty()) notes = innermost_gpu_annotations(t);
  for (uint32_t i = 0; i < s.size(); ++i) {
    if (s.kind[i] != SliceKind::kKernel || !op_counted(included, i)) continue;
    const int code = classify(s.name[i]);
    const KernelClass k = static_cast<KernelClass>(code & 15);
    by_class[static_cast<size_t>(k)].push_back(s.dur[i]);
    category[static_cast<size_t>(k)] = static_cast<HtaCategory>(code >> 4);
    const StringId note = notes[i];
    if (note != 0) r.has_annotations = true;
    by_annotation.add(note, s.dur[i]);
    r.total_ns += s.dur[i];
    if (is_math_class(k)) r.math_ns += s.dur[i];
  }
  for (size_t k = 0; k < kClasses; ++k) {
    if (by_class[k].empty()) continue;
    KernelClassRow row;
    row.klass = static_cast<KernelClass>(k);
    row.category = category[k];
    row.stats = compute_duration_stats(by_class[k]);
    row.percent = r.total_ns > 0 ? 100.0 * static_cast<double>(row.stats.total_ns) /
                                       static_cast<double>(r.total_ns)
                                 : 0;
    r.by_class.push_back(row);
  }
  std::stable_sort(r.by_class.begin(), r.by_class.end(),
                   [](const KernelClassRow& a, const KernelClassRow& b) {
                     return a.stats.total_ns > b.stats.total_ns;
                   });
  r.by_annotation = by_annotation.build(t);
  r.math_pct =
      r.total_ns > 0 ? 100.0 * static_cast<double>(r.math_ns) / static_cast<double>(r.total_ns) : 0;
  return r;
}

}  // namespace ks
