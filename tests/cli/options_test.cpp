// The CLI's one option parser (src/cli/options.h): names with the value in the next argument,
// attached values ("--format=md"), a name that came last without its value, switches, unknown
// options and the rest (files) in the order given.
#include <catch2/catch.hpp>

#include "cli/options.h"

namespace {

struct Parsed {
  std::string format = "text", output, error;
  bool drop = false;
  std::vector<std::string> files;
};

// As a command's loop: the messages are the command's own.
Parsed parse(const std::vector<std::string>& args, size_t first = 0) {
  Parsed p;
  ks::cli::ArgWalker w(args, first);
  while (w.next()) {
    const std::string& a = w.arg();
    if (w.value({"--format", "-f"}, &p.format, "--format=")) {
      if (w.missing()) p.error = a + " needs a value";
    } else if (w.value({"-o", "--output"}, &p.output)) {
      if (w.missing()) p.error = a + " needs a file name";
    } else if (w.flag({"--drop-last-step"})) {
      p.drop = true;
    } else if (w.unknown_option()) {
      p.error = "unknown option '" + a + "'";
    } else {
      p.files.push_back(a);
    }
    if (!p.error.empty()) break;
  }
  return p;
}

}  // namespace

TEST_CASE("CLI options: values next or attached, switches and files in order", "[cli]") {
  Parsed p = parse({"report", "a.json", "-f", "md", "--drop-last-step", "-o", "-", "b.json"}, 1);
  CHECK(p.error.empty());
  CHECK(p.format == "md");
  CHECK(p.output == "-");  // a value may start with '-': it is the option's, not an option
  CHECK(p.drop);
  CHECK(p.files == std::vector<std::string>{"a.json", "b.json"});
  CHECK(parse({"--format=json"}).format == "json");
  CHECK(parse({"--format="}).format.empty());  // attached and empty: the command says why
  CHECK(parse({"-"}).files == std::vector<std::string>{"-"});  // "-" alone is not an option
}

TEST_CASE("CLI options: a name without its value, an unknown option", "[cli]") {
  CHECK(parse({"a.json", "-o"}).error == "-o needs a file name");
  CHECK(parse({"--format"}).error == "--format needs a value");
  CHECK(parse({"--formats", "md"}).error == "unknown option '--formats'");
  CHECK(parse({"-x"}).error == "unknown option '-x'");
}
