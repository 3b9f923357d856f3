// Which of up to 64 substrings a text holds, found in one pass over the text. Kernel names are
// classified by ~40 patterns (analysis/kernel_class.cpp): a search per pattern read a name ~40
// times per question, and several analyses ask, so a file of 1,000 distinct 64 KiB names cost
// ~60 ns per byte of name (about 4 s). Here each pair of bytes is looked up once in a table of
// the pairs that begin a pattern (most begin none), and only there are the patterns that start
// with the first byte compared: a few ns per byte for all the patterns, whatever the text.
#pragma once
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <vector>

namespace ks {

struct TextPattern {
  std::string_view text;      // in lower case when fold_case
  bool fold_case = false;     // ASCII letters match either case
  std::string_view unless{};  // an occurrence followed by this (case folded) does not count
};

class PatternSet {
 public:
  // At most 64 patterns, none empty; bit i of find_all() is patterns[i].
  explicit PatternSet(std::initializer_list<TextPattern> patterns);
  // The patterns `text` holds, one bit each.
  uint64_t find_all(std::string_view text) const;

 private:
  bool occurs_at(std::string_view text, size_t at, const TextPattern& p) const;

  std::vector<TextPattern> patterns_;
  std::array<uint64_t, 256> starting_with_{};  // per byte: the patterns that start with it
  std::array<uint64_t, 1024> pairs_{};  // a bit per pair of bytes: whether a pattern begins so
};

}  // namespace ks
