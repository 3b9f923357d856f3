// A ByteSource that reads another in large aligned blocks and keeps the last few. SQLite asks for
// one page (4 KiB in nsys exports) at a time; in the page every read of the browser's File is a
// call out of WebAssembly into the worker's JS (a File slice, FileReaderSync), which costs far more
// than the bytes. With 1 MiB blocks a table scan makes one such call per 256 pages, and the
// B-tree's interior pages, read again and again, stay cached. Memory is bounded: max_blocks *
// block_bytes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "import/byte_source.h"

namespace ks {

class BlockCacheSource : public ByteSource {
 public:
  static constexpr size_t kDefaultBlockBytes = size_t{1} << 20;
  static constexpr size_t kDefaultMaxBlocks = 8;

  // `inner` must outlive this. block_bytes and max_blocks are at least 1.
  explicit BlockCacheSource(ByteSource* inner, size_t block_bytes = kDefaultBlockBytes,
                            size_t max_blocks = kDefaultMaxBlocks);

  uint64_t size() const override { return size_; }
  int64_t read_at(uint64_t offset, void* out, size_t n) override;

  // What the cache saved: reads asked of it, and reads it made of `inner` (and their bytes).
  uint64_t reads() const { return reads_; }
  uint64_t inner_reads() const { return inner_reads_; }
  uint64_t inner_bytes() const { return inner_bytes_; }

 private:
  struct Block {
    uint64_t index = 0;  // offset / block_bytes_
    size_t len = 0;      // valid bytes (less than block_bytes_ only for the last block)
    uint64_t used = 0;   // tick of the last use, for least-recently-used eviction
    std::unique_ptr<char[]> bytes;
  };
  // The cached block `index`, read from `inner` on a miss; nullptr on an I/O error.
  const Block* block(uint64_t index);

  ByteSource* inner_;
  uint64_t size_;
  size_t block_bytes_;
  size_t max_blocks_;
  std::vector<Block> blocks_;  // at most max_blocks_; few, so a linear search is fastest
  uint64_t tick_ = 0;
  uint64_t reads_ = 0;
  uint64_t inner_reads_ = 0;
  uint64_t inner_bytes_ = 0;
};

}  // namespace ks
