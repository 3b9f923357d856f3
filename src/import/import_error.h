// Fatal import errors: the input cannot be read as a trace at all. Each has a stable code that
// the CLI, the JSON report and the page show, and the byte offset (in the decompressed JSON
// stream, or in the SQLite file) where the problem was found. Per-event problems are diagnostics,
// not errors.
#pragma once
#include <cstdint>
#include <string>

namespace ks {

enum class ImportErrorCode {
  kNone,
  kEmptyInput,   // no bytes, or only whitespace
  kNotJson,      // the first character cannot start a JSON value
  kNotATrace,    // JSON, but no traceEvents array / no event objects (e.g. rocprof output)
  kGzipCorrupt,  // native reader: the gzip stream is damaged
  kIoError,      // native reader: the file cannot be read
  kTooLarge,     // the input does not fit the memory this build may use
  // Nsight Systems SQLite exports (import/nsys_sqlite/): the offset is a byte offset in the file.
  kNotSqlite,        // no "SQLite format 3" header
  kNotNsysExport,    // a SQLite database, but not an Nsight Systems export
  kNoCudaTrace,      // an export with nothing CUDA-side (no kernels, copies or CUDA API calls)
  kDamagedDatabase,  // SQLite reports the file damaged or cut off (SQLITE_CORRUPT / NOTADB)
  kQueryBudget,      // a query did far more work than a file this size can need (hostile file)
  kSqliteError,      // any other SQLite failure, with SQLite's message
  // Another tool's file this reader does not take (.nsys-rep, .ncu-rep, ...), known by its name
  // once the import failed (import/foreign_file.h): the message says how to get one it takes.
  kForeignFormat,
};

const char* import_error_code_name(ImportErrorCode code);

struct ImportError {
  ImportErrorCode code = ImportErrorCode::kNone;
  std::string message;
  uint64_t offset = 0;
  bool ok() const { return code == ImportErrorCode::kNone; }
  // One line for terminals: "not_json at byte 0: ..."
  std::string to_line() const;
};

}  // namespace ks
