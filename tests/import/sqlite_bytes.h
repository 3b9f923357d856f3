// The bytes of a SQLite database built in memory by SQLite itself after `sql` ran in it: tests
// that read a hand-made Nsight Systems export through the importer's own VFS, without a file.
#pragma once
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <string>

namespace ks_test {

inline std::string sqlite_database_bytes(const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(":memory:", &db) == SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  INFO((err ? err : ""));
  sqlite3_free(err);
  REQUIRE(rc == SQLITE_OK);
  sqlite3_int64 size = 0;
  unsigned char* data = sqlite3_serialize(db, "main", &size, 0);
  REQUIRE(data);
  std::string bytes(reinterpret_cast<const char*>(data), static_cast<size_t>(size));
  sqlite3_free(data);
  sqlite3_close(db);
  return bytes;
}

}  // namespace ks_test
