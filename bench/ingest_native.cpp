// Native ingest speed, fast path on and off, on the same bytes in one process: the file is read
// into memory first (gunzipped when .gz), then fed in 1 MiB chunks to a ChromeJsonImporter, as
// the CLI does; the clock covers feed() + finish() (the model), not the report. Each setting is
// run `repeat` times alternately and the best time kept. Prints one JSON line.
//   g++ -std=c++17 -O2 -march=native -Isrc bench/ingest_native.cpp build/native/libks_core.a \
//       -lsimdjson -lz -o build/bench/ingest_native
//   build/bench/ingest_native TRACE [repeat]
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "import/chrome_json/importer.h"

namespace {

bool read_all(const char* path, std::string* out) {
  gzFile in = gzopen(path, "rb");
  if (!in) return false;
  char buf[1 << 16];
  int n;
  while ((n = gzread(in, buf, sizeof(buf))) > 0) out->append(buf, static_cast<size_t>(n));
  gzclose(in);
  return n == 0;
}

double ingest_seconds(const std::string& json, bool fast_path, uint64_t* events) {
  auto t0 = std::chrono::steady_clock::now();
  ks::ChromeJsonImporter importer;
  importer.set_fast_path(fast_path);
  const size_t chunk = size_t{1} << 20;
  for (size_t pos = 0; pos < json.size(); pos += chunk)
    importer.feed(json.data() + pos, std::min(chunk, json.size() - pos));
  if (!importer.finish())
    std::fprintf(stderr, "import failed: %s\n", importer.error().to_line().c_str());
  *events = importer.events_read();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: ingest_native TRACE [repeat]\n");
    return 2;
  }
  std::string json;
  if (!read_all(argv[1], &json)) return 1;
  const int repeat = argc > 2 ? std::atoi(argv[2]) : 3;
  double best_fast = 1e30, best_simdjson = 1e30;
  uint64_t events = 0;
  for (int i = 0; i < repeat; ++i) {
    best_simdjson = std::min(best_simdjson, ingest_seconds(json, false, &events));
    best_fast = std::min(best_fast, ingest_seconds(json, true, &events));
  }
  const double mb = static_cast<double>(json.size()) / 1e6;
  std::printf(
      "{\"json_bytes\":%zu,\"events\":%llu,\"simdjson_path_mb_per_s\":%.1f,"
      "\"fast_path_mb_per_s\":%.1f,\"speedup\":%.2f}\n",
      json.size(), static_cast<unsigned long long>(events), mb / best_simdjson, mb / best_fast,
      best_simdjson / best_fast);
  return 0;
}
