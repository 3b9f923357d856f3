// A ByteSource over the browser's File (or, in Node tests, a file descriptor): the worker registers
// a synchronous read function per file on the module, Module.ksFiles[fileId](offset, length) ->
// Uint8Array (or null on an error), and the C++ side calls it through EM_JS. (One per file: the
// Session of the trace on screen keeps its database open while the next file loads.) In the worker
// that function is FileReaderSync.readAsArrayBuffer(file.slice(a, b)); in Node, fs.readSync.
// Nothing else of the file is kept in WASM memory: SQLite pulls pages as it needs them, through a
// BlockCacheSource (src/import/block_cache_source.h) that turns its 4 KiB page reads into 1 MiB
// reads here.
#pragma once
#include <emscripten/emscripten.h>

#include <cstdint>

#include "import/byte_source.h"

// Copies up to `n` bytes at `offset` of file `id` to `out` (WASM memory). Returns the number
// copied, or -1 when no such file is registered or the read failed. Offsets are doubles: exact
// below 2^53 bytes. HEAPU8 is read after the call: a memory growth during it replaces the view.
// clang-format off
EM_JS(double, ks_js_read_at, (int id, double offset, void* out, double n), {
  var read = Module.ksFiles && Module.ksFiles[id];
  if (typeof read !== "function") return -1;
  var bytes;
  try {
    bytes = read(offset, n);
  } catch (e) {
    return -1;
  }
  if (!bytes) return -1;
  if (bytes.length > n) bytes = bytes.subarray(0, n);
  HEAPU8.set(bytes, out);
  return bytes.length;
});
// clang-format on

namespace ks_wasm {

class JsFileSource : public ks::ByteSource {
 public:
  JsFileSource(uint64_t size, int id) : size_(size), id_(id) {}
  uint64_t size() const override { return size_; }
  int64_t read_at(uint64_t offset, void* out, size_t n) override {
    if (offset >= size_ || n == 0) return 0;
    if (n > size_ - offset) n = static_cast<size_t>(size_ - offset);
    ++calls_;
    return static_cast<int64_t>(
        ks_js_read_at(id_, static_cast<double>(offset), out, static_cast<double>(n)));
  }
  uint64_t calls() const { return calls_; }

 private:
  uint64_t size_;
  int id_;
  uint64_t calls_ = 0;
};

}  // namespace ks_wasm
