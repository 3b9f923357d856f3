// The window, the longest path and the bound_by split (critical_path.h); the graph is built in
// critical_path_graph.cpp.
#include "analysis/critical_path.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <queue>

#include "analysis/name_cache.h"
#include "analysis/steps.h"
#include "analysis/warmup.h"

namespace ks {

const char* cp_edge_type_name(CpEdgeType t) {
  switch (t) {
    case CpEdgeType::kOperator:
      return "critical_path_operator";
    case CpEdgeType::kDependency:
      return "critical_path_dependency";
    case CpEdgeType::kLaunchDelay:
      return "critical_path_kernel_launch_delay";
    case CpEdgeType::kKernelKernelDelay:
      return "critical_path_kernel_kernel_delay";
    case CpEdgeType::kSyncDependency:
      return "critical_path_sync_dependency";
  }
  return "";
}

const char* cp_bound_name(CpBound b) {
  switch (b) {
    case CpBound::kNone:
      return "";
    case CpBound::kCpu:
      return "cpu_bound";
    case CpBound::kGpuCompute:
      return "gpu_compute_bound";
    case CpBound::kGpuCommunication:
      return "gpu_communication_bound";
    case CpBound::kGpuKernelKernel:
      return "gpu_kernel_kernel_overhead";
    case CpBound::kGpuLaunch:
      return "gpu_kernel_launch_overhead";
  }
  return "";
}

CpBound CriticalPathResult::dominant() const {
  int best = static_cast<int>(CpBound::kCpu);
  for (int b = 1; b < kCpBoundCount; ++b)
    if (bound[b] > bound[best]) best = b;
  return static_cast<CpBound>(best);
}

bool longest_path(const CpGraph& g, std::vector<uint32_t>* path_edges) {
  path_edges->clear();
  const size_t nv = g.nodes.size();
  if (nv == 0) return true;
  // Out-edges as CSR, in insertion order.
  std::vector<uint32_t> first(nv + 1, 0), out(g.edges.size());
  std::vector<uint32_t> indeg(nv, 0);
  for (const CpEdge& e : g.edges) {
    ++first[e.from + 1];
    ++indeg[e.to];
  }
  for (size_t v = 0; v < nv; ++v) first[v + 1] += first[v];
  {
    std::vector<uint32_t> fill(first.begin(), first.end() - 1);
    for (uint32_t k = 0; k < g.edges.size(); ++k) out[fill[g.edges[k].from]++] = k;
  }
  // Kahn's algorithm, the earliest node (by id: nodes are numbered in time order) first.
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<uint32_t>> ready;
  for (uint32_t v = 0; v < nv; ++v)
    if (indeg[v] == 0) ready.push(v);
  std::vector<int64_t> dist(nv, 0);
  // The edge into the node on its longest path: edges are numbered in 32 bits (CpEdge's from/to
  // and path_edges are), so 4 bytes a node, not 8.
  std::vector<int32_t> pred(nv, -1);
  size_t seen = 0;
  int64_t best = -1;
  uint32_t best_node = 0;
  while (!ready.empty()) {
    const uint32_t u = ready.top();
    ready.pop();
    ++seen;
    if (dist[u] > best) {
      best = dist[u];
      best_node = u;
    }
    for (uint32_t k = first[u]; k < first[u + 1]; ++k) {
      const CpEdge& e = g.edges[out[k]];
      const int64_t cand = dist[u] + std::max<int64_t>(e.weight, 0);
      if (cand > dist[e.to] || pred[e.to] < 0) {
        if (cand >= dist[e.to]) {
          dist[e.to] = cand;
          pred[e.to] = static_cast<int32_t>(out[k]);
        }
      }
      if (--indeg[e.to] == 0) ready.push(e.to);
    }
  }
  if (seen != nv) return false;  // a cycle
  for (int32_t k = pred[best_node]; k >= 0; k = pred[g.edges[static_cast<size_t>(k)].from])
    path_edges->push_back(static_cast<uint32_t>(k));
  std::reverse(path_edges->begin(), path_edges->end());
  return true;
}

namespace {

bool contains(std::string_view hay, std::string_view needle) {
  return hay.find(needle) != std::string_view::npos;
}

bool is_comm_kernel(std::string_view name) {
  for (size_t i = 0; i + 4 <= name.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(name[i])) == 'n' &&
        std::tolower(static_cast<unsigned char>(name[i + 1])) == 'c' &&
        std::tolower(static_cast<unsigned char>(name[i + 2])) == 'c' &&
        std::tolower(static_cast<unsigned char>(name[i + 3])) == 'l')
      return true;
  return false;
}

// comm: is_comm_kernel by name id (a path has up to a million edges, a trace a few names).
template <typename CommCache>
CpBound bound_of(const Trace& t, const CpPathEdge& e, CommCache& comm) {
  switch (e.type) {
    case CpEdgeType::kKernelKernelDelay:
      return CpBound::kGpuKernelKernel;
    case CpEdgeType::kLaunchDelay:
      return CpBound::kGpuLaunch;
    case CpEdgeType::kDependency:
    case CpEdgeType::kSyncDependency:
      return CpBound::kNone;
    case CpEdgeType::kOperator:
      break;
  }
  if (e.slice < 0 || !is_gpu_side(t.slices.kind[static_cast<size_t>(e.slice)]))
    return CpBound::kCpu;
  return comm(t.slices.name[static_cast<size_t>(e.slice)]) ? CpBound::kGpuCommunication
                                                           : CpBound::kGpuCompute;
}

// HTA's window: the instance-th slice (time order) whose name contains the annotation.
bool pick_window(const Trace& t, const CriticalPathOptions& o, CriticalPathResult* r) {
  const SliceTable& s = t.slices;
  if (o.whole_trace || (o.annotation.empty() && s.size() == 0)) {
    r->window_label = "whole trace";
    if (s.size() == 0) return true;
    r->window_begin = *std::min_element(s.ts.begin(), s.ts.end());
    r->window_end = r->window_begin;
    for (size_t i = 0; i < s.size(); ++i) r->window_end = std::max(r->window_end, s.end(i));
    return true;
  }
  if (o.window_end > o.window_begin) {
    r->window_label = o.window_name;
    r->window_begin = o.window_begin;
    r->window_end = o.window_end;
    return true;
  }
  if (o.window_slice >= 0 && static_cast<uint64_t>(o.window_slice) < s.size()) {
    const auto w = static_cast<uint32_t>(o.window_slice);
    r->window_slice = static_cast<int32_t>(w);
    r->annotation = r->window_label = std::string(t.str(s.name[w]));
    r->window_begin = s.ts[w];
    r->window_end = s.end(w);
    return true;
  }
  std::string annotation = o.annotation;
  int64_t instance = o.instance;
  if (annotation.empty()) {  // the first ProfilerStep, else the whole trace
    bool has_step = false;
    for (size_t i = 0; i < s.size() && !has_step; ++i) {
      int64_t n;
      has_step = !is_gpu_side(s.kind[i]) && parse_profiler_step(t.str(s.name[i]), &n);
    }
    if (!has_step) {
      CriticalPathOptions whole = o;
      whole.whole_trace = true;
      return pick_window(t, whole, r);
    }
    annotation = "ProfilerStep";
    instance = 0;
  }
  r->annotation = annotation;
  r->instance = instance;
  // Names are tested once each (a trace may have millions of names).
  std::vector<signed char> match(t.strings.size(), -1);
  std::vector<uint32_t> found;
  for (uint32_t i = 0; i < s.size(); ++i) {
    signed char& m = match[s.name[i]];
    if (m < 0) m = contains(t.str(s.name[i]), annotation) ? 1 : 0;
    if (m) found.push_back(i);
  }
  if (found.empty()) {
    r->error = "no event's name contains \"" + annotation + "\"";
    return false;
  }
  std::sort(found.begin(), found.end(), [&s](uint32_t a, uint32_t b) {
    return s.ts[a] != s.ts[b] ? s.ts[a] < s.ts[b] : a < b;
  });
  if (instance < 0 || static_cast<uint64_t>(instance) >= found.size()) {
    r->error = "\"" + annotation + "\" has " + std::to_string(found.size()) +
               " instance(s); instance " + std::to_string(instance) + " asked for";
    return false;
  }
  const uint32_t w = found[static_cast<size_t>(instance)];
  r->window_slice = static_cast<int32_t>(w);
  r->window_label = std::string(t.str(s.name[w]));
  r->window_begin = s.ts[w];
  r->window_end = s.end(w);
  return true;
}

}  // namespace

