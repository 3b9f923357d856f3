// Strings stored once, handed out as 32-bit ids (Perfetto's StringPool idea). Id 0 is "".
// Names repeat enormously in traces (every launch is "cudaLaunchKernel"), so the model keeps ids.
#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace ks {

using StringId = uint32_t;

// Hashing and comparing names a word at a time. Interning hashes and compares every name of every
// event (kernel names run to hundreds of bytes); in WebAssembly the standard library does both a
// byte at a time (memcmp is a plain C loop there), which showed as 14% of reading a trace.
struct TextHash {
  size_t operator()(std::string_view s) const noexcept;
};
struct TextEq {
  bool operator()(std::string_view a, std::string_view b) const noexcept;
};

class StringPool {
 public:
  StringPool();
  StringId intern(std::string_view s);
  // Returns kMissing when the string was never interned.
  StringId find(std::string_view s) const;
  std::string_view get(StringId id) const { return strings_[id]; }
  size_t size() const { return strings_.size(); }
  size_t bytes() const { return bytes_; }
  static constexpr StringId kMissing = 0xffffffffu;

 private:
  std::deque<std::string> strings_;  // deque: references stay valid as it grows
  std::unordered_map<std::string_view, StringId, TextHash, TextEq> index_;
  size_t bytes_ = 0;
};

}  // namespace ks
