#include "import/import_error.h"

#include "util/safe_text.h"

namespace ks {

const char* import_error_code_name(ImportErrorCode code) {
  switch (code) {
    case ImportErrorCode::kNone:
      return "none";
    case ImportErrorCode::kEmptyInput:
      return "empty_input";
    case ImportErrorCode::kNotJson:
      return "not_json";
    case ImportErrorCode::kNotATrace:
      return "not_a_trace";
    case ImportErrorCode::kGzipCorrupt:
      return "gzip_corrupt";
    case ImportErrorCode::kIoError:
      return "io_error";
    case ImportErrorCode::kTooLarge:
      return "too_large";
    case ImportErrorCode::kNotSqlite:
      return "not_sqlite";
    case ImportErrorCode::kNotNsysExport:
      return "not_nsys_export";
    case ImportErrorCode::kNoCudaTrace:
      return "no_cuda_trace";
    case ImportErrorCode::kDamagedDatabase:
      return "damaged_database";
    case ImportErrorCode::kQueryBudget:
      return "query_budget";
    case ImportErrorCode::kSqliteError:
      return "sqlite_error";
    case ImportErrorCode::kForeignFormat:
      return "foreign_format";
  }
  return "unknown";
}

std::string ImportError::to_line() const {
  // For a terminal: the message may quote the file's own text (a key), so it is made safe. A
  // file known by its name has no place in it to point at.
  const std::string where =
      code == ImportErrorCode::kForeignFormat ? "" : " at byte " + std::to_string(offset);
  return std::string(import_error_code_name(code)) + where + ": " + display_safe(message);
}

}  // namespace ks
