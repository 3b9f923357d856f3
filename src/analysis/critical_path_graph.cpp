// The critical path graph of one window (critical_path.h), following HTA's CPGraph rule for
// rule (hta/analyzers/critical_path_analysis.py): which events are in the window, the CPU call
// stack walk, the queue-length test that tells a launch delay from a kernel-kernel gap, and the
// CUDA event bookkeeping behind cudaEventSynchronize and cudaStreamWaitEvent.
// Every step is a sort or a linear pass: O(n log n) in the trace's slices.
// Its tables are the window's, not the trace's (issue #19: the graph was the largest step of a
// report): a slice's node, queue length and clipping are kept for the slices that have nodes,
// found by binary search, and a sync's CPU call in a sparse list; the edges are counted first.
#include <algorithm>
#include <climits>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "analysis/critical_path.h"
#include "analysis/steps.h"
#include "analysis/sync_names.h"

namespace ks {
namespace {

// The runtime calls whose GPU op counts in the stream's launch queue (HTA's
// get_runtime_launch_events_query), and Intel XPU's equivalents as Kineto's XPUPTI plugin names
// them (the Unified Runtime's enqueue calls, the older PI's, Level Zero's appends): without
// them an XPU trace's kernels had no launch edge, and its critical path ran from kernel to
// kernel as gaps between them where the CUDA twin's is CPU-bound (tests/corpus/unseen_shapes2.py).
bool is_launch_call(std::string_view name) {
  name = sync_base_name(name);
  for (std::string_view l : {"cudaLaunchKernel",
                             "cudaLaunchKernelExC",
                             "cuLaunchKernel",
                             "cuLaunchKernelEx",
                             "cudaMemcpyAsync",
                             "cudaMemsetAsync",
                             "hipLaunchKernel",
                             "hipExtModuleLaunchKernel",
                             "hipMemsetAsync",
                             "hipMemcpyAsync",
                             "hipMemcpyWithStream",
                             "runFunction - job_prep_and_submit_for_execution",
                             "urEnqueueKernelLaunch",
                             "urEnqueueUSMMemcpy",
                             "urEnqueueUSMFill",
                             "piEnqueueKernelLaunch",
                             "piextUSMEnqueueMemcpy",
                             "piextUSMEnqueueFill",
                             "zeCommandListAppendLaunchKernel",
                             "zeCommandListAppendMemoryCopy",
                             "zeCommandListAppendMemoryFill"})
    if (name == l) return true;
  return false;
}

// HTA's BLOCKING_SYNC_CALLS: the time from their last child to their end is the GPU's.
// Without cudaMemcpyAsync, which HTA's newest source adds: the HTA that produced the shared
// references charges it to the CPU (docs/hta-differences.md, "Critical path").
// Intel XPU's queue and event waits (analysis/sync_names.h) block the same way; HIP's are left
// as HTA leaves them, for the shared references of ROCm captures.
bool is_blocking_call(std::string_view name) {
  name = sync_base_name(name);
  for (std::string_view b : {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventQuery",
                             "cudaEventSynchronize", "cudaMemcpy"})
    if (name == b) return true;
  return is_xpu_synchronize(name);
}

class GraphBuilder {
 public:
  GraphBuilder(const Trace& t, const LaunchJoin& j, int64_t begin, int64_t end, bool zero_launch)
      : t_(t), s_(t.slices), j_(j), begin_(begin), end_(end), zero_launch_(zero_launch) {}

