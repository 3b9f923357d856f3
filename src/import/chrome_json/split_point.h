// Where a second importer may start reading a file's event array (importer.h, start_part): the
// page reads large plain-JSON files with two workers (docs/performance.md).
#pragma once
#include <cstddef>
#include <string>

namespace ks {

// The first '{' in `data` that follows a '}' and a ',' (whitespace between), outside strings as
// far as can be told; std::string::npos when there is none. JSON strings cannot hold a raw
// newline, so scanning starts after the first one, which is outside any string in valid JSON; in
// bytes without one (a one-line file) strings cannot be told apart and the separator alone is
// looked for. It is only a guess: the importer that reads up to it checks that it is an element
// boundary (at_part_boundary) before the part is used.
size_t find_part_start(const char* data, size_t len);

}  // namespace ks
