// HTA's view of a trace, found by rules from the data (never from a file name), so that the
// comparisons with HTA hold for any trace, also ones we have never seen. HTA (the commit named in
// ../shared/reference, hta/analyzers/breakdown_analysis.py, hta/common/trace.py,
// hta/utils/utils.py) decides from two things:
//   1. the `stream` arg: HTA's GPU ops are the events whose args.stream is an integer other than
//      -1 (trace_df["stream"].ne(-1)), its CPU events the others. So
//        - a GPU op (kernel, memcpy, memset, MTIA device op) without a stream arg is no GPU op
//          to HTA (an ncclKernel of an old Kineto, MTIA ops on a lane without one);
//        - a CPU-side event with one is: Triton's launcher cpu_op (named as its kernel,
//          args.stream = 0) and Kineto's cuda_sync events (Stream/Event/Context Sync, Stream
//          Wait Event; Context Sync carries 4294967295), which are of no kernel type (OTHER);
//        - a ProfilerStep annotation without one counts as a CPU step, also on the GPU side
//          (ROCm's gpu_user_annotation), and moves the last-step cut-off;
//   2. the name, for the kernel type: COMMUNICATION ^nccl.*Kernel, MEMORY ^Memcpy|^Memset|^dma,
//      COMPUTATION unless the name matches (^nccl.*Kernel)|(.*Memcpy)|(^Memset)|(.*Sync), else
//      OTHER: busy time in the temporal breakdown, in no kernel type and not in the kernel table.
// Kinetoscope decides what is a GPU op from the category and the track (a kernel is a kernel;
// a CPU op is not GPU work) and types ops with its own, broader name rules (kernel_class.h). The
// tests compare our analyses on HTA's op set, and count the runs where HTA's set is ours.
#pragma once
#include <simdjson.h>

#include <cstdint>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "analysis/analyze.h"
#include "corpus/hta_reference.h"
#include "helpers.h"

