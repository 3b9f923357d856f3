#pragma once

// The character classes of the Itanium C++ ABI's mangling (<source-name> lengths, <seq-id>s in
// base 36, operator and builtin codes), shared by the demangler's shape scan and the printed
// length's parse. Not <cctype>: its answers follow the C locale, and a name is ASCII whatever it
// is.

namespace ks::nsys_sqlite {

inline bool digit(char c) {
  return c >= '0' && c <= '9';
}
inline bool upper(char c) {
  return c >= 'A' && c <= 'Z';
}
inline bool lower(char c) {
  return c >= 'a' && c <= 'z';
}

}  // namespace ks::nsys_sqlite
