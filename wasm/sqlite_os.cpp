// SQLite's OS layer in the WebAssembly build. SQLite is compiled with SQLITE_OS_OTHER=1 (no unix or
// windows layer: there is no file system in the page), so the application provides
// sqlite3_os_init(), which SQLite calls once from sqlite3_initialize(): it registers the core's
// read-only VFS (src/import/nsys_sqlite/nsys_vfs.h, platform-free: every read goes to a
// ByteSource, here the browser's File through wasm/file_source.h) as the default and only VFS, so
// nothing in this module can open anything else. (register_nsys_vfs() registering it again later,
// not as the default, keeps it the default: it is the only one.)
#include <sqlite3.h>

#include "import/nsys_sqlite/nsys_vfs.h"

extern "C" int sqlite3_os_init(void) {
  return sqlite3_vfs_register(ks::nsys_vfs(), 1);
}
extern "C" int sqlite3_os_end(void) {
  return SQLITE_OK;
}
