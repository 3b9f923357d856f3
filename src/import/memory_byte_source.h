// Bytes already in memory as a ByteSource: tests, the fuzz target, and small inputs.
#pragma once
#include <algorithm>
#include <cstring>
#include <string_view>

#include "import/byte_source.h"

namespace ks {

class MemoryByteSource : public ByteSource {
 public:
  explicit MemoryByteSource(std::string_view bytes) : bytes_(bytes) {}
  uint64_t size() const override { return bytes_.size(); }
  int64_t read_at(uint64_t offset, void* out, size_t n) override {
    if (offset >= bytes_.size()) return 0;
    size_t k = std::min<size_t>(n, bytes_.size() - static_cast<size_t>(offset));
    std::memcpy(out, bytes_.data() + offset, k);
    return static_cast<int64_t>(k);
  }

 private:
  std::string_view bytes_;
};

}  // namespace ks