void set_default_window(const StepsResult& steps, const IterationsResult& iterations,
                        CriticalPathOptions* o) {
  if (!o->annotation.empty() || o->whole_trace) return;
  // A warm-up first step (allocations, autotuning, first launches) is not what bounds the loop:
  // the first steady step is the window.
  // Several warm-up steps captured: the first one after them.
  const size_t warmups = steps.steps.size() >= 2 ? warmup_step_count(steps, nullptr) : 0;
  const bool warmup = warmups > 0;
  if (steps.source == StepSource::kNvtxMarks && !steps.steps.empty()) {
    // A step between two marks is no slice: its time range is the window, named as the step
    // rules name it ("train_step #3").
    const Step& st = steps.steps[warmups];
    o->window_begin = st.host_begin;
    o->window_end = st.end;
    o->window_name = steps.range_name + " #" + std::to_string(st.number);
    return;
  }
  if (warmup) {
    o->window_slice = steps.steps[warmups].slice;
    return;
  }
  // A first ProfilerStep cut by the capture's start (StepsResult::first_cut) is no window
  // either: HTA's default, the first ProfilerStep instance, would be that cut step.
  if ((steps.source == StepSource::kStepLikeRange || steps.source == StepSource::kUserRange ||
       steps.first_cut) &&
      !steps.steps.empty()) {
    o->window_slice = steps.steps.front().slice;
  } else if (steps.found == 0 && !iterations.iterations.empty()) {
    const Iteration& first = iterations.iterations.front();
    o->window_begin = first.host_begin;
    o->window_end = first.end;
    o->window_name = "inferred iteration 0";
  }
}