  CpGraph build() {
    const size_t n = s_.size();
    link_syncs_to_runtime();
    make_nodes();
    // Before any edge is made: their events, two per launch of the whole trace, are then the
    // only large table alive.
    queue_lengths();
    event_records();
    stream_waits();
    // The edges, counted before they are made (grown by doubling they held up to twice their
    // size, and the old copy while growing): each call stack with N nodes gives 2N - 1 (an
    // edge into and out of each node, less the first's way in), the GPU side is walked twice.
    g_.edges.reserve(cpu_edge_count() + walk_gpu(/*count_only=*/true));
    for (size_t lo = 0; lo < n;) {  // slices are sorted by track: one run per track
      size_t hi = lo;
      while (hi < n && s_.track[hi] == s_.track[lo]) ++hi;
      walk_call_stack(lo, hi);
      lo = hi;
    }
    walk_gpu(/*count_only=*/false);
    return std::move(g_);
  }

 private:
  // HTA's `stream != -1`: GPU ops, GPU-side annotations and the syncs drawn on a stream.
  bool on_stream(size_t i) const {
    SliceKind k = s_.kind[i];
    if (is_gpu_op(k) || k == SliceKind::kGpuUserAnnotation) return true;
    return k == SliceKind::kSync && t_.tracks[s_.track[i]].stream >= 0;
  }
  int64_t stream_key(size_t i) const {
    int64_t st = t_.tracks[s_.track[i]].stream;
    return st >= 0 ? st : (int64_t{1} << 40) + s_.track[i];  // a stream-less GPU track: its own
  }
  bool name_is(size_t i, std::string_view n) const { return t_.str(s_.name[i]) == n; }

  // The CPU call of each cuda_sync slice: the first runtime/driver call (by index) of its
  // correlation. Indexed by the syncs, few, not by the calls, many.
  void link_syncs_to_runtime() {
    const size_t n = s_.size();
    std::vector<std::pair<int64_t, uint32_t>> by_corr;  // (correlation, sync)
    for (uint32_t i = 0; i < n; ++i)
      if (s_.kind[i] == SliceKind::kSync && s_.correlation[i] != kNoValue)
        by_corr.emplace_back(s_.correlation[i], i);
    if (by_corr.empty()) return;
    std::sort(by_corr.begin(), by_corr.end());
    std::vector<int32_t> call(by_corr.size(), -1);
    for (uint32_t i = 0; i < n; ++i) {
      SliceKind k = s_.kind[i];
      if ((k != SliceKind::kRuntime && k != SliceKind::kDriver) || s_.correlation[i] == kNoValue)
        continue;
      auto it = std::lower_bound(by_corr.begin(), by_corr.end(),
                                 std::make_pair(s_.correlation[i], uint32_t{0}));
      for (; it != by_corr.end() && it->first == s_.correlation[i]; ++it) {
        int32_t& c = call[static_cast<size_t>(it - by_corr.begin())];
        if (c < 0) c = static_cast<int32_t>(i);
      }
    }
    for (size_t k = 0; k < by_corr.size(); ++k) {
      if (call[k] < 0) continue;
      sync_call_.emplace_back(by_corr[k].second, static_cast<uint32_t>(call[k]));
      sync_of_call_.emplace_back(static_cast<uint32_t>(call[k]), by_corr[k].second);
    }
    std::sort(sync_call_.begin(), sync_call_.end());
    // By call; a call with several syncs keeps its first.
    std::sort(sync_of_call_.begin(), sync_of_call_.end());
    sync_of_call_.erase(
        std::unique(sync_of_call_.begin(), sync_of_call_.end(),
                    [](const auto& a, const auto& b) { return a.first == b.first; }),
        sync_of_call_.end());
  }

  // GPU op / sync -> its CPU call, and a CPU call -> its GPU op (launch join + syncs), -1: none.
  int32_t partner(size_t i) const {
    if (s_.kind[i] == SliceKind::kSync && !sync_call_.empty()) {
      const auto u = static_cast<uint32_t>(i);
      auto it = std::lower_bound(sync_call_.begin(), sync_call_.end(), std::make_pair(u, 0u));
      if (it != sync_call_.end() && it->first == u) return static_cast<int32_t>(it->second);
    }
    return std::max<int32_t>(j_.partner[i], -1);
  }

  bool in_window(int64_t ts) const { return ts >= begin_ && ts <= end_; }

