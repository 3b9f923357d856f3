// The CLI's threaded read of a large plain file (import/split_file_read.h): with 2, 3 or 5
// threads it gives what one reader gives, on the shared traces (unzipped to a temporary file)
// and on the damaged inputs: the same report and diagnostics, or the same error.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "corpus/shared_traces.h"
#include "helpers.h"
#include "import/split_file_read.h"

namespace {

std::string outcome_of(ks::ChromeJsonImporter* importer, bool fed) {
  if (!fed || !importer->finish()) return "error: " + importer->error().to_line();
  const ks::Trace& t = importer->trace();
  return std::to_string(importer->events_read()) + " events\n" +
         ks_test::dump_diagnostics(t.diagnostics) + ks_test::report_of(t);
}

std::string one_reader(const std::string& json) {
  ks::ChromeJsonImporter importer;
  return outcome_of(&importer, importer.feed(json.data(), json.size()));
}

std::string split_reader(const std::string& path, uint64_t bytes, int threads) {
  ks::ChromeJsonImporter importer;
  bool io_error = false;
  const bool fed = ks::feed_file_split(path, bytes, threads, &importer, &io_error);
  CHECK_FALSE(io_error);
  return outcome_of(&importer, fed);
}

void check_file(const std::string& json, const std::string& tmp) {
  FILE* f = std::fopen(tmp.c_str(), "wb");
  REQUIRE(f);
  REQUIRE(std::fwrite(json.data(), 1, json.size(), f) == json.size());
  std::fclose(f);
  const std::string want = one_reader(json);
  for (int threads : {2, 3, 5}) {
    INFO(threads << " threads");
    CHECK(split_reader(tmp, json.size(), threads) == want);
  }
}

}  // namespace

TEST_CASE("split file read: N threads give what one reader gives", "[import][split]") {
  char name[] = "/tmp/ks_split_read_XXXXXX";
  const int fd = mkstemp(name);
  REQUIRE(fd >= 0);
  close(fd);
  const std::string tmp = name;
  int files = 0;
  for (const std::string& path : ks_test::shared_trace_files()) {
    std::string json;
    REQUIRE(ks_test::read_file_maybe_gzip(path, &json));
    if (json.size() > (size_t{40} << 20)) continue;  // the largest ones: covered by the smaller
    INFO(path);
    check_file(json, tmp);
    ++files;
  }
  for (const std::string& path : ks_test::damaged_inputs()) {
    std::string json;
    if (!ks_test::read_file_maybe_gzip(path, &json) || json.size() > (size_t{40} << 20)) continue;
    INFO(path);
    check_file(json, tmp);
    ++files;
  }
  std::remove(tmp.c_str());
  if (files == 0) WARN("SKIPPED: no traces to read");
  // A file that cannot be opened is an I/O error, not a crash.
  ks::ChromeJsonImporter importer;
  bool io_error = false;
  CHECK_FALSE(ks::feed_file_split(tmp + ".absent", 100, 2, &importer, &io_error));
  CHECK(io_error);
}
