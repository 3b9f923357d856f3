#include "analysis/trace_diff.h"

#include <algorithm>
#include <map>

namespace ks {

namespace {

std::vector<NameTotal> to_sorted(std::map<std::string_view, NameTotal>& by_name) {
  std::vector<NameTotal> out;
  out.reserve(by_name.size());
  for (auto& kv : by_name) out.push_back(std::move(kv.second));
  return out;  // std::map keeps byte order of the names
}

void add(std::map<std::string_view, NameTotal>& by_name, std::string_view name, int64_t dur) {
  NameTotal& t = by_name[name];
  if (t.count == 0) t.name = std::string(name);
  ++t.count;
  t.total_ns += dur;
}

}  // namespace

DiffDigest make_diff_digest(const Trace& t, const Analyses& a, const std::string& file) {
  DiffDigest d;
  d.file = file;
  d.steps = a.steps.stats.count;
  d.step_median_ns = a.steps.stats.median_ns;
  std::map<std::string_view, NameTotal> gpu, cpu;
  const SliceTable& s = t.slices;
  for (size_t i = 0; i < s.size(); ++i) {
    if (is_gpu_op(s.kind[i]))
      add(gpu, t.str(s.name[i]), s.dur[i]);
    else if (s.kind[i] == SliceKind::kCpuOp)
      add(cpu, t.str(s.name[i]), s.dur[i]);
  }
  d.gpu_ops = to_sorted(gpu);
  d.cpu_ops = to_sorted(cpu);
  return d;
}

namespace {

// Both lists are sorted by name: one merge pass.
DiffTable diff_lists(const std::vector<NameTotal>& base, const std::vector<NameTotal>& test) {
  DiffTable table;
  size_t i = 0, j = 0;
  while (i < base.size() || j < test.size()) {
    DiffRow row;
    if (j >= test.size() || (i < base.size() && base[i].name < test[j].name)) {
      row.name = base[i].name;
      row.base_count = base[i].count;
      row.base_ns = base[i++].total_ns;
    } else if (i >= base.size() || test[j].name < base[i].name) {
      row.name = test[j].name;
      row.test_count = test[j].count;
      row.test_ns = test[j++].total_ns;
    } else {
      row.name = base[i].name;
      row.base_count = base[i].count;
      row.base_ns = base[i++].total_ns;
      row.test_count = test[j].count;
      row.test_ns = test[j++].total_ns;
    }
    table.base_count += row.base_count;
    table.test_count += row.test_count;
    table.base_ns += row.base_ns;
    table.test_ns += row.test_ns;
    if (is_added(row))
      ++table.added;
    else if (is_removed(row))
      ++table.removed;
    else if (row.base_count != row.test_count || row.base_ns != row.test_ns)
      ++table.changed;
    table.rows.push_back(std::move(row));
  }
  auto magnitude = [](const DiffRow& r) {
    int64_t d = r.delta_ns();
    return d < 0 ? -d : d;
  };
  std::stable_sort(table.rows.begin(), table.rows.end(),
                   [&magnitude](const DiffRow& a, const DiffRow& b) {
                     int64_t ma = magnitude(a), mb = magnitude(b);
                     if (ma != mb) return ma > mb;
                     return a.name < b.name;
                   });
  return table;
}

}  // namespace

TraceDiff diff_traces(const DiffDigest& base, const DiffDigest& test) {
  TraceDiff d;
  d.base_file = base.file;
  d.test_file = test.file;
  d.base_steps = base.steps;
  d.test_steps = test.steps;
  d.base_step_median_ns = base.step_median_ns;
  d.test_step_median_ns = test.step_median_ns;
  d.has_step_delta = base.steps > 0 && test.steps > 0;
  d.gpu_ops = diff_lists(base.gpu_ops, test.gpu_ops);
  d.cpu_ops = diff_lists(base.cpu_ops, test.cpu_ops);
  return d;
}

}  // namespace ks
