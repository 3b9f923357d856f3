// The CLI's trace loading (src/cli/loaded_trace.h): a loaded file keeps its model and nothing of
// the reading. The importer's buffers (the framer's about 1.5 MB, even for a 4 KB file) stayed
// with each file, so 1,000 small rank files took 1.6 GB.
#include "cli/loaded_trace.h"

#include <malloc.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <vector>

namespace {

// Bytes the allocator has handed out and not had back.
size_t heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

}  // namespace

TEST_CASE("Loaded traces keep their models, not the importer's buffers", "[cli]") {
  const std::string path = "/tmp/ks_loaded_trace_test_" + std::to_string(getpid()) + ".json";
  {
    FILE* f = std::fopen(path.c_str(), "wb");
    REQUIRE(f);
    std::fputs(R"({"traceEvents":[
      {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
      {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":5,"args":{"stream":7}}
    ]})",
               f);
    std::fclose(f);
  }
  constexpr size_t kFiles = 50;
  std::vector<ks::cli::LoadedTrace> loaded(kFiles);
  const size_t before = heap_in_use();
  for (ks::cli::LoadedTrace& l : loaded) REQUIRE(ks::cli::load_trace(path, &l, 1));
  const size_t per_file = (heap_in_use() - before) / kFiles;
  std::remove(path.c_str());
  CHECK(loaded.back().trace().slices.size() == 2);
  INFO("heap kept per loaded file: " << per_file << " bytes");
  CHECK(per_file < 256 * 1024);
}

TEST_CASE("A file's error line shows its name as the terminal-safe text", "[cli]") {
  // A trace sent as "<U+202E>nosj.exe" (Trojan Source) or named with ESC colour codes: the
  // message said '?', the "kinetoscope: FILE:" before it printed the name as written.
  const std::string name = "runs/\x1b[31mred\xe2\x80\xaegpj.json";
  CHECK(ks::cli::file_error_line(name, "io_error at byte 0: cannot open") ==
        "kinetoscope: runs/?[31mred?gpj.json: io_error at byte 0: cannot open\n");
  CHECK(ks::cli::file_error_line("traces/rank0.json", "x") ==
        "kinetoscope: traces/rank0.json: x\n");
}