CriticalPathResult critical_path(const Trace& trace, const LaunchJoin& join,
                                 const CriticalPathOptions& options) {
  CriticalPathResult r;
  if (!pick_window(trace, options, &r)) return r;
  if (options.max_window_slices > 0) {
    const SliceTable& s = trace.slices;
    size_t in_window = 0;
    for (size_t i = 0; i < s.size(); ++i)
      in_window += s.ts[i] < r.window_end && s.end(i) > r.window_begin;
    if (in_window > options.max_window_slices) {
      r.error = "its window (" + r.window_label + ") holds " + std::to_string(in_window) +
                " events, more than the report computes it for (" +
                std::to_string(options.max_window_slices) +
                "); run `kinetoscope critical-path` on the trace, with --annotation for a "
                "smaller window";
      return r;
    }
  }
  CpGraph g =
      build_cp_graph(trace, join, r.window_begin, r.window_end, options.zero_weight_launch_edges);
  r.nodes = g.nodes.size();
  r.edges = g.edges.size();
  r.blocking_zeroed = g.blocking_zeroed;
  for (const CpEdge& e : g.edges) r.negative_clamped += e.weight < 0;
  std::vector<uint32_t> path;
  if (!longest_path(g, &path)) {
    r.error = "the graph of this window has a cycle (inconsistent nesting or sync order)";
    return r;
  }
  auto comm = make_name_cache(trace, [](std::string_view n) { return is_comm_kernel(n) ? 1 : 0; });
  r.path.reserve(path.size());  // exact; grown by doubling it held up to twice the path
  for (uint32_t k : path) {
    const CpEdge& e = g.edges[k];
    CpPathEdge p;
    p.type = e.type;
    p.weight = std::max<int64_t>(e.weight, 0);
    p.from_ts = g.nodes[e.from].ts;
    p.to_ts = g.nodes[e.to].ts;
    // Operator and kernel-kernel edges carry HTA's attribution; the others are shown on the
    // event they lead to (the GPU op a launch starts, the call a sync releases).
    p.slice = (e.type == CpEdgeType::kOperator || e.type == CpEdgeType::kKernelKernelDelay)
                  ? e.attributed
                  : static_cast<int32_t>(g.nodes[e.to].slice);
    p.bound = bound_of(trace, p, comm);
    r.total += p.weight;
    r.bound[static_cast<int>(p.bound)] += p.weight;
    r.path.push_back(p);
  }
  r.ok = true;
  return r;
}

}  // namespace ks