  // HTA's clipping: CPU-side events that start in the window and last > 0; GPU-side events whose
  // CPU call starts in the window and lasts > 0; every "Stream Wait Event".
  bool clipped(size_t i) const {
    if (!on_stream(i)) return in_window(s_.ts[i]) && s_.dur[i] > 0;
    const int32_t p = partner(i);
    return (p >= 0 && in_window(s_.ts[p]) && s_.dur[p] > 0) ||
           (s_.kind[i] == SliceKind::kSync && name_is(i, "Stream Wait Event"));
  }

  bool is_node_slice(size_t i) const {
    if (!clipped(i)) return false;
    SliceKind k = s_.kind[i];
    // 2021 traces record ProfilerStep#N as an "Operator": it is the step's annotation, not an op
    // (as a node it would make every step 100% CPU-bound).
    int64_t step;
    if (k == SliceKind::kCpuOp && parse_profiler_step(t_.str(s_.name[i]), &step)) return false;
    if (k == SliceKind::kCpuOp || k == SliceKind::kRuntime || k == SliceKind::kDriver) return true;
    return on_stream(i) && partner(i) >= 0;
  }

  // The index of a slice among the slices with nodes, -1 when it has none.
  int32_t node_slice(size_t i) const {
    const auto u = static_cast<uint32_t>(i);
    auto it = std::lower_bound(node_slices_.begin(), node_slices_.end(), u);
    return it != node_slices_.end() && *it == u ? static_cast<int32_t>(it - node_slices_.begin())
                                                : -1;
  }
  int32_t start_node(size_t i) const {
    const int32_t k = node_slice(i);
    return k < 0 ? -1 : start_[static_cast<size_t>(k)];
  }
  int32_t end_node(size_t i) const {
    const int32_t k = node_slice(i);
    return k < 0 ? -1 : end_node_[static_cast<size_t>(k)];
  }
  int queue(size_t i) const {
    const int32_t k = node_slice(i);
    return k < 0 ? INT_MIN : queue_[static_cast<size_t>(k)];
  }

  // Two nodes per event, numbered in time order (the order the topological sort prefers).
  void make_nodes() {
    const size_t n = s_.size();
    std::vector<CpNode>& nodes = g_.nodes;
    // Counted first, then reserved: grown by doubling, the nodes held up to twice their size and,
    // while growing, the old copy too (the critical path is the largest step of a report on many
    // tiny kernels, issue #19).
    size_t count = 0;
    for (uint32_t i = 0; i < n; ++i) count += is_node_slice(i) ? 1 : 0;
    node_slices_.reserve(count);
    for (uint32_t i = 0; i < n; ++i)
      if (is_node_slice(i)) node_slices_.push_back(i);
    g_.table_rows = count;
    start_.assign(count, -1);
    end_node_.assign(count, -1);
    nodes.reserve(2 * count);
    for (uint32_t i : node_slices_) {
      nodes.push_back({s_.ts[i], i, true});
      nodes.push_back({s_.ts[i] + std::max<int64_t>(s_.dur[i], 0), i, false});
    }
    std::sort(nodes.begin(), nodes.end(), [](const CpNode& a, const CpNode& b) {
      if (a.ts != b.ts) return a.ts < b.ts;
      if (a.slice != b.slice) return a.slice < b.slice;
      return a.is_start > b.is_start;
    });
    for (uint32_t k = 0; k < nodes.size(); ++k) {
      const auto at = static_cast<size_t>(node_slice(nodes[k].slice));
      (nodes[k].is_start ? start_ : end_node_)[at] = static_cast<int32_t>(k);
    }
  }

