// CUDA graph capture: between cudaStreamBeginCapture and cudaStreamEndCapture (hip* and the
// driver's cu* alike) the launches on the captured stream are recorded into a graph, not run;
// the GPU does that work only when the graph is replayed (cudaGraphLaunch). A trace of the
// capture (vLLM and SGLang capture their decode graphs at start-up; a training script captures
// after its warm-up steps) shows an idle GPU and a CPU-bound step that describe a one-time
// set-up, not the run.
#pragma once
#include <cstdint>
#include <vector>

#include "analysis/gpu_idle.h"
#include "analysis/intervals.h"
#include "analysis/launch_join.h"
#include "model/trace.h"

namespace ks {

struct GraphCaptures {
  std::vector<Interval> windows;  // merged: a begin call's start to its end call's end
  uint64_t captures = 0;          // capture windows opened (begin calls, or an end without one)
  uint64_t instantiations = 0;    // cudaGraphInstantiate* calls
  int64_t instantiate_ns = 0;
  uint64_t replays = 0;     // cudaGraphLaunch calls
  int32_t first_call = -1;  // the earliest begin (or end) call, to show
  // Inside the GPU idle window (the steps, else the GPU span: gpu_idle.h): the capture's time,
  // and the GPU idle time within it.
  int64_t in_window_ns = 0;
  int64_t idle_in_capture_ns = 0;
  bool any() const { return captures > 0; }
};

GraphCaptures find_graph_captures(const Trace& trace, const LaunchJoin& join,
                                  const StepsResult& steps, const GpuIdleResult& idle);

}  // namespace ks
