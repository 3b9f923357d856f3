// Per-kernel totals agree with Holistic Trace Analysis (../shared/reference, HTA's
// gpu_kernel_breakdown "kernels": every GPU op name with sum and mean, memory ops included).
// What is compared is the report's kernel table (summarize_kernels: what users see), on the
// trace rounded to HTA's microseconds (each event's start up, its end down), over HTA's op set:
//   - HTA's view of the trace (corpus/hta_view.h), found from the data: GPU ops without a
//     stream arg are not HTA's; CPU-side events with one are (Triton's launcher cpu_op, named as
//     its kernel, adds its duration and count to the kernel's); names HTA types OTHER (Sync)
//     are in no table;
//   - the step filter: with two or more ProfilerSteps, HTA keeps a GPU op only when the CPU
//     event that launched it started before the last step (runs[0], HTA's default; the report's
//     --drop-last-step) or at/before the last step's end (runs[1]); HTA's last step may be a
//     GPU-side annotation without a stream arg (ROCm).
// Memory ops are listed by kind in the report; per name they are summed from the same op set,
// and their total must be the memory table's.
// Each name: the same instance count, and the same sum to the microsecond.
#include <simdjson.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <vector>

#include "analysis/analyze.h"
#include "corpus/hta_reference.h"
#include "corpus/hta_view.h"
#include "corpus/json_get.h"
#include "corpus/shared_traces.h"

using namespace ks_test;

namespace {

struct Totals {
  double sum_us = 0;
  uint64_t count = 0;
};

struct Ours {
  std::map<std::string, Totals> by_name;
  bool report_table_checked = false;  // runs[0]: the report's own table was compared too
};

Ours our_totals(const ks::Trace& t, const HtaView& view, bool include_last) {
  ks::LaunchJoin join = ks::build_launch_join(t);
  const std::vector<bool> kept = hta_view_kept(t, join, view, include_last);
  const std::vector<bool>* included = kept.empty() ? nullptr : &kept;
  Ours o;
  const ks::SliceTable& s = t.slices;
  // The report's kernel table.
  const ks::KernelSummary kernels = ks::summarize_kernels(t, included);
  for (const ks::KernelRow& row : kernels.rows) {
    if (view.type(row.name) == HtaType::kOther) continue;  // in no HTA table
    Totals& x = o.by_name[std::string(t.str(row.name))];
    x.sum_us += static_cast<double>(row.stats.total_ns) / 1000.0;
    x.count += row.stats.count;
  }
  // Runs[0] without a rule of hta_view.h: the CLI's `report --drop-last-step` shows this table.
  if (!include_last && view.same_as_ours()) {
    ks::AnalysisOptions opt;
    opt.drop_last_step = true;
    ks::Analyses a = ks::analyze(t, opt);
    CHECK(a.kernels.count == kernels.count);
    CHECK(a.kernels.total_ns == kernels.total_ns);
    CHECK(a.kernels.rows.size() == kernels.rows.size());
    o.report_table_checked = true;
  }
  // Memory ops by name, from the same op set; their total is the memory table's.
  const ks::MemoryOpSummary memory = ks::summarize_memory_ops(t, included);
  uint64_t memory_count = 0;
  for (uint32_t g : join.gpu_ops_by_ts) {
    if (s.kind[g] == ks::SliceKind::kKernel || !ks::op_counted(included, g)) continue;
    ++memory_count;
    if (view.type(s.name[g]) == HtaType::kOther) continue;
    Totals& x = o.by_name[std::string(t.str(s.name[g]))];
    x.sum_us += static_cast<double>(s.dur[g]) / 1000.0;
    ++x.count;
  }
  CHECK(memory_count == memory.count);
  // CPU-side ops HTA takes for GPU ops.
  for (uint32_t i : hta_view_extra(view, kept)) {
    if (view.type(s.name[i]) == HtaType::kOther) continue;
    Totals& x = o.by_name[std::string(t.str(s.name[i]))];
    x.sum_us += static_cast<double>(s.dur[i]) / 1000.0;
    ++x.count;
  }
  return o;
}

}  // namespace

TEST_CASE("Kernel totals agree with HTA's kernel breakdown on the reference traces",
          "[corpus][hta]") {
  size_t traces_compared = 0, names_compared = 0, report_tables = 0, with_rules = 0;
  const bool found = for_each_hta_reference([&](HtaReference& r) {
    std::string json;
    REQUIRE(read_file_maybe_gzip(r.trace_path, &json));
    round_like_hta(r.loaded.trace.get());
    const ks::Trace& trace = *r.loaded.trace;
    const HtaView view = hta_view(trace, json);
    // CPU-side "GPU ops" carry no correlation: HTA's step filter would join them to every CPU
    // event without one. No reference trace has both; hta_view_extra leaves them out then.
    if (view.steps >= 2) CHECK(view.extra_ops.empty());
    if (!view.same_as_ours()) ++with_rules;
    for (simdjson::dom::element run : r.runs) {
      bool include_last = boolean(run, "include_last_profiler_step");
      INFO("include_last_profiler_step=" << include_last);
      simdjson::dom::array kernels;
      // Where HTA itself failed on a trace there is nothing to compare.
      if (!array(at(at(run, "results"), "gpu_kernel_breakdown"), "kernels", &kernels)) continue;
      Ours ours = our_totals(trace, view, include_last);
      report_tables += ours.report_table_checked ? 1 : 0;
      std::map<std::string, Totals> theirs;
      for (simdjson::dom::element k : kernels) {
        Totals& x = theirs[str(k, "name")];
        double sum = dbl(k, "sum (us)"), mean = dbl(k, "mean (us)");
        x.sum_us += sum;
        x.count += mean > 0 ? static_cast<uint64_t>(std::llround(sum / mean)) : 0;
      }
      for (const auto& kv : theirs) {
        INFO("kernel: " << kv.first);
        auto it = ours.by_name.find(kv.first);
        CHECK(it != ours.by_name.end());
        if (it == ours.by_name.end()) continue;
        if (kv.second.sum_us > 0) CHECK(it->second.count == kv.second.count);
        INFO("Kinetoscope " << it->second.sum_us << " us, HTA " << kv.second.sum_us << " us");
        CHECK(std::fabs(it->second.sum_us - kv.second.sum_us) < 0.5);
        ++names_compared;
      }
      for (const auto& kv : ours.by_name) {
        INFO("kernel only in Kinetoscope: " << kv.first);
        CHECK(theirs.count(kv.first) == 1);
      }
    }
    ++traces_compared;
  });
  if (!found) return;
  CHECK(traces_compared >= 40);
  CHECK(names_compared >= 1000);
  CHECK(report_tables >= 25);
  CHECK(with_rules >= 5);
}
