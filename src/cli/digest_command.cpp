#include "cli/digest_command.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

#include "analysis/merged_ranks.h"
#include "analysis/rank_identity.h"
#include "cli/loaded_trace.h"
#include "cli/options.h"
#include "cli/trace_files.h"
#include "import/file_reader.h"
#include "import/nsys_sqlite/nsys_file.h"
#include "report/fleet_digest_json.h"

namespace ks::cli {

namespace {

const char kDigestUsage[] =
    "Usage: kinetoscope digest TRACE|DIR [TRACE|DIR...] -o DIR|-\n"
    "(TRACE: a PyTorch profiler trace, *.json / *.json.gz, or an Nsight Systems SQLite export)\n"
    "\n"
    "Writes one fleet digest per trace (docs/fleet.md, kinetoscope.digest/1): the rank's step,\n"
    "compute, communication, overlap, idle, data-loading and memcpy times, per-step rows, its\n"
    "collectives, kernel and CPU-op statistics (mergeable moments and a quantile sketch), its\n"
    "findings and its host. A few hundred KB at most for a GB trace; python3 -m fleet merges "
    "them.\n"
    "\n"
    "  -o, --output DIR   write DIR/<trace file name>.digest.json (DIR is created)\n"
    "  -o -               write the digests to standard output, one line each (JSON Lines,\n"
    "                     in the order of the files; a file that fails has no line)\n"
    "  --drop-last-step   leave out the last ProfilerStep (HTA's convention)\n"
    "  --separate         an Nsight Systems export of several GPU processes (nsys profile\n"
    "                     torchrun ...), or a trace of several nodes' ranks merged on one\n"
    "                     GPU pid, gives one digest, not one per rank\n"
    "\n"
    "An export of several processes with GPU work is that many ranks, as `kinetoscope report`\n"
    "reads it: DIR/<name>.rank<R>.digest.json each, R by the GPU each process worked on most.\n"
    "So is a PyTorch trace of several nodes' ranks merged on one GPU pid: R by the launching\n"
    "process, in pid order.\n"
    "\n"
    "Exit status: 0 all written; 1 a trace could not be read (one line on standard error with\n"
    "the byte offset; the others are still written); 2 usage error.\n";

std::string digest_name(const std::string& file, const std::string& part = "") {
  std::string stem = base_name(file);
  for (const char* suffix : {".gz", ".json", ".sqlite"}) {
    size_t l = std::strlen(suffix);
    if (stem.size() > l && stem.compare(stem.size() - l, l, suffix) == 0)
      stem.resize(stem.size() - l);
  }
  return stem + part + ".digest.json";
}

int usage(const std::string& msg) {
  return usage_error("digest", msg);
}

}  // namespace

int digest_command(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  std::string output;
  AnalysisOptions options;
  bool separate = false;
  ArgWalker w(args);
  while (w.next()) {
    const std::string& a = w.arg();
    if (w.flag({"-h", "--help"})) {
      std::fputs(kDigestUsage, stdout);
      return 0;
    } else if (w.value({"-o", "--output"}, &output)) {
      if (w.missing()) return usage(a + " needs a folder (or - for standard output)");
    } else if (w.flag({"--drop-last-step"})) {
      options.drop_last_step = true;
    } else if (w.flag({"--separate"})) {
      separate = true;
    } else if (w.unknown_option()) {
      return usage("unknown option '" + a + "'");
    } else {
      expand_path(a, &files);
    }
  }
  if (files.empty()) return usage("no trace file given");
  if (output.empty()) return usage("-o DIR is required (or -o - for one trace)");
  bool to_stdout = output == "-";
  if (!to_stdout && ::mkdir(output.c_str(), 0777) != 0 && errno != EEXIST)
    return usage("cannot create folder " + output);
  int status = 0;
  // One trace at a time: memory is one trace's model, whatever the number of files (the fleet
  // runs one process per file on each worker).
  for (const std::string& path : files) {
    // A SQLite file (by its header) is an Nsight Systems export, as `kinetoscope report` reads it.
    LoadedTrace loaded;
    if (!load_trace_or_say(path, &loaded)) {
      status = 1;
      continue;
    }
    struct stat st;
    const uint64_t bytes = ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
    auto write_digest = [&](const Trace& t, const std::string& file, const RankIdentity& id,
                            const std::string& part) {
      Report report = build_report(t, options);
      RankDigest d = make_rank_digest(t, report.analyses, file, id);
      std::string json = fleet_digest_json(report, d, path, bytes);
      if (!write_output(json, to_stdout ? "" : output + "/" + digest_name(path, part))) status = 1;
    };
    // Several processes with GPU work in one export, or several nodes' ranks merged into one
    // Kineto file on one GPU pid: one digest per rank, as report splits it.
    std::vector<std::unique_ptr<Trace>> parts;
    if (loaded.nsys && !separate) {
      ImportError ignored;  // the whole file was read: a failure here keeps that reading
      parts = import_nsys_file_by_process(path, loaded.gpu_processes, &ignored);
    } else if (!separate) {
      parts = split_merged_ranks(loaded.trace());
    }
    const RankSource source = loaded.nsys ? RankSource::kExportProcess : RankSource::kFileProcess;
    for (const std::unique_ptr<Trace>& t : parts)
      write_digest(*t, t->facts.source_name, RankIdentity{t->distributed.rank, source},
                   ".rank" + std::to_string(t->distributed.rank));
    if (!parts.empty()) continue;
    const std::string file = base_name(path);
    write_digest(loaded.trace(), file, identify_rank(loaded.trace(), file, 0), "");
  }
  return status;
}

}  // namespace ks::cli
