// kinetoscope: the command-line face of the same core the page runs as WebAssembly.
//   kinetoscope report TRACE [TRACE...] [--format text|md|json] [--drop-last-step] [-o FILE]
//   kinetoscope diff BASE TEST [--format text|md|json] [-o FILE]
//   kinetoscope digest TRACE... -o DIR|-   (cli/digest_command.h)
//   kinetoscope critical-path TRACE [--annotation NAME] [--instance N]
//   (cli/critical_path_command.h)
// Exit status: 0 report written, 1 an input could not be read as a trace, 2 usage error.

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "analysis/merged_ranks.h"
#include "cli/aggregate_command.h"
#include "cli/critical_path_command.h"
#include "cli/digest_command.h"
#include "cli/huge_pages.h"
#include "cli/loaded_trace.h"
#include "cli/math_command.h"
#include "cli/options.h"
#include "cli/stats_command.h"
#include "cli/trace_files.h"
#include "import/file_reader.h"
#include "import/nsys_sqlite/nsys_file.h"
#include "import/split_file_read.h"
#include "report/multi_rank_report.h"
#include "report/report.h"
#include "report/trace_diff_report.h"

namespace {

const char kUsage[] =
    "Usage: kinetoscope report TRACE [TRACE...] [options]\n"
    "\n"
    "Reads PyTorch profiler traces (*.pt.trace.json, *.json.gz: Chrome trace event format as\n"
    "torch.profiler, the legacy autograd profiler and Chrome DevTools write it) and Nsight\n"
    "Systems exports (nsys export --type sqlite: *.sqlite, told by their header) and reports\n"
    "what is wrong with the run: findings first (most severe first), then steps, GPU idle\n"
    "time, kernels and memory ops.\n"
    "\n"
    "Options:\n"
    "  --format text|md|json  output format (default text); json follows docs/report-schema.md\n"
    "  --drop-last-step       leave out the last ProfilerStep (HTA's default convention)\n"
    "  --step-range NAME      steps are the NVTX / user annotation ranges named NAME (e.g.\n"
    "                         train_step) instead of ProfilerStep#N; without ProfilerStep a\n"
    "                         range named like a step (step, train_step, iteration...) is used\n"
    "  --separate             with several files: independent reports, not one multi-rank report\n"
    "  --align step|global-min  with several files: put the ranks' clocks on one axis by the\n"
    "                         first step every rank has (default), or by HTA's global minimum\n"
    "                         (the earliest event of any rank); the report says which\n"
    "  -o, --output FILE      write the report to FILE instead of standard output\n"
    "  -h, --help             this help\n"
    "  --version              print the version\n"
    "\n"
    "Also: kinetoscope aggregate TRACE --from-us A --to-us B [--tracks 1,2]  (per-name table of\n"
    "the slices in a time range, as the timeline's area selection shows it; --help for more)\n"
    "      kinetoscope stats EXPORT.sqlite [--report NAME]... [--format text|csv|json]  (the\n"
    "`nsys stats` reports of an Nsight Systems SQLite export; --help for more)\n"
    "      kinetoscope diff BASE TEST [--format text|md|json] [-o FILE]  (two traces compared:\n"
    "step-time delta, GPU and CPU ops by name with count and time deltas, added/removed names)\n"
    "      kinetoscope math TRACE [--format text|md|json]  (FLOPs per op from the recorded\n"
    "shapes, achieved TFLOP/s and % of the GPU's peak, MFU per step; --help for more)\n"
    "      kinetoscope critical-path TRACE [--annotation NAME] [--instance N] [--format\n"
    "text|md|json]  (what bounds the step: HTA's critical path; --help for more)\n"
    "      kinetoscope digest TRACE... -o DIR  (one small mergeable digest per trace, for\n"
    "python3 -m fleet: many ranks on Dask; docs/fleet.md)\n"
    "\n"
    "Several files (or a folder of *.json / *.json.gz / *.sqlite) are the ranks of one job: the\n"
    "report compares them (per-rank table, collectives, stragglers) and includes each rank's\n"
    "report. Ranks come from distributedInfo.rank, else the file name (rank-N, workerN,\n"
    "trace_rank3.sqlite), else the environment an nsys export recorded (RANK, SLURM_PROCID,\n"
    "...), else the order.\n"
    "\n"
    "A .json.gz is decoded on a second core while it is parsed, and a plain JSON file of 64 MB\n"
    "or more is read by one thread per 32 MB, up to the cores (8 at most); the report is the\n"
    "same. KINETOSCOPE_READ_THREADS=1 reads on one thread (less memory).\n"
    "\n"
    "Exit status: 0 report written; 1 an input is not a readable trace (a one-line error with\n"
    "the byte offset goes to standard error); 2 usage error.\n";

using Loaded = ks::cli::LoadedTrace;

// Files are independent: read them on several threads (2 cores here, more elsewhere), each
// file's own read (split_file_read.h) taking its share of the cores.
void load_all(const std::vector<std::string>& files, std::vector<Loaded>* loaded) {
  std::atomic<size_t> next{0};
  const size_t n = std::min<size_t>(files.size(), static_cast<size_t>(ks::read_threads_allowed()));
  const int per_file =
      std::max(1, ks::read_threads_allowed() / static_cast<int>(std::max<size_t>(1, n)));
  auto work = [&]() {
    for (size_t i; (i = next++) < files.size();)
      ks::cli::load_trace(files[i], &(*loaded)[i], per_file);
  };
  std::vector<std::thread> threads;
  for (size_t k = 1; k < n; ++k) threads.emplace_back(work);
  work();
  for (std::thread& th : threads) th.join();
}

int usage_error(const std::string& msg) {
  return ks::cli::usage_error("", msg);
}

// kinetoscope diff BASE TEST: HTA's trace diff (src/analysis/trace_diff.h).
int diff_command(const std::vector<std::string>& args) {
  std::string format = "text", output;
  std::vector<std::string> files;
  ks::cli::ArgWalker w(args);
  while (w.next()) {
    const std::string& a = w.arg();
    if (w.value({"--format", "-f"}, &format, "--format=")) {
      if (w.missing()) return usage_error("--format needs a value");
    } else if (w.value({"-o", "--output"}, &output)) {
      if (w.missing()) return usage_error(a + " needs a file name");
    } else if (w.unknown_option()) {
      return usage_error("unknown option '" + a + "'");
    } else {
      files.push_back(a);
    }
  }
  if (format == "markdown") format = "md";
  if (format != "text" && format != "md" && format != "json")
    return usage_error("unknown format '" + format + "' (text, md or json)");
  if (files.size() != 2) return usage_error("diff takes two trace files: BASE TEST");
  std::vector<Loaded> loaded(2);
  load_all(files, &loaded);
  int status = 0;
  for (size_t i = 0; i < 2; ++i) {
    if (loaded[i].ok) continue;
    std::fputs(ks::cli::file_error_line(files[i], loaded[i].error.to_line()).c_str(), stderr);
    status = 1;
  }
  if (status) return status;
  ks::DiffDigest digests[2];
  for (size_t i = 0; i < 2; ++i) {
    const ks::Trace& t = loaded[i].trace();
    ks::Report report = ks::build_report(t, ks::AnalysisOptions{});
    digests[i] = ks::make_diff_digest(t, report.analyses, ks::base_name(files[i]));
  }
  ks::TraceDiff diff = ks::diff_traces(digests[0], digests[1]);
  std::string out = format == "json" ? ks::trace_diff_json(diff)
                    : format == "md" ? ks::trace_diff_markdown(diff)
                                     : ks::trace_diff_text(diff);
  return ks::cli::write_output(out, output) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  ks::cli::reexec_with_huge_page_heap(argv);  // returns here unless it could start again
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  // The timeline's area-selection table for a range (src/cli/aggregate_command.h).
  if (args[0] == "aggregate")
    return ks::cli::aggregate_command(std::vector<std::string>(args.begin() + 1, args.end()));
  bool help = std::find_if(args.begin(), args.end(), [](const std::string& a) {
                return a == "-h" || a == "--help" || a == "--version";
              }) != args.end();
  if (args[0] == "digest")  // one fleet digest per trace (cli/digest_command.h)
    return ks::cli::digest_command(std::vector<std::string>(args.begin() + 1, args.end()));
  // The `nsys stats` reports of an Nsight Systems export (src/cli/stats_command.h).
  // What bounds a step: HTA's critical path (src/cli/critical_path_command.h).
  if (args[0] == "critical-path")
    return ks::cli::critical_path_command(std::vector<std::string>(args.begin() + 1, args.end()));
  if (args[0] == "stats")
    return ks::cli::stats_command(std::vector<std::string>(args.begin() + 1, args.end()));
  // FLOPs, achieved TFLOP/s and MFU from the recorded shapes (src/cli/math_command.h).
  if (args[0] == "math")
    return ks::cli::math_command(std::vector<std::string>(args.begin() + 1, args.end()));
  if (args[0] == "diff" && !help)
    return diff_command(std::vector<std::string>(args.begin() + 1, args.end()));
  for (const std::string& a : args) {
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (a == "--version") {
      std::printf("kinetoscope %s\n", ks::kVersion);
      return 0;
    }
  }
  if (args[0] != "report") return usage_error("unknown command '" + args[0] + "'");
  std::string format = "text", output;
  ks::AnalysisOptions options;
  std::vector<std::string> files;
  bool separate = false;
  ks::AlignMode align = ks::AlignMode::kStep;
  std::string align_name;
  ks::cli::ArgWalker w(args, 1);
  while (w.next()) {
    const std::string& a = w.arg();
    if (w.value({"--format", "-f"}, &format, "--format=")) {
      if (w.missing()) return usage_error("--format needs a value");
    } else if (w.flag({"--separate"})) {
      separate = true;
    } else if (w.value({"--align"}, &align_name, "--align=")) {
      if (w.missing()) return usage_error("--align needs a value");
      if (!ks::parse_align_mode(align_name, &align))
        return usage_error("unknown alignment '" + align_name + "' (step or global-min)");
    } else if (w.flag({"--drop-last-step"})) {
      options.drop_last_step = true;
    } else if (w.value({"--step-range"}, &options.step_range, "--step-range=")) {
      if (w.missing() || options.step_range.empty())
        return usage_error("--step-range needs a name");
    } else if (w.value({"-o", "--output"}, &output)) {
      if (w.missing()) return usage_error(a + " needs a file name");
    } else if (w.unknown_option()) {
      return usage_error("unknown option '" + a + "'");
    } else {
      ks::cli::expand_path(a, &files);
    }
  }
  if (format == "markdown") format = "md";
  if (format != "text" && format != "md" && format != "json")
    return usage_error("unknown format '" + format + "' (text, md or json)");
  if (files.empty()) return usage_error("no trace file given");

  std::vector<Loaded> loaded(files.size());
  load_all(files, &loaded);
  std::string out;
  int status = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    if (loaded[i].ok) continue;
    std::fputs(ks::cli::file_error_line(files[i], loaded[i].error.to_line()).c_str(), stderr);
    status = 1;
  }
  // An Nsight Systems export of several processes with GPU work (nsys profile torchrun
  // --nproc_per_node=N) is N ranks: each is read on its own and the report compares them, as it
  // does for one file per rank. --separate keeps the one whole-file report.
  std::vector<std::vector<std::unique_ptr<ks::Trace>>> split(files.size());
  size_t units = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    if (!loaded[i].ok) continue;
    if (loaded[i].nsys && !separate) {
      ks::ImportError ignored;  // the whole file was read: a failure here keeps that reading
      split[i] = ks::import_nsys_file_by_process(files[i], loaded[i].gpu_processes, &ignored);
    } else if (!loaded[i].nsys && !separate) {
      // Two nodes' ranks merged into one Kineto file on one GPU pid: one trace per rank.
      split[i] = ks::split_merged_ranks(loaded[i].trace());
    }
    units += split[i].empty() ? 1 : split[i].size();
  }
  if ((files.size() > 1 || units > 1) && !separate) {
    std::vector<ks::RankDigest> digests;
    std::vector<std::string> reports;
    auto add_rank = [&](const ks::Trace& t, const std::string& file, const ks::RankIdentity& id) {
      ks::Report report = ks::build_report(t, options);
      digests.push_back(ks::make_rank_digest(t, report.analyses, file, id));
      reports.push_back(format == "json" ? ks::report_json(report)
                        : format == "md" ? ks::report_markdown(report)
                                         : ks::report_text(report));
    };
    for (size_t i = 0; i < files.size(); ++i) {
      if (!loaded[i].ok) continue;
      for (const std::unique_ptr<ks::Trace>& t : split[i])
        add_rank(
            *t, t->facts.source_name,
            ks::RankIdentity{t->distributed.rank, loaded[i].nsys ? ks::RankSource::kExportProcess
                                                                 : ks::RankSource::kFileProcess});
      if (!split[i].empty()) continue;
      const ks::Trace& t = loaded[i].trace();
      std::string file = ks::base_name(files[i]);
      add_rank(t, file, ks::identify_rank(t, file, digests.size()));
    }
    ks::MultiRankReport m = ks::combine_ranks(digests, align);
    out = format == "json" ? ks::multi_rank_json(m, reports)
          : format == "md" ? ks::multi_rank_markdown(m, reports)
                           : ks::multi_rank_text(m, reports);
  } else {
    bool json_list = format == "json" && files.size() > 1;
    if (json_list) out += "[\n";
    bool first = true;
    for (size_t i = 0; i < files.size(); ++i) {
      if (!loaded[i].ok) continue;
      ks::Report report = ks::build_report(loaded[i].trace(), options);
      if (format == "json") {
        if (json_list && !first) out += ",\n";
        out += ks::report_json(report);
      } else if (format == "md") {
        out += ks::report_markdown(report);
      } else {
        if (!first) out += "\n";
        out += ks::report_text(report);
      }
      first = false;
    }
    if (json_list) out += "]\n";
  }
  return ks::cli::write_output(out, output) ? status : 1;
}
