// libFuzzer target: the byte scanning layer (src/import/chrome_json/byte_scan.h). The SIMD
// functions (SSE2 natively, the build's vector instructions) must return what the scalar fallback
// returns, and both what a byte loop returns, for every start and end the input chooses; aborts
// otherwise. The input is copied into a buffer with the scanners' readable padding after it, as
// the framer's buffer has (AddressSanitizer checks nothing is read beyond that padding). The
// import targets (import_fuzzer, chunked_fuzzer) cover the same functions inside the importer.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "import/chrome_json/byte_scan.h"

namespace {

namespace bs = ks::byte_scan;

void require(bool ok, const char* what, size_t from, size_t to) {
  if (ok) return;
  std::fprintf(stderr, "scan_fuzzer: %s differs on [%zu, %zu)\n", what, from, to);
  std::abort();
}

void check(const char* p, const char* end, size_t from, size_t to) {
  auto is_qb = [](char c) { return c == '"' || c == '\\'; };
  auto is_special = [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u == '"' || u == '\\' || u < 0x20 || u >= 0x80;
  };
  auto is_structural = [](char c) {
    return c == '"' || c == '{' || c == '}' || c == '[' || c == ']';
  };
  auto not_space = [](char c) { return c != ' ' && c != '\n' && c != '\r' && c != '\t'; };
  auto clamp = [end](const char* q) { return q > end ? end : q; };
  const char* qb = std::find_if(p, end, is_qb);
  const char* sp = std::find_if(p, end, is_special);
  const char* st = std::find_if(p, end, is_structural);
  const char* ws = std::find_if(p, end, not_space);
  require(bs::scalar::find_quote_or_backslash(p, end) == qb, "scalar quote", from, to);
  require(clamp(bs::scalar::find_string_special(p, end)) == sp, "scalar special", from, to);
  require(bs::scalar::find_structural(p, end) == st, "scalar structural", from, to);
  require(bs::scalar::skip_space(p, end) == ws, "scalar space", from, to);
#ifdef KS_SCAN_HAS_SIMD
  require(bs::simd::find_quote_or_backslash(p, end) == qb, "simd quote", from, to);
  require(clamp(bs::simd::find_string_special(p, end)) == sp, "simd special", from, to);
  require(bs::simd::find_structural(p, end) == st, "simd structural", from, to);
  require(bs::simd::skip_space(p, end) == ws, "simd space", from, to);
#endif
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The padding after the input holds the input's first bytes again (hits there must not count).
  std::vector<char> buf(size + bs::kScanOverread);
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = size ? static_cast<char>(data[i % size]) : '"';
  const char* b = buf.data();
  // Every start in the first 17 bytes (each lane of a vector step), every end in the last 17.
  for (size_t from = 0; from <= std::min<size_t>(size, 16); ++from)
    for (size_t to = size >= 16 ? std::max(from, size - 16) : from; to <= size; ++to)
      check(b + from, b + to, from, to);
  return 0;
}
