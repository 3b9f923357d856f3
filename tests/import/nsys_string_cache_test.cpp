// StringIds as the nsys importer holds it (src/import/nsys_sqlite/nsys_rows.h, StringCache):
// texts over 4 KiB stay in the file until a row names them, so a table of long texts no row
// uses costs no memory (10^6 rows of 64 KiB held 64 GB; a 66 MB export of 1,000 peaked at
// 87 MB RSS, now 26 MB). Each database is built in memory by SQLite and read through the
// importer's VFS.
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <string>

#include "import/memory_byte_source.h"
#include "import/nsys_sqlite/nsys_database.h"
#include "import/nsys_sqlite/nsys_rows.h"
#include "import/sqlite_bytes.h"

namespace {

// StringIds as `create` makes it: ids 0-2 short texts, 100-299 texts of 64 KiB ("L<id>" then
// 'x's), and one of 64 KiB at id 10^12 (past the dense ids).
std::string string_ids(const std::string& create) {
  return ks_test::sqlite_database_bytes(
      create +
      ";INSERT INTO StringIds (id, value) VALUES (0, 'zero'), (1, 'one'), (2, 'two');"
      "INSERT INTO StringIds (id, value) SELECT x, printf('L%d', x) || "
      "replace(printf('%65530c', 'x'), ' ', 'x') FROM (WITH RECURSIVE c(x) AS (SELECT 100 "
      "UNION ALL SELECT x + 1 FROM c WHERE x < 299) SELECT x FROM c);"
      "INSERT INTO StringIds (id, value) VALUES (1000000000000, 'far' || replace(printf('%65533c', "
      "'x'), ' ', "
      "'x'));");
}

struct Loaded {
  std::string bytes;
  std::unique_ptr<ks::MemoryByteSource> source;
  std::unique_ptr<ks::NsysDatabase> db;
  ks::nsys_sqlite::StringCache cache;
};

void load(const std::string& create, Loaded* l) {
  l->bytes = string_ids(create);
  l->source = std::make_unique<ks::MemoryByteSource>(l->bytes);
  ks::ImportError error;
  l->db = ks::NsysDatabase::open(l->source.get(), &error);
  INFO(error.to_line());
  REQUIRE(l->db);
  ks::Diagnostics diag;
  REQUIRE(l->cache.load(*l->db, &diag, &error));
}

}  // namespace

TEST_CASE("nsys StringIds: long texts stay in the file until a row names them", "[nsys][hostile]") {
  Loaded l;
  load("CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL)", &l);
  // 201 texts of 64 KiB in the table (13 MB); the cache holds the short ones only.
  CHECK(l.cache.held_bytes() < 4096);
  CHECK(l.cache.get(1) == "one");
  const std::string_view long_text = l.cache.get(150);
  CHECK(long_text.size() == 65534);
  CHECK(long_text.substr(0, 5) == "L150x");
  CHECK(long_text.find_first_not_of('x', 4) == std::string_view::npos);
  const std::string_view far = l.cache.get(1000000000000);
  CHECK(far.size() == 65536);
  CHECK(far.substr(0, 4) == "farx");
  // Each is read once and then held; the first view stays valid after other reads.
  CHECK(l.cache.held_bytes() < 3 * 65536);
  CHECK(l.cache.get(299).substr(0, 5) == "L299x");
  CHECK(long_text.substr(0, 5) == "L150x");
  CHECK(l.cache.get(150).data() == long_text.data());
  CHECK(l.cache.get(5) == "<unknown>");
}

TEST_CASE("nsys StringIds: a table without rowids, or hiding them, keeps every text",
          "[nsys][hostile]") {
  for (const char* create :
       {"CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL) WITHOUT "
        "ROWID",
        "CREATE TABLE StringIds (id INTEGER NOT NULL, value TEXT NOT NULL, rowid INTEGER)"}) {
    INFO(create);
    Loaded l;
    load(create, &l);
    CHECK(l.cache.held_bytes() > 200 * 65534);
    CHECK(l.cache.get(2) == "two");
    CHECK(l.cache.get(150).substr(0, 5) == "L150x");
    CHECK(l.cache.get(150).size() == 65534);
    CHECK(l.cache.get(1000000000000).size() == 65536);
  }
}
