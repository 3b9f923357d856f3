// An Nsight Systems export of many GPU processes, read as the CLI reads it (the whole file, then
// once per rank) and reported, at N and 4N processes; the bound and the timing are in
// tests/scaling.h. Each process ran one kernel on one of 4 GPUs: 4 ranks, the other processes
// their helpers. Every process was read in a full pass of its own: 8,000 took 38 s; and each
// kernel sought its launcher in every process carrying its id (all count from 1): 32,000 took 7 s.
#include <cstdlib>
#include <string>

#include "analysis/analyze.h"
#include "import/nsys_sqlite/nsys_file.h"
#include "report/report.h"
#include "scaling.h"
#include "source_dir.h"

namespace {

// Written once per size by tests/nsys/make_exports.py (--many-processes): the path.
std::string export_of(size_t processes) {
  const std::string path = ks_test::source_dir() + "/build/nsys-tests/many_processes_" +
                           std::to_string(processes) + ".sqlite";
  const std::string cmd = "mkdir -p " + ks_test::source_dir() +
                          "/build/nsys-tests && /usr/bin/python3 " + ks_test::source_dir() +
                          "/tests/nsys/make_exports.py --many-processes " + path + " " +
                          std::to_string(processes);
  REQUIRE(std::system(cmd.c_str()) == 0);
  return path;
}

ks_test::ScalingRun read_as_cli(const std::string& path) {
  ks_test::ScalingRun run;
  ks::ImportError error;
  std::vector<ks::NsysGpuProcess> procs;
  auto whole = ks::import_nsys_file(path, &error, &procs);
  auto ranks = ks::import_nsys_file_by_process(path, procs, &error);
  run.ok = whole && ranks.size() == 4;
  for (const auto& t : ranks) {
    ks::Report report = ks::build_report(*t, ks::AnalysisOptions{});
    run.text_bytes += report.findings.size();
  }
  return run;
}

}  // namespace

TEST_CASE("an nsys export of many GPU processes is read in linear time", "[scaling][nsys]") {
  ks_test::check_scaling(export_of, 2000, read_as_cli);
}
