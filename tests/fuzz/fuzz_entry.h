// What the fuzz targets run, shared with the Catch2 replay of their regression inputs
// (tests/fuzz/regressions_test.cpp), so a crash found by libFuzzer is replayed by `make test`
// through exactly the same code.
//   import_whole:   the public import entry, as the CLI uses it: ChromeJsonImporter::feed() with
//                   the whole input, finish(), then build_report() and every report writer,
//                   and the report of each rank split_merged_ranks() cuts out of it.
//   import_chunked: the same bytes fed in chunks whose sizes come from the input's first bytes
//                   (the page feeds what the browser's stream hands out); the JSON report must
//                   equal the one-piece import's (the importer promises chunking invariance),
//                   and the one-piece import's without the fast path (fast_event_reader.h), which
//                   must never change a result, and the page's two-importer read of one file
//                   (importer.h start_part/apply_part) split at a point the input chooses.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "analysis/merged_ranks.h"
#include "import/chrome_json/importer.h"
#include "import/chrome_json/split_point.h"
#include "report/report.h"

namespace ks_fuzz {

// The report of an import fed so far (`fed`: no fatal error while feeding), or
// "error:<code>@<offset>".
inline std::string report_of(ks::ChromeJsonImporter& importer, bool fed, bool all_writers) {
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
    // Ranks merged into one file (analysis/merged_ranks.h): each part's report, as the CLI's.
    options.drop_last_step = false;
    for (const auto& part : ks::split_merged_ranks(importer.trace()))
      if (ks::report_json(ks::build_report(*part, options)).empty()) std::abort();
  }
  return json;
}

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
  return report_of(importer, fed, all_writers);
}

// The page's two workers on one file: a second importer reads from the first candidate at or
// after `from` (split_point.h); the first reads up to it and merges the part when it can, then
// reads on. Must give what one importer gives.
inline std::string split_import_and_report(const uint8_t* data, size_t size, size_t from) {
  const char* p = reinterpret_cast<const char*>(data);
  const size_t at = from < size ? ks::find_part_start(p + from, size - from) : std::string::npos;
  if (at == std::string::npos) return import_and_report(data, size, {}, false);
  const size_t start = from + at;
  ks::ChromeJsonImporter part;
  part.start_part(start);
  part.feed(p + start, size - start);
  const std::string bytes = part.part_ended() ? part.take_part() : std::string();
  ks::ChromeJsonImporter importer;
  importer.set_source("fuzz.json", false);
  bool fed = start == 0 || importer.feed(p, start);
  size_t rest = start;
  if (fed && !bytes.empty() && importer.at_part_boundary() &&
      importer.apply_part(bytes.data(), bytes.size()))
    rest = importer.resume_offset();
  if (fed && rest < size) fed = importer.feed(p + rest, size - rest);
  return report_of(importer, fed, false);
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
  // The split point comes from the chunk sizes too, anywhere in the trace.
  const size_t from = trace_size ? (chunks[0] * 7919 + count) % trace_size : 0;
  std::string split = split_import_and_report(trace, trace_size, from);
  if (split != whole) {
    std::fprintf(stderr,
                 "two importers changed the result (split guessed at %zu):\n--- one\n%.2000s\n"
                 "--- two\n%.2000s\n",
                 from, whole.c_str(), split.c_str());
    std::abort();
  }
}

}  // namespace ks_fuzz
