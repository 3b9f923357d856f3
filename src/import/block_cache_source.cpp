#include "import/block_cache_source.h"

#include <algorithm>
#include <cstring>

namespace ks {

BlockCacheSource::BlockCacheSource(ByteSource* inner, size_t block_bytes, size_t max_blocks)
    : inner_(inner),
      size_(inner->size()),
      block_bytes_(std::max<size_t>(block_bytes, 1)),
      max_blocks_(std::max<size_t>(max_blocks, 1)) {}

const BlockCacheSource::Block* BlockCacheSource::block(uint64_t index) {
  ++tick_;
  for (Block& b : blocks_) {
    if (b.index == index) {
      b.used = tick_;
      return &b;
    }
  }
  Block* slot;
  if (blocks_.size() < max_blocks_) {
    blocks_.emplace_back();
    slot = &blocks_.back();
    slot->bytes.reset(new char[block_bytes_]);
  } else {
    slot = &*std::min_element(blocks_.begin(), blocks_.end(),
                              [](const Block& a, const Block& b) { return a.used < b.used; });
  }
  const uint64_t start = index * block_bytes_;
  const size_t want = static_cast<size_t>(std::min<uint64_t>(block_bytes_, size_ - start));
  // The inner source may return fewer bytes than asked before its end (it need not, but a short
  // read must not be mistaken for the end of the file): read until the block is full.
  size_t got = 0;
  while (got < want) {
    ++inner_reads_;
    const int64_t n = inner_->read_at(start + got, slot->bytes.get() + got, want - got);
    if (n < 0) {
      slot->index = UINT64_MAX;  // the slot holds nothing usable now
      slot->used = 0;
      return nullptr;
    }
    if (n == 0) break;  // the source ended early (it shrank): what was read is the block
    got += static_cast<size_t>(n);
  }
  inner_bytes_ += got;
  slot->index = index;
  slot->len = got;
  slot->used = tick_;
  return slot;
}

int64_t BlockCacheSource::read_at(uint64_t offset, void* out, size_t n) {
  ++reads_;
  char* dst = static_cast<char*>(out);
  size_t copied = 0;
  while (copied < n && offset + copied < size_) {
    const uint64_t at = offset + copied;
    const Block* b = block(at / block_bytes_);
    if (!b) return -1;
    const size_t in_block = static_cast<size_t>(at % block_bytes_);
    if (in_block >= b->len) break;  // a short block: the end of what the source has
    const size_t take = std::min(n - copied, b->len - in_block);
    std::memcpy(dst + copied, b->bytes.get() + in_block, take);
    copied += take;
  }
  return static_cast<int64_t>(copied);
}

}  // namespace ks
