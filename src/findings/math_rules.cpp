// Big GEMMs and convolutions far below the GPU's peak (analysis/math_efficiency.h): the op,
// its shape and the likely reason. "Big": the op group takes >= 5% of the kernel time of the
// counted math; "far below": < 20% of the dense peak for its precision. Reasons, checked in
// this order:
//   - fp32 on a GPU with TF32 tensor cores, kernels not TF32: allow_tf32 is off;
//   - N or K (the leading dimensions of row-major A[M,K] and B[K,N]) not a multiple of 8
//     (fp16/bf16/fp8) or 4 (tf32): tensor-core tiles need aligned leading dimensions (NVIDIA's
//     "Matrix Multiplication Background" guide); an odd M (batch x sequence) only leaves a
//     partial tile, so it is not blamed;
//   - a GEMM with min(M, N, K) < 128 or under 1 GFLOP: too small to fill the GPU.
#include <algorithm>

#include "findings/rules.h"

namespace ks {

namespace {

constexpr double kFarBelowPct = 20.0;
constexpr double kBigSharePct = 5.0;

std::string reason_of(const MathOpRow& r, const GpuPeak& peak, std::string* fix,
                      std::string* code) {
  if (r.dtype == MathDtype::kFp32 && peak.tf32 > 0) {
    *fix = "Allow TF32 for matmuls and convolutions, or train with bf16 autocast.";
    *code = "torch.backends.cuda.matmul.allow_tf32 = True\ntorch.backends.cudnn.allow_tf32 = True";
    return "fp32 without TF32";
  }
  if (r.family == MathFamily::kGemm && r.m > 0) {
    const int64_t align = r.dtype == MathDtype::kFp32 || r.dtype == MathDtype::kTf32 ? 4 : 8;
    if (r.n % align || r.k % align) {
      *fix = strf(
          "Pad the dimensions to multiples of %lld (vocabulary, hidden size, batch x "
          "sequence) so tensor-core tiles line up.",
          static_cast<long long>(align));
      code->clear();
      return strf("dims not multiples of %lld", static_cast<long long>(align));
    }
    if (std::min({r.m, r.n, r.k}) < 128 || r.flops_each < 1e9) {
      *fix =
          "Batch more work per call (a larger batch, fused projections such as one QKV GEMM, "
          "or CUDA graphs / torch.compile to cut the launches around small GEMMs).";
      code->clear();
      return "shape too small to fill the GPU";
    }
  }
  *fix =
      "Check which kernel the library picked for this shape (cuBLAS/cuDNN or hipBLASLt/MIOpen "
      "heuristics; memory layout such as channels_last for convolutions; extra transposes).";
  code->clear();
  return "below peak";
}

}  // namespace

void rule_slow_math(const RuleInput& in, std::vector<Finding>* out) {
  const MathEfficiency& m = in.analyses.math;
  if (!m.has_shapes || !m.peak || m.total_math_ns <= 0) return;
  std::vector<const MathOpRow*> slow;
  for (const MathOpRow& r : m.ops) {
    if (r.family != MathFamily::kGemm && r.family != MathFamily::kConv) continue;
    if (r.pct_of_peak < 0 || r.pct_of_peak >= kFarBelowPct) continue;
    const double share =
        100.0 * static_cast<double>(r.gpu_ns) / static_cast<double>(m.total_math_ns);
    if (share >= kBigSharePct) slow.push_back(&r);
  }
  if (slow.empty()) return;
  // The most time lost first: kernel time x (1 - fraction of peak).
  auto lost = [](const MathOpRow* r) {
    return static_cast<double>(r->gpu_ns) * (1 - r->pct_of_peak / 100);
  };
  std::stable_sort(slow.begin(), slow.end(),
                   [&](const MathOpRow* a, const MathOpRow* b) { return lost(a) > lost(b); });
  const MathOpRow& top = *slow.front();
  Finding f;
  f.id = "math.far_below_peak";
  f.severity = Severity::kWarning;
  std::string fix, code;
  const std::string reason = reason_of(top, *m.peak, &fix, &code);
  f.title =
      strf("%s [%s] %s runs at %s of the %s's %s peak (%s)", top.name.c_str(), top.shapes.c_str(),
           math_dtype_name(top.dtype), format_pct(top.pct_of_peak).c_str(), m.peak->gpu,
           math_dtype_name(top.dtype), reason.c_str());
  f.meaning = strf(
      "%zu big GEMM/convolution shape%s (each >= %.0f%% of the math kernel time) run below "
      "%.0f%% of peak; the largest, %s, spends %s on the GPU at %.1f TFLOP/s of %.1f.",
      slow.size(), slow.size() == 1 ? "" : "s", kBigSharePct, kFarBelowPct, top.name.c_str(),
      format_duration(top.gpu_ns).c_str(), top.achieved_tflops, top.peak_tflops);
  f.fix = fix;
  f.fix_code = code;
  for (size_t i = 0; i < slow.size() && i < 3; ++i) {
    const MathOpRow& r = *slow[i];
    std::string tmp_fix, tmp_code;
    f.text(strf("op_%zu", i + 1),
           strf("%s [%s] %s: %s of peak, %s (%s)", r.name.c_str(), r.shapes.c_str(),
                math_dtype_name(r.dtype), format_pct(r.pct_of_peak).c_str(),
                format_duration(r.gpu_ns).c_str(),
                reason_of(r, *m.peak, &tmp_fix, &tmp_code).c_str()));
    f.events.push_back(r.example);
  }
  f.number("pct_of_peak", top.pct_of_peak, 1, "%");
  f.number("achieved_tflops", top.achieved_tflops, 1, "TFLOP/s");
  f.number("peak_tflops", top.peak_tflops, 1, "TFLOP/s");
  out->push_back(std::move(f));
}

}  // namespace ks
