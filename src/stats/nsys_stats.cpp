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
  bool names_kernels = false;  // takes nsys's `:base` and `:mangled` arguments
};

// nsys's default `nsys stats` order first, then the reports it prints only when asked.
const Entry kReports[] = {
    {"nvtx_sum", report_nvtx_sum},
    {"osrt_sum", report_osrt_sum},
    {"cuda_api_sum", report_cuda_api_sum},
    {"cuda_gpu_kern_sum", report_cuda_gpu_kern_sum, true},
    {"cuda_gpu_mem_time_sum", report_cuda_gpu_mem_time_sum},
    {"cuda_gpu_mem_size_sum", report_cuda_gpu_mem_size_sum},
    {"cuda_gpu_kern_gb_sum", report_cuda_gpu_kern_gb_sum, true},
    {"cuda_gpu_trace", report_cuda_gpu_trace, true},
    {"cuda_kern_exec_sum", report_cuda_kern_exec_sum, true},
    {"nvtx_kern_sum", report_nvtx_kern_sum, true},
    {"cuda_gpu_sum", report_cuda_gpu_sum, true},
    {"cuda_api_gpu_sum", report_cuda_api_gpu_sum, true},
    {"nvtx_pushpop_sum", report_nvtx_pushpop_sum},
    {"nvtx_startend_sum", report_nvtx_startend_sum},
    {"nvtx_gpu_proj_sum", report_nvtx_gpu_proj_sum},
    {"cuda_api_trace", report_cuda_api_trace},
    {"cuda_kern_exec_trace", report_cuda_kern_exec_trace, true},
    {"nvtx_pushpop_trace", report_nvtx_pushpop_trace},
    {"um_sum", report_um_sum},
    {"um_total_sum", report_um_total_sum},
    {"um_cpu_page_faults_sum", report_um_cpu_page_faults_sum},
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
  // graphics-API reports of that set are not implemented; the unified-memory ones, um_sum,
  // um_total_sum and um_cpu_page_faults_sum, are asked for by name).
  static const std::vector<std::string> names = {"nvtx_sum",
                                                 "osrt_sum",
                                                 "cuda_api_sum",
                                                 "cuda_gpu_kern_sum",
                                                 "cuda_gpu_mem_time_sum",
                                                 "cuda_gpu_mem_size_sum"};
  return names;
}

namespace {

// A report as asked for: "NAME" or, as nsys takes them, "NAME:ARG[:ARG]".
struct Asked {
  std::string spec;
  const Entry* entry = nullptr;
  KernelNaming naming = KernelNaming::kTemplated;
};

// Each asked report's entry and arguments, or false (*error says which name or argument is
// unknown and what is known).
bool find_reports(const std::vector<std::string>& reports, std::vector<Asked>* out,
                  std::string* error) {
  for (const std::string& spec : reports) {
    Asked a;
    a.spec = spec;
    const std::string name = spec.substr(0, spec.find(':'));
    for (const Entry& e : kReports)
      if (name == e.name) a.entry = &e;
    if (!a.entry) {
      std::string known;
      for (const Entry& e : kReports) known += std::string(known.empty() ? "" : ", ") + e.name;
      *error = "unknown report '" + spec + "' (known: " + known + ")";
      return false;
    }
    for (size_t at = spec.find(':'); at != std::string::npos;) {
      const size_t next = spec.find(':', at + 1);
      const std::string arg = spec.substr(at + 1, next == std::string::npos ? next : next - at - 1);
      at = next;
      const bool naming = arg == "base" || arg == "mangled";
      if (naming && a.entry->names_kernels && a.naming == KernelNaming::kTemplated) {
        a.naming = arg == "base" ? KernelNaming::kBase : KernelNaming::kMangled;
        continue;
      }
      *error =
          "report '" + spec + "': " +
          (naming && a.entry->names_kernels ? std::string("base and mangled exclude each other")
           : arg == "nvtx-name"
               ? "the nvtx-name argument is not implemented (nvtx_kern_sum gives the kernels "
                 "of each NVTX range)"
           : a.entry->names_kernels ? "unknown argument '" + arg + "' (known: base, mangled)"
                                    : "unknown argument '" + arg + "' (" + name + " takes none)");
      return false;
    }
    out->push_back(a);
  }
  return true;
}

}  // namespace

bool check_nsys_stats_reports(const std::vector<std::string>& reports, std::string* error) {
  std::vector<Asked> asked;
  return find_reports(reports, &asked, error);
}

namespace {

// Runs the reports on `db`, handing each finished table to `done`.
bool run_reports(const StatsDb& db, const std::vector<std::string>& reports,
                 const std::function<void(StatsTable&&)>& done, std::string* error) {
  std::vector<Asked> asked;
  if (!find_reports(reports, &asked, error)) return false;
  for (const Asked& a : asked) {
    StatsTable t;
    std::string err;
    if (!a.entry->fn(db.with_kernel_naming(a.naming), &t, &err)) {
      *error = a.spec + ": " + err;
      return false;
    }
    t.report = a.spec;  // with its arguments, as the user asked for it
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
