// Where in the user's Python code a CPU op was called, for findings that point at a line
// ("aten::item at train.py:57"). Two sources, as the trace has them:
//   - the "Call stack" arg (with_stack in older Kineto): "a.py(12): f;b.py(40): g;..." innermost
//     frame first, on the op or an enclosing op;
//   - python_function slices (with_stack in newer Kineto) enclosing the op on its thread, named
//     "train.py(57): train_step".
// The innermost frame outside library code (site-packages, dist-packages, torch/, <built-in>) is
// the user's line. Empty when the trace has neither.
#pragma once
#include <string>

#include "model/trace.h"

namespace ks {

// "train.py:57 (train_step)" for a slice, or "" when the trace does not say.
std::string python_source_of(const Trace& trace, uint32_t slice);

// The native caller of a CUDA API call in an Nsight Systems export captured with
// --cudabacktrace: the innermost frame outside the CUDA libraries, "symbol in module", as the
// importer kept it (import/nsys_sqlite/nsys_callchains.cpp); "" when not recorded.
std::string native_caller_of(const Trace& trace, uint32_t slice);

// One frame "path(line): function" as "path:line (function)"; "" for library frames.
std::string user_frame(std::string_view frame);

}  // namespace ks
