// Random-access, read-only bytes: what the SQLite reader pulls pages from. Natively a file read
// with pread; in the page the browser's File, read slice by slice in the worker (wasm/), so a
// multi-GB export never has to sit in memory. JSON traces are streamed instead (importer.h).
#pragma once
#include <cstddef>
#include <cstdint>

namespace ks {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // The total size in bytes.
  virtual uint64_t size() const = 0;
  // Copies up to `n` bytes at `offset` into `out`. Returns the number copied (fewer only at the
  // end of the bytes), or -1 on an I/O error.
  virtual int64_t read_at(uint64_t offset, void* out, size_t n) = 0;
};

}  // namespace ks
