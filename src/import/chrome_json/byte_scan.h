// The byte scanning under the Chrome JSON importer: finding the next byte of interest in string
// content and in the structure between strings, and reading digit runs. Most bytes of a trace
// pass through these loops (names, keys, Python call stacks of 600+ bytes), so they take 16 bytes
// a step with the machine's vector instructions where the compiler targets them:
//   - SSE2 natively on x86-64 (part of the x86-64 baseline, so no runtime check is needed);
//   - WebAssembly SIMD128 when the WASM build passes -msimd128 (the default; every current
//     browser and Node runs it);
//   - otherwise, or with KS_SCALAR_SCAN defined (the scalar WASM build, KS_WASM_SIMD=OFF), the
//     portable scalar code: 8 bytes a step with SWAR bit tricks.
// Both versions are compiled wherever SIMD is available (byte_scan::scalar and byte_scan::simd),
// so one test binary and the scan fuzzer compare them on the same inputs; the importer calls the
// unqualified names, which are the SIMD ones when available.
//
// Every function returns a position exactly as its scalar version does, so the choice never
// changes a result (tests/import/byte_scan_test.cpp, tests/fuzz/scan_fuzzer.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#if !defined(KS_SCALAR_SCAN) && defined(__wasm_simd128__)
#include <wasm_simd128.h>
#define KS_SCAN_SIMD_WASM 1
#elif !defined(KS_SCALAR_SCAN) && (defined(__SSE2__) || defined(_M_X64))
#include <emmintrin.h>
#define KS_SCAN_SIMD_SSE2 1
#endif
#if defined(KS_SCAN_SIMD_WASM) || defined(KS_SCAN_SIMD_SSE2)
#define KS_SCAN_HAS_SIMD 1
#endif

// Always inlined: they run once per string and per gap between tokens, mostly over a few bytes,
// so a call costs as much as the scan (GCC left skip_space out of line: 10% more reader time).
#define KS_SCAN_INLINE inline __attribute__((always_inline))

namespace ks::byte_scan {

// How many bytes past `end` the functions documented so may read. Every caller's buffer has at
// least this much readable padding (kFramerPadding is 64).
constexpr size_t kScanOverread = 16;

inline int ctz64(uint64_t x) {
  return __builtin_ctzll(x);
}
inline int ctz32(uint32_t x) {
  return __builtin_ctz(x);
}

namespace scalar {

constexpr uint64_t kOnes = 0x0101010101010101ULL;
constexpr uint64_t kHighs = 0x8080808080808080ULL;

// High bit of each byte of x equal to c (lowest flagged byte exact; bytes above a hit may be
// flagged falsely, as borrows run upwards, so only the lowest one is used).
inline uint64_t eq_bytes(uint64_t x, uint64_t c_ones) {
  const uint64_t y = x ^ c_ones;
  return (y - kOnes) & ~y & kHighs;
}

inline uint64_t load8(const char* p) {
  uint64_t x;
  std::memcpy(&x, p, 8);
  return x;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define KS_SCAN_BIG_ENDIAN 1
#endif

// The first '"' or '\\' in [p, end), or end. Reads nothing past end.
KS_SCAN_INLINE const char* find_quote_or_backslash(const char* p, const char* end) {
#ifndef KS_SCAN_BIG_ENDIAN
  while (end - p >= 8) {
    const uint64_t x = load8(p);
    const uint64_t hit = eq_bytes(x, kOnes * '"') | eq_bytes(x, kOnes * '\\');
    if (hit) return p + (ctz64(hit) >> 3);
    p += 8;
  }
#endif
  while (p < end && *p != '"' && *p != '\\') ++p;
  return p;
}

// The first byte at or after p that needs a look inside a string: '"', '\\', a control character
// (< 0x20) or a non-ASCII byte (>= 0x80). May return a pointer at or past `end` (nothing found
// before it); reads up to kScanOverread bytes past `end`.
KS_SCAN_INLINE const char* find_string_special(const char* p, const char* end) {
  while (p < end) {
#ifdef KS_SCAN_BIG_ENDIAN
    const unsigned char c = static_cast<unsigned char>(*p);
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) return p;
    ++p;
#else
    const uint64_t x = load8(p);
    const uint64_t hit =
        (((x - kOnes * 0x20) | x) & kHighs) | eq_bytes(x, kOnes * '"') | eq_bytes(x, kOnes * '\\');
    if (hit) return p + (ctz64(hit) >> 3);
    p += 8;
#endif
  }
  return p;
}

// The first byte in [p, end) that the framer's nesting count looks at outside strings: '"',
// '{', '}', '[' or ']'; end when there is none. Reads nothing past end.
KS_SCAN_INLINE const char* find_structural(const char* p, const char* end) {
#ifndef KS_SCAN_BIG_ENDIAN
  while (end - p >= 8) {
    const uint64_t x = load8(p);
    // '[' and ']' are '{' and '}' without bit 0x20; no other byte becomes one of them with it.
    const uint64_t y = x | (kOnes * 0x20);
    const uint64_t hit =
        eq_bytes(x, kOnes * '"') | eq_bytes(y, kOnes * '{') | eq_bytes(y, kOnes * '}');
    if (hit) return p + (ctz64(hit) >> 3);
    p += 8;
  }
#endif
  while (p < end && *p != '"' && *p != '{' && *p != '}' && *p != '[' && *p != ']') ++p;
  return p;
}

// The first byte at or after p that is not JSON whitespace (' ', '\n', '\r', '\t'), or end.
// Reads nothing past end.
KS_SCAN_INLINE const char* skip_space(const char* p, const char* end) {
  while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) ++p;
  return p;
}

}  // namespace scalar

