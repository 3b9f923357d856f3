// What the fuzz targets run, shared with the Catch2 replay of their regression inputs
// (tests/fuzz/regressions_test.cpp), so a crash found by libFuzzer is replayed by `make test`
// through exactly the same code.
//   import_whole:   the public import entry, as the CLI uses it: ChromeJsonImporter::feed() with
//                   the whole input, finish(), then build_report() and every report writer.
//   import_chunked: the same bytes fed in chunks whose sizes come from the input's first bytes
//                   (the page feeds what the browser's stream hands out); the JSON report must
//                   equal the one-piece import's (the importer promises chunking invariance),
//                   and the one-piece import's without the fast path (fast_event_reader.h), which
//                   must never change a result.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "import/chrome_json/importer.h"
#include "report/report.h"

namespace ks_fuzz {

// Imports `data` fed in pieces of the given sizes (cycled); empty `chunks`: one piece.
// Returns the JSON report, or "error:<code>@<offset>" when the input is refused.
inline std::string import_and_report(const uint8_t* data, size_t size,
                                     const std::vector<size_t>& chunks, bool all_writers,
                                     bool fast_path = true) {
  ks::ChromeJsonImporter importer;
  importer.set_source("fuzz.json", false);
  importer.set_fast_path(fast_path);
  const char* p = reinterpret_cast<const char*>(data);
  bool fed = true;
  size_t pos = 0, i = 0;
  while (pos < size && fed) {
    size_t n = chunks.empty() ? size : chunks[i++ % chunks.size()];
    if (n > size - pos) n = size - pos;
    fed = importer.feed(p + pos, n);
    pos += n;
  }
  if (!fed || !importer.finish()) {
    const ks::ImportError& e = importer.error();
    // The error JSON is what the page shows: writing it must be safe for any message.
    std::string json = ks::import_error_json(e);
    if (json.empty()) std::abort();
    return "error:" + std::string(ks::import_error_code_name(e.code)) + "@" +
           std::to_string(e.offset) + ": " + e.message;
  }
  ks::AnalysisOptions options;
  ks::Report report = ks::build_report(importer.trace(), options);
  std::string json = ks::report_json(report);
  if (all_writers) {
    std::string text = ks::report_text(report);
    std::string md = ks::report_markdown(report);
    if (text.empty() || md.empty()) std::abort();
    options.drop_last_step = true;
    ks::Report dropped = ks::build_report(importer.trace(), options);
    if (ks::report_json(dropped).empty()) std::abort();
  }
  return json;
}

inline void import_whole(const uint8_t* data, size_t size) {
  import_and_report(data, size, {}, /*all_writers=*/true);
}

// Input layout: byte 0 = n (n % 8 + 1 chunk-size bytes follow), then the sizes, then the trace.
// A size byte b < 200 means b + 1 bytes; b >= 200 means (b - 199) * 4096 bytes.
inline void import_chunked(const uint8_t* data, size_t size) {
  if (size < 2) return;
  size_t count = data[0] % 8 + 1;
  if (size < 1 + count) return;
  std::vector<size_t> chunks;
  for (size_t i = 0; i < count; ++i) {
    uint8_t b = data[1 + i];
    chunks.push_back(b < 200 ? size_t{b} + 1 : size_t{b - 199u} * 4096);
  }
  const uint8_t* trace = data + 1 + count;
  size_t trace_size = size - 1 - count;
  std::string chunked = import_and_report(trace, trace_size, chunks, false);
  std::string whole = import_and_report(trace, trace_size, {}, false);
  if (chunked != whole) {
    std::fprintf(stderr, "chunking changed the result:\n--- whole\n%.2000s\n--- chunked\n%.2000s\n",
                 whole.c_str(), chunked.c_str());
    std::abort();
  }
  std::string reference = import_and_report(trace, trace_size, {}, false, /*fast_path=*/false);
  if (reference != whole) {
    std::fprintf(stderr,
                 "the fast path changed the result:\n--- simdjson only\n%.2000s\n--- fast "
                 "path\n%.2000s\n",
                 reference.c_str(), whole.c_str());
    std::abort();
  }
}

}  // namespace ks_fuzz
