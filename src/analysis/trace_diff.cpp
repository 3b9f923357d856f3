#include "analysis/trace_diff.h"

#include <algorithm>
#include <map>

#include "analysis/gpu_time_by_op.h"

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
  const std::vector<Iteration> steps = loop_windows(a.steps, a.iterations, &d.steps_inferred);
  if (d.steps_inferred) {
    d.steps = a.iterations.stats.count;
    d.step_median_ns = a.iterations.stats.median_ns;
  }
  std::map<std::string_view, NameTotal> gpu, cpu, gpu_in, cpu_in;
  const SliceTable& s = t.slices;
  // Is ts inside a step (host ranges, or the device-adjusted ones)? Steps are in time order.
  auto in_step = [&steps](int64_t ts, bool host) {
    auto it = std::upper_bound(
        steps.begin(), steps.end(), ts,
        [host](int64_t x, const Iteration& st) { return x < (host ? st.host_begin : st.begin); });
    if (it == steps.begin()) return false;
    --it;
    return ts < (host ? it->host_end : it->end);
  };
  for (size_t i = 0; i < s.size(); ++i) {
    std::string_view name = t.str(s.name[i]);
    if (is_gpu_op(s.kind[i])) {
      add(gpu, name, s.dur[i]);
      const int32_t launch = i < a.join.partner.size() ? a.join.partner[i] : -1;
      const bool inside =
          launch >= 0 ? in_step(s.ts[static_cast<size_t>(launch)], true) : in_step(s.ts[i], false);
      if (!steps.empty() && inside) add(gpu_in, name, s.dur[i]);
    } else if (is_op_call(t, static_cast<uint32_t>(i))) {
      // An export's emit_nvtx range "aten::mm, seq = 12, ..." is a call of aten::mm.
      if (s.kind[i] == SliceKind::kUserAnnotation) name = emit_nvtx_op_name(name);
      add(cpu, name, s.dur[i]);
      if (!steps.empty() && in_step(s.ts[i], true)) add(cpu_in, name, s.dur[i]);
    }
  }
  d.gpu_ops = to_sorted(gpu);
  d.cpu_ops = to_sorted(cpu);
  d.gpu_ops_in_steps = to_sorted(gpu_in);
  d.cpu_ops_in_steps = to_sorted(cpu_in);
  return d;
}

namespace {

// Both lists are sorted by name: one merge pass. Per-step values divide by the step counts
// (1 each when the whole traces are compared).
DiffTable diff_lists(const std::vector<NameTotal>& base, const std::vector<NameTotal>& test,
                     uint64_t base_steps, uint64_t test_steps) {
  DiffTable table;
  const double bs = static_cast<double>(std::max<uint64_t>(base_steps, 1));
  const double ts = static_cast<double>(std::max<uint64_t>(test_steps, 1));
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
    row.base_count_per_step = static_cast<double>(row.base_count) / bs;
    row.test_count_per_step = static_cast<double>(row.test_count) / ts;
    row.base_per_step_ns = static_cast<double>(row.base_ns) / bs;
    row.test_per_step_ns = static_cast<double>(row.test_ns) / ts;
    table.base_count += row.base_count;
    table.test_count += row.test_count;
    table.base_ns += row.base_ns;
    table.test_ns += row.test_ns;
    // Per step, compared exactly: n x a / n == a in doubles for the counts and times here.
    if (is_added(row))
      ++table.added;
    else if (is_removed(row))
      ++table.removed;
    else if (row.base_count_per_step != row.test_count_per_step ||
             row.base_per_step_ns != row.test_per_step_ns)
      ++table.changed;
    table.rows.push_back(std::move(row));
  }
  table.base_per_step_ns = static_cast<double>(table.base_ns) / bs;
  table.test_per_step_ns = static_cast<double>(table.test_ns) / ts;
  auto magnitude = [](const DiffRow& r) {
    double d = r.delta_per_step_ns();
    return d < 0 ? -d : d;
  };
  std::stable_sort(table.rows.begin(), table.rows.end(),
                   [&magnitude](const DiffRow& a, const DiffRow& b) {
                     double ma = magnitude(a), mb = magnitude(b);
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
  d.base_inferred = base.steps_inferred;
  d.test_inferred = test.steps_inferred;
  d.has_step_delta = base.steps > 0 && test.steps > 0;
  d.per_step = d.has_step_delta;
  d.step_counts_differ = d.per_step && base.steps != test.steps;
  if (d.per_step) {
    d.gpu_ops = diff_lists(base.gpu_ops_in_steps, test.gpu_ops_in_steps, base.steps, test.steps);
    d.cpu_ops = diff_lists(base.cpu_ops_in_steps, test.cpu_ops_in_steps, base.steps, test.steps);
  } else {
    d.gpu_ops = diff_lists(base.gpu_ops, test.gpu_ops, 1, 1);
    d.cpu_ops = diff_lists(base.cpu_ops, test.cpu_ops, 1, 1);
  }
  return d;
}

}  // namespace ks
