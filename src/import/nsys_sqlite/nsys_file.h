// Native only: an Nsight Systems export on disk -> Trace (FileByteSource + NsysDatabase +
// import_nsys), for the CLI and the tests.
#pragma once
#include <memory>
#include <string>

#include "import/import_error.h"
#include "model/trace.h"

namespace ks {

// Whether the file starts with SQLite's 16-byte header (what the CLI sniffs, not the name).
bool file_is_sqlite(const std::string& path);

std::unique_ptr<Trace> import_nsys_file(const std::string& path, ImportError* error);

}  // namespace ks
