// The CLI's gzip reading (import/gzip_reader.h, through import_file): a multi-member file gives
// every member, bytes after the gzip data are ignored and said (zlib's gzread ignored them
// without a word, while the page refused the file), a cut-off file keeps what was decoded, damage
// is an error, on one thread and on two.
#include <unistd.h>
#include <zlib.h>
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "import/chrome_json/importer.h"
#include "import/file_reader.h"

namespace {

// One gzip member holding `text`.
std::string gzip_member(const std::string& text) {
  z_stream zs{};
  REQUIRE(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&zs, text.size()) + 32, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(&out[0]);
  zs.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&zs, Z_FINISH) == Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

struct Read {
  bool ok = false;
  std::string error, diagnostics;
  size_t events = 0;
};

Read read_gzip(const std::string& bytes, int threads) {
  char name[] = "/tmp/ks_gzip_reader_XXXXXX";
  const int fd = mkstemp(name);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
  close(fd);
  ks::ChromeJsonImporter importer;
  ks::ImportError error;
  Read r;
  r.ok = ks::import_file(name, &importer, &error, threads);
  std::remove(name);
  if (!r.ok) {
    r.error = error.to_line();
    return r;
  }
  r.events = importer.events_read();
  for (size_t d = 0; d < static_cast<size_t>(ks::Diag::kCount); ++d) {
    const auto& e = importer.trace().diagnostics.get(static_cast<ks::Diag>(d));
    if (e.count)
      r.diagnostics += std::string(ks::diag_info(static_cast<ks::Diag>(d)).code) + " at " +
                       std::to_string(e.first_offset) + ": " +
                       importer.trace().diagnostics.message(static_cast<ks::Diag>(d)) + "\n";
  }
  return r;
}

// Events [from, to) as a part of the event array.
std::string events(int from, int to) {
  std::string s;
  for (int i = from; i < to; ++i)
    s += (i > from ? "," : "") + std::string("{\"ph\":\"X\",\"name\":\"k\",\"ts\":") +
         std::to_string(i * 10) + ",\"dur\":5,\"pid\":1,\"tid\":1}";
  return s;
}

const std::string kHead = "{\"traceEvents\":[";
const std::string kTail = "]}";

}  // namespace

TEST_CASE("gzip read: bytes after the gzip data are ignored and counted", "[import][gzip]") {
  const std::string json = kHead + events(0, 3000) + kTail;
  const std::string gz = gzip_member(json);
  for (int threads : {1, 2}) {
    INFO(threads << " threads");
    for (const std::string& junk : {std::string(1, '\0'), std::string(4096, '\0'),
                                    std::string("log: training finished\n"), std::string("\x1f")}) {
      INFO(junk.size() << " bytes after");
      const Read r = read_gzip(gz + junk, threads);
      REQUIRE(r.ok);
      CHECK(r.events == 3000);
      CHECK(r.diagnostics ==
            "gzip_trailing_data at " + std::to_string(json.size()) +
                ": Bytes after the end of the gzip data (not another gzip member: padding, or text "
                "appended to the file) were ignored; the trace is what the gzip data holds. The "
                "gzip data ends at byte " +
                std::to_string(gz.size()) + " of the compressed file; the " +
                std::to_string(junk.size()) + " bytes after it were ignored.\n");
    }
    const Read whole = read_gzip(gz, threads);
    REQUIRE(whole.ok);
    CHECK(whole.diagnostics.empty());
  }
}

TEST_CASE("gzip read: every member of a multi-member file", "[import][gzip]") {
  // cat a.gz b.gz c.gz: the JSON split across three members, then junk after the last.
  const std::string a = kHead + events(0, 1000) + ",";
  const std::string b = events(1000, 2000) + ",";
  const std::string c = events(2000, 2500) + kTail;
  const std::string gz = gzip_member(a) + gzip_member(b) + gzip_member(c);
  for (int threads : {1, 2}) {
    INFO(threads << " threads");
    Read r = read_gzip(gz, threads);
    REQUIRE(r.ok);
    CHECK(r.events == 2500);
    CHECK(r.diagnostics.empty());
    r = read_gzip(gz + "JUNK", threads);
    REQUIRE(r.ok);
    CHECK(r.events == 2500);
    CHECK(r.diagnostics.find("ends at byte " + std::to_string(gz.size()) +
                             " of the compressed file; the 4 bytes") != std::string::npos);
  }
}

TEST_CASE("gzip read: a cut-off file keeps what was decoded, damage is an error",
          "[import][gzip]") {
  const std::string gz = gzip_member(kHead + events(0, 3000) + kTail);
  for (int threads : {1, 2}) {
    INFO(threads << " threads");
    const Read cut = read_gzip(gz.substr(0, gz.size() / 2), threads);
    REQUIRE(cut.ok);
    CHECK(cut.events > 0);
    CHECK(cut.diagnostics.find("gzip_truncated") != std::string::npos);
    CHECK(cut.diagnostics.find("gzip_trailing_data") == std::string::npos);
    std::string damaged = gz;
    damaged[damaged.size() - 6] ^= 0x55;  // the CRC
    const Read bad = read_gzip(damaged, threads);
    CHECK_FALSE(bad.ok);
    CHECK(bad.error.find("gzip_corrupt") != std::string::npos);
    CHECK(bad.error.find("incorrect data check") != std::string::npos);
    // Another member's magic bytes followed by garbage: damage, as zlib says.
    const Read bad_member = read_gzip(gz + "\x1f\x8bgarbage", threads);
    CHECK_FALSE(bad_member.ok);
    CHECK(bad_member.error.find("gzip_corrupt") != std::string::npos);
  }
}
