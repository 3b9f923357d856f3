// The report registry and the runner. Each report lives in its own file (definitions there).
#include "stats/nsys_stats.h"

#include <algorithm>

#include "stats/stats_db.h"

namespace ks {

namespace {

using ReportFn = bool (*)(const StatsDb&, StatsTable*, std::string*);

struct Entry {
  const char* name;
  ReportFn fn;
};

// nsys's default `nsys stats` order first, then the reports it prints only when asked.
const Entry kReports[] = {
    {"nvtx_sum", report_nvtx_sum},
    {"osrt_sum", report_osrt_sum},
    {"cuda_api_sum", report_cuda_api_sum},
    {"cuda_gpu_kern_sum", report_cuda_gpu_kern_sum},
    {"cuda_gpu_mem_time_sum", report_cuda_gpu_mem_time_sum},
    {"cuda_gpu_mem_size_sum", report_cuda_gpu_mem_size_sum},
    {"cuda_gpu_kern_gb_sum", report_cuda_gpu_kern_gb_sum},
    {"cuda_gpu_trace", report_cuda_gpu_trace},
    {"cuda_kern_exec_sum", report_cuda_kern_exec_sum},
    {"nvtx_kern_sum", report_nvtx_kern_sum},
    {"cuda_gpu_sum", report_cuda_gpu_sum},
    {"cuda_api_gpu_sum", report_cuda_api_gpu_sum},
    {"nvtx_pushpop_sum", report_nvtx_pushpop_sum},
    {"nvtx_startend_sum", report_nvtx_startend_sum},
    {"nvtx_gpu_proj_sum", report_nvtx_gpu_proj_sum},
    {"cuda_api_trace", report_cuda_api_trace},
    {"cuda_kern_exec_trace", report_cuda_kern_exec_trace},
    {"nvtx_pushpop_trace", report_nvtx_pushpop_trace},
};

}  // namespace

const std::vector<std::string>& nsys_stats_report_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const Entry& e : kReports) v.push_back(e.name);
    return v;
  }();
  return names;
}

const std::vector<std::string>& nsys_stats_default_reports() {
  // What `nsys stats` prints without --report (the CUDA/NVTX/OSRT part of its default set; the
  // graphics-API and unified-memory reports of that set are not implemented).
  static const std::vector<std::string> names = {"nvtx_sum",
                                                 "osrt_sum",
                                                 "cuda_api_sum",
                                                 "cuda_gpu_kern_sum",
                                                 "cuda_gpu_mem_time_sum",
                                                 "cuda_gpu_mem_size_sum"};
  return names;
}

namespace {

// The named reports' functions, or false (*error says which name is unknown and lists the known).
bool find_reports(const std::vector<std::string>& reports, std::vector<ReportFn>* fns,
                  std::string* error) {
  for (const std::string& name : reports) {
    const Entry* found = nullptr;
    for (const Entry& e : kReports)
      if (name == e.name) found = &e;
    if (!found) {
      std::string known;
      for (const Entry& e : kReports) known += std::string(known.empty() ? "" : ", ") + e.name;
      *error = "unknown report '" + name + "' (known: " + known + ")";
      return false;
    }
    fns->push_back(found->fn);
  }
  return true;
}

// Runs the reports on `db`, handing each finished table to `done`.
bool run_reports(const StatsDb& db, const std::vector<std::string>& reports,
                 const std::function<void(StatsTable&&)>& done, std::string* error) {
  std::vector<ReportFn> fns;
  if (!find_reports(reports, &fns, error)) return false;
  for (size_t i = 0; i < fns.size(); ++i) {
    StatsTable t;
    std::string err;
    if (!fns[i](db, &t, &err)) {
      *error = reports[i] + ": " + err;
      return false;
    }
    done(std::move(t));
  }
  return true;
}

}  // namespace

bool run_nsys_stats_on_handle(sqlite3* handle, const std::vector<std::string>& reports,
                              std::vector<StatsTable>* out, std::string* error, size_t max_rows) {
  return run_reports(
      StatsDb(handle, max_rows), reports, [out](StatsTable&& t) { out->push_back(std::move(t)); },
      error);
}

bool run_nsys_stats_on_handle(sqlite3* handle, const std::vector<std::string>& reports,
                              StatsSink* sink, std::string* error) {
  return run_reports(
      StatsDb(handle, 0, sink), reports, [sink](StatsTable&& t) { sink->end(t); }, error);
}

}  // namespace ks
