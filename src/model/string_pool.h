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
  std::unordered_map<std::string_view, StringId> index_;
  size_t bytes_ = 0;
};

}  // namespace ks
