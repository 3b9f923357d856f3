#include "analysis/xla_program.h"

#include <string_view>

namespace ks {

bool is_xla_program(const Trace& t) {
  const SliceTable& s = t.slices;
  for (uint32_t i = 0; i < s.size(); ++i) {
    if (s.kind[i] != SliceKind::kUserAnnotation) continue;
    const std::string_view n = t.str(s.name[i]);
    if (n.rfind("XlaModule:#", 0) == 0 || n.rfind("Thunk:#", 0) == 0) return true;
  }
  return false;
}

const char* const kJaxStepAdvice =
    "wrap each step's call in an NVTX range (nvtx.annotate(\"train_step\") from the nvtx "
    "package; jax.profiler.StepTraceAnnotation is recorded by JAX's own profiler, not by "
    "nsys), capture with --trace=cuda,nvtx, or name a range of your own with --step-range NAME "
    "(each XlaModule:#hlo_module=...# range is one call of a jitted function)";
const char* const kJaxStepCode =
    "import nvtx\n"
    "for step, batch in enumerate(batches):\n"
    "    with nvtx.annotate(\"train_step\"):\n"
    "        state, loss = train_step(state, batch)";

}  // namespace ks
