// The one option parser of every command (report, diff, digest, math, stats, critical-path,
// aggregate): walks the arguments in order; the command says, per argument, which of its
// options it is and what to say when it is wrong (the messages stay the command's own).
//
//   ArgWalker w(args);
//   while (w.next()) {
//     if (w.flag({"-h", "--help"})) ...
//     else if (w.value({"--format", "-f"}, &format, "--format=")) {
//       if (w.missing()) return usage("--format needs a value");
//     } else if (w.unknown_option()) return usage("unknown option '" + w.arg() + "'");
//     else files.push_back(w.arg());
//   }
#pragma once
#include <initializer_list>
#include <string>
#include <vector>

namespace ks::cli {

class ArgWalker {
 public:
  explicit ArgWalker(const std::vector<std::string>& args, size_t first = 0)
      : args_(args), next_(first) {}
  bool next();  // moves to the next argument; false after the last
  const std::string& arg() const { return args_[at_]; }
  bool flag(std::initializer_list<const char*> names) const;  // the argument is one of `names`
  // Whether the argument is an option with a value: one of `names` with the value in the next
  // argument, or `attached` with it in the same one ("--format=md"; nullptr: no such spelling).
  // If so, the value goes to *out, or missing() says the name came last with nothing after it.
  bool value(std::initializer_list<const char*> names, std::string* out,
             const char* attached = nullptr);
  bool missing() const { return missing_; }
  bool unknown_option() const;  // "-x" or "--x": an option the command does not know

 private:
  const std::vector<std::string>& args_;
  size_t next_ = 0, at_ = 0;
  bool missing_ = false;
};

// A usage error of `command` ("math"; "" for the top level): "kinetoscope math: MSG" and where
// to read the usage, on stderr. Returns 2, the exit status of every usage error.
int usage_error(const std::string& command, const std::string& msg);

}  // namespace ks::cli
