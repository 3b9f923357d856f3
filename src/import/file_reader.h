// Native only (the page reads files with the browser's streams): reads a trace file, plain or
// gzip, in fixed-size chunks into an importer, so memory never holds the whole text.
#pragma once
#include <functional>
#include <string>

#include "import/chrome_json/importer.h"
#include "import/import_error.h"

namespace ks {

constexpr size_t kReadChunkBytes = size_t{1} << 20;

// Feeds the file's decompressed bytes to `importer` and finishes it. On failure fills *error.
// `max_threads` caps the threads the read uses (split_file_read.h; 0: as many as allowed): a
// caller reading several files at once gives each its share of the cores.
bool import_file(const std::string& path, ChromeJsonImporter* importer, ImportError* error,
                 int max_threads = 0);

std::string base_name(const std::string& path);

}  // namespace ks
