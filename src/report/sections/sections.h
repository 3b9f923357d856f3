// The report's sections as ReportSection values (report/report_table.h), one builder per
// concern, each in its own file here. report_sections lists them in the report's order; the
// writers (json_report.cpp, text_report.cpp, markdown_report.cpp) render that list.
#pragma once
#include "analysis/analyze.h"
#include "findings/finding.h"
#include "report/report_table.h"

namespace ks {

// The nsys summary columns of one set of durations, in the schema's order: count, total_us,
// avg_us, median_us, min_us, max_us, stddev_us (shown in no format until the caller says how).
std::vector<Column> duration_stats_columns();
void add_duration_stats_cells(std::vector<Cell>* row, const DurationStats& s);

// kernels_section.cpp: per kernel name, the nsys cuda_gpu_kern_sum columns.
ReportSection kernels_section(const Trace& t, const KernelSummary& k, const LaunchStats& l);
// steps_section.cpp: the steps and their GPU idle share; the GPU's busy/idle summary.
// Without steps, the iterations inferred from the repeating launches follow (`inferred`).
ReportSection steps_section(const Trace& t, const StepsResult& r, const IterationsResult& inferred,
                            const GpuIdleResult& idle);
ReportSection gpu_section(const GpuIdleResult& g, const GraphCaptures& captures);
// sync_section.cpp: synchronizing calls and DtoH copies in steps (JSON only).
ReportSection sync_section(const Trace& t, const SyncResult& r);
// named_tables_section.cpp: runtime API calls, user annotations (JSON only), CPU ops.
ReportSection api_calls_section(const Trace& t, const NamedStatsTable& api);
ReportSection annotations_section(const Trace& t, const NamedStatsTable& annotations);
ReportSection cpu_ops_section(const Trace& t, const CpuOpSummary& c);
// gpu_time_sections.cpp: HTA's temporal and kernel-type breakdowns, communication overlap
// (text and Markdown only with GPU ops).
ReportSection temporal_section(const TemporalBreakdown& t);
ReportSection kernel_types_section(const KernelTypeBreakdown& k, bool has_gpu_ops);
ReportSection comm_overlap_section(const CommOverlap& o, bool has_gpu_ops);
// idle_causes_section.cpp: idle gaps by cause, the largest ones (JSON only).
ReportSection idle_causes_section(const Trace& t, const IdleCauses& c);
// memory_section.cpp: peak memory per device.
ReportSection memory_section(const Trace& t, const MemoryUsage& m);
// memory_ops_section.cpp: per copy / set kind: count, time, bytes, bandwidth.
ReportSection memory_ops_section(const MemoryOpSummary& m);
// idle_breakdown_section.cpp: idle time per stream by cause (text and Markdown with GPU ops).
ReportSection idle_breakdown_section(const IdleBreakdown& b, bool has_gpu_ops);
// launch_stats_section.cpp: kernel launches per API, launch queues.
ReportSection launch_stats_section(const Trace& t, const LaunchStats& l, bool has_gpu_ops);
// step_breakdown_section.cpp: where the step time went, per step and in total.
ReportSection step_breakdown_section(const Trace& t, const StepBreakdown& b, bool has_gpu_ops);
// gpu_metrics_section.cpp: utilization, SM efficiency, occupancy, tensor cores per device.
ReportSection gpu_metrics_section(const GpuMetrics& g);
// gpu_by_op_section.cpp: GPU time by the op that launched it (the TB plugin's operator view).
ReportSection gpu_by_op_section(const GpuTimeByOp& g);
// named_tables_section.cpp: kernels by class and by annotation.
ReportSection kernel_groups_section(const Trace& t, const KernelGroups& g);

// findings_section.cpp: the findings, most severe first; `none` says why there are none
// ("nothing in this trace crossed a rule's threshold"). `trace` (null for several ranks')
// gives the ranges' and events' times from its first event.
ReportSection findings_section(const Trace* trace, const std::vector<Finding>& findings,
                               const char* none);
constexpr const char* kNoFindings = "nothing in this trace crossed a rule's threshold";

// trace_section.cpp: the report's header (the file, its tracks, device, rank, capture) and
// the importer's diagnostics (a top-level array in JSON).
ReportSection trace_section(const Trace& t);
ReportSection diagnostics_section(const Diagnostics& d, TraceFormat format);

// analyses_sections.cpp: the sections above (and the critical path's), from the steps to the
// CPU ops, in the report's order.
std::vector<ReportSection> report_sections(const Trace& t, const Analyses& a);

}  // namespace ks
