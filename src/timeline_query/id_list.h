// Lists of ids as the page and the CLI pass them: "[1,2,3]" or "1,2,3" (any non-digit separates).
#pragma once
#include <cstdint>
#include <limits>
#include <string>
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

// A list a person typed (the CLI's --tracks): ids in decimal, separated by commas (spaces and
// brackets around them allowed), each at most T's largest. False, with *error naming the first
// bad item, for anything else: parse_id_list reads "-1" as 1, "1x" as 1 and wraps 4294967296 to
// track 0, which aggregated other tracks than the ones asked for, silently.
template <typename T>
bool parse_typed_ids(std::string_view text, std::vector<T>* out, std::string* error) {
  constexpr uint64_t kMax = std::numeric_limits<T>::max();
  auto trim = [](std::string_view v) {
    while (!v.empty() && (v.front() == ' ' || v.front() == '[')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == ']')) v.remove_suffix(1);
    return v;
  };
  out->clear();
  std::string_view rest = trim(text);
  while (true) {
    const size_t comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    if (item.empty() || item.find_first_not_of("0123456789") != std::string_view::npos) {
      *error = "not an id: '" + std::string(item.substr(0, 40)) + "' (ids are numbers >= 0)";
      return false;
    }
    uint64_t v = 0;
    for (char c : item) {
      const uint64_t d = static_cast<uint64_t>(c - '0');
      if (v > (kMax - d) / 10) {
        *error = "id out of range: " + std::string(item.substr(0, 40)) + " (at most " +
                 std::to_string(kMax) + ")";
        return false;
      }
      v = v * 10 + d;
    }
    out->push_back(static_cast<T>(v));
    if (comma == std::string_view::npos) return true;
    rest = rest.substr(comma + 1);
  }
}

}  // namespace ks::timeline_query
