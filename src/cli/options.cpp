#include "cli/options.h"

#include <cstdio>
#include <cstring>

namespace ks::cli {

bool ArgWalker::next() {
  if (next_ >= args_.size()) return false;
  at_ = next_++;
  missing_ = false;
  return true;
}

bool ArgWalker::flag(std::initializer_list<const char*> names) const {
  for (const char* name : names)
    if (arg() == name) return true;
  return false;
}

bool ArgWalker::value(std::initializer_list<const char*> names, std::string* out,
                      const char* attached) {
  if (flag(names)) {
    if (next_ >= args_.size())
      missing_ = true;
    else
      *out = args_[next_++];
    return true;
  }
  if (!attached || arg().rfind(attached, 0) != 0) return false;
  *out = arg().substr(std::strlen(attached));
  return true;
}

bool ArgWalker::unknown_option() const {
  return arg().size() > 1 && arg()[0] == '-';
}

int usage_error(const std::string& command, const std::string& msg) {
  const std::string name = command.empty() ? "kinetoscope" : "kinetoscope " + command;
  std::fprintf(stderr, "%s: %s\n(see %s --help)\n", name.c_str(), msg.c_str(), name.c_str());
  return 2;
}

}  // namespace ks::cli
