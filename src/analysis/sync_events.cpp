#include "analysis/sync_events.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include "analysis/gpu_intervals.h"
#include "analysis/gpu_op_summary.h"
#include "analysis/name_cache.h"
#include "analysis/nvtx_context.h"
#include "analysis/python_source.h"
#include "analysis/steps.h"

namespace ks {

namespace {

std::string chain_text(const Trace& t, const std::vector<StringId>& chain) {
  std::string out;
  for (StringId id : chain) {
    if (!out.empty()) out += " > ";
    out += std::string(t.str(id));
  }
  return out;
}

// The ops emit_nvtx's ranges name around a call in an Nsight Systems export, outermost first,
// at most `max_depth`, each by its op ("aten::copy_", not "aten::copy_, seq = 3, op_id = 9,
// sizes = [...]"): the chain a Kineto trace of the run gives by its CPU ops, so the program's
// own ranges (record_function's "## forward ##") are left out, as a trace leaves them out. ""
// when no such range is open.
std::string emit_nvtx_ops_text(const Trace& t, const EnclosingNvtxRanges& nvtx, uint32_t call,
                               size_t max_depth) {
  std::vector<std::string_view> ops;
  nvtx.walk_out(call, [&](StringId name) {
    const std::string_view n = t.str(name);
    if (is_emit_nvtx_op_range(n)) ops.push_back(emit_nvtx_op_name(n));
    return true;
  });
  std::string out;
  for (size_t k = ops.size(); k-- > 0 && ops.size() - k <= max_depth;)
    out += (out.empty() ? "" : " > ") + std::string(ops[k]);
  return out.empty() ? out : out + " (NVTX)";
}

// The CPU ops around a call, else (Nsight Systems exports, which have no CPU ops) the ops of
// emit_nvtx's ranges around it, else the NVTX ranges around it; "" when none.
std::string enclosing_text(const Trace& t, EnclosingCpuOps* ops, const EnclosingNvtxRanges& nvtx,
                           uint32_t call) {
  std::string out = chain_text(t, ops->of(call));
  if (out.empty()) out = emit_nvtx_ops_text(t, nvtx, call, 4);
  return out.empty() ? nvtx.text_of(call) : out;
}

// What issued a copy: enclosing_text, or what the trace lacks to say it.
std::string origin_text(const Trace& t, EnclosingCpuOps* ops, const EnclosingNvtxRanges& nvtx,
                        uint32_t call) {
  std::string out = enclosing_text(t, ops, nvtx, call);
  // An Nsight Systems export with CUDA backtraces names the function that made the call: the
  // innermost origin, so copies from two call sites inside one NVTX range are two origins.
  const std::string caller = native_caller_of(t, call);
  if (!caller.empty()) return out.empty() ? caller : out + " > " + caller;
  if (!out.empty()) return out;
  return t.facts.format == TraceFormat::kNsysSqlite ? "(no enclosing NVTX range)"
                                                    : "(no enclosing CPU op)";
}

// Index of the window (sorted by begin, disjoint) whose device-adjusted range contains ts, or -1.
int window_at(const std::vector<Iteration>& w, int64_t ts) {
  auto it = std::upper_bound(w.begin(), w.end(), ts,
                             [](int64_t x, const Iteration& st) { return x < st.begin; });
  if (it == w.begin()) return -1;
  --it;
  return ts < it->end ? static_cast<int>(it - w.begin()) : -1;
}

}  // namespace

SyncResult find_sync_events(const Trace& t, const LaunchJoin& join, const StepsResult& steps,
                            const IterationsResult* inferred, const EnclosingNvtxRanges* shared) {
  const SliceTable& s = t.slices;
  SyncResult r;
  std::unordered_map<StringId, SyncCallRow> calls;
  auto family =
      make_name_cache(t, [](std::string_view n) { return static_cast<int>(sync_family(n)); });
  std::vector<Interval> blocked;
  for (uint32_t i : join.runtime_by_ts) {
    if (!call_blocks_host(static_cast<SyncFamily>(family(s.name[i])), t, join, i)) continue;
    blocked.push_back({s.ts[i], s.end(i)});
    SyncCallRow& row = calls[s.name[i]];
    row.name = s.name[i];
    ++row.count;
    row.total_ns += s.dur[i];
    row.max_ns = std::max(row.max_ns, s.dur[i]);
    row.longest.push_back(i);
  }
  blocked = merge_intervals(std::move(blocked));
  r.blocked_ns = total_length(blocked);
  r.gpu_busy_while_blocked_ns = gpu_busy_within(t, join, blocked);
  r.blocked_in_steps_ns = r.blocked_ns;
  if (!steps.steps.empty()) {
    std::vector<Interval> windows;
    for (const Step& st : steps.steps) windows.push_back({st.begin, st.end});
    r.blocked_in_steps_ns = total_length(intersect(blocked, merge_intervals(std::move(windows))));
  }
  EnclosingCpuOps enclosing(t, 4);
  std::optional<EnclosingNvtxRanges> own;
  const EnclosingNvtxRanges& nvtx = shared ? *shared : own.emplace(t, steps, 4);
  for (auto& kv : calls) {
    SyncCallRow row = kv.second;
    std::stable_sort(row.longest.begin(), row.longest.end(),
                     [&s](uint32_t a, uint32_t b) { return s.dur[a] > s.dur[b]; });
    if (row.longest.size() > 5) row.longest.resize(5);
    row.called_from = enclosing_text(t, &enclosing, nvtx, row.longest.front());
    r.total_ns += row.total_ns;
    r.count += row.count;
    r.calls.push_back(std::move(row));
  }
  std::sort(r.calls.begin(), r.calls.end(), [&t](const SyncCallRow& a, const SyncCallRow& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : t.str(a.name) < t.str(b.name);
  });

  // The windows copies are looked for in: the steps, else the iterations the launches repeat
  // in (a capture without markers still shows an .item() every iteration).
  const std::vector<Iteration> windows =
      loop_windows(steps, inferred ? *inferred : IterationsResult(), &r.in_inferred_iterations);
  r.windows = windows.size();
  if (windows.empty()) return r;
  std::map<std::string, CopyOrigin> origins;
  std::vector<bool> step_has(windows.size(), false);
  for (uint32_t g : join.gpu_ops_by_ts) {
    if (s.kind[g] != SliceKind::kMemcpy) continue;
    if (memory_op_kind(s.kind[g], t.str(s.name[g])) != MemoryOpKind::kDtoH) continue;
    int si = window_at(windows, s.ts[g]);
    if (si < 0) continue;
    int32_t launcher = join.partner[g];
    // A copy into pinned memory the CPU never waited for is no sync: .to('cpu',
    // non_blocking=True) returns at once and the copy runs later. The CPU waited when the
    // launching call lasted until the copy ended (cudaMemcpy) or a synchronizing call was
    // blocking when it ended (.item(), torch.cuda.synchronize()). A copy into pageable memory
    // always blocks its call (CUDA's API synchronization behavior), whatever the times say.
    constexpr int64_t kClockSlackNs = 5000;  // CPU and GPU clocks agree to a few microseconds
    const int64_t copy_end = s.end(g);
    if (launcher >= 0 && t.str(s.name[g]).find("Pinned") != std::string_view::npos &&
        s.end(static_cast<uint32_t>(launcher)) + kClockSlackNs < copy_end &&
        length_within(blocked, copy_end - 1, copy_end) == 0) {
      ++r.dtoh_not_waited_for;
      continue;
    }
    step_has[static_cast<size_t>(si)] = true;
    std::string key = launcher >= 0
                          ? origin_text(t, &enclosing, nvtx, static_cast<uint32_t>(launcher))
                          : std::string("(launch not recorded)");
    CopyOrigin& o = origins[key];
    o.cpu_ops = key;
    ++o.count;
    if (const int64_t b = s.copy_size(g); b > 0) o.bytes += b;
    o.gpu_ns += s.dur[g];
    if (o.examples.size() < 5) o.examples.push_back(g);
    ++r.dtoh_in_steps_count;
  }
  for (bool b : step_has) r.steps_with_dtoh += b ? 1 : 0;
  for (auto& kv : origins) r.dtoh_in_steps.push_back(std::move(kv.second));
  std::stable_sort(r.dtoh_in_steps.begin(), r.dtoh_in_steps.end(),
                   [](const CopyOrigin& a, const CopyOrigin& b) { return a.count > b.count; });
  return r;
}

}  // namespace ks
