// Access to the real traces in ../shared/traces (beside the repository) for corpus tests.
// When the folder is absent the tests say so with a visible WARN and pass nothing else.
#pragma once
#include <sys/stat.h>

#include <memory>
#include <string>

#include "import/file_reader.h"
#include "model/trace.h"

namespace ks_test {

inline std::string shared_dir() {
  const char* env = std::getenv("KS_SHARED_DIR");
  return env ? std::string(env) : std::string(KS_SOURCE_DIR) + "/../shared";
}

inline bool file_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

inline std::string shared_trace(const std::string& name) {
  return shared_dir() + "/traces/" + name;
}

struct Loaded {
  std::unique_ptr<ks::Trace> trace;
  ks::ImportError error;
  bool ok = false;
};

inline Loaded load_file(const std::string& path) {
  Loaded l;
  ks::ChromeJsonImporter importer;
  l.ok = ks::import_file(path, &importer, &l.error);
  if (l.ok) l.trace = importer.take();
  return l;
}

}  // namespace ks_test
