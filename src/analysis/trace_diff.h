// Two traces of the same job compared, before and after a change (HTA's trace diff,
// hta/trace_diff.py, TraceDiff.compare_traces and ops_diff): per name, how many times each GPU
// op (kernel, memcpy, memset: HTA's GPU side) and each CPU op (`cpu_op`) ran and their total
// time in each trace, the deltas test - base, and the names only one trace has (added: only in
// TEST; removed: only in BASE). Plus the step-time delta (median ProfilerStep duration).
// Per step when both traces have steps: two captures of the same job with 10 and 12 steps must
// not look like a 20% regression of every kernel, so the ops inside the steps (a CPU op starting
// in a step's host range; a GPU op launched there, or, without a recorded launch, starting in
// the step's device-adjusted range) are summed and divided by each trace's step count; the
// report says both counts and warns when they differ. Without steps on both sides, the whole
// traces are compared (what they hold is then the comparison's premise). HTA compares one
// iteration (the first of the first rank); the mean over the steps is ours, steadier. A trace
// without step markers brings the iterations its launches repeat in (analysis/iterations.h) as
// its steps, and the report says so.
// Both traces are summarized into a DiffDigest where they are loaded (the page loads BASE and
// TEST in two workers) and compared anywhere (report/diff_digest_json.h carries the digest).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/analyze.h"

namespace ks {

struct NameTotal {
  std::string name;
  uint64_t count = 0;
  int64_t total_ns = 0;
};

struct DiffDigest {
  std::string file;
  uint64_t steps = 0;
  double step_median_ns = 0;  // 0 without steps
  // No step markers: the steps are the iterations inferred from the repeating launches
  // (analysis/iterations.h), so two captures without markers compare per iteration.
  bool steps_inferred = false;
  std::vector<NameTotal> gpu_ops;  // by name (byte order)
  std::vector<NameTotal> cpu_ops;  // by name (byte order)
  // The same, only the ops inside the steps (empty without steps).
  std::vector<NameTotal> gpu_ops_in_steps;
  std::vector<NameTotal> cpu_ops_in_steps;
};

DiffDigest make_diff_digest(const Trace& trace, const Analyses& analyses, const std::string& file);

struct DiffRow {
  std::string name;
  // Totals over what is compared: the steps (per_step) or the whole traces.
  uint64_t base_count = 0, test_count = 0;
  int64_t base_ns = 0, test_ns = 0;
  // Per step (the totals divided by each trace's step count); the totals without steps.
  double base_count_per_step = 0, test_count_per_step = 0;
  double base_per_step_ns = 0, test_per_step_ns = 0;
  double delta_per_step_ns() const { return test_per_step_ns - base_per_step_ns; }
  double count_per_step_delta() const { return test_count_per_step - base_count_per_step; }
  int64_t delta_ns() const { return test_ns - base_ns; }
  int64_t count_delta() const {
    return static_cast<int64_t>(test_count) - static_cast<int64_t>(base_count);
  }
};

struct DiffTable {
  // Every name of either trace, by |time delta per step| descending, then by name.
  std::vector<DiffRow> rows;
  uint64_t base_count = 0, test_count = 0;
  int64_t base_ns = 0, test_ns = 0;
  // changed: in both, count or time per step differs
  uint64_t added = 0, removed = 0, changed = 0;
  double base_per_step_ns = 0, test_per_step_ns = 0;
};

struct TraceDiff {
  std::string base_file, test_file;
  uint64_t base_steps = 0, test_steps = 0;
  double base_step_median_ns = 0, test_step_median_ns = 0;
  bool has_step_delta = false;                        // both traces have steps
  bool base_inferred = false, test_inferred = false;  // steps that are inferred iterations
  bool per_step = false;  // the tables compare per step (both traces have steps)
  bool step_counts_differ = false;
  DiffTable gpu_ops, cpu_ops;
};

TraceDiff diff_traces(const DiffDigest& base, const DiffDigest& test);

// A row's place: only in TEST, only in BASE, or in both.
inline bool is_added(const DiffRow& r) {
  return r.base_count == 0 && r.test_count > 0;
}
inline bool is_removed(const DiffRow& r) {
  return r.base_count > 0 && r.test_count == 0;
}

}  // namespace ks
