#include "cli/digest_command.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

#include "analysis/rank_identity.h"
#include "cli/trace_files.h"
#include "import/file_reader.h"
#include "import/nsys_sqlite/nsys_file.h"
#include "report/fleet_digest_json.h"

namespace ks {

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
    "\n"
    "Exit status: 0 all written; 1 a trace could not be read (one line on standard error with\n"
    "the byte offset; the others are still written); 2 usage error.\n";

std::string digest_name(const std::string& file) {
  std::string stem = base_name(file);
  for (const char* suffix : {".gz", ".json", ".sqlite"}) {
    size_t l = std::strlen(suffix);
    if (stem.size() > l && stem.compare(stem.size() - l, l, suffix) == 0)
      stem.resize(stem.size() - l);
  }
  return stem + ".digest.json";
}

int usage(const std::string& msg) {
  std::fprintf(stderr, "kinetoscope digest: %s\n(see kinetoscope digest --help)\n", msg.c_str());
  return 2;
}

}  // namespace

int digest_command(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  std::string output;
  AnalysisOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      std::fputs(kDigestUsage, stdout);
      return 0;
    } else if (a == "-o" || a == "--output") {
      if (i + 1 >= args.size()) return usage(a + " needs a folder (or - for standard output)");
      output = args[++i];
    } else if (a == "--drop-last-step") {
      options.drop_last_step = true;
    } else if (a.size() > 1 && a[0] == '-') {
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
    ChromeJsonImporter importer;
    std::unique_ptr<Trace> nsys;
    ImportError error;
    const bool named_sqlite = path.size() > 7 && path.compare(path.size() - 7, 7, ".sqlite") == 0;
    bool ok = false;
    if (named_sqlite || file_is_sqlite(path)) {
      nsys = import_nsys_file(path, &error);
      ok = nsys != nullptr;
    } else {
      ok = import_file(path, &importer, &error);
    }
    if (!ok) {
      std::fprintf(stderr, "kinetoscope: %s: %s\n", path.c_str(), error.to_line().c_str());
      status = 1;
      continue;
    }
    const Trace& t = nsys ? *nsys : importer.trace();
    Report report = build_report(t, options);
    std::string file = base_name(path);
    RankDigest d = make_rank_digest(t, report.analyses, file, identify_rank(t, file, 0));
    struct stat st;
    uint64_t bytes = ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
    std::string json = fleet_digest_json(report, d, path, bytes);
    std::string target = to_stdout ? "" : output + "/" + digest_name(path);
    FILE* f = to_stdout ? stdout : std::fopen(target.c_str(), "wb");
    if (!f || std::fwrite(json.data(), 1, json.size(), f) != json.size()) {
      std::fprintf(stderr, "kinetoscope: cannot write %s\n", target.c_str());
      status = 1;
    }
    if (f && f != stdout) std::fclose(f);
    if (f == stdout) std::fflush(stdout);  // whole lines, even if a later file aborts
  }
  return status;
}

}  // namespace ks
