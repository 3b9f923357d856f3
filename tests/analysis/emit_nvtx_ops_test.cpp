// emit_nvtx's op ranges (torch/csrc/profiler/util.cpp getNvtxStr): which NVTX ranges of an
// Nsight Systems export are PyTorch ops. Ops without a namespace and outside autograd
// (record_param_comms, detach, detach_) carry neither "::" nor "seq =", only emit_nvtx's op_id.
#include <catch2/catch.hpp>

#include "analysis/steps.h"

TEST_CASE("emit_nvtx op ranges: namespaced or autograd ops, and the ops PyTorch names bare",
          "[nsys][steps]") {
  CHECK(ks::is_emit_nvtx_op_range("aten::mm, seq = 12, op_id = 40"));
  CHECK(ks::is_emit_nvtx_op_range("AddmmBackward0, seq = 3, op_id = 77"));
  // Were no ops: the DLRM rank's 38 calls of these three were missing from an export's ops.
  CHECK(ks::is_emit_nvtx_op_range("record_param_comms, op_id = 512"));
  CHECK(ks::is_emit_nvtx_op_range("detach, op_id = 9, sizes = [[16, 32]]"));
  CHECK(ks::is_emit_nvtx_op_range("detach_, op_id = 10"));
  CHECK(ks::emit_nvtx_op_name("record_param_comms, op_id = 512") == "record_param_comms");
  // record_function ranges and a user's own ranges are not ops.
  CHECK(!ks::is_emit_nvtx_op_range("## forward ##, op_id = 418"));
  CHECK(!ks::is_emit_nvtx_op_range("detach"));
  CHECK(!ks::is_emit_nvtx_op_range("train_step"));
}
