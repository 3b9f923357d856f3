#include "analysis/name_families.h"

#include "analysis/api_summary.h"
#include "analysis/steps.h"

namespace ks {

StringId NameFamilies::row_of(StringId id, bool may_be_op_call) {
  auto known = row_of_.find(id);
  if (known != row_of_.end()) return known->second;
  const std::string_view name = t_.str(id);
  int64_t n;
  std::string family;
  if (parse_profiler_step(name, &n))
    family = kProfilerStepGroup;
  else if (may_be_op_call && is_emit_nvtx_op_range(name))  // "aten::mm" joins its calls too
    family = std::string(emit_nvtx_op_name(name));
  StringId row = id;
  if (!family.empty()) {
    row = family_.emplace(family, id).first->second;
    label_[row] = family;
  }
  row_of_.emplace(id, row);
  return row;
}

std::string NameFamilies::label_of(StringId row) const {
  auto l = label_.find(row);
  return l == label_.end() ? std::string() : l->second;
}

}  // namespace ks
