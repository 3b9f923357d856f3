// kinetoscope: the command-line face of the same core the page runs as WebAssembly.
//   kinetoscope report TRACE [TRACE...] [--format text|md|json] [--drop-last-step] [-o FILE]
// Exit status: 0 report written, 1 an input could not be read as a trace, 2 usage error.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "import/file_reader.h"
#include "report/report.h"

namespace {

const char kUsage[] =
    "Usage: kinetoscope report TRACE [TRACE...] [options]\n"
    "\n"
    "Reads PyTorch profiler traces (*.pt.trace.json, *.json.gz: Chrome trace event format as\n"
    "torch.profiler, the legacy autograd profiler and Chrome DevTools write it) and reports\n"
    "what is wrong with the run: findings first (most severe first), then steps, GPU idle\n"
    "time, kernels and memory ops.\n"
    "\n"
    "Options:\n"
    "  --format text|md|json  output format (default text); json follows docs/report-schema.md\n"
    "  --drop-last-step       leave out the last ProfilerStep (HTA's default convention)\n"
    "  -o, --output FILE      write the report to FILE instead of standard output\n"
    "  -h, --help             this help\n"
    "  --version              print the version\n"
    "\n"
    "Exit status: 0 report written; 1 an input is not a readable trace (a one-line error with\n"
    "the byte offset goes to standard error); 2 usage error.\n";

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "kinetoscope: %s\n(see kinetoscope --help)\n", msg.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
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
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--format" || a == "-f") {
      if (++i >= args.size()) return usage_error("--format needs a value");
      format = args[i];
    } else if (a.rfind("--format=", 0) == 0) {
      format = a.substr(9);
    } else if (a == "--drop-last-step") {
      options.drop_last_step = true;
    } else if (a == "-o" || a == "--output") {
      if (++i >= args.size()) return usage_error(a + " needs a file name");
      output = args[i];
    } else if (a.size() > 1 && a[0] == '-') {
      return usage_error("unknown option '" + a + "'");
    } else {
      files.push_back(a);
    }
  }
  if (format == "markdown") format = "md";
  if (format != "text" && format != "md" && format != "json")
    return usage_error("unknown format '" + format + "' (text, md or json)");
  if (files.empty()) return usage_error("no trace file given");

  std::string out;
  int status = 0;
  bool json_list = format == "json" && files.size() > 1;
  if (json_list) out += "[\n";
  for (size_t i = 0; i < files.size(); ++i) {
    ks::ChromeJsonImporter importer;
    ks::ImportError error;
    if (!ks::import_file(files[i], &importer, &error)) {
      std::fprintf(stderr, "kinetoscope: %s: %s\n", files[i].c_str(), error.to_line().c_str());
      status = 1;
      continue;
    }
    ks::Report report = ks::build_report(importer.trace(), options);
    if (format == "json") {
      if (json_list && i > 0) out += ",\n";
      out += ks::report_json(report);
    } else if (format == "md") {
      out += ks::report_markdown(report);
    } else {
      if (i > 0) out += "\n";
      out += ks::report_text(report);
    }
  }
  if (json_list) out += "]\n";
  FILE* f = output.empty() ? stdout : std::fopen(output.c_str(), "wb");
  if (!f) {
    std::fprintf(stderr, "kinetoscope: cannot write %s\n", output.c_str());
    return 1;
  }
  std::fwrite(out.data(), 1, out.size(), f);
  if (f != stdout) std::fclose(f);
  return status;
}
