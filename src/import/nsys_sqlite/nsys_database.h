// An Nsight Systems SQLite export (`nsys export --type sqlite`), opened read-only through a
// ByteSource by the real SQLite library (a VFS of our own that only reads: no locks, no journal,
// no writes; `immutable`). Tables and columns differ between Nsight Systems versions, so readers
// ask has_table()/has_column() and record what was absent instead of failing.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

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

  // Added for the readers (import and nsys stats), beyond the first contract:
  // The real tables, in sqlite_master's order.
  const std::vector<std::string>& tables() const;
  // Views and triggers whose name is an nsys table's (or which sit on one): never read.
  const std::vector<std::string>& ignored_objects() const;
  uint64_t file_size() const;
  // The header says WAL mode (bytes 18-19 are 2): only this file is read (the VFS opens no -wal),
  // so what its -wal held since the last checkpoint is missing. nsys writes rollback-journal files.
  bool wal_mode() const;
  // Call before each statement's first step: restarts the work budget the progress handler
  // enforces (a hostile file must not make one query run forever).
  void begin_query() const;
  // A failed sqlite3_prepare/step as an ImportError: damaged or cut off (with the file size and
  // the byte offset of the last page read), over budget, or SQLite's own message. `doing` says
  // what was being read ("reading CUPTI_ACTIVITY_KIND_KERNEL").
  ImportError error_from(int rc, std::string_view doing) const;

 private:
  NsysDatabase() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ks