namespace ks_test {

constexpr int64_t kNoStreamArg = INT64_MIN;

// HTA's kernel types (hta/utils/utils.py get_kernel_type), by name.
enum class HtaType { kCommunication, kMemory, kComputation, kOther };

inline HtaType hta_type(std::string_view name) {
  // Python's re.match: anchored at the start (match_continuous), not at the end.
  static const std::regex comm("nccl.*Kernel");
  static const std::regex memory("(Memcpy)|(Memset)|(dma)");
  static const std::regex not_compute("(nccl.*Kernel)|(.*(Memcpy)|(Memset))|(.*Sync)");
  const std::string n(name);
  const auto at_start = std::regex_constants::match_continuous;
  if (std::regex_search(n, comm, at_start)) return HtaType::kCommunication;
  if (std::regex_search(n, memory, at_start)) return HtaType::kMemory;
  if (std::regex_search(n, not_compute, at_start)) return HtaType::kOther;
  return HtaType::kComputation;
}

inline ks::HtaCategory to_category(HtaType t) {
  return t == HtaType::kCommunication ? ks::HtaCategory::kCommunication
         : t == HtaType::kMemory      ? ks::HtaCategory::kMemory
                                      : ks::HtaCategory::kComputation;
}

struct HtaView {
  std::map<ks::StringId, HtaType> types;  // hta_type of the names of HTA's GPU ops
  HtaType type(ks::StringId name) const { return types.at(name); }
  std::vector<int64_t> stream_arg;  // per slice: args.stream as HTA reads it, or kNoStreamArg
  // GPU ops HTA does not see (no stream arg, or -1).
  std::vector<uint32_t> unseen_gpu_ops;
  // CPU-side slices HTA takes for GPU ops (a stream arg other than -1).
  std::vector<uint32_t> extra_ops;
  // GPU ops whose HTA type is not ours (OTHER, or another category).
  std::vector<uint32_t> retyped_ops;
  // HTA's ProfilerSteps: the slices named ProfilerStep... without a stream arg (CPU or GPU side).
  int64_t last_step_begin = INT64_MIN, last_step_end = INT64_MIN;
  uint64_t steps = 0;
  bool gpu_side_steps = false;  // some of them are GPU-side annotations
  // HTA's ops and types are ours (the op set may still differ: unseen ops, the cut-off).
  bool same_ops_and_types() const { return extra_ops.empty() && retyped_ops.empty(); }
  // No rule applies at all.
  bool same_as_ours() const {
    return same_ops_and_types() && unseen_gpu_ops.empty() && !gpu_side_steps;
  }
  bool hta_gpu_op(uint32_t i) const { return stream_arg[i] != kNoStreamArg; }
};

inline bool is_gpu_op_slice(const ks::Trace& t, uint32_t i) {
  return ks::is_gpu_op(t.slices.kind[i]);
}

// args.stream of one event (its bytes in the decompressed JSON), as HTA reads it: int(stream),
// -1 when it is not an integer; kNoStreamArg when absent or -1.
inline int64_t stream_arg_of(simdjson::dom::parser& parser, std::string_view event) {
  if (event.find("\"stream\"") == std::string_view::npos) return kNoStreamArg;
  simdjson::padded_string padded(event);
  simdjson::dom::element e, stream;
  if (parser.parse(padded).get(e) || e["args"]["stream"].get(stream)) return kNoStreamArg;
  int64_t v;
  uint64_t u;
  double d;
  if (!stream.get(v)) return v == -1 ? kNoStreamArg : v;
  if (!stream.get(u)) return static_cast<int64_t>(u & 0x7fffffffffffffffULL);
  if (!stream.get(d)) return d == -1 ? kNoStreamArg : static_cast<int64_t>(d);
  std::string_view text;
  if (!stream.get(text)) {
    char* end = nullptr;
    std::string s(text);
    long long x = std::strtoll(s.c_str(), &end, 10);
    if (!s.empty() && end && *end == 0 && x != -1) return x;
  }
  return kNoStreamArg;
}

// The view of `t`, whose decompressed JSON is `json` (the slices' byte ranges point into it).
inline HtaView hta_view(const ks::Trace& t, const std::string& json) {
  const ks::SliceTable& s = t.slices;
  HtaView v;
  v.stream_arg.assign(s.size(), kNoStreamArg);
  simdjson::dom::parser parser;
  for (uint32_t i = 0; i < s.size(); ++i) {
    if (s.file_offset(i) + s.byte_len(i) > json.size()) continue;
    v.stream_arg[i] =
        stream_arg_of(parser, std::string_view(json).substr(s.file_offset(i), s.byte_len(i)));
    const std::string_view name = t.str(s.name[i]);
    if (is_gpu_op_slice(t, i)) {
      if (!v.hta_gpu_op(i)) {
        v.unseen_gpu_ops.push_back(i);
        continue;
      }
      auto it = v.types.find(s.name[i]);
      if (it == v.types.end()) it = v.types.emplace(s.name[i], hta_type(name)).first;
      const HtaType type = it->second;
      if (type == HtaType::kOther ||
          to_category(type) != ks::hta_category(s.kind[i], t.str(s.name[i])))
        v.retyped_ops.push_back(i);
    } else if (v.hta_gpu_op(i)) {
      v.extra_ops.push_back(i);
      // Kineto's cuda_sync events (Stream Sync, Event Sync, Context Sync, Stream Wait Event):
      // busy time to HTA, of no kernel type (its temporal breakdown counts "Stream Wait Event",
      // which no name rule makes OTHER, as non-compute, and its kernel table lists none).
      const HtaType type = s.kind[i] == ks::SliceKind::kSync ? HtaType::kOther : hta_type(name);
      if (!v.types.count(s.name[i])) v.types.emplace(s.name[i], type);
    } else if (name.find("ProfilerStep") != std::string_view::npos) {
      ++v.steps;
      v.last_step_begin = std::max(v.last_step_begin, s.ts[i]);
      v.last_step_end = std::max(v.last_step_end, s.end(i));
      if (t.tracks[s.track[i]].kind == ks::TrackKind::kGpuStream || ks::is_gpu_side(s.kind[i]))
        v.gpu_side_steps = true;
    }
  }
  return v;
}

// HTA's microseconds, in place: start rounded up, end rounded down, on the timestamps as the
// trace wrote them (relative to baseTimeNanoseconds when it has one).
inline void round_like_hta(ks::Trace* t) {
  const int64_t base = t->facts.has_base_time ? t->facts.base_time_ns : 0;
  ks::SliceTable& s = t->slices;
  for (size_t i = 0; i < s.size(); ++i) {
    const int64_t begin = ceil_div(s.ts[i] - base, 1000) * 1000 + base;
    const int64_t end = floor_div(s.ts[i] + s.dur[i] - base, 1000) * 1000 + base;
    s.ts[i] = begin;
    s.dur[i] = end - begin;  // may be negative, as in HTA
  }
}

// HTA's op set among our GPU ops (empty: every op): the step filter (hta_reference.h), with
// HTA's last step (which may be a GPU-side annotation), and only the ops HTA sees.
inline std::vector<bool> hta_view_kept(const ks::Trace& t, const ks::LaunchJoin& join,
                                       const HtaView& v, bool include_last) {
  std::vector<bool> kept = hta_kept_ops(t, join, include_last);
  if (!kept.empty() && v.gpu_side_steps)
    kept = include_last ? ks::hta_launched_before(t, join, v.last_step_end, true)
                        : ks::hta_launched_before(t, join, v.last_step_begin, false);
  if (v.unseen_gpu_ops.empty()) return kept;
  if (kept.empty()) kept.assign(t.slices.size(), true);
  for (uint32_t i : v.unseen_gpu_ops) kept[i] = false;
  return kept;
}

// The CPU-side ops HTA counts as GPU ops, in the same op set: with a step filter HTA keeps a
// "GPU op" by its correlation with a CPU event before the cut-off; these carry none, so they are
// only in HTA's set when there is no step filter (every reference trace with them has < 2 steps;
// the tests require that).
inline std::vector<uint32_t> hta_view_extra(const HtaView& v, const std::vector<bool>& kept) {
  return kept.empty() ? v.extra_ops : std::vector<uint32_t>();
}

}  // namespace ks_test
