// The CPU ops whose input shapes the importer keeps: the ops whose FLOPs can be computed from
// "Input Dims" (src/analysis/op_flops.h). Kineto writes shapes on every op with
// record_shapes=True; keeping them for these few names only costs a few interned strings per
// step instead of the args of every event.
#pragma once
#include <string_view>

namespace ks {

// True for the names src/analysis/op_flops.cpp has a formula for, and for the wrappers around
// them (aten::linear, aten::matmul, the convolution entry points, SDPA and its backends).
bool is_math_op_name(std::string_view name);

}  // namespace ks
