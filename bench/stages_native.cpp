// Where the native CLI's time goes, per stage, for make bench (bench/run_shapes.py, tool
// native_stages): the file read into memory (read), fed to a ChromeJsonImporter in 1 MiB chunks
// as the CLI does (feed), finish() (pairing, sorting, the model: finish), then build_report() and
// the report's JSON (report). Each stage in wall seconds and in this process's CPU seconds, which
// a loaded machine inflates far less than the wall clock. Prints one JSON line.
//   g++ -std=c++17 -O2 -march=native -Isrc bench/stages_native.cpp build/native/libks_core.a \
//       -lsimdjson -lz -lsqlite3 -o build/bench/stages_native
//   build/bench/stages_native TRACE.json
#include <time.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "import/chrome_json/importer.h"
#include "report/report.h"

namespace {

struct Clock {
  std::chrono::steady_clock::time_point wall = std::chrono::steady_clock::now();
  double cpu = cpu_now();
  static double cpu_now() {
    timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
  }
  // Prints "name":{"wall_s":..,"cpu_s":..} for the time since the last lap, and restarts.
  void lap(const char* name, bool last = false) {
    auto w = std::chrono::steady_clock::now();
    double c = cpu_now();
    std::printf("\"%s\":{\"wall_s\":%.4f,\"cpu_s\":%.4f}%s", name,
                std::chrono::duration<double>(w - wall).count(), c - cpu, last ? "" : ",");
    wall = w;
    cpu = c;
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: stages_native TRACE.json\n");
    return 2;
  }
  std::printf("{\"stages\":{");
  Clock clock;
  std::string json;
  if (FILE* f = std::fopen(argv[1], "rb")) {
    char buf[1 << 16];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) json.append(buf, n);
    std::fclose(f);
  }
  clock.lap("read");
  ks::ChromeJsonImporter importer;
  const size_t chunk = size_t{1} << 20;
  for (size_t pos = 0; pos < json.size(); pos += chunk)
    importer.feed(json.data() + pos, std::min(chunk, json.size() - pos));
  clock.lap("feed");
  const bool ok = importer.finish();
  clock.lap("finish");
  size_t report_bytes = 0;
  if (ok)
    report_bytes =
        ks::report_json(ks::build_report(importer.trace(), ks::AnalysisOptions{})).size();
  clock.lap("report", true);
  std::printf("},\"ok\":%s,\"json_bytes\":%zu,\"report_bytes\":%zu}\n", ok ? "true" : "false",
              json.size(), report_bytes);
  return ok ? 0 : 1;
}
