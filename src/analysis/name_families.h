// Name tables where several names read as one row: every ProfilerStep#N as "ProfilerStep#*",
// and the NVTX ranges emit_nvtx pushes per op call ("aten::mm, seq = 12, sizes = [...]") as
// their op, "aten::mm" (analysis/gpu_time_by_op.h). The CPU annotation table and the CPU op
// table group their names through this one rule.
#pragma once
#include <string>
#include <unordered_map>

#include "model/trace.h"

namespace ks {

class NameFamilies {
 public:
  explicit NameFamilies(const Trace& trace) : t_(trace) {}
  // The row `id` counts under: its own, or its family's (the first name seen of the family
  // stands for it). `may_be_op_call`: the name may be an emit_nvtx range (an NVTX range).
  StringId row_of(StringId id, bool may_be_op_call);
  // What the row shows instead of its name ("ProfilerStep#*", "aten::mm"); "" for its name.
  std::string label_of(StringId row) const;

 private:
  const Trace& t_;
  std::unordered_map<StringId, StringId> row_of_;
  std::unordered_map<std::string, StringId> family_;
  std::unordered_map<StringId, std::string> label_;
};

}  // namespace ks