  // The edges walk_call_stack makes: 2N - 1 for each CPU thread with N nodes.
  size_t cpu_edge_count() const {
    size_t edges = 0, on_track = 0;
    TrackId track = 0;
    for (uint32_t i : node_slices_) {
      if (on_stream(i)) continue;
      if (on_track > 0 && s_.track[i] != track) {
        edges += 2 * on_track - 1;
        on_track = 0;
      }
      track = s_.track[i];
      ++on_track;
    }
    return on_track > 0 ? edges + 2 * on_track - 1 : edges;
  }

  uint32_t add_edge(int32_t from, int32_t to, CpEdgeType type, bool zero_weight = false) {
    if (counting_) {
      ++counted_;
      return UINT32_MAX;
    }
    CpEdge e;
    e.from = static_cast<uint32_t>(from);
    e.to = static_cast<uint32_t>(to);
    e.type = type;
    const bool weightless =
        zero_weight || type == CpEdgeType::kDependency || type == CpEdgeType::kSyncDependency;
    e.weight = weightless ? 0 : g_.nodes[e.to].ts - g_.nodes[e.from].ts;
    g_.edges.push_back(e);
    return static_cast<uint32_t>(g_.edges.size() - 1);
  }

  // HTA's _attribute_edge: start->* is the source event's, *->end the destination's, and an
  // end->start gap inside an op belongs to the op around both (the stack parent).
  void attribute(uint32_t e, int32_t src_parent) {
    if (e == UINT32_MAX) return;  // counted, not made
    CpEdge& edge = g_.edges[e];
    if (edge.type != CpEdgeType::kOperator && edge.type != CpEdgeType::kKernelKernelDelay) return;
    const CpNode& src = g_.nodes[edge.from];
    const CpNode& dst = g_.nodes[edge.to];
    if (edge.type == CpEdgeType::kKernelKernelDelay || src.is_start)
      edge.attributed = static_cast<int32_t>(src.slice);
    else if (!dst.is_start)
      edge.attributed = static_cast<int32_t>(dst.slice);
    else
      edge.attributed = src_parent;
  }

