// Prefix, suffix and substring tests on string_view: C++20 has the first two as members, this
// project is C++17. One definition for the name rules that match on them.
#pragma once
#include <string_view>

namespace ks {

inline bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

inline bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

inline bool contains(std::string_view s, std::string_view p) {
  return s.find(p) != std::string_view::npos;
}

}  // namespace ks
