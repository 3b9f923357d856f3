// What a step already does against launch overhead, read from the trace, so that the fixes do
// not tell a user to turn on what is on. Real H200 captures (examples/pathologies/h200/) showed
// the need: a torch.compile run was told to use torch.compile, a CUDA-graph run to use CUDA
// graphs.
#pragma once
#include <string>

#include "analysis/analyze.h"

namespace ks {

struct CompileUse {
  // torch.compile: Inductor's kernels (triton_poi_*, triton_red_*, triton_per_*, triton_tem_*)
  // or its CPU ops (Torch-Compiled Region, CompiledFunction, ## Call CompiledFxGraph ...).
  bool compiled = false;
  // CUDA/HIP graph replays: GPU ops that share one launch call (launch_stats graph_ops).
  bool cuda_graphs = false;
};
CompileUse compile_use(const Trace& t, const Analyses& a);

// The launch-overhead remedy (fewer launches, CUDA graphs) that fits `u`: replaces *fix and
// *fix_code when the step is compiled or replays graphs already; leaves them otherwise.
void fit_launch_overhead_fix(const CompileUse& u, std::string* fix, std::string* fix_code);

// The fusion remedy for elementwise-heavy kernel time when Inductor's kernels are those kernels
// already: replaces *fix and *fix_code when `u.compiled`.
void fit_fusion_fix(const CompileUse& u, std::string* fix, std::string* fix_code);

}  // namespace ks