  // One CPU thread: HTA's call stack (start/end events sorted, a start's parent is the top of the
  // stack, an end pops the top), then a depth-first walk adding the operator edges.
  void walk_call_stack(size_t lo, size_t hi) {
    size_t events = 0;
    bool any_node = false;
    for (size_t i = lo; i < hi; ++i) {
      if (on_stream(i) || !clipped(i)) continue;
      ++events;
      any_node |= node_slice(i) >= 0;
    }
    if (!any_node) return;
    // A slice's start and end as 8 bytes each, (slice << 1) | 1 for the end, its time and length
    // read from the slice table: copied (24 bytes each, grown by doubling), they were the largest
    // table of the critical path on a thread of many ops (issue #19).
    std::vector<uint64_t> evs;
    evs.reserve(2 * events);
    for (size_t i = lo; i < hi; ++i) {
      if (on_stream(i) || !clipped(i)) continue;
      evs.push_back(uint64_t{i} << 1);
      evs.push_back(uint64_t{i} << 1 | 1);
    }
    // HTA's compare_events for events of positive duration: by time; at one time ends first;
    // starts longer first, ends shorter first; then by index (starts up, ends down).
    std::sort(evs.begin(), evs.end(), [this](uint64_t a, uint64_t b) {
      const size_t sa = a >> 1, sb = b >> 1;
      const bool a_start = !(a & 1), b_start = !(b & 1);
      if (sa == sb) return a_start && !b_start;
      const int64_t ta = a_start ? s_.ts[sa] : s_.ts[sa] + s_.dur[sa];
      const int64_t tb = b_start ? s_.ts[sb] : s_.ts[sb] + s_.dur[sb];
      if (ta != tb) return ta < tb;
      if (a_start != b_start) return !a_start;
      const int64_t da = s_.dur[sa], db = s_.dur[sb];
      if (da != db) return a_start ? da > db : da < db;
      return a_start ? sa < sb : sa > sb;
    });
    // The tree, as first-child / next-sibling lists over local ids (-1 is the root).
    std::vector<uint32_t> slice_of;
    std::vector<int32_t> parent, first_child, last_child, next_sibling;
    for (auto* v : {&parent, &first_child, &last_child, &next_sibling}) v->reserve(events);
    slice_of.reserve(events);
    std::vector<int32_t> stack;
    int32_t root_first = -1, root_last = -1;
    for (uint64_t e : evs) {
      if (e & 1) {
        if (!stack.empty()) stack.pop_back();
        continue;
      }
      const auto id = static_cast<int32_t>(slice_of.size());
      slice_of.push_back(static_cast<uint32_t>(e >> 1));
      const int32_t p = stack.empty() ? -1 : stack.back();
      parent.push_back(p);
      first_child.push_back(-1);
      last_child.push_back(-1);
      next_sibling.push_back(-1);
      int32_t& head = p < 0 ? root_first : first_child[p];
      int32_t& tail = p < 0 ? root_last : last_child[p];
      if (tail < 0)
        head = id;
      else
        next_sibling[tail] = id;
      tail = id;
      stack.push_back(id);
    }
    // Only the tree is walked.
    for (auto* v : {&last_child, &stack}) std::vector<int32_t>().swap(*v);
    std::vector<uint64_t>().swap(evs);
    // Depth-first, iteratively (stacks 100,000 deep are in the scaling tests).
    int32_t last_node = -1, last_high = -1, last_parent = -1;
    int depth = 0;
    auto slice_parent = [&](int32_t id) {
      return parent[id] < 0 ? -1 : static_cast<int32_t>(slice_of[parent[id]]);
    };
    auto enter = [&](int32_t id) {
      const uint32_t sl = slice_of[id];
      const int32_t st = start_node(sl);
      if (st < 0) return;
      if (depth == 0 && last_high >= 0) add_edge(last_high, st, CpEdgeType::kDependency);
      ++depth;
      if (last_node >= 0) attribute(add_edge(last_node, st, CpEdgeType::kOperator), last_parent);
      last_node = st;
      last_parent = slice_parent(id);
    };
    auto exit = [&](int32_t id) {
      const uint32_t sl = slice_of[id];
      const int32_t en = end_node(sl);
      if (en < 0) return;
      --depth;
      if (last_node >= 0) {
        const bool blocking = is_blocking_call(t_.str(s_.name[sl]));
        g_.blocking_zeroed += blocking;
        attribute(add_edge(last_node, en, CpEdgeType::kOperator, blocking), last_parent);
      }
      if (depth == 0) {
        last_node = -1;
        last_high = en;
      } else {
        last_node = en;
        last_parent = slice_parent(id);
      }
    };
    std::vector<std::pair<int32_t, bool>> todo;  // (id, children done)
    for (int32_t r = root_first; r >= 0; r = next_sibling[r]) {
      todo.push_back({r, false});
      while (!todo.empty()) {
        auto [id, done] = todo.back();
        todo.pop_back();
        if (done) {
          exit(id);
          continue;
        }
        enter(id);
        todo.push_back({id, true});
        // Children in order: push them reversed.
        size_t mark = todo.size();
        for (int32_t c = first_child[id]; c >= 0; c = next_sibling[c]) todo.push_back({c, false});
        std::reverse(todo.begin() + static_cast<std::ptrdiff_t>(mark), todo.end());
      }
    }
  }