#ifdef KS_SCAN_HAS_SIMD
namespace simd {

// The 16-byte vector operations both instruction sets have, under one set of names.
#ifdef KS_SCAN_SIMD_WASM
using V = v128_t;
inline V load16(const char* p) {
  return wasm_v128_load(p);
}
inline V splat(char c) {
  return wasm_i8x16_splat(c);
}
inline V eq(V a, V b) {
  return wasm_i8x16_eq(a, b);
}
inline V lt_signed(V a, V b) {
  return wasm_i8x16_lt(a, b);
}
inline V or_(V a, V b) {
  return wasm_v128_or(a, b);
}
inline uint32_t mask(V v) {
  return wasm_i8x16_bitmask(v);
}
#else
using V = __m128i;
inline V load16(const char* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}
inline V splat(char c) {
  return _mm_set1_epi8(c);
}
inline V eq(V a, V b) {
  return _mm_cmpeq_epi8(a, b);
}
inline V lt_signed(V a, V b) {
  return _mm_cmplt_epi8(a, b);
}
inline V or_(V a, V b) {
  return _mm_or_si128(a, b);
}
inline uint32_t mask(V v) {
  return static_cast<uint32_t>(_mm_movemask_epi8(v));
}
#endif

KS_SCAN_INLINE uint32_t quote_or_backslash_mask(V x) {
  return mask(or_(eq(x, splat('"')), eq(x, splat('\\'))));
}

KS_SCAN_INLINE const char* find_quote_or_backslash(const char* p, const char* end) {
  while (end - p >= 16) {
    const uint32_t m = quote_or_backslash_mask(load16(p));
    if (m) return p + ctz32(m);
    p += 16;
  }
  return scalar::find_quote_or_backslash(p, end);
}

KS_SCAN_INLINE const char* find_string_special(const char* p, const char* end) {
  while (p < end) {
    const V x = load16(p);
    // As signed bytes, both the control characters (0x00-0x1F) and the non-ASCII bytes
    // (0x80-0xFF, negative) are below 0x20: one comparison finds both.
    const uint32_t m =
        mask(or_(lt_signed(x, splat(0x20)), or_(eq(x, splat('"')), eq(x, splat('\\')))));
    if (m) return p + ctz32(m);
    p += 16;
  }
  return p;
}

KS_SCAN_INLINE const char* find_structural(const char* p, const char* end) {
  while (end - p >= 16) {
    const V x = load16(p);
    const V y = or_(x, splat(0x20));
    const uint32_t m = mask(or_(eq(x, splat('"')), or_(eq(y, splat('{')), eq(y, splat('}')))));
    if (m) return p + ctz32(m);
    p += 16;
  }
  return scalar::find_structural(p, end);
}

KS_SCAN_INLINE const char* skip_space(const char* p, const char* end) {
  // Most runs are short (a space after ':' or ','); the vector step pays off for indentation.
  if (p < end && *p != ' ' && *p != '\n' && *p != '\r' && *p != '\t') return p;
  while (end - p >= 16) {
    const V x = load16(p);
    const uint32_t m = mask(or_(or_(eq(x, splat(' ')), eq(x, splat('\n'))),
                                or_(eq(x, splat('\r')), eq(x, splat('\t')))));
    if (m != 0xFFFF) return p + ctz32(~m);
    p += 16;
  }
  return scalar::skip_space(p, end);
}

}  // namespace simd

using simd::find_quote_or_backslash;
using simd::find_string_special;
using simd::find_structural;
using simd::skip_space;
constexpr bool kSimd = true;
#else
using scalar::find_quote_or_backslash;
using scalar::find_string_special;
using scalar::find_structural;
using scalar::skip_space;
constexpr bool kSimd = false;
#endif

// Digit runs (ts, dur, ids): 8 bytes at a time in all builds. Timestamps have 13-16 integer
// digits and ids under 8, so a 16-byte vector step would save at most one step per number.

// The number of ASCII digits at the start of the 8 bytes at p (0-8); reads 8 bytes. A byte is a
// digit when its high nibble is 3 both before and after adding 6. A carry out of a byte (one of
// 0xFA-0xFF, not a digit) only spoils the bytes after it, so the first non-digit is found.
KS_SCAN_INLINE int leading_digits8(const char* p) {
#ifdef KS_SCAN_BIG_ENDIAN
  int n = 0;
  while (n < 8 && p[n] >= '0' && p[n] <= '9') ++n;
  return n;
#else
  constexpr uint64_t kHighNibbles = 0xF0F0F0F0F0F0F0F0ULL;
  constexpr uint64_t kThrees = 0x3030303030303030ULL;
  const uint64_t x = scalar::load8(p);
  const uint64_t not_digit =
      ((x & kHighNibbles) ^ kThrees) | (((x + 0x0606060606060606ULL) & kHighNibbles) ^ kThrees);
  return not_digit ? ctz64(not_digit) >> 3 : 8;
#endif
}

// The value of the n (1-8) digits at p, all at once (the first is the most significant): the
// digits are moved to the top bytes, so the bytes below become leading zeros, then pairs, quads
// and halves are combined. Reads 8 bytes.
KS_SCAN_INLINE uint64_t digits_value8(const char* p, int n) {
#ifdef KS_SCAN_BIG_ENDIAN
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = v * 10 + static_cast<uint64_t>(p[i] - '0');
  return v;
#else
  uint64_t x = scalar::load8(p);
  x = (x & 0x0F0F0F0F0F0F0F0FULL) << (8 * (8 - n));
  x = (x * 10 + (x >> 8)) & 0x00FF00FF00FF00FFULL;
  x = (x * 100 + (x >> 16)) & 0x0000FFFF0000FFFFULL;
  return (x * 10000 + (x >> 32)) & 0x00000000FFFFFFFFULL;
#endif
}

}  // namespace ks::byte_scan
