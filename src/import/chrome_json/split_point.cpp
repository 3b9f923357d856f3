#include "import/chrome_json/split_point.h"

#include <cstring>

namespace ks {

namespace {
bool is_space(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}
size_t skip_space(const char* data, size_t len, size_t i) {
  while (i < len && is_space(data[i])) ++i;
  return i;
}
}  // namespace

size_t find_part_start(const char* data, size_t len) {
  const void* newline = std::memchr(data, '\n', len);
  // Without a line break (json.dumps writes one line) there is no known point outside strings:
  // look for the separator alone.
  const bool track_strings = newline != nullptr;
  size_t i = newline ? static_cast<size_t>(static_cast<const char*>(newline) - data) : 0;
  bool in_string = false;
  for (; i < len; ++i) {
    const char c = data[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"' && track_strings) {
      in_string = true;
    } else if (c == '}') {
      size_t j = skip_space(data, len, i + 1);
      if (j >= len || data[j] != ',') continue;
      j = skip_space(data, len, j + 1);
      if (j < len && data[j] == '{') return j;
    }
  }
  return std::string::npos;
}

}  // namespace ks
