#include "import/nsys_sqlite/nsys_database.h"

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>

#include "import/nsys_sqlite/nsys_vfs.h"
#include "import/nsys_sqlite/sqlite_schema_size.h"
#include "util/format.h"
#include "util/text_match.h"

namespace ks {

bool is_sqlite_header(const char* bytes, size_t n) {
  static const char kMagic[16] = {'S', 'Q', 'L', 'i', 't', 'e', ' ', 'f',
                                  'o', 'r', 'm', 'a', 't', ' ', '3', '\0'};
  return n >= 16 && std::memcmp(bytes, kMagic, 16) == 0;
}

namespace {

// The work one statement may do, in progress-handler ticks of kTickOps virtual-machine steps:
// far above what reading every row of a file this size needs (tens of steps per row, rows of at
// least a few bytes), so only a crafted or looping b-tree reaches it.
constexpr int kTickOps = 1000;
uint64_t budget_ticks(uint64_t file_size) {
  return 100000 + file_size / 25;  // 1e8 steps + 40 per byte
}

// The most schema objects SQLite is asked to read (sqlite_schema_size.h): an export lists a few
// hundred (86 tables and 2 indexes in a real one); 10,000 parse in 0.2 s.
constexpr uint64_t kMaxSchemaObjects = 10000;

// The longest value (TEXT or BLOB) SQLite may return (SQLITE_LIMIT_LENGTH): no name or value nsys
// writes comes near it.
constexpr int kMaxValueBytes = 16 << 20;

// Names that say "this is an Nsight Systems export" (any one of them).
bool is_nsys_table_name(std::string_view n) {
  return n == "StringIds" || n == "META_DATA_EXPORT" || n == "META_DATA_CAPTURE" ||
         n == "TARGET_INFO_SESSION_START_TIME" || n == "ThreadNames" || n == "PROCESSES" ||
         n == "NVTX_EVENTS" || n == "OSRT_API" || n == "GPU_METRICS" ||
         n.rfind("CUPTI_ACTIVITY_KIND_", 0) == 0 || n.rfind("TARGET_INFO_", 0) == 0;
}

std::string hex_bytes(const unsigned char* b, size_t n) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    if (i) out.push_back(' ');
    out.push_back(kHex[b[i] >> 4]);
    out.push_back(kHex[b[i] & 15]);
  }
  return out;
}

std::string printable_prefix(const unsigned char* b, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i)
    out.push_back(b[i] >= 0x20 && b[i] < 0x7f ? static_cast<char>(b[i]) : '.');
  return out;
}

// The progress handler's state: ticks since the statement began, and its limit.
struct Budget {
  uint64_t ticks = 0;
  uint64_t limit = 0;
  bool over = false;
};

int on_progress(void* p) {
  auto* b = static_cast<Budget*>(p);
  if (++b->ticks <= b->limit) return 0;
  b->over = true;
  return 1;  // interrupts the statement: SQLITE_INTERRUPT
}

}  // namespace

struct NsysDatabase::Impl {
  ByteSource* source = nullptr;
  sqlite3* db = nullptr;
  std::string uri;
  VfsReadTrace reads;
  std::vector<std::string> tables;
  std::vector<std::string> ignored;
  mutable std::map<std::string, std::vector<std::string>, std::less<>> columns;  // lazily
  mutable Budget budget;
  bool wal = false;

  ~Impl() {
    if (db) sqlite3_close_v2(db);
    if (!uri.empty()) unregister_nsys_source(uri);
  }
};

NsysDatabase::~NsysDatabase() = default;

sqlite3* NsysDatabase::handle() const {
  return impl_->db;
}
const std::vector<std::string>& NsysDatabase::tables() const {
  return impl_->tables;
}
const std::vector<std::string>& NsysDatabase::ignored_objects() const {
  return impl_->ignored;
}
bool NsysDatabase::wal_mode() const {
  return impl_->wal;
}
uint64_t NsysDatabase::file_size() const {
  return impl_->source->size();
}
void NsysDatabase::begin_query() const {
  impl_->budget.ticks = 0;
  impl_->budget.over = false;
}

