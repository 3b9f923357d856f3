// A long C++ name made short enough to show without losing what tells it apart from its
// neighbours. A report cuts names to a column's width, and demangled kernel names share long
// prefixes: two CloverLeaf kernels both read "void clover::par_ranged2d_kernel<PdV_kernel(bool,
// int, int, int, int, double, clover::B..." when cut at 90 bytes, and differ only in their
// lambda's "(instance 1)" / "(instance 2)" near the end. Parameter lists are what makes such
// names long and are rarely what tells two kernels apart (their template arguments and the
// lambda's instance are), so the longest parenthesized lists are shown as "(...)" first, one at
// a time, until the name fits; what still does not fit is cut by the caller as before. Labels
// the demangler writes after a space or "::", "(instance 2)", "(anonymous namespace)", and short
// one-item lists, "(T1)", are kept.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace ks {

// `name` with its longest parameter lists (a '(' right after a name or '>', holding a comma or
// over 16 bytes) written "(...)" until
// it is at most `max_bytes` long (or no group of more than 3 bytes is left); `name` unchanged when
// it already fits or `max_bytes` is 0. Unbalanced parentheses are left as they are. Names over 64
// KiB are returned unchanged (the caller cuts them): the work stays bounded on a hostile trace's
// names.
std::string compact_name(std::string_view name, size_t max_bytes);

}  // namespace ks
