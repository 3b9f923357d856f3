// An Nsight Systems SQLite export (`nsys export --type sqlite`), opened read-only through a
// ByteSource by the real SQLite library (a VFS of our own that only reads: no locks, no journal,
// no writes; `immutable`). Tables and columns differ between Nsight Systems versions, so readers
// ask has_table()/has_column() and record what was absent instead of failing.
#pragma once
#include <memory>
#include <string>
#include <string_view>

#include "import/byte_source.h"
#include "import/import_error.h"

struct sqlite3;

namespace ks {

// "SQLite format 3\0": the first 16 bytes of every SQLite database file.
bool is_sqlite_header(const char* bytes, size_t n);

class NsysDatabase {
 public:
  // Opens `source` (which must outlive the database). On failure returns nullptr and fills
  // *error: not SQLite, damaged, or SQLite but not an Nsight Systems export.
  static std::unique_ptr<NsysDatabase> open(ByteSource* source, ImportError* error);
  ~NsysDatabase();

  sqlite3* handle() const;
  // Only real tables count (type='table' in sqlite_schema): a view or trigger under a known name
  // is not read.
  bool has_table(std::string_view table) const;
  bool has_column(std::string_view table, std::string_view column) const;

 private:
  NsysDatabase() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ks