bool NsysDatabase::has_table(std::string_view table) const {
  for (const std::string& t : impl_->tables)
    if (iequals(t, table)) return true;
  return false;
}

bool NsysDatabase::has_column(std::string_view table, std::string_view column) const {
  if (!has_table(table)) return false;
  auto it = impl_->columns.find(table);
  if (it == impl_->columns.end()) {
    std::vector<std::string> cols;
    sqlite3_stmt* st = nullptr;
    begin_query();
    if (sqlite3_prepare_v2(impl_->db, "SELECT name FROM pragma_table_info(?1)", -1, &st, nullptr) ==
        SQLITE_OK) {
      sqlite3_bind_text(st, 1, table.data(), static_cast<int>(table.size()), SQLITE_TRANSIENT);
      while (sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char* n = sqlite3_column_text(st, 0);
        if (n) cols.emplace_back(reinterpret_cast<const char*>(n));
      }
    }
    sqlite3_finalize(st);
    it = impl_->columns.emplace(std::string(table), std::move(cols)).first;
  }
  for (const std::string& c : it->second)
    if (iequals(c, column)) return true;
  return false;
}

ImportError NsysDatabase::error_from(int rc, std::string_view doing) const {
  ImportError e;
  const uint64_t size = impl_->source->size();
  const int primary = rc & 0xff;
  std::string what(doing);
  if (primary == SQLITE_INTERRUPT && impl_->budget.over) {
    e.code = ImportErrorCode::kQueryBudget;
    e.message = what + ": the query did more than " +
                std::to_string(impl_->budget.limit * kTickOps / 1000000) +
                " million steps, far more than a " + format_bytes(static_cast<int64_t>(size)) +
                " export needs: the file is damaged or crafted";
    e.offset = 0;
    return e;
  }
  // A value over SQLITE_LIMIT_LENGTH (16 MiB, set in open()): SQLite refuses it before reading
  // it, and no name or number nsys writes comes near; a crafted cell (a 20 MB BLOB where a time
  // belongs) said "SQLite error 18: string or blob too big" at byte 0.
  if (primary == SQLITE_TOOBIG) {
    const uint64_t at = impl_->reads.last_offset;
    e.code = ImportErrorCode::kDamagedDatabase;
    e.message = what + ": a value is longer than " + format_bytes(kMaxValueBytes) +
                ", more than any name or number of an Nsight Systems export: the file is damaged "
                "or crafted; last page read at byte " +
                std::to_string(at) + " of " + std::to_string(size);
    e.offset = at;
    return e;
  }
  // SQLite parses every schema object at the first statement; a statement that is no CREATE (an
  // ATTACH written into sqlite_master) or a CREATE it cannot parse fails them all. Its own
  // message names the object, which "the export is damaged" left out.
  const char* detail = impl_->db ? sqlite3_errmsg(impl_->db) : nullptr;
  if (primary == SQLITE_CORRUPT && detail &&
      std::strncmp(detail, "malformed database schema", 25) == 0) {
    const uint64_t at = impl_->reads.last_offset;
    e.code = ImportErrorCode::kDamagedDatabase;
    e.message = what + ": the export's schema is damaged or crafted (SQLite: " + detail +
                "); last page read at byte " + std::to_string(at) + " of " + std::to_string(size);
    e.offset = at;
    return e;
  }
  if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB ||
      (primary == SQLITE_IOERR && impl_->reads.short_read)) {
    e.code = ImportErrorCode::kDamagedDatabase;
    // The header's page size (offset 16, 1 = 65536) and page count (offset 28) say how long the
    // file should be; a shorter file was cut off while copying or writing.
    unsigned char h[100] = {0};
    int64_t got = impl_->source->read_at(0, h, sizeof(h));
    uint64_t page_size = 0, pages = 0;
    if (got == static_cast<int64_t>(sizeof(h))) {
      page_size = (static_cast<uint64_t>(h[16]) << 8) | h[17];
      if (page_size == 1) page_size = 65536;
      pages = (static_cast<uint64_t>(h[28]) << 24) | (static_cast<uint64_t>(h[29]) << 16) |
              (static_cast<uint64_t>(h[30]) << 8) | h[31];
    }
    const uint64_t expected = page_size * pages;
    // A page size SQLite cannot have (a power of two from 512 to 65536): the header is damaged,
    // and the size it promises means nothing (it was reported as "cut off").
    if (got == static_cast<int64_t>(sizeof(h)) &&
        (page_size < 512 || (page_size & (page_size - 1)) != 0)) {
      e.message = what +
                  ": the export is damaged: its SQLite header's page size (bytes 16-17) is " +
                  std::to_string(page_size) +
                  ", not a power of two from 512 to 65536 (SQLite: " + sqlite3_errstr(rc) + ")";
      e.offset = 16;
      return e;
    }
    if (got < static_cast<int64_t>(sizeof(h)) || (expected > size) || impl_->reads.short_read) {
      e.message =
          what + ": the export is cut off: the file has " + std::to_string(size) + " bytes" +
          (expected > size
               ? ", its SQLite header says " + std::to_string(pages) + " pages of " +
                     std::to_string(page_size) + " bytes (" + std::to_string(expected) + " bytes)"
               : std::string()) +
          " (SQLite: " + sqlite3_errstr(rc) + ")";
      e.offset = size;
    } else {
      const uint64_t at = impl_->reads.last_offset;
      e.message = what + ": the export is damaged (SQLite: " + sqlite3_errstr(rc) +
                  "); last page read: " +
                  (page_size ? std::to_string(at / page_size + 1) : std::string("?")) +
                  " at byte " + std::to_string(at) + " of " + std::to_string(size);
      e.offset = at;
    }
    return e;
  }
  e.code = ImportErrorCode::kSqliteError;
  const char* msg = impl_->db ? sqlite3_errmsg(impl_->db) : sqlite3_errstr(rc);
  e.message = what + ": SQLite error " + std::to_string(rc) + ": " + (msg ? msg : "");
  e.offset = impl_->reads.io_error ? impl_->reads.last_offset : 0;
  return e;
}

