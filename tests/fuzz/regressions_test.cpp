// Replays every input the fuzzers ever crashed or hung on (tests/fuzz/regressions/, one small file
// each, named after what it found) through both fuzz entries (tests/fuzz/fuzz_entry.h): the import
// must finish, the reports must be written, and chunking must not change the result. Runs in
// `make test` and, with the sanitizers, in `make test-sanitize`.
#include <dirent.h>

#include <algorithm>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/fuzz_entry.h"
#include "helpers.h"
#include "source_dir.h"

namespace {

std::vector<std::string> regression_files() {
  std::vector<std::string> out;
  const std::string dir = ks_test::source_dir() + "/tests/fuzz/regressions";
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') out.push_back(dir + "/" + e->d_name);
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("every fuzzer regression input imports, reports and chunks the same", "[fuzz]") {
  const std::vector<std::string> files = regression_files();
  REQUIRE(files.size() >= 4);
  for (const std::string& path : files) {
    INFO(path);
    const std::string data = slurp(path);
    const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
    const std::clock_t t0 = std::clock();  // CPU time: a busy machine's waits do not count
    ks_fuzz::import_whole(bytes, data.size());
    ks_fuzz::import_chunked(bytes, data.size());
    // Each one also as plain input fed one byte at a time (the slowest chunking there is).
    std::string whole = ks_fuzz::import_and_report(bytes, data.size(), {}, false);
    CHECK(ks_fuzz::import_and_report(bytes, data.size(), {1}, false) == whole);
    const double secs = static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC;
    CHECK(secs < 20.0);  // the hangs it found were infinite; sanitizer builds are ~10x slower
  }
}

TEST_CASE("the stray-delimiter hang: a '}' or ':' where an event should start", "[fuzz]") {
  // Found by the import fuzzer in its first minute: both hung the CLI and the page forever.
  auto brace = ks_test::import_chunked(R"({"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":2}})");
  REQUIRE(brace.ok);
  CHECK(brace.trace->slices.size() == 1);
  CHECK(ks_test::diag_count(*brace.trace, ks::Diag::kMissingArrayClose) == 1);
  CHECK(ks_test::diag_offset(*brace.trace, ks::Diag::kMissingArrayClose) == 52);
  auto colon = ks_test::import_chunked(R"([{"ph":"X","name":"a","ts":1,"dur":2}:)");
  REQUIRE(colon.ok);
  CHECK(colon.trace->slices.size() == 1);
  CHECK(ks_test::diag_count(*colon.trace, ks::Diag::kNonObjectEvent) == 1);
}
