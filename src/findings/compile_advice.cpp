#include "findings/compile_advice.h"

#include <string_view>

#include "analysis/name_cache.h"
#include "util/text_match.h"

namespace ks {

namespace {

bool inductor_kernel(std::string_view n) {
  return starts_with(n, "triton_poi") || starts_with(n, "triton_red") ||
         starts_with(n, "triton_per") || starts_with(n, "triton_tem");
}

bool compiled_region_op(std::string_view n) {
  return starts_with(n, "Torch-Compiled Region") || starts_with(n, "CompiledFunction") ||
         starts_with(n, "## Call CompiledFxGraph");
}

}  // namespace

CompileUse compile_use(const Trace& t, const Analyses& a) {
  CompileUse u;
  u.cuda_graphs = a.launches.total.graph_ops > 0;
  auto compiled_name = make_name_cache(
      t, [](std::string_view n) { return inductor_kernel(n) || compiled_region_op(n) ? 1 : 0; });
  const SliceTable& s = t.slices;
  for (uint32_t i = 0; i < s.size() && !u.compiled; ++i) {
    const SliceKind k = s.kind[i];
    if (k == SliceKind::kKernel || k == SliceKind::kCpuOp || k == SliceKind::kUserAnnotation)
      u.compiled = compiled_name(s.name[i]) != 0;
  }
  return u;
}

void fit_launch_overhead_fix(const CompileUse& u, std::string* fix, std::string* fix_code) {
  if (u.cuda_graphs) {
    *fix =
        "The step already replays CUDA graphs: what still launches one kernel at a time runs "
        "outside them (the optimizer, copies, Python between graphs, graph breaks). Capture more "
        "of the step: a fused or compiled optimizer, fewer graph breaks, less Python between "
        "replays.";
    *fix_code =
        "optimizer = torch.optim.AdamW(params, fused=True)\n"
        "# where the graphs break: TORCH_LOGS=graph_breaks python train.py";
  } else if (u.compiled) {
    *fix =
        "The step is already compiled (torch.compile's Triton kernels are in the trace), yet "
        "each compiled graph still launches its kernels one by one: replay them as CUDA graphs "
        "(mode=\"reduce-overhead\"), compile or fuse the optimizer step too, and remove graph "
        "breaks (each one returns to Python).";
    *fix_code =
        "model = torch.compile(model, mode=\"reduce-overhead\")  # CUDA graphs\n"
        "# where the graphs break: TORCH_LOGS=graph_breaks python train.py";
  }
}

void fit_fusion_fix(const CompileUse& u, std::string* fix, std::string* fix_code) {
  if (!u.compiled) return;
  *fix =
      "The step is already compiled: torch.compile's fused Triton kernels are among these, so "
      "what is left is memory traffic. Try mode=\"max-autotune\", keep activations in bf16, and "
      "read the largest kernels' memory throughput in Nsight Compute.";
  *fix_code = "model = torch.compile(model, mode=\"max-autotune\")";
}

}  // namespace ks
