// The byte scanning layer (src/import/chrome_json/byte_scan.h): the SIMD functions (SSE2 here,
// WebAssembly SIMD128 in the page) must return exactly what the scalar fallback returns, and both
// what a plain byte loop returns, on random and hostile bytes, at every start and end of a
// buffer (the vector step's tail), with the readable padding after the end holding specials that
// must not be taken for a hit before the end. The whole import with strings crossing chunk
// boundaries is covered below and by chrome_json_chunking_test.
#include "import/chrome_json/byte_scan.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "helpers.h"

namespace {

namespace bs = ks::byte_scan;

bool is_special(unsigned char c) {
  return c == '"' || c == '\\' || c < 0x20 || c >= 0x80;
}
bool is_structural(char c) {
  return c == '"' || c == '{' || c == '}' || c == '[' || c == ']';
}
bool is_space(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// Random bytes, most of them plain text, some of each kind the scanners look for (and their
// neighbours: '[' | 0x20 is '{', 0x1F/0x20, 0x7F/0x80, 0xFF).
std::vector<char> random_bytes(std::mt19937* rng, size_t n, int special_per_mille) {
  static const char kHostile[] = {'"',    '\\',   '{',  '}',    '[',    ']',    ' ',
                                  '\n',   '\r',   '\t', '\x00', '\x1f', '\x20', '\x7f',
                                  '\x80', '\xff', ';',  '=',    '{'};
  std::uniform_int_distribution<int> pm(0, 999), text('a', 'z'), hostile(0, sizeof(kHostile) - 1),
      any(0, 255);
  std::vector<char> v(n + bs::kScanOverread);
  for (size_t i = 0; i < v.size(); ++i) {
    const int r = pm(*rng);
    if (r < special_per_mille)
      v[i] = kHostile[hostile(*rng)];
    else if (r < special_per_mille + 20)
      v[i] = static_cast<char>(any(*rng));
    else
      v[i] = static_cast<char>(text(*rng));
  }
  return v;
}

// find_string_special may answer at or past `end` when nothing is before it: all such answers
// mean the same.
const char* clamp(const char* p, const char* end) {
  return p > end ? end : p;
}

void check_all(const std::vector<char>& buf, size_t n) {
  const char* b = buf.data();
  for (size_t from = 0; from <= n; ++from) {
    for (size_t to = from; to <= n; to += (to - from < 40 ? 1 : 7)) {
      const char* p = b + from;
      const char* end = b + to;
      INFO("from " << from << " to " << to << " of " << n);
      const char* want_qb = std::find_if(p, end, [](char c) { return c == '"' || c == '\\'; });
      const char* want_sp =
          std::find_if(p, end, [](char c) { return is_special(static_cast<unsigned char>(c)); });
      const char* want_st = std::find_if(p, end, is_structural);
      const char* want_ws = std::find_if(p, end, [](char c) { return !is_space(c); });
      REQUIRE(bs::scalar::find_quote_or_backslash(p, end) == want_qb);
      REQUIRE(clamp(bs::scalar::find_string_special(p, end), end) == want_sp);
      REQUIRE(bs::scalar::find_structural(p, end) == want_st);
      REQUIRE(bs::scalar::skip_space(p, end) == want_ws);
#ifdef KS_SCAN_HAS_SIMD
      REQUIRE(bs::simd::find_quote_or_backslash(p, end) == want_qb);
      REQUIRE(clamp(bs::simd::find_string_special(p, end), end) == want_sp);
      REQUIRE(bs::simd::find_structural(p, end) == want_st);
      REQUIRE(bs::simd::skip_space(p, end) == want_ws);
#endif
    }
  }
}

}  // namespace

TEST_CASE("byte scan: the SIMD build is the one the importer uses", "[byte_scan]") {
#if defined(__x86_64__) && !defined(KS_SCALAR_SCAN)
  // x86-64 always has SSE2: a native build that fell back to scalar would be a build mistake.
  CHECK(bs::kSimd);
#endif
#ifdef KS_SCALAR_SCAN
  CHECK_FALSE(bs::kSimd);
#endif
  SUCCEED();
}

TEST_CASE("byte scan: scalar and SIMD agree with a byte loop on random and hostile bytes",
          "[byte_scan]") {
  std::mt19937 rng(20261201);
  for (int density : {0, 2, 30, 300, 900}) {
    for (size_t n : {0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 63, 64, 65, 100, 257}) {
      INFO("density " << density << " length " << n);
      check_all(random_bytes(&rng, n, density), n);
    }
  }
}

TEST_CASE("byte scan: a hit in the padding after the end is not before the end", "[byte_scan]") {
  for (size_t n = 0; n <= 40; ++n) {
    std::vector<char> buf(n + bs::kScanOverread, 'x');
    std::fill(buf.begin() + static_cast<std::ptrdiff_t>(n), buf.end(), '"');
    const char* end = buf.data() + n;
    CHECK(bs::find_quote_or_backslash(buf.data(), end) == end);
    CHECK(clamp(bs::find_string_special(buf.data(), end), end) == end);
    CHECK(bs::find_structural(buf.data(), end) == end);
    std::vector<char> spaces(n + bs::kScanOverread, ' ');
    CHECK(bs::skip_space(spaces.data(), spaces.data() + n) == spaces.data() + n);
  }
}

TEST_CASE("byte scan: every byte value at every lane of a vector step", "[byte_scan]") {
  for (int v = 0; v < 256; ++v) {
    for (size_t lane = 0; lane < 40; ++lane) {
      std::vector<char> buf(40 + bs::kScanOverread, 'a');
      buf[lane] = static_cast<char>(v);
      const char* b = buf.data();
      const char* end = b + 40;
      const char c = static_cast<char>(v);
      INFO("byte " << v << " at " << lane);
      CHECK(bs::find_quote_or_backslash(b, end) == (c == '"' || c == '\\' ? b + lane : end));
      CHECK(clamp(bs::find_string_special(b, end), end) ==
            (is_special(static_cast<unsigned char>(v)) ? b + lane : end));
      CHECK(bs::find_structural(b, end) == (is_structural(c) ? b + lane : end));
      std::vector<char> sp(40 + bs::kScanOverread, ' ');
      sp[lane] = c;
      CHECK(bs::skip_space(sp.data(), sp.data() + 40) ==
            (is_space(c) ? sp.data() + 40 : sp.data() + lane));
    }
  }
}

TEST_CASE("byte scan: digit runs", "[byte_scan]") {
  const char* cases[] = {"12345678", "1234567x", "0", "9.5", "x", "00000000123", "12\xff", ":"};
  for (const char* c : cases) {
    char buf[16] = {};
    std::memcpy(buf, c, std::strlen(c));
    int want = 0;
    while (want < 8 && buf[want] >= '0' && buf[want] <= '9') ++want;
    CHECK(bs::leading_digits8(buf) == want);
    if (want > 0) {
      uint64_t v = 0;
      for (int i = 0; i < want; ++i) v = v * 10 + static_cast<uint64_t>(buf[i] - '0');
      CHECK(bs::digits_value8(buf, want) == v);
    }
  }
}

// Long strings (Python call stacks of a with_stack=True trace) with escapes and brackets at
// every distance from a 16-byte step and from a chunk boundary: the model is the same however
// the bytes arrive, through the fast reader (plain strings) and the framer (escaped ones).
TEST_CASE("byte scan: long strings with escapes across chunk boundaries import the same",
          "[byte_scan][chunking]") {
  std::string stack;
  for (int i = 0; i < 12; ++i)
    stack += "/usr/lib/python3/site-packages/torch/nn/modules/module.py(1501): _call_impl;";
  std::string json = R"({"traceEvents":[)";
  for (int k = 0; k < 40; ++k) {
    std::string s = stack.substr(0, 300 + static_cast<size_t>(k) * 7);
    std::string escaped = s;
    escaped.insert(static_cast<size_t>(k) * 5 % escaped.size(), "\\\"{[\\\\");
    json += R"({"ph":"X","cat":"cpu_op","name":"aten::op)" + std::to_string(k) +
            R"(","pid":1,"tid":1,"ts":)" + std::to_string(k * 10) + R"(,"dur":5,)" +
            R"("args":{"Call stack":")" + (k % 2 ? escaped : s) + R"(","Python id":)" +
            std::to_string(k) + R"(,"note":")" + escaped + "\"}},\n   ";
  }
  json += R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2}]})";
  ks_test::ImportResult whole = ks_test::import_chunked(json, 0);
  INFO("import error: " << whole.error.to_line());
  REQUIRE(whole.ok);
  REQUIRE(whole.trace->slices.size() == 41);
  const std::string report = ks_test::report_of(*whole.trace);
  for (size_t chunk : {1, 5, 15, 16, 17, 31, 33, 64, 999}) {
    INFO("chunk " << chunk);
    ks_test::ImportResult r = ks_test::import_chunked(json, chunk);
    REQUIRE(r.ok);
    CHECK(ks_test::report_of(*r.trace) == report);
  }
}
