#include "analysis/gpu_op_summary.h"

#include <algorithm>
#include <unordered_map>

namespace ks {

const char* memory_op_kind_name(MemoryOpKind k) {
  switch (k) {
    case MemoryOpKind::kHtoD:
      return "HtoD";
    case MemoryOpKind::kDtoH:
      return "DtoH";
    case MemoryOpKind::kDtoD:
      return "DtoD";
    case MemoryOpKind::kPtoP:
      return "PtoP";
    case MemoryOpKind::kHtoH:
      return "HtoH";
    case MemoryOpKind::kMemset:
      return "Memset";
    case MemoryOpKind::kUnified:
      return "Unified";
    case MemoryOpKind::kOther:
      return "Other";
  }
  return "Other";
}

namespace {
// Intel XPU copies, as Kineto's XPUPTI plugin names them: "Memcpy M2D", "Memcpy D2H - P2P", the
// source and destination in PTI's letters: M (host memory the program allocated: pageable),
// H (host USM: pinned), D (device), S (shared USM, which lives on the device). 0 when `name` is
// no such copy; else the two letters, source first.
struct PtiCopy {
  char from = 0, to = 0;
};
PtiCopy pti_copy(std::string_view name) {
  constexpr std::string_view kPrefix = "Memcpy ";
  if (name.substr(0, kPrefix.size()) != kPrefix) return {};
  std::string_view rest = name.substr(kPrefix.size());
  auto letter = [](char c) { return c == 'M' || c == 'H' || c == 'D' || c == 'S'; };
  if (rest.size() < 3 || !letter(rest[0]) || rest[1] != '2' || !letter(rest[2])) return {};
  if (rest.size() > 3 && rest[3] != ' ') return {};
  return {rest[0], rest[2]};
}
bool on_host(char c) {
  return c == 'M' || c == 'H';
}
}  // namespace

MemoryOpKind memory_op_kind(SliceKind kind, std::string_view name) {
  if (kind == SliceKind::kMemset || name.substr(0, 6) == "Memset") return MemoryOpKind::kMemset;
  if (const PtiCopy c = pti_copy(name); c.from) {
    if (name.find("P2P") != std::string_view::npos) return MemoryOpKind::kPtoP;
    if (on_host(c.from)) return on_host(c.to) ? MemoryOpKind::kHtoH : MemoryOpKind::kHtoD;
    return on_host(c.to) ? MemoryOpKind::kDtoH : MemoryOpKind::kDtoD;
  }
  auto has = [&name](std::string_view p) { return name.find(p) != std::string_view::npos; };
  if (name.substr(0, 15) == "Memcpy Unified ") return MemoryOpKind::kUnified;  // before HtoD
  if (has("HtoD")) return MemoryOpKind::kHtoD;
  if (has("DtoH")) return MemoryOpKind::kDtoH;
  if (has("DtoD")) return MemoryOpKind::kDtoD;
  if (has("PtoP")) return MemoryOpKind::kPtoP;
  if (has("HtoH")) return MemoryOpKind::kHtoH;
  return MemoryOpKind::kOther;
}

bool is_pageable_copy(std::string_view name) {
  if (const PtiCopy c = pti_copy(name); c.from)
    return on_host(c.from) != on_host(c.to) && (c.from == 'M' || c.to == 'M');
  return name.find("Pageable") != std::string_view::npos;
}

namespace {
bool counted(const std::vector<bool>* included, uint32_t i) {
  return !included || (*included)[i];
}
}  // namespace

KernelSummary summarize_kernels(const Trace& t, const std::vector<bool>* included) {
  const SliceTable& s = t.slices;
  std::unordered_map<StringId, std::vector<int64_t>> by_name;
  for (uint32_t i = 0; i < s.size(); ++i) {
    if (s.kind[i] != SliceKind::kKernel || !counted(included, i)) continue;
    by_name[s.name[i]].push_back(s.dur[i]);
  }
  KernelSummary out;
  for (auto& kv : by_name) {
    KernelRow row;
    row.name = kv.first;
    std::string_view name = t.str(kv.first);
    row.category = hta_category(SliceKind::kKernel, name);
    row.klass = kernel_class(SliceKind::kKernel, name);
    row.tensor_core = is_tensor_core_kernel(name);
    row.stats = compute_duration_stats(kv.second);
    out.count += row.stats.count;
    out.total_ns += row.stats.total_ns;
    out.rows.push_back(row);
  }
  for (KernelRow& row : out.rows)
    row.percent = out.total_ns ? 100.0 * static_cast<double>(row.stats.total_ns) /
                                     static_cast<double>(out.total_ns)
                               : 0;
  std::sort(out.rows.begin(), out.rows.end(), [&t](const KernelRow& a, const KernelRow& b) {
    if (a.stats.total_ns != b.stats.total_ns) return a.stats.total_ns > b.stats.total_ns;
    return t.str(a.name) < t.str(b.name);
  });
  return out;
}

MemoryOpSummary summarize_memory_ops(const Trace& t, const std::vector<bool>* included) {
  const SliceTable& s = t.slices;
  std::vector<std::vector<int64_t>> durs(static_cast<size_t>(MemoryOpKind::kOther) + 1);
  std::vector<MemoryOpRow> rows(durs.size());
  for (uint32_t i = 0; i < s.size(); ++i) {
    SliceKind k = s.kind[i];
    if ((k != SliceKind::kMemcpy && k != SliceKind::kMemset) || !counted(included, i)) continue;
    std::string_view name = t.str(s.name[i]);
    auto kind = memory_op_kind(k, name);
    auto ki = static_cast<size_t>(kind);
    durs[ki].push_back(s.dur[i]);
    if (const int64_t b = s.copy_size(i); b > 0) rows[ki].bytes += b;
    if (is_pageable_copy(name)) ++rows[ki].pageable;
  }
  MemoryOpSummary out;
  for (size_t k = 0; k < durs.size(); ++k) {
    if (durs[k].empty()) continue;
    MemoryOpRow row = rows[k];
    row.kind = static_cast<MemoryOpKind>(k);
    row.stats = compute_duration_stats(durs[k]);
    row.gb_per_s = row.stats.total_ns > 0
                       ? static_cast<double>(row.bytes) / static_cast<double>(row.stats.total_ns)
                       : 0;  // bytes per ns == GB/s
    out.count += row.stats.count;
    out.total_ns += row.stats.total_ns;
    out.rows.push_back(row);
  }
  for (MemoryOpRow& row : out.rows)
    row.percent = out.total_ns ? 100.0 * static_cast<double>(row.stats.total_ns) /
                                     static_cast<double>(out.total_ns)
                               : 0;
  std::stable_sort(out.rows.begin(), out.rows.end(),
                   [](const MemoryOpRow& a, const MemoryOpRow& b) {
                     return a.stats.total_ns > b.stats.total_ns;
                   });
  return out;
}

}  // namespace ks
