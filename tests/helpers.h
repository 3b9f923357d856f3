// Small helpers shared by the unit tests. Header-only: CMake builds only tests/**/*_test.cpp.
#pragma once
#include <zlib.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "import/chrome_json/importer.h"
#include "model/diagnostics.h"
#include "model/trace.h"
#include "report/report.h"
#include "source_dir.h"

namespace ks_test {

// Chunk sizes every chunking-invariance check uses; 0 means the whole input in one feed().
inline const std::vector<size_t>& chunk_sizes() {
  static const std::vector<size_t> sizes = {0, 1, 2, 3, 7, 64, 4096};
  return sizes;
}

struct ImportResult {
  bool ok = false;
  ks::ImportError error;
  std::unique_ptr<ks::Trace> trace;  // null unless ok
};

// Imports `json` fed in chunks of `chunk` bytes (0: in one piece), as the CLI and the page do.
inline ImportResult import_chunked(std::string_view json, size_t chunk = 0) {
  ks::ChromeJsonImporter importer;
  const size_t step = chunk == 0 ? (json.empty() ? 1 : json.size()) : chunk;
  bool fed = true;
  for (size_t pos = 0; pos < json.size() && fed; pos += step)
    fed = importer.feed(json.data() + pos, std::min(step, json.size() - pos));
  ImportResult r;
  r.ok = fed && importer.finish();
  r.error = importer.error();
  if (r.ok) r.trace = importer.take();
  return r;
}

// Imports a trace that must be readable. On failure the test fails and an empty Trace comes
// back, so the checks that follow fail instead of crashing.
inline std::unique_ptr<ks::Trace> load(std::string_view json, size_t chunk = 0) {
  ImportResult r = import_chunked(json, chunk);
  INFO("import error: " << r.error.to_line());
  CHECK(r.ok);
  if (!r.ok) return std::make_unique<ks::Trace>();
  return std::move(r.trace);
}

inline std::string report_of(const ks::Trace& trace, bool drop_last_step = false) {
  ks::AnalysisOptions options;
  options.drop_last_step = drop_last_step;
  return ks::report_json(ks::build_report(trace, options));
}

inline uint64_t diag_count(const ks::Trace& t, ks::Diag d) {
  return t.diagnostics.count(d);
}
inline uint64_t diag_offset(const ks::Trace& t, ks::Diag d) {
  return t.diagnostics.get(d).first_offset;
}

// Every diagnostic with a count, one per line: "code count@offset excerpt".
inline std::string dump_diagnostics(const ks::Diagnostics& d) {
  std::string out;
  for (int i = 0; i < static_cast<int>(ks::Diag::kCount); ++i) {
    const ks::DiagEntry& e = d.get(static_cast<ks::Diag>(i));
    if (!e.count) continue;
    out += std::string(ks::diag_info(static_cast<ks::Diag>(i)).code) + " " +
           std::to_string(e.count) + "@" + std::to_string(e.first_offset) + " " + e.excerpt + "\n";
  }
  return out;
}

// Indices of the slices with this name, in model order (sorted by track, then time).
inline std::vector<uint32_t> slices_named(const ks::Trace& t, std::string_view name) {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < t.slices.size(); ++i)
    if (t.str(t.slices.name[i]) == name) out.push_back(i);
  return out;
}

// The index of the one slice with this name. Stops the run when there is not exactly one:
// every later check would index with it.
inline uint32_t slice_named(const ks::Trace& t, std::string_view name) {
  std::vector<uint32_t> found = slices_named(t, name);
  INFO("slice named '" << name << "'");
  REQUIRE(found.size() == 1);
  return found[0];
}

// Reads a file (gzip or plain) into *out; false when it cannot be opened.
inline bool read_file_maybe_gzip(const std::string& path, std::string* out) {
  gzFile in = gzopen(path.c_str(), "rb");
  if (!in) return false;
  out->clear();
  char buf[1 << 16];
  int n;
  while ((n = gzread(in, buf, sizeof(buf))) > 0) out->append(buf, static_cast<size_t>(n));
  gzclose(in);
  return n == 0;
}

// A trace from ../shared/traces (the corpus shared by the project's tests), when present.
inline std::string shared_trace_path(const std::string& file) {
  return ks_test::source_dir() + "/../shared/traces/" + file;
}

}  // namespace ks_test
