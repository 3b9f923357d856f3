// Native only (the page has its own ByteSource over the browser's File, in wasm/): a file read
// with pread at any offset, so SQLite pulls only the pages a query needs and a multi-GB export
// never sits in memory.
#pragma once
#include <memory>
#include <string>

#include "import/byte_source.h"
#include "import/import_error.h"

namespace ks {

class FileByteSource : public ByteSource {
 public:
  // nullptr and *error (io_error) when the file cannot be opened or is not a regular file.
  static std::unique_ptr<FileByteSource> open(const std::string& path, ImportError* error);
  ~FileByteSource() override;
  uint64_t size() const override { return size_; }
  int64_t read_at(uint64_t offset, void* out, size_t n) override;

 private:
  FileByteSource(int fd, uint64_t size) : fd_(fd), size_(size) {}
  int fd_;
  uint64_t size_;
};

// Reads the first `n` bytes of a file (fewer when it is shorter): how the CLI tells a SQLite
// export from a JSON trace by its header, not by its name. -1 when it cannot be read.
int64_t read_file_head(const std::string& path, char* out, size_t n);

}  // namespace ks
