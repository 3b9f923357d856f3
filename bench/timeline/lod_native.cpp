// The level-of-detail query's cost natively (bench/timeline, make bench-timeline): loads a trace,
// builds the view index, then queries every track over windows from the whole trace down to
// 1/10000 of it (each window plus a screen each side, 3 x 1070 pixels, as the page asks), and
// prints the median time, rectangles and lookups. The same query runs in the page's worker.
//   g++ -std=c++17 -O2 -march=native -Isrc bench/timeline/lod_native.cpp build/native/libks_core.a
//   \
//       -lsimdjson -lz -o build/bench/lod_native && build/bench/lod_native TRACE
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "import/file_reader.h"
#include "timeline_query/lod_query.h"
#include "timeline_query/view_index.h"

namespace {
double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: lod_native TRACE\n");
    return 2;
  }
  ks::ChromeJsonImporter importer;
  ks::ImportError error;
  auto t0 = std::chrono::steady_clock::now();
  if (!ks::import_file(argv[1], &importer, &error)) {
    std::fprintf(stderr, "%s: %s\n", argv[1], error.to_line().c_str());
    return 1;
  }
  const double load_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  ks::timeline_query::ViewIndex index(importer.trace());
  const double index_ms = ms_since(t0);
  std::printf("%zu slices; import %.0f ms, view index %.0f ms, %.1f MB\n",
              importer.trace().slices.size(), load_ms, index_ms,
              static_cast<double>(index.memory_bytes()) / (1 << 20));
  std::vector<ks::TrackId> tracks;
  for (ks::TrackId t = 0; t < index.tracks().size(); ++t) tracks.push_back(t);
  const int64_t span = index.span();
  for (double frac : {1.0, 0.1, 0.01, 0.001, 0.0001}) {
    std::vector<double> times;
    ks::timeline_query::LodResult r;
    for (int rep = 0; rep < 21; ++rep) {
      const int64_t w = static_cast<int64_t>(static_cast<double>(span) * frac);
      const int64_t mid = span / 3 + rep * (w / 50);  // pan a little between repeats
      ks::timeline_query::Viewport vp;
      vp.start = mid - w / 2 - w;
      vp.end = mid + w / 2 + w;
      vp.pixels = 3 * 1070;
      t0 = std::chrono::steady_clock::now();
      r = ks::timeline_query::query_viewport(index, vp, tracks, {});
      times.push_back(ms_since(t0));
    }
    std::sort(times.begin(), times.end());
    std::printf(
        "window %-7g of the trace: median %.3f ms, %zu rectangles, %zu instant marks, %llu "
        "lookups\n",
        frac, times[times.size() / 2], r.slices.size(), r.instants.size(),
        static_cast<unsigned long long>(r.searches));
  }
  return 0;
}