  // HTA's queue length per stream over the whole trace: +1 at each launch call (of the
  // is_launch_call kind, with its GPU op), -1 when that op starts. Kept after each change.
  void queue_lengths() {
    queue_.assign(node_slices_.size(), INT_MIN);
    for (uint32_t r : j_.runtime_by_ts)
      if (j_.partner[r] >= 0 && is_launch_call(t_.str(s_.name[r]))) launches_.push_back(r);
    // Two events per launch of the whole trace (the queue is the stream's history), 16 bytes
    // each: the stream as its rank among the launches' streams (few), and whether it is the
    // launch (+1) or its op's start (-1) in the rank's low bit. Sorted as (stream, time, launch
    // first), the order is the 24-byte events' own: a sort's moves follow its comparisons alone.
    struct QEv {
      int64_t ts;
      uint32_t slice;
      uint32_t stream_op;  // stream rank << 1 | 1 for an op's start
    };
    std::vector<int64_t> streams;
    for (uint32_t r : launches_) {
      const int64_t key = stream_key(static_cast<size_t>(j_.partner[r]));
      auto it = std::lower_bound(streams.begin(), streams.end(), key);
      if (it == streams.end() || *it != key) streams.insert(it, key);
    }
    auto rank = [&streams](int64_t key) {
      return static_cast<uint32_t>(std::lower_bound(streams.begin(), streams.end(), key) -
                                   streams.begin());
    };
    // Reserved: grown by doubling, this was the largest allocation of a report (and the copy
    // while growing).
    std::vector<QEv> q;
    q.reserve(2 * launches_.size());
    for (uint32_t r : launches_) {
      const auto g = static_cast<uint32_t>(j_.partner[r]);
      const uint32_t stream = rank(stream_key(g));
      q.push_back({s_.ts[r], r, stream << 1});
      q.push_back({s_.ts[g], g, stream << 1 | 1});
    }
    std::sort(q.begin(), q.end(), [](const QEv& a, const QEv& b) {
      if (a.stream_op >> 1 != b.stream_op >> 1) return a.stream_op >> 1 < b.stream_op >> 1;
      if (a.ts != b.ts) return a.ts < b.ts;
      return (a.stream_op & 1) < (b.stream_op & 1);  // a launch before an op start at one time
    });
    int cur = 0;
    for (size_t k = 0; k < q.size(); ++k) {
      if (k == 0 || q[k].stream_op >> 1 != q[k - 1].stream_op >> 1) cur = 0;
      cur += (q[k].stream_op & 1) ? -1 : +1;
      const int32_t at = node_slice(q[k].slice);
      if (at >= 0) queue_[static_cast<size_t>(at)] = cur;
    }
  }

