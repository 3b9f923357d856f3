// Whether a trace is of a JAX/XLA program, for the advice the report gives (a PyTorch call is
// no help there). XLA's GPU runtime writes its own NVTX ranges (domain "TSL", from
// gpu_executable.cc's ScopedAnnotation): "XlaModule:#hlo_module=NAME,program_id=N#" per
// execution of a compiled module and "Thunk:#hlo_op=NAME#" per thunk; no PyTorch program writes
// these names.
#pragma once

#include "model/trace.h"

namespace ks {

bool is_xla_program(const Trace& t);

// The advice for marking steps in a JAX program captured by Nsight Systems: JAX's own
// jax.profiler.StepTraceAnnotation is recorded by JAX's profiler (a TraceMe), not as NVTX, so
// nsys sees a step only as an NVTX range the program pushes around each step's call.
extern const char* const kJaxStepAdvice;
extern const char* const kJaxStepCode;

}  // namespace ks
