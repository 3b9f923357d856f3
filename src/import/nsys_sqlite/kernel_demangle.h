// Kernel names of older Nsight Systems exports (no demangledName column): the mangledName,
// demangled by the C++ runtime's abi::__cxa_demangle, which is libstdc++'s (libiberty) in the CLI
// and libc++abi's in the page (the WASM). Both recurse on nesting and print a backreference
// (S0_, T_) by printing what it refers to again, so a 450-byte name whose template arguments
// refer back to the one before ran for minutes and took gigabytes (each level doubles the text).
// A name is demangled only within the bounds below, the same check in both, and the two
// runtimes' spellings are made one (libc++abi's 'lambda' as libiberty's {lambda()#1}).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace ks::nsys_sqlite {

// Longest mangled name demangled (CUTLASS 3 / CuTe kernel names run to several KB).
constexpr size_t kMaxMangledBytes = 2048;
// Deepest nesting of scopes (N..E, I..E, Z..E, L..E, F..E) and type prefixes (P, R, K, ...):
// libiberty refuses from about 300 on, libc++abi does not; real kernel names stay under 30.
constexpr int kMaxMangledDepth = 64;
// Longest demangled text a name may print, by the bound below: a backreference (S_, S<n>_, T_,
// T<n>_, fp_) prints what it names again. Real kernel names bound to tens of KB at most.
constexpr double kMaxDemangledBytes = 1 << 20;
// The same where the bound is the parse's (printed_length.h), within 4x of the text for real
// names: GCC 12's libiberty refuses long CUTLASS 3 names libc++abi prints (a real 1,433-byte SM100
// GEMM, 6,186 bytes printed, bound 20.7 KB), so such names are left to the shortName in both.
constexpr double kMaxParsedBytes = 16 << 10;

struct MangledShape {
  int depth = 0;        // deepest nesting seen
  int backrefs = 0;     // backreferences seen
  double printed = 0;   // an upper bound on the demangled text's bytes
  bool parsed = false;  // `printed` is the parse's bound (printed_length.h), not the scan's
  // A construct the two runtimes do not print alike, so neither's text is taken: DF (GCC 12's
  // libiberty reads it as a fixed-point type, "DF16b" as "bool _Accum"; libc++abi as _Float16 or
  // refuses it), C++20's template parameter declarations Ty, Tk, Tn, Tt, Tp (a lambda's
  // explicit template parameters: libc++abi prints them, libiberty refuses the name), and a
  // template parameter in a lambda's parameter types (a generic lambda's auto).
  bool one_sided = false;
};

// The nesting and backreferences of an Itanium mangled name, by a scan of its tokens (source
// names skipped by their length, literal values by theirs), not a full parse: a bound, not a
// demangling.
MangledShape mangled_shape(std::string_view mangled);

// Whether `mangled` is left undemangled before a runtime sees it: not a "_Z" name, longer than
// kMaxMangledBytes, nesting deeper than kMaxMangledDepth, printing maybe more than
// kMaxDemangledBytes (kMaxParsedBytes by the parse's bound), or holding a construct only one
// runtime prints (MangledShape::one_sided). The same check in the CLI and the page.
bool demangling_refused(std::string_view mangled);

// The demangled name, or empty when `mangled` is not a "_Z" name, is longer than
// kMaxMangledBytes, nests deeper than kMaxMangledDepth, may print more than
// kMaxDemangledBytes, holds a construct only one runtime prints (MangledShape::one_sided), or does
// not demangle: the kernel is then named by its shortName, in the CLI and the page alike.
std::string demangled_kernel_name(std::string_view mangled);

// libc++abi's spellings as libiberty's, so the page names a kernel as the CLI does:
// 'lambda'(int) -> {lambda(int)#1}, 'lambda0'(int) -> {lambda(int)#2}, 'unnamed' -> {unnamed
// type#1}, "float vector[4]" -> "float __vector(4)". Unchanged text has none of them.
std::string same_spelling(std::string_view demangled);

}  // namespace ks::nsys_sqlite
