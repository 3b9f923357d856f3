// Access to the real traces in ../shared/traces (beside the repository) for corpus tests.
// When the folder is absent the tests say so with a visible WARN and pass nothing else.
#pragma once
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "import/file_reader.h"
#include "model/trace.h"
#include "source_dir.h"

namespace ks_test {

inline std::string shared_dir() {
  const char* env = std::getenv("KS_SHARED_DIR");
  return env ? std::string(env) : ks_test::source_dir() + "/../shared";
}

inline bool file_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

inline std::string shared_trace(const std::string& name) {
  return shared_dir() + "/traces/" + name;
}

// The files of a folder (names not starting with '.'), sorted.
inline std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name[0] != '.') out.push_back(dir + "/" + name);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The JSON traces of ../shared/traces (plain or gzip), sorted; none when it is absent.
inline std::vector<std::string> shared_trace_files() {
  std::vector<std::string> out;
  for (const std::string& f : files_in(ks_test::shared_dir() + "/traces"))
    if (f.find(".json") != std::string::npos && f.find("MANIFEST") == std::string::npos)
      out.push_back(f);
  return out;
}

// The bad-input catalogue (tests/bad_inputs/) and the fuzzers' regression inputs
// (tests/fuzz/regressions/): small damaged traces every import path must treat alike.
inline std::vector<std::string> damaged_inputs() {
  std::vector<std::string> out;
  for (const char* dir : {"/tests/bad_inputs", "/tests/fuzz/regressions"})
    for (const std::string& f : files_in(ks_test::source_dir() + dir))
      if (f.find(".py") == std::string::npos && f.find(".cpp") == std::string::npos &&
          f.find("catalogue.json") == std::string::npos)
        out.push_back(f);
  return out;
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
