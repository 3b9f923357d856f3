// SQLite's OS layer in the WebAssembly build. SQLite is compiled with SQLITE_OS_OTHER=1 (no unix or
// windows layer: there is no file system in the page), so the application provides
// sqlite3_os_init(), which SQLite calls once from sqlite3_initialize(): it registers the core's
// read-only VFS (src/import/nsys_sqlite/, platform-free: every read goes to a ByteSource) as the
// default, so any open in this module reads through it and nothing else.
#include <sqlite3.h>

namespace ks {
sqlite3_vfs* temp_vfs();
}

extern "C" int sqlite3_os_init(void) { return sqlite3_vfs_register(ks::temp_vfs(), 1); }
extern "C" int sqlite3_os_end(void) { return SQLITE_OK; }
