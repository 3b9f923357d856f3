// The rules write their fixes in CUDA's words (most traces are CUDA's). On an Intel XPU trace
// some of those words name what does not exist there: CUDA graphs are torch.xpu.graph
// (XPUGraph), torch.cuda.* is torch.xpu.*, and torch.compile's mode="reduce-overhead" graphs
// CUDA devices only (Inductor's cudagraph trees check for a CUDA device; on XPU the mode
// silently does nothing: intel/intel-xpu-backend-for-triton#1721). One pass over every finding
// after the rules, so that no rule needs its own XPU copy of its advice.
#include <string>
#include <utility>

#include "findings/rules.h"

namespace ks {

namespace {

void replace_all(std::string* s, std::string_view from, std::string_view to) {
  for (size_t at = s->find(from); at != std::string::npos; at = s->find(from, at + to.size()))
    s->replace(at, from.size(), to);
}

// Longest first: the code lines before the phrases they contain.
constexpr std::pair<std::string_view, std::string_view> kXpuWords[] = {
    {"torch.compile(model, mode=\"reduce-overhead\")  # CUDA graphs",
     "torch.compile(model)  # then capture the step with torch.xpu.graph"},
    {"torch.compile(model, mode=\"reduce-overhead\")",
     "torch.compile(model)  # or capture the step with torch.xpu.graph"},
    {"(mode=\"reduce-overhead\")",
     "(torch.xpu.graph; torch.compile's mode=\"reduce-overhead\" graphs CUDA devices only)"},
    {"capture the step in a CUDA graph", "capture the step with torch.xpu.graph"},
    {"CUDA graphs", "XPU graphs (torch.xpu.graph)"},
    {"CUDA graph", "XPU graph"},
    {"torch.cuda.", "torch.xpu."},
};

}  // namespace

void word_fixes_for_vendor(const Trace& t, const Analyses& a, std::vector<Finding>* out) {
  if (gpu_vendor(t, a) != GpuVendor::kIntel) return;
  for (Finding& f : *out)
    for (std::string* s : {&f.fix, &f.fix_code})
      for (const auto& [from, to] : kXpuWords) replace_all(s, from, to);
}

}  // namespace ks
