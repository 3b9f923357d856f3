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

// string_view::find calls memchr for its first byte at every candidate: a name that is that byte
// 64 Ki times over (a hostile file's) made a call per byte and pattern. An inline loop instead.
inline bool contains(std::string_view s, std::string_view p) {
  if (p.size() > s.size()) return false;
  if (p.empty()) return true;
  const size_t last = s.size() - p.size();
  for (size_t i = 0; i <= last; ++i) {
    if (s[i] != p[0]) continue;
    size_t j = 1;
    while (j < p.size() && s[i + j] == p[j]) ++j;
    if (j == p.size()) return true;
  }
  return false;
}

inline char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
}

// Case-insensitive (ASCII) equality: SQLite's table and column names, nsys' metric names.
inline bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  return true;
}

// Case-insensitive (ASCII) substring test; `lower` is in lower case (kernel names mix cases
// freely). An inline byte loop: std::tolower, a libc call per byte and per pattern, made the ~40
// patterns of kernel_class() cost 230 ns per byte of name (a file of 1,000 distinct 64 KiB names:
// 15 s).
inline bool icontains(std::string_view s, std::string_view lower) {
  if (lower.size() > s.size()) return false;
  if (lower.empty()) return true;
  const size_t last = s.size() - lower.size();
  const char first = lower[0];
  for (size_t i = 0; i <= last; ++i) {
    if (ascii_lower(s[i]) != first) continue;
    size_t j = 1;
    while (j < lower.size() && ascii_lower(s[i + j]) == lower[j]) ++j;
    if (j == lower.size()) return true;
  }
  return false;
}

}  // namespace ks
