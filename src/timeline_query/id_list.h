// Lists of ids as the page and the CLI pass them: "[1,2,3]" or "1,2,3" (any non-digit separates).
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

namespace ks::timeline_query {

inline std::vector<uint64_t> parse_id_list(std::string_view text) {
  std::vector<uint64_t> out;
  uint64_t v = 0;
  bool in_number = false;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      v = v * 10 + static_cast<uint64_t>(c - '0');
      in_number = true;
    } else if (in_number) {
      out.push_back(v);
      v = 0;
      in_number = false;
    }
  }
  if (in_number) out.push_back(v);
  return out;
}

template <typename T>
std::vector<T> parse_ids_as(std::string_view text) {
  std::vector<T> out;
  for (uint64_t v : parse_id_list(text)) out.push_back(static_cast<T>(v));
  return out;
}

}  // namespace ks::timeline_query
