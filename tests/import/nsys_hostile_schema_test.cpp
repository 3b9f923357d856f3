// SQLite files posing as Nsight Systems exports whose schema, not their rows, is the attack
// (docs/hardening.md): SQLite reads the whole schema before the first statement runs, in time
// that grows with the square of its size, where no progress handler can stop it. Each file is
// built here by SQLite itself, in memory, and read back through the importer's own VFS.
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <string>

#include "import/memory_byte_source.h"
#include "import/nsys_sqlite/nsys_database.h"
#include "import/nsys_sqlite/sqlite_schema_size.h"
#include "import/sqlite_bytes.h"

namespace {

// A MemoryByteSource that counts the bytes read from it: how much of a file a refusal read is
// the work it did, the same on any machine (a wall-clock bound failed CI under the sanitizers).
class CountingByteSource : public ks::MemoryByteSource {
 public:
  using MemoryByteSource::MemoryByteSource;
  int64_t read_at(uint64_t offset, void* out, size_t n) override {
    const int64_t got = MemoryByteSource::read_at(offset, out, n);
    if (got > 0) bytes_read += static_cast<uint64_t>(got);
    return got;
  }
  uint64_t bytes_read = 0;
};

// The bytes of an in-memory database (512-byte pages) after `sql` ran in it.
std::string database_bytes(const std::string& sql) {
  return ks_test::sqlite_database_bytes("PRAGMA page_size=512; " + sql);
}

// An export's StringIds table, then `n` more tables.
std::string export_with_tables(int n) {
  std::string sql = "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);";
  for (int i = 0; i < n; ++i)
    sql += "CREATE TABLE t" + std::to_string(i) + " (id INTEGER PRIMARY KEY, value TEXT);";
  return database_bytes(sql);
}

// An export's StringIds table, then `n` more schema rows naming tables that share its pages,
// written straight into sqlite_schema (creating them one by one takes SQLite minutes).
std::string export_listing_tables(int n) {
  return database_bytes(
      "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
      "PRAGMA writable_schema=ON;"
      "INSERT INTO sqlite_master SELECT 'table', 't' || x, 't' || x, 2, 'CREATE TABLE t' || x || "
      "' (id INTEGER PRIMARY KEY, value TEXT NOT NULL)' FROM (WITH RECURSIVE c(x) AS (SELECT 1 "
      "UNION ALL SELECT x + 1 FROM c WHERE x < " +
      std::to_string(n) + ") SELECT x FROM c);");
}

}  // namespace

TEST_CASE("nsys hostile schema: 30,000 tables are refused before SQLite parses them",
          "[nsys][hostile]") {
  const std::string bytes = export_listing_tables(30000);
  CountingByteSource source(bytes);
  ks::ImportError error;
  auto db = ks::NsysDatabase::open(&source, &error);
  CHECK(!db);
  CHECK(error.code == ks::ImportErrorCode::kQueryBudget);
  CHECK(error.message.find("it lists more than 10000 tables, indexes, views and triggers") !=
        std::string::npos);
  CHECK(error.offset > 0);
  CHECK(error.offset % 512 == 0);  // the page where the count passed the limit
  CHECK(error.offset < bytes.size());
  // The count reads the schema's pages once each, up to the limit: never the whole file again
  // and again, as SQLite's parse of every CREATE statement would (it took seconds).
  INFO("read " << source.bytes_read << " of " << bytes.size() << " bytes");
  CHECK(source.bytes_read <= 2 * error.offset + 4096);
}

TEST_CASE("nsys hostile schema: the count is exact, and a few hundred tables open as before",
          "[nsys][hostile]") {
  const std::string bytes = export_with_tables(300);
  ks::MemoryByteSource source(bytes);
  const ks::SchemaSize size = ks::count_schema_objects(&source, 10000);
  CHECK(!size.over);
  CHECK(size.objects == 301);
  CHECK(ks::count_schema_objects(&source, 300).over);
  ks::ImportError error;
  auto db = ks::NsysDatabase::open(&source, &error);
  REQUIRE(db);
  CHECK(db->tables().size() == 301);
}

TEST_CASE("nsys hostile schema: a schema b-tree whose pages point back at themselves is refused",
          "[nsys][hostile]") {
  // 600 tables fill a tree of three levels under page 1; every child pointer of the root is
  // then aimed at the root itself, a tree without end.
  std::string bytes = export_with_tables(600);
  auto* page1 = reinterpret_cast<unsigned char*>(&bytes[0]);
  REQUIRE(page1[100] == 0x05);  // an interior table page
  const int cells = (page1[103] << 8) | page1[104];
  REQUIRE(cells >= 1);
  page1[108] = page1[109] = page1[110] = 0;  // the right-most child
  page1[111] = 1;
  for (int i = 0; i < cells; ++i) {
    const int cell = (page1[112 + 2 * i] << 8) | page1[113 + 2 * i];
    page1[cell] = page1[cell + 1] = page1[cell + 2] = 0;
    page1[cell + 3] = 1;
  }
  CountingByteSource source(bytes);
  ks::ImportError error;
  CHECK(!ks::NsysDatabase::open(&source, &error));
  // The loop is seen at the page reached twice, not walked until a visit budget runs out (it
  // read this 353 KiB file 28 times over: 20,064 pages, 1.3 GB with 64 KiB pages).
  INFO("read " << source.bytes_read << " of " << bytes.size() << " bytes");
  CHECK(source.bytes_read <= 2 * 512);
  CHECK(error.code == ks::ImportErrorCode::kDamagedDatabase);
  CHECK(error.message.find("reaches a page a second time") != std::string::npos);
  CHECK(error.offset == 0);
}

TEST_CASE("nsys hostile header: a page size SQLite cannot have is damage, not a cut-off file",
          "[nsys][hostile]") {
  std::string bytes = export_with_tables(3);
  bytes[16] = '\x12';  // 4660: not a power of two
  bytes[17] = '\x34';
  ks::MemoryByteSource source(bytes);
  ks::ImportError error;
  CHECK(!ks::NsysDatabase::open(&source, &error));
  CHECK(error.code == ks::ImportErrorCode::kDamagedDatabase);
  CHECK(error.offset == 16);
  CHECK(error.message.find("the export is damaged: its SQLite header's page size (bytes 16-17) is "
                           "4660, not a power of two from 512 to 65536") != std::string::npos);
}
