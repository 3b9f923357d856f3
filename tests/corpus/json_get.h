// Reading reference JSON in tests with simdjson's error-code API (the build has no exceptions).
// A missing or mistyped field yields the fallback, and the test that needs it then fails.
#pragma once
#include <simdjson.h>

#include <string>

namespace ks_test {

using simdjson::dom::element;

inline element at(element e, const char* key) {
  element out;
  if (e[key].get(out)) return element();
  return out;
}
inline std::string str(element e, const char* key) {
  std::string_view v;
  return e[key].get(v) ? std::string() : std::string(v);
}
inline uint64_t u64(element e, const char* key, uint64_t fallback = 0) {
  uint64_t v;
  return e[key].get(v) ? fallback : v;
}
inline double dbl(element e, const char* key, double fallback = 0) {
  double v;
  return e[key].get(v) ? fallback : v;
}
inline bool boolean(element e, const char* key) {
  bool v;
  return e[key].get(v) ? false : v;
}
inline bool array(element e, const char* key, simdjson::dom::array* out) {
  return !e[key].get(*out);
}
inline bool object(element e, const char* key, simdjson::dom::object* out) {
  return !e[key].get(*out);
}

}  // namespace ks_test
