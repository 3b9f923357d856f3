// The last component of a '/'-separated path: a trace's file name for reports, a shared
// object's name in a call chain. One definition for the CLI and the nsys reader (which reads
// module paths the profiled machine wrote, in the page too).
#pragma once
#include <string_view>

namespace ks {

inline std::string_view path_base_name(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace ks
