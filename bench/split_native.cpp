// The page's N-worker read (web/worker/split.js) natively, on N threads, for the scaling curve
// issue #19 asks for (1, 2, 4, 8 workers) on machines with more cores than this one: the browser
// cannot be carried to such a machine, this program can. Same algorithm as the page: guesses of
// where an element of the event array begins near k/N of the file (find_part_start on a 1 MiB
// probe), helper k reads from guess k up to guess k+1 into an importer of its own and hands its
// part over as bytes (take_part), the loader reads from the start up to guess 1 meanwhile, merges
// part 1, resumes where it ended, merges part 2, and so on; a part it cannot take it reads itself.
// The file is read into memory first (not timed: the page's File reads are the browser's). Each
// repetition prints one JSON line: the parallel read (import_s), finish(), the report, how many
// parts were merged, and a hash of the report JSON, which must not depend on the number of
// workers.
//   g++ -std=c++17 -O2 -pthread -Isrc bench/split_native.cpp build/native/libks_core.a \
//       -lsimdjson -lz -lsqlite3 -o build/bench/split_native
//   build/bench/split_native TRACE.json WORKERS [REPS]
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "import/chrome_json/importer.h"
#include "import/chrome_json/split_point.h"
#include "report/report.h"

namespace {

constexpr size_t kChunk = size_t{1} << 20;  // the page's chunk size
constexpr size_t kProbe = size_t{1} << 20;  // web/worker/split.js SPLIT_PROBE

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

void feed_range(ks::ChromeJsonImporter* importer, const std::string& json, size_t from, size_t to) {
  for (size_t pos = from; pos < to; pos += kChunk)
    if (!importer->feed(json.data() + pos, std::min(kChunk, to - pos))) return;
}

// findSplits(): increasing element starts near k/N, one per helper at most.
std::vector<size_t> find_starts(const std::string& json, int workers) {
  std::vector<size_t> starts;
  for (int k = 1; k < workers; ++k) {
    const size_t from = json.size() * static_cast<size_t>(k) / static_cast<size_t>(workers);
    if (!starts.empty() && from <= starts.back()) continue;
    const size_t at = ks::find_part_start(json.data() + from, std::min(kProbe, json.size() - from));
    if (at != std::string::npos && (starts.empty() || from + at > starts.back()))
      starts.push_back(from + at);
  }
  return starts;
}

// A helper: its part as bytes, or empty when it failed (the loader then reads it itself).
std::string read_part(const std::string& json, size_t start, size_t stop) {
  ks::ChromeJsonImporter part;
  part.start_part(start, stop);
  for (size_t pos = start; pos < json.size() && !part.part_ended() && !part.part_failed();
       pos += kChunk)
    part.feed(json.data() + pos, std::min(kChunk, json.size() - pos));
  return part.take_part();
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

bool read_file(const char* path, std::string* out) {
  FILE* f = std::fopen(path, "rb");
  if (!f) return false;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) out->append(buf, n);
  std::fclose(f);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: split_native TRACE.json WORKERS [REPS]\n");
    return 2;
  }
  std::string json;
  if (!read_file(argv[1], &json)) {
    std::fprintf(stderr, "split_native: cannot read %s\n", argv[1]);
    return 2;
  }
  const int workers = std::max(1, std::atoi(argv[2]));
  const int reps = argc > 3 ? std::max(1, std::atoi(argv[3])) : 1;
  int status = 0;
  for (int rep = 0; rep < reps; ++rep) {
    const Clock::time_point t0 = Clock::now();
    const std::vector<size_t> starts = find_starts(json, workers);
    std::vector<std::future<std::string>> parts;
    for (size_t k = 0; k < starts.size(); ++k) {
      const size_t stop = k + 1 < starts.size() ? starts[k + 1] : UINT64_MAX;
      parts.push_back(std::async(std::launch::async, read_part, std::cref(json), starts[k], stop));
    }
    ks::ChromeJsonImporter first;
    size_t pos = 0;
    int taken = 0;
    for (size_t k = 0; k < starts.size(); ++k) {
      if (pos > starts[k]) {  // read past it already: the part is not wanted
        parts[k].wait();
        continue;
      }
      feed_range(&first, json, pos, starts[k]);
      pos = starts[k];
      const std::string part = parts[k].get();
      if (first.at_part_boundary() && !part.empty() && first.apply_part(part.data(), part.size())) {
        pos = first.resume_offset();
        ++taken;
      }
    }
    feed_range(&first, json, pos, json.size());
    const double import_s = seconds_since(t0);
    const Clock::time_point t1 = Clock::now();
    const bool ok = first.finish();
    const double finish_s = seconds_since(t1);
    const Clock::time_point t2 = Clock::now();
    const std::string report =
        ok ? ks::report_json(ks::build_report(first.trace(), ks::AnalysisOptions{})) : "";
    const double report_s = seconds_since(t2);
    std::printf(
        "{\"workers\":%d,\"rep\":%d,\"cores\":%u,\"json_bytes\":%zu,\"import_s\":%.4f,"
        "\"finish_s\":%.4f,\"report_s\":%.4f,\"parts\":%zu,\"taken\":%d,\"ok\":%s,"
        "\"report_fnv\":\"%016llx\"}\n",
        workers, rep, std::thread::hardware_concurrency(), json.size(), import_s, finish_s,
        report_s, starts.size(), taken, ok ? "true" : "false",
        static_cast<unsigned long long>(fnv1a(report)));
    std::fflush(stdout);
    if (!ok) status = 1;
  }
  return status;
}
