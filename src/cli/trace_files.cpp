#include "cli/trace_files.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>

namespace ks::cli {

bool is_trace_name(const std::string& n) {
  auto ends = [&n](const char* suffix) {
    size_t l = std::strlen(suffix);
    return n.size() >= l && n.compare(n.size() - l, l, suffix) == 0;
  };
  return (ends(".json") || ends(".json.gz") || ends(".sqlite")) && !ends(".digest.json");
}

void expand_path(const std::string& path, std::vector<std::string>* out) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    out->push_back(path);
    return;
  }
  std::vector<std::string> names;
  if (DIR* d = opendir(path.c_str())) {
    while (dirent* e = readdir(d))
      if (is_trace_name(e->d_name)) names.push_back(e->d_name);
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  for (const std::string& n : names) out->push_back(path + "/" + n);
}

}  // namespace ks::cli