  // For each cudaEventRecord a sync waits on: the last launch on the event's (GPU, stream)
  // before the record; that launch's GPU op is what the waiter waits for.
  void event_records() {
    struct Where {
      uint32_t process;
      int64_t stream;
    };
    std::unordered_map<int64_t, Where> stream_of_record;
    for (const auto& [slice, w] : s_.sync_waits) {
      if (w.wait_on_stream < 0 || w.record_correlation == kNoValue) continue;
      stream_of_record.emplace(w.record_correlation,
                               Where{t_.tracks[s_.track[slice]].process, w.wait_on_stream});
    }
    if (stream_of_record.empty()) return;
    // Launches by (GPU process, stream), in time order (launches_ is).
    std::vector<std::pair<std::pair<uint32_t, int64_t>, uint32_t>> by_stream;
    by_stream.reserve(launches_.size());
    for (uint32_t r : launches_) {
      auto g = static_cast<size_t>(j_.partner[r]);
      by_stream.push_back({{t_.tracks[s_.track[g]].process, stream_key(g)}, r});
    }
    std::stable_sort(by_stream.begin(), by_stream.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (uint32_t r : j_.runtime_by_ts) {
      if (s_.correlation[r] == kNoValue || !name_is(r, "cudaEventRecord")) continue;
      auto it = stream_of_record.find(s_.correlation[r]);
      if (it == stream_of_record.end()) continue;
      const std::pair<uint32_t, int64_t> key{it->second.process, it->second.stream};
      auto lo = std::lower_bound(by_stream.begin(), by_stream.end(), key,
                                 [](const auto& e, const auto& k) { return e.first < k; });
      auto hi = std::upper_bound(lo, by_stream.end(), key,
                                 [](const auto& k, const auto& e) { return k < e.first; });
      // The last launch at or before the record.
      auto at = std::upper_bound(
          lo, hi, s_.ts[r], [this](int64_t ts, const auto& e) { return ts < s_.ts[e.second]; });
      if (at == lo) continue;
      previous_launch_.emplace(s_.correlation[r], (at - 1)->second);
    }
  }

  // For each cudaStreamWaitEvent: the first launch after it from the same CPU thread onto the
  // waiting stream; its GPU op is the one that waits.
  void stream_waits() {
    // Its table is 24 bytes a launch of the trace: made only when some call waits on an event.
    if (std::none_of(sync_of_call_.begin(), sync_of_call_.end(), [this](const auto& cs) {
          return name_is(cs.second, "Stream Wait Event") && on_stream(cs.second);
        }))
      return;
    std::vector<std::pair<std::pair<TrackId, int64_t>, uint32_t>> by_thread;
    by_thread.reserve(launches_.size());
    for (uint32_t r : launches_)
      by_thread.push_back({{s_.track[r], stream_key(static_cast<size_t>(j_.partner[r]))}, r});
    std::stable_sort(by_thread.begin(), by_thread.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [call, sync] : sync_of_call_) {
      if (!name_is(sync, "Stream Wait Event") || !on_stream(sync)) continue;
      const std::pair<TrackId, int64_t> key{s_.track[call], stream_key(sync)};
      auto lo = std::lower_bound(by_thread.begin(), by_thread.end(), key,
                                 [](const auto& e, const auto& k) { return e.first < k; });
      auto hi = std::upper_bound(lo, by_thread.end(), key,
                                 [](const auto& k, const auto& e) { return k < e.first; });
      auto at = std::lower_bound(
          lo, hi, s_.ts[call], [this](const auto& e, int64_t ts) { return s_.ts[e.second] < ts; });
      if (at != hi) next_launch_.emplace(call, at->second);
    }
  }

  // The GPU op of the launch before the CUDA event a sync waits on, -1 when unknown.
  int32_t waited_op(uint32_t sync) const {
    const SyncWaitArgs* w = s_.sync_wait(sync);
    if (!w) return -1;
    auto it = previous_launch_.find(w->record_correlation);
    return it == previous_launch_.end() ? -1 : j_.partner[it->second];
  }

  // HTA's _construct_graph_from_kernels: GPU ops in start order, syncs at their end.
  // count_only: the edges it would make, counted (none made).
  size_t walk_gpu(bool count_only) {
    counting_ = count_only;
    counted_ = 0;
    std::vector<std::pair<int64_t, uint32_t>> rows;
    for (uint32_t i = 0; i < s_.size(); ++i) {
      if (partner(i) < 0 || !clipped(i)) continue;
      const bool sync = s_.kind[i] == SliceKind::kSync;
      if (!on_stream(i) && !(sync && (name_is(i, "Event Sync") || name_is(i, "Context Sync"))))
        continue;
      rows.emplace_back(sync ? s_.ts[i] + s_.dur[i] : s_.ts[i], i);
    }
    std::sort(rows.begin(), rows.end());
    std::unordered_map<int64_t, int32_t> last;           // stream -> end node of its last op
    std::unordered_map<uint32_t, uint32_t> kernel_sync;  // waiting op -> op it waits for
    for (const auto& row : rows) {
      const uint32_t i = row.second;
      const auto runtime = static_cast<uint32_t>(partner(i));
      const int32_t runtime_end = end_node(runtime);
      if (s_.kind[i] == SliceKind::kSync) {
        if (name_is(i, "Stream Wait Event") || name_is(i, "Event Sync")) {
          const int32_t src = waited_op(i);
          if (src < 0) continue;
          if (name_is(i, "Stream Wait Event")) {
            auto next = next_launch_.find(runtime);
            if (next != next_launch_.end())
              kernel_sync[static_cast<uint32_t>(j_.partner[next->second])] =
                  static_cast<uint32_t>(src);
          } else if (end_node(static_cast<size_t>(src)) >= 0 && runtime_end >= 0) {
            add_edge(end_node(static_cast<size_t>(src)), runtime_end, CpEdgeType::kSyncDependency);
          }
          continue;
        }
        const bool context = name_is(i, "Context Sync");
        if (!context && !name_is(i, "Stream Sync")) continue;
        if (runtime_end < 0) continue;
        if (context) {
          for (const auto& kv : last) add_edge(kv.second, runtime_end, CpEdgeType::kSyncDependency);
        } else {
          auto it = last.find(stream_key(i));
          if (it != last.end()) add_edge(it->second, runtime_end, CpEdgeType::kSyncDependency);
        }
        continue;
      }
      const int32_t st = start_node(i), en = end_node(i);
      if (st < 0 || en < 0) continue;
      attribute(add_edge(st, en, CpEdgeType::kOperator), -1);
      const int64_t stream = stream_key(i);
      int32_t sync_end = -1;
      auto ks = kernel_sync.find(i);
      if (ks != kernel_sync.end()) {
        sync_end = end_node(ks->second);
        if (sync_end >= 0) add_edge(sync_end, st, CpEdgeType::kSyncDependency);
        kernel_sync.erase(ks);
      }
      auto lt = last.find(stream);
      const int32_t prev = lt == last.end() ? -1 : lt->second;
      const int64_t launch_ts = s_.ts[runtime];
      bool launch_added = false;
      const int32_t runtime_start = start_node(runtime);
      if (queue(runtime) == 1 && queue(i) == 0 && (prev < 0 || g_.nodes[prev].ts < launch_ts) &&
          (sync_end < 0 || g_.nodes[sync_end].ts < launch_ts) && runtime_start >= 0) {
        add_edge(runtime_start, st, CpEdgeType::kLaunchDelay);
        launch_added = true;
      } else if (prev >= 0 && (sync_end < 0 || g_.nodes[sync_end].ts < g_.nodes[prev].ts)) {
        attribute(add_edge(prev, st, CpEdgeType::kKernelKernelDelay), -1);
      }
      if (zero_launch_ && !launch_added && runtime_start >= 0)
        add_edge(runtime_start, st, CpEdgeType::kLaunchDelay, true);
      last[stream] = en;
    }
    counting_ = false;
    return counted_;
  }

  const Trace& t_;
  const SliceTable& s_;
  const LaunchJoin& j_;
  const int64_t begin_, end_;
  const bool zero_launch_;
  CpGraph g_;
  bool counting_ = false;  // add_edge counts, makes none (walk_gpu's first pass)
  size_t counted_ = 0;
  std::vector<std::pair<uint32_t, uint32_t>> sync_call_;  // (cuda_sync slice, its CPU call)
  // (CPU call, its cuda_sync slice), sorted by call: a vector, not a hash map (a node per sync,
  // the largest of the graph's tables on an export with a sync per launch).
  std::vector<std::pair<uint32_t, uint32_t>> sync_of_call_;
  // The slices with nodes, ascending, and by their index there: their start and end nodes, and
  // their launch queue length (INT_MIN: none). Of the window, not the trace.
  std::vector<uint32_t> node_slices_;
  std::vector<int32_t> start_, end_node_;
  std::vector<int> queue_;
  std::vector<uint32_t> launches_;  // launch calls with a GPU op, in time order
  std::unordered_map<int64_t, uint32_t> previous_launch_;  // record correlation -> launch
  std::unordered_map<uint32_t, uint32_t> next_launch_;     // cudaStreamWaitEvent -> launch
};

}  // namespace

CpGraph build_cp_graph(const Trace& trace, const LaunchJoin& join, int64_t begin, int64_t end,
                       bool zero_weight_launch_edges) {
  return GraphBuilder(trace, join, begin, end, zero_weight_launch_edges).build();
}

}  // namespace ks
