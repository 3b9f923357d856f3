#include "analysis/gpu_time_by_op.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "analysis/gpu_intervals.h"
#include "analysis/kernel_class.h"
#include "analysis/name_cache.h"
#include "analysis/nvtx_context.h"

namespace ks {

namespace {

// An op nested deeper than this under ops is counted in the innermost ones' totals only: a
// hostile trace nests thousands, and the walk runs once per GPU op.
constexpr int kMaxOpDepth = 64;

// The rows by op name: a name's row once per distinct string id, and several ids that read as
// one op ("aten::mm, seq = 1", "aten::mm, seq = 2") share it.
class OpRows {
 public:
  explicit OpRows(const Trace& t) : t_(t) {}
  uint32_t of(StringId id) {
    auto known = by_id_.find(id);
    if (known != by_id_.end()) return known->second;
    std::string_view name = emit_nvtx_op_name(t_.str(id));
    auto row = by_name_.find(std::string(name));
    uint32_t k;
    if (row == by_name_.end()) {
      k = static_cast<uint32_t>(rows_.size());
      rows_.emplace_back().name = std::string(name);
      visit_.push_back(0);
      by_name_.emplace(rows_.back().name, k);
    } else {
      k = row->second;
    }
    by_id_.emplace(id, k);
    return k;
  }
  OpGpuTimeRow& operator[](uint32_t k) { return rows_[k]; }
  // True the first time row k is met in the walk numbered `walk` (walks count up from 1): an op
  // inside one of its own name counts once in its total.
  bool first_in_walk(uint32_t k, uint64_t walk) {
    if (visit_[k] == walk) return false;
    visit_[k] = walk;
    return true;
  }
  std::vector<OpGpuTimeRow> take() { return std::move(rows_); }

 private:
  const Trace& t_;
  std::unordered_map<StringId, uint32_t> by_id_;
  std::unordered_map<std::string, uint32_t> by_name_;  // asked once per distinct string id
  std::vector<OpGpuTimeRow> rows_;
  std::vector<uint64_t> visit_;  // per row: the last walk that met it
};

// Adds one GPU op to the rows of its op chain (innermost first): self to the first, total to
// each distinct row. `non_math`: a computation kernel of no math class; `walk`: this GPU op's
// number, from 1.
void add_chain(OpRows* rows, const std::vector<uint32_t>& chain, int64_t dur, bool non_math,
               uint64_t walk) {
  if (chain.empty()) return;
  OpGpuTimeRow& inner = (*rows)[chain[0]];
  ++inner.gpu_ops;
  inner.self_ns += dur;
  if (non_math) inner.non_math_ns += dur;
  for (uint32_t k : chain)
    if (rows->first_in_walk(k, walk)) (*rows)[k].total_ns += dur;
}

}  // namespace

const char* op_source_name(OpSource s) {
  switch (s) {
    case OpSource::kCpuOps:
      return "cpu_ops";
    case OpSource::kNvtxOps:
      return "nvtx_emit_nvtx";
    case OpSource::kNone:
      break;
  }
  return "none";
}

bool is_op_call(const Trace& t, uint32_t i) {
  const SliceKind k = t.slices.kind[i];
  return k == SliceKind::kCpuOp ||
         (k == SliceKind::kUserAnnotation && t.facts.format == TraceFormat::kNsysSqlite &&
          is_emit_nvtx_op_range(t.str(t.slices.name[i])));
}

GpuTimeByOp gpu_time_by_op(const Trace& t, const LaunchJoin& join, const StepsResult& steps,
                           const std::vector<bool>* included, const EnclosingNvtxRanges* shared) {
  const SliceTable& s = t.slices;
  GpuTimeByOp r;
  OpRows rows(t);
  std::vector<uint32_t> chain;
  const bool nsys = t.facts.format == TraceFormat::kNsysSqlite;
  std::optional<EnclosingNvtxRanges> own;
  const EnclosingNvtxRanges& nvtx = shared ? *shared : own.emplace(t, steps, 1);
  auto is_op_range =
      make_name_cache(t, [](std::string_view name) { return is_emit_nvtx_op_range(name) ? 1 : 0; });
  auto non_math = make_name_cache(t, [](std::string_view name) {
    return !is_math_class(kernel_class(SliceKind::kKernel, name)) &&
                   hta_category(SliceKind::kKernel, name) == HtaCategory::kComputation
               ? 1
               : 0;
  });
  std::vector<int32_t> nearest;
  if (!nsys) nearest = nearest_origin_ops(t);  // Kineto: the CPU ops around a launch
  for (uint32_t i : join.gpu_ops_by_ts) {
    if (!op_counted(included, i)) continue;
    const int64_t dur = s.dur[i];
    ++r.gpu_ops;
    r.gpu_ns += dur;
    const int32_t call = join.partner[i];
    if (call < 0) {
      ++r.unlaunched_ops;
      r.unlaunched_ns += dur;
      continue;
    }
    chain.clear();
    if (nsys) {
      nvtx.walk_out(static_cast<uint32_t>(call), [&](StringId name) {
        if (is_op_range(name) == 1) chain.push_back(rows.of(name));
        return chain.size() < static_cast<size_t>(kMaxOpDepth);
      });
    } else {
      for (int32_t op = nearest[static_cast<size_t>(call)];
           op >= 0 && chain.size() < static_cast<size_t>(kMaxOpDepth);
           op = nearest[static_cast<size_t>(op)])
        chain.push_back(rows.of(s.name[static_cast<size_t>(op)]));
    }
    if (chain.empty()) continue;
    ++r.attributed_ops;
    r.attributed_ns += dur;
    add_chain(&rows, chain, dur, s.kind[i] == SliceKind::kKernel && non_math(s.name[i]) == 1,
              r.attributed_ops);
  }
  r.rows = rows.take();
  if (!r.rows.empty()) r.source = nsys ? OpSource::kNvtxOps : OpSource::kCpuOps;
  for (OpGpuTimeRow& row : r.rows) {
    if (r.gpu_ns <= 0) break;
    row.self_pct = 100.0 * static_cast<double>(row.self_ns) / static_cast<double>(r.gpu_ns);
    row.total_pct = 100.0 * static_cast<double>(row.total_ns) / static_cast<double>(r.gpu_ns);
  }
  std::sort(r.rows.begin(), r.rows.end(), [](const OpGpuTimeRow& a, const OpGpuTimeRow& b) {
    if (a.self_ns != b.self_ns) return a.self_ns > b.self_ns;
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    return a.name < b.name;
  });
  return r;
}

}  // namespace ks
