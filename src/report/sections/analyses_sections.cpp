// The report's sections after the findings, in the report's order (docs/report-schema.md):
// every format renders this one list, each section saying what it shows where.
#include "report/critical_path_report.h"
#include "report/sections/sections.h"

namespace ks {

std::vector<ReportSection> report_sections(const Trace& t, const Analyses& a) {
  const bool gpu = a.temporal.has_gpu_ops;
  std::vector<ReportSection> s;
  s.push_back(steps_section(t, a.steps, a.iterations, a.gpu_idle));
  s.push_back(gpu_section(a.gpu_idle, a.graph_captures));
  s.push_back(kernels_section(t, a.kernels, a.launches));
  s.push_back(gpu_by_op_section(a.gpu_by_op));
  s.push_back(memory_ops_section(a.memory_ops));
  s.push_back(sync_section(t, a.sync));
  // What bounds the step: its critical path (the CLI's critical-path command gives it whole).
  s.push_back(critical_path_section(t, a.critical_path));
  s.push_back(temporal_section(a.temporal));
  s.push_back(kernel_types_section(a.kernel_types, gpu));
  s.push_back(idle_breakdown_section(a.idle, gpu));
  s.push_back(comm_overlap_section(a.comm_overlap, gpu));
  s.push_back(launch_stats_section(t, a.launches, gpu));
  s.push_back(idle_causes_section(t, a.idle_causes));
  s.push_back(step_breakdown_section(t, a.step_breakdown, gpu));
  s.push_back(gpu_metrics_section(a.gpu_metrics));
  s.push_back(memory_section(t, a.memory));
  s.push_back(kernel_groups_section(t, a.kernel_groups));
  s.push_back(api_calls_section(t, a.api_calls));
  s.push_back(annotations_section(t, a.annotations));
  s.push_back(cpu_ops_section(t, a.cpu_ops));
  if (!a.api_calls.rows.empty() || !a.cpu_ops.rows.empty()) {
    s.emplace_back(nullptr).line("");  // the terminal's blank line after the name tables
  }
  return s;
}

}  // namespace ks