std::unique_ptr<NsysDatabase> NsysDatabase::open(ByteSource* source, ImportError* error) {
  const uint64_t size = source->size();
  unsigned char head[16] = {0};
  int64_t got = size ? source->read_at(0, head, sizeof(head)) : 0;
  if (got < 0) {
    error->code = ImportErrorCode::kIoError;
    error->message = "cannot read the file";
    error->offset = 0;
    return nullptr;
  }
  if (size == 0) {
    error->code = ImportErrorCode::kEmptyInput;
    error->message = "the file is empty";
    error->offset = 0;
    return nullptr;
  }
  if (!is_sqlite_header(reinterpret_cast<const char*>(head), static_cast<size_t>(got))) {
    const size_t n = static_cast<size_t>(got);
    error->code = ImportErrorCode::kNotSqlite;
    error->message =
        "not a SQLite database: an Nsight Systems export starts with "
        "\"SQLite format 3\\0\", this file with " +
        hex_bytes(head, n) + " (\"" + printable_prefix(head, n) + "\")";
    error->offset = 0;
    return nullptr;
  }
  // SQLite reads the whole schema at the first statement, in time that grows with the square of
  // its size and out of the progress handler's reach: a crafted schema is refused before.
  const SchemaSize schema = count_schema_objects(source, kMaxSchemaObjects);
  if (schema.over) {
    error->code = ImportErrorCode::kQueryBudget;
    error->message = "reading the schema: it lists more than " + std::to_string(kMaxSchemaObjects) +
                     " tables, indexes, views and triggers (an Nsight Systems export has a few "
                     "hundred), more than SQLite can read in reasonable time: the file is damaged "
                     "or crafted";
    error->offset = schema.at;
    return nullptr;
  }
  if (schema.loops) {
    error->code = ImportErrorCode::kDamagedDatabase;
    error->message =
        "reading the schema: its b-tree reaches a page a second time (each page has one parent): "
        "the file is damaged or crafted";
    error->offset = schema.at;
    return nullptr;
  }
  int rc = register_nsys_vfs();
  std::unique_ptr<NsysDatabase> d(new NsysDatabase());
  d->impl_.reset(new Impl());
  Impl& im = *d->impl_;
  im.source = source;
  im.budget.limit = budget_ticks(size);
  unsigned char versions[2] = {0, 0};  // the file format write and read versions: 2 is WAL
  im.wal = source->read_at(18, versions, 2) == 2 && (versions[0] == 2 || versions[1] == 2);
  if (rc != SQLITE_OK) {
    *error = d->error_from(rc, "starting SQLite");
    return nullptr;
  }
  im.uri = register_nsys_source(source, &im.reads);
  rc = sqlite3_open_v2(im.uri.c_str(), &im.db,
                       SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, kNsysVfsName);
  if (rc != SQLITE_OK) {
    *error = d->error_from(rc, "opening the database");
    return nullptr;
  }
  sqlite3* db = im.db;
  // A hostile file: nothing in it may run code or write (defensive mode; schema objects such as
  // views and triggers are not trusted, and are not read at all), and every query is bounded.
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, kMaxValueBytes);  // no name or value is longer
  sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 1 << 20);
  sqlite3_limit(db, SQLITE_LIMIT_COLUMN, 1000);
  sqlite3_limit(db, SQLITE_LIMIT_EXPR_DEPTH, 100);
  sqlite3_limit(db, SQLITE_LIMIT_COMPOUND_SELECT, 8);
  sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
  sqlite3_limit(db, SQLITE_LIMIT_TRIGGER_DEPTH, 1);
  sqlite3_progress_handler(db, kTickOps, on_progress, &im.budget);
  // query_only: no statement may write; temp_store: sorts stay in memory (no temporary files in
  // this VFS); a bounded page cache (16 MiB) however large the file; cell_size_check: damaged
  // b-tree cells are caught when read instead of being trusted.
  for (const char* pragma : {"PRAGMA query_only=1", "PRAGMA temp_store=MEMORY",
                             "PRAGMA cache_size=-16384", "PRAGMA cell_size_check=ON"}) {
    d->begin_query();
    rc = sqlite3_exec(db, pragma, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) {
      *error = d->error_from(rc, "opening the database");
      return nullptr;
    }
  }
  // The schema: the first read of the file, where a damaged header or a non-database shows.
  sqlite3_stmt* st = nullptr;
  d->begin_query();
  rc = sqlite3_prepare_v2(db, "SELECT type, name, tbl_name FROM sqlite_master", -1, &st, nullptr);
  if (rc == SQLITE_OK) {
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      auto text = [st](int c) {
        const unsigned char* v = sqlite3_column_text(st, c);
        return std::string(v ? reinterpret_cast<const char*>(v) : "");
      };
      std::string type = text(0), name = text(1), on = text(2);
      if (type == "table") {
        im.tables.push_back(name);
      } else if ((type == "view" || type == "trigger") &&
                 (is_nsys_table_name(name) || is_nsys_table_name(on))) {
        im.ignored.push_back(type + " " + name);
      }
    }
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_OK) {
    *error = d->error_from(rc, "reading the schema");
    return nullptr;
  }
  bool nsys = false;
  for (const std::string& t : im.tables) nsys = nsys || is_nsys_table_name(t);
  if (!nsys) {
    error->code = ImportErrorCode::kNotNsysExport;
    std::string list;
    size_t shown = 0;
    for (const std::string& t : im.tables) {
      if (shown == 8) {
        list += ", ...";
        break;
      }
      list += (shown++ ? ", " : "") + t;
    }
    error->message =
        "a SQLite database, but not an Nsight Systems export (nsys export --type sqlite): no "
        "StringIds, CUPTI_ACTIVITY_KIND_* or NVTX_EVENTS table; it has " +
        (im.tables.empty() ? std::string("no tables")
                           : std::to_string(im.tables.size()) + " tables: " + list) +
        (im.ignored.empty() ? std::string() : " (and " + im.ignored.front() + ", not read)");
    error->offset = 0;
    return nullptr;
  }
  return d;
}

}  // namespace ks
