// A read-only SQLite VFS over a ByteSource: xRead and xFileSize come from the ByteSource; writes,
// journals and temporary files are refused; locks are no-ops (the file is opened `immutable`).
// Nothing native here (no pread, no clock, no dlopen): the same code serves the WASM build, where
// SQLite is compiled with SQLITE_OS_OTHER=1 and the bytes come from the browser's File.
#pragma once
#include <cstdint>
#include <string>

#include "import/byte_source.h"

struct sqlite3_vfs;

namespace ks {

// The VFS's name, registered once (not as the default VFS).
extern const char kNsysVfsName[];

// Registers the VFS with SQLite if it is not yet registered. Returns SQLite's result code.
int register_nsys_vfs();

// The VFS itself, for a build whose SQLite has no OS layer (SQLITE_OS_OTHER: the WASM build's
// sqlite3_os_init, wasm/sqlite_os.cpp, registers it as the default there).
sqlite3_vfs* nsys_vfs();

// Where the last page read came from, for "damaged at byte N" messages; one per open file.
struct VfsReadTrace {
  uint64_t last_offset = 0;
  uint64_t last_size = 0;
  bool short_read = false;  // a read ran past the end of the bytes (a file cut off)
  bool io_error = false;    // the ByteSource failed
};

// The URI that opens `source` through the VFS ("file:/ks-bytesource/<id>?immutable=1"): the
// source and its read trace are registered under a fresh id until unregister_nsys_source().
std::string register_nsys_source(ByteSource* source, VfsReadTrace* trace);
void unregister_nsys_source(const std::string& uri);

}  // namespace ks
