// Native only: a large plain JSON file read by several threads, as the page reads one with
// several workers (web/worker/split.js, docs/performance.md): helper k reads from a guessed
// element start near k/N of the file to the next guess into an importer of its own and hands
// its part's model over (take_part_model); the caller's importer reads from the start
// meanwhile, takes each part in order (apply_part_model) where its guess was right, and reads a
// part itself where it was not. The report is the same as one importer's
// (tests/import/split_file_read_test.cpp).
#pragma once
#include <cstdint>
#include <string>

#include "import/chrome_json/importer.h"

namespace ks {

// The threads reading may use: the cores, or KINETOSCOPE_READ_THREADS=N (1: one thread, for a
// gzip file and for several files too).
int read_threads_allowed();
// The threads a plain file of `bytes` is read with: one per 32 MiB, up to those allowed and 8.
int read_threads_for(uint64_t bytes);

// Feeds the file at `path` (plain JSON, `bytes` long) to `importer` with `threads` threads (2
// or more), without finishing it. False when the importer failed (its error() says why) or
// the file could not be read (*io_error set).
bool feed_file_split(const std::string& path, uint64_t bytes, int threads,
                     ChromeJsonImporter* importer, bool* io_error);

}  // namespace ks
