#include "util/pattern_set.h"

#include "util/text_match.h"

namespace ks {

namespace {

// The bytes that match a pattern's byte c: c, and its upper case where case is folded.
int spellings(char c, bool fold_case, unsigned char out[2]) {
  out[0] = static_cast<unsigned char>(c);
  if (!fold_case || c < 'a' || c > 'z') return 1;
  out[1] = static_cast<unsigned char>(c - 32);
  return 2;
}

size_t pair_index(unsigned char a, unsigned char b) {
  return (size_t{a} << 8) | b;
}

}  // namespace

PatternSet::PatternSet(std::initializer_list<TextPattern> patterns) : patterns_(patterns) {
  if (patterns_.size() > 64) patterns_.resize(64);
  for (size_t i = 0; i < patterns_.size(); ++i) {
    const TextPattern& p = patterns_[i];
    if (p.text.empty()) continue;
    unsigned char first[2], second[2];
    const int firsts = spellings(p.text[0], p.fold_case, first);
    for (int a = 0; a < firsts; ++a) {
      starting_with_[first[a]] |= uint64_t{1} << i;
      // A one-byte pattern begins with every pair its byte begins (and at the text's end, where
      // the pair is read with a 0 after it).
      const int seconds = p.text.size() > 1 ? spellings(p.text[1], p.fold_case, second) : 256;
      for (int b = 0; b < seconds; ++b) {
        const size_t at =
            pair_index(first[a], seconds == 256 ? static_cast<unsigned char>(b) : second[b]);
        pairs_[at >> 6] |= uint64_t{1} << (at & 63);
      }
    }
  }
}

bool PatternSet::occurs_at(std::string_view text, size_t at, const TextPattern& p) const {
  if (text.size() - at < p.text.size()) return false;
  for (size_t j = 1; j < p.text.size(); ++j) {
    const char c = text[at + j];
    if ((p.fold_case ? ascii_lower(c) : c) != p.text[j]) return false;
  }
  if (p.unless.empty()) return true;
  const size_t after = at + p.text.size();
  if (text.size() - after < p.unless.size()) return true;
  for (size_t j = 0; j < p.unless.size(); ++j)
    if (ascii_lower(text[after + j]) != p.unless[j]) return true;
  return false;
}

uint64_t PatternSet::find_all(std::string_view text) const {
  uint64_t found = 0;
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  for (size_t i = 0; i < text.size(); ++i) {
    const size_t pair = pair_index(bytes[i], i + 1 < text.size() ? bytes[i + 1] : 0);
    if (!((pairs_[pair >> 6] >> (pair & 63)) & 1)) continue;  // no pattern begins here
    // The patterns not found yet that start with this byte.
    uint64_t candidates = starting_with_[bytes[i]] & ~found;
    while (candidates) {
      const int p = __builtin_ctzll(candidates);
      candidates &= candidates - 1;
      if (occurs_at(text, i, patterns_[static_cast<size_t>(p)])) found |= uint64_t{1} << p;
    }
  }
  return found;
}

}  // namespace ks
