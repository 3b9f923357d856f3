#include "import/nsys_sqlite/nsys_vfs.h"

#include <sqlite3.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

namespace ks {

const char kNsysVfsName[] = "ks-bytesource";

namespace {

struct Registered {
  ByteSource* source;
  VfsReadTrace* trace;
};

// Sources by id. The CLI opens several exports on several threads, so the map is locked; in the
// WASM build (no threads) the mutex costs nothing.
std::mutex& sources_mutex() {
  static std::mutex m;
  return m;
}
std::map<uint64_t, Registered>& sources() {
  static std::map<uint64_t, Registered> m;
  return m;
}
uint64_t g_next_id = 1;

const char kPathPrefix[] = "/ks-bytesource/";

struct File {
  sqlite3_file base;  // first: SQLite casts sqlite3_file* to File*
  ByteSource* source;
  VfsReadTrace* trace;
};

int x_close(sqlite3_file*) {
  return SQLITE_OK;
}

int x_read(sqlite3_file* f, void* out, int amount, sqlite3_int64 offset) {
  File* file = reinterpret_cast<File*>(f);
  if (amount < 0 || offset < 0) return SQLITE_IOERR_READ;
  file->trace->last_offset = static_cast<uint64_t>(offset);
  file->trace->last_size = static_cast<uint64_t>(amount);
  int64_t got =
      file->source->read_at(static_cast<uint64_t>(offset), out, static_cast<size_t>(amount));
  if (got < 0) {
    file->trace->io_error = true;
    return SQLITE_IOERR_READ;
  }
  if (got < amount) {
    // SQLite requires the rest zero-filled on a short read (it may use the buffer).
    std::memset(static_cast<char*>(out) + got, 0, static_cast<size_t>(amount - got));
    file->trace->short_read = true;
    return SQLITE_IOERR_SHORT_READ;
  }
  return SQLITE_OK;
}

int x_write(sqlite3_file*, const void*, int, sqlite3_int64) {
  return SQLITE_READONLY;
}
int x_truncate(sqlite3_file*, sqlite3_int64) {
  return SQLITE_READONLY;
}
int x_sync(sqlite3_file*, int) {
  return SQLITE_OK;
}
int x_file_size(sqlite3_file* f, sqlite3_int64* size) {
  File* file = reinterpret_cast<File*>(f);
  uint64_t n = file->source->size();
  *size = n > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<sqlite3_int64>(n);
  return SQLITE_OK;
}
int x_lock(sqlite3_file*, int) {
  return SQLITE_OK;
}
int x_unlock(sqlite3_file*, int) {
  return SQLITE_OK;
}
int x_check_reserved_lock(sqlite3_file*, int* out) {
  *out = 0;
  return SQLITE_OK;
}
int x_file_control(sqlite3_file*, int, void*) {
  return SQLITE_NOTFOUND;
}
int x_sector_size(sqlite3_file*) {
  return 4096;
}
int x_device_characteristics(sqlite3_file*) {
  return SQLITE_IOCAP_IMMUTABLE;
}

const sqlite3_io_methods kIoMethods = {1,  // iVersion: no shared memory (no WAL), no mmap
                                       x_close,
                                       x_read,
                                       x_write,
                                       x_truncate,
                                       x_sync,
                                       x_file_size,
                                       x_lock,
                                       x_unlock,
                                       x_check_reserved_lock,
                                       x_file_control,
                                       x_sector_size,
                                       x_device_characteristics,
                                       nullptr,
                                       nullptr,
                                       nullptr,
                                       nullptr,
                                       nullptr,
                                       nullptr};

// Only the main database of a registered source opens: journals, WAL and temporary files (SQLite
// asks for them by name, or with a null name) are refused, so nothing is ever written.
int x_open(sqlite3_vfs*, const char* name, sqlite3_file* f, int flags, int* out_flags) {
  f->pMethods = nullptr;
  if (!name || !(flags & SQLITE_OPEN_MAIN_DB)) return SQLITE_CANTOPEN;
  if (std::strncmp(name, kPathPrefix, sizeof(kPathPrefix) - 1) != 0) return SQLITE_CANTOPEN;
  char* end = nullptr;
  uint64_t id = std::strtoull(name + sizeof(kPathPrefix) - 1, &end, 10);
  if (!end || *end) return SQLITE_CANTOPEN;
  Registered r;
  {
    std::lock_guard<std::mutex> lock(sources_mutex());
    auto it = sources().find(id);
    if (it == sources().end()) return SQLITE_CANTOPEN;
    r = it->second;
  }
  File* file = reinterpret_cast<File*>(f);
  file->source = r.source;
  file->trace = r.trace;
  f->pMethods = &kIoMethods;
  if (out_flags) *out_flags = SQLITE_OPEN_READONLY;
  return SQLITE_OK;
}

int x_delete(sqlite3_vfs*, const char*, int) {
  return SQLITE_IOERR_DELETE;
}
int x_access(sqlite3_vfs*, const char*, int, int* out) {
  *out = 0;  // no journal, no WAL: nothing but the main database exists
  return SQLITE_OK;
}
int x_full_pathname(sqlite3_vfs*, const char* name, int n, char* out) {
  size_t len = std::strlen(name);
  if (static_cast<int>(len) >= n) return SQLITE_CANTOPEN;
  std::memcpy(out, name, len + 1);
  return SQLITE_OK;
}
void* x_dl_open(sqlite3_vfs*, const char*) {
  return nullptr;  // extensions never load
}
void x_dl_error(sqlite3_vfs*, int n, char* out) {
  if (n > 0) out[0] = 0;
}
void (*x_dl_sym(sqlite3_vfs*, void*, const char*))(void) {
  return nullptr;
}
void x_dl_close(sqlite3_vfs*, void*) {}
// Randomness only seeds temporary names and the PRNG of random(): neither matters to a reader,
// and a fixed value keeps the VFS free of any platform source.
int x_randomness(sqlite3_vfs*, int n, char* out) {
  std::memset(out, 0, static_cast<size_t>(n));
  return n;
}
int x_sleep(sqlite3_vfs*, int) {
  return 0;
}
// A fixed clock (1970-01-01): only date('now') would see it, and no query here asks.
int x_current_time(sqlite3_vfs*, double* out) {
  *out = 2440587.5;
  return SQLITE_OK;
}
int x_get_last_error(sqlite3_vfs*, int, char*) {
  return 0;
}

sqlite3_vfs g_vfs = {1,             // iVersion
                     sizeof(File),  // szOsFile
                     512,           // mxPathname
                     nullptr,       // pNext
                     kNsysVfsName,  // zName
                     nullptr,       // pAppData
                     x_open,
                     x_delete,
                     x_access,
                     x_full_pathname,
                     x_dl_open,
                     x_dl_error,
                     x_dl_sym,
                     x_dl_close,
                     x_randomness,
                     x_sleep,
                     x_current_time,
                     x_get_last_error,
                     nullptr,
                     nullptr,
                     nullptr,
                     nullptr};

}  // namespace

sqlite3_vfs* nsys_vfs() {
  return &g_vfs;
}

int register_nsys_vfs() {
  static int rc = [] {
    int init = sqlite3_initialize();
    if (init != SQLITE_OK) return init;
    return sqlite3_vfs_register(&g_vfs, 0);
  }();
  return rc;
}

std::string register_nsys_source(ByteSource* source, VfsReadTrace* trace) {
  std::lock_guard<std::mutex> lock(sources_mutex());
  uint64_t id = g_next_id++;
  sources()[id] = Registered{source, trace};
  return "file:" + std::string(kPathPrefix) + std::to_string(id) + "?immutable=1";
}

void unregister_nsys_source(const std::string& uri) {
  size_t at = uri.find(kPathPrefix);
  if (at == std::string::npos) return;
  uint64_t id = std::strtoull(uri.c_str() + at + sizeof(kPathPrefix) - 1, nullptr, 10);
  std::lock_guard<std::mutex> lock(sources_mutex());
  sources().erase(id);
}

}  // namespace ks
