// A tight upper bound on what an Itanium mangled name prints when demangled, by a parse of its
// grammar that numbers the substitution table as libiberty and libc++abi do (Itanium C++ ABI,
// <substitution>: each prefix of a nested name but the last, each type but builtin ones and
// plain substitutions, template template parameters, lambdas and unnamed types). A backreference
// (S<k>_) is bounded by what its own entry prints, a template parameter (T<k>_) by the longest
// k-th argument of the template argument lists read, a pack expansion by its pattern once per
// element of the longest pack. The scan of kernel_demangle.cpp bounded each backreference by all
// the text before it, so real CUB and CUTLASS 3 names (171 and 458 bytes, printing 369 and 1,298)
// bounded at 1.7 and 4.0 MB and lost their full names.
#pragma once
#include <string_view>

namespace ks::nsys_sqlite {

// The bound in bytes, or a negative value where the name holds a construct this parse does not
// read (expressions beyond simple operators and literals, function parameter references, special
// names, clone suffixes, a template parameter read before any argument list that could hold it):
// the caller then keeps its coarser bound. Recursion is capped, so a hostile name ends the parse.
double printed_length_bound(std::string_view mangled);

}  // namespace ks::nsys_sqlite
