// Strings stored once, handed out as 32-bit ids (Perfetto's StringPool idea). Id 0 is "".
// Names repeat enormously in traces (every launch is "cudaLaunchKernel"), so the model keeps ids.
#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

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
  // A copy rebuilds its views into its own strings.
  StringPool(const StringPool& other);
  StringPool& operator=(const StringPool& other);
  StringPool(StringPool&&) noexcept = default;  // a deque's elements stay where they are
  StringPool& operator=(StringPool&&) noexcept = default;

  StringId intern(std::string_view s);
  // Returns kMissing when the string was never interned.
  StringId find(std::string_view s) const;
  std::string_view get(StringId id) const { return views_[id]; }
  size_t size() const { return views_.size(); }
  size_t bytes() const { return bytes_; }
  static constexpr StringId kMissing = 0xffffffffu;

 private:
  // Where s is, or the empty slot where it would go (open addressing, linear probing).
  size_t slot_of(std::string_view s, uint32_t hash) const;
  void grow();

  std::deque<std::string> strings_;      // deque: the views stay valid as it grows
  std::vector<std::string_view> views_;  // by id: one load to reach the text
  std::vector<uint32_t> hashes_;         // by id: most probes that miss stop here
  // Interning runs for every name of every event, and a node-based hash map cost a pointer chase
  // per probe (11% of reading a trace in WebAssembly): a flat table of id + 1 (0: empty), at most
  // half full.
  std::vector<StringId> slots_;
  size_t bytes_ = 0;
};

}  // namespace ks
