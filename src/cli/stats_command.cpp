// `kinetoscope stats`: the `nsys stats` reports (src/stats/) of an Nsight Systems SQLite export,
// opened through the same reader as `kinetoscope report` and the page (NsysDatabase over a
// ByteSource), so a damaged or foreign file gets the same one-line error everywhere.
#include "cli/stats_command.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "cli/loaded_trace.h"
#include "cli/options.h"
#include "import/file_byte_source.h"
#include "import/nsys_sqlite/nsys_database.h"
#include "stats/nsys_stats.h"

namespace ks::cli {

namespace {

const char kStatsUsage[] =
    "Usage: kinetoscope stats EXPORT.sqlite [--report NAME]... [--format text|csv|json] [-o FILE]\n"
    "\n"
    "Prints the `nsys stats` reports of an Nsight Systems SQLite export (nsys export --type\n"
    "sqlite, or the .sqlite `nsys stats` writes beside a report), computed from the export's own\n"
    "tables with NVIDIA's definitions: same columns, same row order.\n"
    "\n"
    "Options:\n"
    "  --report NAME   a report to print (repeatable; default: nvtx_sum, osrt_sum, cuda_api_sum,\n"
    "                  cuda_gpu_kern_sum, cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum, as\n"
    "                  `nsys stats` prints by default). Also: cuda_gpu_kern_gb_sum (kernels by\n"
    "                  name, grid and block), cuda_gpu_sum (kernels and memory\n"
    "                  ops in one table), cuda_api_gpu_sum (API calls too), nvtx_pushpop_sum,\n"
    "                  nvtx_startend_sum (nvtx_sum by style), nvtx_gpu_proj_sum (NVTX ranges\n"
    "                  projected onto the GPU), cuda_kern_exec_sum (each kernel's launch call,\n"
    "                  queue and run times), nvtx_kern_sum (kernels by the NVTX ranges around\n"
    "                  their launch); traces, a row each: cuda_gpu_trace (GPU ops),\n"
    "                  cuda_api_trace (CUDA API calls), cuda_kern_exec_trace (kernel launches),\n"
    "                  nvtx_pushpop_trace (push/pop NVTX ranges with their stack); unified\n"
    "                  memory: um_sum (faults and migrations by address), um_total_sum,\n"
    "                  um_cpu_page_faults_sum (host faults by function and line). As in nsys,\n"
    "                  NAME:base names kernels by their base name (shortName) and\n"
    "                  NAME:mangled by their mangled name, on the reports that name kernels\n"
    "  --timeunit U    the time columns in nsec (default), usec, msec or sec, as nsys stats\n"
    "                  --timeunit prints them (\"Avg (us)\" 3.493)\n"
    "  --format F      text (nsys's column layout, default), csv (as --format csv), json\n"
    "                  (kinetoscope.stats/1, docs/report-schema.md)\n"
    "  -o FILE         write to FILE instead of standard output\n"
    "\n"
    "Exit status: 0 written; 1 the file is not a readable Nsight Systems export; 2 usage error.\n";

int usage(const std::string& msg) {
  return usage_error("stats", msg);
}

int input_error(const std::string& path, const std::string& msg) {
  std::fputs(file_error_line(path, msg).c_str(), stderr);
  return 1;
}

}  // namespace

int stats_command(const std::vector<std::string>& args) {
  std::string format = "text", output, path, timeunit = "nsec";
  std::vector<std::string> reports;
  ArgWalker w(args);
  while (w.next()) {
    const std::string& a = w.arg();
    std::string r;
    if (w.flag({"-h", "--help"})) {
      std::fputs(kStatsUsage, stdout);
      return 0;
    } else if (w.value({"--report", "-r"}, &r, "--report=")) {
      if (w.missing()) return usage(a + " needs a report name");
      // nsys accepts a comma-separated list too.
      size_t s = 0;
      while (s <= r.size()) {
        size_t c = r.find(',', s);
        if (c == std::string::npos) c = r.size();
        if (c > s) reports.push_back(r.substr(s, c - s));
        s = c + 1;
      }
    } else if (w.value({"--format", "-f"}, &format, "--format=")) {
      if (w.missing()) return usage(a + " needs a value");
    } else if (w.value({"--timeunit"}, &timeunit, "--timeunit=")) {
      if (w.missing()) return usage(a + " needs a unit");
    } else if (w.value({"-o", "--output"}, &output)) {
      if (w.missing()) return usage(a + " needs a file name");
    } else if (w.unknown_option()) {
      return usage("unknown option '" + a + "'");
    } else if (path.empty()) {
      path = a;
    } else {
      return usage("one export at a time (got '" + path + "' and '" + a + "')");
    }
  }
  if (format != "text" && format != "csv" && format != "json")
    return usage("unknown format '" + format + "' (text, csv or json)");
  const TimeUnit* unit = find_time_unit(timeunit);
  if (!unit) return usage("unknown time unit '" + timeunit + "' (nsec, usec, msec or sec)");
  if (path.empty()) return usage("no export file given");
  if (reports.empty()) reports = nsys_stats_default_reports();
  std::string unknown;
  if (!check_nsys_stats_reports(reports, &unknown)) return usage(unknown);

  // The shared reader (the same the report and the page use): a read-only VFS over the file's
  // bytes; its errors say what is wrong and where (not SQLite, not an export, damaged).
  ImportError ierr;
  auto source = FileByteSource::open(path, &ierr);
  if (!source) return input_error(path, ierr.to_line());
  auto db = NsysDatabase::open(source.get(), &ierr);
  if (!db) return input_error(path, ierr.to_line());
  FILE* o = output.empty() ? stdout : std::fopen(output.c_str(), "wb");
  if (!o) {
    std::fprintf(stderr, "kinetoscope: cannot write %s: %s\n", output.c_str(),
                 std::strerror(errno));
    return 1;
  }
  // Written as the reports are made: a trace of millions of rows streams through (the rows are
  // never all in memory), so a multi-GB export's cuda_gpu_trace runs in constant memory.
  bool write_failed = false;
  int why = 0;  // errno of the first write that failed
  auto failed = [&] {
    if (!write_failed) why = errno;
    write_failed = true;
  };
  auto writer = make_stats_writer(format, [&](std::string_view piece) {
    if (std::fwrite(piece.data(), 1, piece.size(), o) != piece.size()) failed();
  });
  // --timeunit: the time columns converted on their way to the writer.
  std::unique_ptr<StatsSink> in_unit;
  if (unit->divisor > 1) in_unit = make_time_unit_sink(*unit, writer.get());
  std::string err;
  const bool ok = run_nsys_stats(*db, reports, in_unit ? in_unit.get() : writer.get(), &err);
  if (ok) writer->finish();
  writer.reset();
  // A full disk may show only when the buffer is flushed, or when the file is closed.
  if (std::fflush(o) != 0 || std::ferror(o)) failed();
  if (o != stdout && std::fclose(o) != 0) failed();
  // A damaged export can fail in a later report: no half-written file is left behind.
  if (!ok && o != stdout) std::remove(output.c_str());
  if (!ok) return input_error(path, err);
  if (write_failed) {
    std::fprintf(stderr, "kinetoscope: cannot write %s: %s\n",
                 output.empty() ? "standard output" : output.c_str(),
                 why ? std::strerror(why) : "write error");
    return 1;
  }
  return 0;
}

}  // namespace ks::cli
