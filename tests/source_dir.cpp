#include "source_dir.h"

namespace ks_test {
std::string source_dir() {
  return KS_SOURCE_DIR;
}
}  // namespace ks_test
