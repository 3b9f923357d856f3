// FLOPs of one CPU op from the shapes Kineto records with record_shapes=True ("Input Dims",
// "Input type", "Concrete Inputs"; model/trace.h OpShapeArgs). One multiply-add counts as 2
// FLOPs, the convention of MFU (PaLM, appendix B) and of AMD's TraceLens (perf_model.py); only
// the matrix products are counted, never the epilogue (bias add, scaling, softmax), so the
// numbers compare with a GPU's tensor-core peak. Each formula is stated beside its code in
// op_flops.cpp and summed up here:
//   mm, _scaled_mm       A[M,K] @ B[K,N]                       2*M*N*K
//   addmm, _addmm_act.   bias + A[M,K] @ B[K,N]                2*M*N*K (the M*N bias add left out)
//   bmm / baddbmm        A[b,M,K] @ B[b,K,N]                   2*b*M*N*K
//   linear               x[..., K] @ W[N, K]^T                 2*prod(x[:-1])*K*N
//   matmul               broadcast batch of A[..,M,K]@B[..,K,N] 2*batch*M*N*K (1-D sides: M or N=1)
//   convolution          x[N,C,H..], w[K,C/g,R..] -> out[N,K,P..]
//                        2*N*K*(C/g)*prod(R)*prod(P), P = floor((H+2pad-dil*(R-1)-1)/stride)+1
//                        (stride/padding/dilation from "Concrete Inputs"; without them: unknown)
//                        transposed: 2*N*prod(H)*w[0]*w[1]*prod(R) (each input pixel scatters)
//   convolution_backward forward FLOPs x (grad_input + grad_weight asked, output_mask; 2 if
//                        unknown): each gradient is one convolution of the forward's size
//   SDPA forward         q[B..,Lq,D], k[..,Lk,D], v[..,Lk,Dv]: 2*B*Lq*Lk*D + 2*B*Lq*Lk*Dv
//                        (= 4*B*H*Lq*Lk*D), halved when is_causal is known true
//   SDPA backward        2.5 x forward: five products of that size (dV, dP, dS->dQ, dK and the
//                        recomputed P) against two forward, as flash-attention's benchmarks count
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ks {

enum class MathDtype : uint8_t { kUnknown, kFp64, kFp32, kTf32, kFp16, kBf16, kFp8, kInt8 };
const char* math_dtype_name(MathDtype d);  // "fp32", "bf16", ... "unknown"
// From Kineto's "Input type" strings: "float", "c10::BFloat16", "c10::Half", "double",
// "c10::Float8_e4m3fn", ...
MathDtype math_dtype_from_type(std::string_view type);

enum class MathFamily : uint8_t { kNone, kGemm, kConv, kAttention };
const char* math_family_name(MathFamily f);

struct OpFlops {
  bool ok = false;   // FLOPs known
  double flops = 0;  // exact for FLOPs below 2^53
  MathFamily family = MathFamily::kNone;
  MathDtype dtype = MathDtype::kUnknown;
  std::string formula;  // the formula with its numbers: "2*M*N*K, M=141 N=512 K=512"
  std::string why_not;  // when !ok: what was missing
  // GEMM sizes (0 when not a GEMM), for the alignment and size checks of the finding.
  int64_t m = 0, n = 0, k = 0;
};

// Whether `name` has a formula (a subset of model/math_op_names.h's names: wrappers such as
// aten::_flash_attention_forward or cudnn_convolution_backward_input have none, their parent
// op counts for them).
bool has_flops_formula(std::string_view name);

// The FLOPs of op `name` from its raw shape args (JSON arrays as Kineto writes them).
OpFlops op_flops(std::string_view name, std::string_view input_dims, std::string_view input_types,
                 std::string_view concrete_inputs);

// A tensor's dims, or nullopt-like (ok=false) for a non-tensor input ("[]" for scalars is an
// empty list). Exposed for tests.
struct ShapeList {
  bool ok = false;
  std::vector<std::vector<int64_t>> dims;  // one per input; nested lists (tensor lists) as {}
};
ShapeList parse_input_dims(std::string_view json);
// ["a", "b"] -> {"a", "b"}; ok=false when not an array of strings.
bool parse_string_list(std::string_view json, std::vector<std::string>* out);

}  // namespace ks
