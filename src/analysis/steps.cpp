#include "analysis/steps.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include "analysis/nvtx_context.h"
#include "analysis/warmup.h"

namespace ks {

bool parse_profiler_step(std::string_view name, int64_t* number) {
  static constexpr std::string_view kPrefix = "ProfilerStep#";
  if (name.substr(0, kPrefix.size()) != kPrefix || name.size() == kPrefix.size()) return false;
  int64_t n = 0;
  for (char c : name.substr(kPrefix.size())) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + (c - '0');
  }
  *number = n;
  return true;
}

namespace {

// Splits "name<sep><digits>" into the name and the number (-1 when there is no number).
// Separators: ' ', '_', '-', '#', ':'; "step3" (no separator) counts too.
void split_number(std::string_view name, std::string_view* stem, int64_t* number) {
  size_t end = name.size();
  size_t d = end;
  while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9') --d;
  *number = -1;
  *stem = name;
  if (d == end || end - d > 15) return;
  int64_t n = 0;
  for (size_t i = d; i < end; ++i) n = n * 10 + (name[i] - '0');
  size_t s = d;
  if (s > 0 && (name[s - 1] == ' ' || name[s - 1] == '_' || name[s - 1] == '-' ||
                name[s - 1] == '#' || name[s - 1] == ':'))
    --s;
  if (s == 0) return;  // a bare number is no step name
  *stem = name.substr(0, s);
  *number = n;
}

// A candidate step: every host-side slice of one (track, name) group, in time order.
struct Candidate {
  std::vector<uint32_t> slices;
  std::string shown;  // the first instance's name
};

// Nested or overlapping repeats (a range re-entered inside itself) are dropped, so each kept
// instance starts at or after the previous one's end.
// `left_out`, when given, gets the dropped instances in time order.
std::vector<uint32_t> without_overlaps(const SliceTable& s, std::vector<uint32_t> v,
                                       bool* overlapped,
                                       std::vector<uint32_t>* left_out = nullptr) {
  std::sort(v.begin(), v.end(), [&s](uint32_t a, uint32_t b) {
    return s.ts[a] != s.ts[b] ? s.ts[a] < s.ts[b] : s.dur[a] > s.dur[b];
  });
  std::vector<uint32_t> out;
  *overlapped = false;
  for (uint32_t i : v) {
    if (!out.empty() && s.ts[i] < s.end(out.back())) {
      *overlapped = true;
      if (left_out) left_out->push_back(i);
      continue;
    }
    out.push_back(i);
  }
  return out;
}

// Records what without_overlaps dropped, for the report's note.
void note_left_out(const Trace& t, const std::vector<uint32_t>& left_out, StepsResult* r) {
  r->overlapping_left_out = left_out.size();
  if (left_out.empty()) return;
  r->first_overlapping_name = std::string(t.str(t.slices.name[left_out.front()]));
  r->first_overlapping_begin = t.slices.ts[left_out.front()];
}

// A track's thread, (process, tid): an export's rows of one thread ("4242 NVTX", "4242 CUDA API")
// are one thread; a Kineto trace's track is its thread.
using ThreadKey = std::pair<uint32_t, std::string>;
ThreadKey thread_of(const Trace& t, TrackId track) {
  const Track& tr = t.tracks[track];
  const std::string_view tid = t.str(tr.tid_text);
  const std::string_view row_thread = export_thread_of(tid);
  return {tr.process, std::string(row_thread.empty() ? tid : row_thread)};
}

// CUDA API calls (runtime and driver) by thread: the thread that drives the GPU makes them.
std::map<ThreadKey, size_t> cuda_calls_by_thread(const Trace& t) {
  std::map<TrackId, size_t> by_track;
  const SliceTable& s = t.slices;
  for (size_t i = 0; i < s.size(); ++i)
    if (s.kind[i] == SliceKind::kRuntime || s.kind[i] == SliceKind::kDriver) ++by_track[s.track[i]];
  std::map<ThreadKey, size_t> calls;
  for (const auto& kv : by_track) calls[thread_of(t, kv.first)] += kv.second;
  return calls;
}

// Steps between NVTX marks (steps.h): the marks (nsys' nvtxMark rows, instants of category
// user_annotation) named like a step, or `wanted` (NAME, or NAME + separator + number) when
// given, grouped by thread and name; a group needs three (two steps: one interval is nothing to
// compare). When several threads mark one name, the training thread's marks are the steps: the
// thread that made the most CUDA calls (a logging or data thread that marks the same name more
// often launches nothing); then the group with the most marks, then the earliest. Marks at one
// time count once. Returns false, *r untouched, when no group qualifies.
bool steps_from_marks(const Trace& t, const std::string& wanted, StepsResult* r) {
  const InstantTable& in = t.instants;
  const StringId cat = t.strings.find("user_annotation");
  std::map<std::pair<TrackId, std::string>, std::vector<uint32_t>> groups;
  for (uint32_t i = 0; i < in.size(); ++i) {
    if (in.cat[i] != cat) continue;
    const std::string_view name = t.str(in.name[i]);
    std::string base;
    int64_t n;
    if (wanted.empty()) {
      if (!is_step_like_name(name, &base, &n)) continue;
    } else {
      std::string_view stem;
      split_number(name, &stem, &n);
      if (name != wanted && stem != wanted) continue;
      base = wanted;
    }
    groups[{in.track[i], base}].push_back(i);
  }
  const std::vector<uint32_t>* best = nullptr;
  size_t best_calls = 0;
  std::map<ThreadKey, size_t> calls;  // filled when two groups qualify
  bool counted = false;
  auto calls_of = [&](const std::vector<uint32_t>& v) -> size_t {
    if (!counted) calls = cuda_calls_by_thread(t), counted = true;
    auto it = calls.find(thread_of(t, in.track[v.front()]));
    return it == calls.end() ? 0 : it->second;
  };
  for (auto& kv : groups) {
    std::vector<uint32_t>& v = kv.second;
    // In time order whatever order the rows came in (nsys 2025.6+ promises none).
    std::stable_sort(v.begin(), v.end(),
                     [&in](uint32_t a, uint32_t b) { return in.ts[a] < in.ts[b]; });
    v.erase(std::unique(v.begin(), v.end(),
                        [&in](uint32_t a, uint32_t b) { return in.ts[a] == in.ts[b]; }),
            v.end());
    if (v.size() < 3) continue;
    if (!best) {
      best = &v;
      continue;
    }
    if (!counted) best_calls = calls_of(*best);
    const size_t n = calls_of(v);
    if (n > best_calls ||
        (n == best_calls && (v.size() > best->size() || (v.size() == best->size() &&
                                                         in.ts[v.front()] < in.ts[best->front()]))))
      best = &v, best_calls = n;
  }
  if (!best) return false;
  const std::vector<uint32_t>& v = *best;
  r->source = StepSource::kNvtxMarks;
  const std::string shown(t.str(in.name[v.front()]));
  std::string base;
  int64_t n;
  if (!wanted.empty())
    r->range_name = wanted;
  else
    r->range_name = is_step_like_name(shown, &base, &n) && n >= 0 ? base : shown;
  for (size_t k = 0; k + 1 < v.size(); ++k) {
    Step st;
    std::string_view stem;
    split_number(t.str(in.name[v[k]]), &stem, &st.number);
    if (st.number < 0) st.number = static_cast<int64_t>(k);
    st.slice = kNoStepSlice;
    st.mark = v[k];
    st.host_begin = in.ts[v[k]];
    st.host_end = in.ts[v[k + 1]];
    r->steps.push_back(st);
  }
  return true;
}

// The process whose ProfilerStep markers are the steps. Kineto writes one process per rank, so
// markers in several processes are ranks merged into one file (tools that merge rank traces
// keep each rank's pid): taking the longest marker per number across them mixed the ranks'
// steps, left out the ones that overlapped and called their numbers missing. The process with
// the most step numbers wins, then the earliest first marker, then the pid's text (never the
// file's order). Returns the process and sets r->step_processes, or -1 with markers in at most
// one process.
int64_t profiler_step_process(const Trace& t, StepsResult* r) {
  const SliceTable& s = t.slices;
  struct Seen {
    std::vector<int64_t> numbers;
    int64_t first_ts = INT64_MAX;
  };
  std::map<uint32_t, Seen> by_process;
  for (uint32_t i = 0; i < s.size(); ++i) {
    int64_t n;
    if (is_gpu_side(s.kind[i]) || !parse_profiler_step(t.str(s.name[i]), &n)) continue;
    Seen& seen = by_process[t.tracks[s.track[i]].process];
    seen.numbers.push_back(n);
    seen.first_ts = std::min(seen.first_ts, s.ts[i]);
  }
  if (by_process.size() < 2) return -1;
  int64_t best = -1;
  size_t best_count = 0;
  for (auto& kv : by_process) {
    std::vector<int64_t>& v = kv.second.numbers;
    std::sort(v.begin(), v.end());
    size_t count = static_cast<size_t>(std::unique(v.begin(), v.end()) - v.begin());
    bool wins = best < 0 || count > best_count;
    if (!wins && count == best_count) {
      const Seen& b = by_process.at(static_cast<uint32_t>(best));
      wins = kv.second.first_ts != b.first_ts
                 ? kv.second.first_ts < b.first_ts
                 : t.str(t.processes[kv.first].pid_text) <
                       t.str(t.processes[static_cast<uint32_t>(best)].pid_text);
    }
    if (wins) best = kv.first, best_count = count;
  }
  r->step_processes = by_process.size();
  r->step_process_pid = std::string(t.str(t.processes[static_cast<uint32_t>(best)].pid_text));
  return best;
}

}  // namespace

std::string_view step_name(const Trace& t, const Step& st) {
  if (st.has_slice()) return t.str(t.slices.name[st.slice]);
  if (st.mark < t.instants.size()) return t.str(t.instants.name[st.mark]);
  return {};
}

bool is_step_like_name(std::string_view name, std::string* base, int64_t* number) {
  std::string_view stem;
  split_number(name, &stem, number);
  std::string b;
  for (char c : stem) {
    char l = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    b += (l == ' ' || l == '-') ? '_' : l;
  }
  static const char* const kNames[] = {"step",           "train_step",      "training_step",
                                       "trainstep",      "train_iter",      "iteration",
                                       "iter",           "train_iteration", "training_iteration",
                                       "optimizer_step", "batch_step",      "global_step"};
  for (const char* k : kNames) {
    if (b == k) {
      *base = b;
      return true;
    }
  }
  return false;
}

std::string steps_note(const StepsResult& r, bool nsys_export) {
  switch (r.source) {
    case StepSource::kStepLikeRange:
      if (r.repeated_range)
        return "from the range \"" + r.range_name + "\" (NVTX / user annotation), repeated " +
               std::to_string(r.found) +
               " times at the top level of its thread, each one read as an iteration, as no "
               "ProfilerStep#N markers exist";
      return "from the range \"" + r.range_name +
             "\" (NVTX / user annotation), as no ProfilerStep#N markers exist";
    case StepSource::kUserRange:
      return "from the range \"" + r.range_name + "\" (--step-range)";
    case StepSource::kNvtxMarks:
      return "from the NVTX marks \"" + r.range_name + "\"" +
             (r.requested_range.empty() ? std::string(" (named like a step)")
                                        : std::string(" (--step-range)")) +
             ", each step from one mark to the next: " + std::to_string(r.found + 1) + " marks, " +
             std::to_string(r.found) +
             " steps (the time after the last mark has no end mark and is no step)";
    case StepSource::kProfilerStep:
      if (r.step_processes < 2) return "";
      return "of process " + r.step_process_pid + ", one of " + std::to_string(r.step_processes) +
             " processes with ProfilerStep#N markers (several ranks merged into one file): the "
             "other processes' steps are left out, while the whole-file tables sum all of them; "
             "for a per-rank comparison, report each rank's own trace file together";
    case StepSource::kNone:
      break;
  }
  if (!r.requested_range.empty())
    return "no CPU-side range named \"" + r.requested_range +
           "\" (nor three NVTX marks of that name on one thread): check the name against the "
           "NVTX ranges (kinetoscope stats --report nvtx_sum)";
  if (nsys_export)
    return "no ProfilerStep markers and no NVTX range named like a step: wrap each step in "
           "torch.cuda.nvtx.range(\"train_step\") (or nvtx.annotate(\"train_step\")), capture "
           "with --trace=cuda,nvtx, or name your own range with --step-range NAME";
  return "";
}

const char* step_source_name(StepSource s) {
  switch (s) {
    case StepSource::kProfilerStep:
      return "profiler_step";
    case StepSource::kStepLikeRange:
      return "nvtx_range";
    case StepSource::kUserRange:
      return "step_range";
    case StepSource::kNvtxMarks:
      return "nvtx_marks";
    case StepSource::kNone:
      break;
  }
  return "none";
}

std::string_view emit_nvtx_op_name(std::string_view n) {
  // torch/csrc/profiler/util.cpp getNvtxStr: name[, seq = N][, op_id = N][, sizes = [...]]
  // [, input_op_ids = [...]], in that order: the name ends at the first of them.
  size_t cut = n.size();
  for (std::string_view key : {", seq = ", ", op_id = ", ", sizes = ", ", input_op_ids = "})
    cut = std::min(cut, n.find(key));
  return n.substr(0, cut);
}

bool is_emit_nvtx_op_range(std::string_view n) {
  if (n.find("::") != std::string_view::npos || n.find(", seq = ") != std::string_view::npos)
    return true;
  // Ops PyTorch names without a namespace and runs outside autograd (no seq): emit_nvtx writes
  // them as "detach, op_id = 7", a trace as the CPU ops "detach" and "record_param_comms" (the
  // collectives' op). Only with emit_nvtx's op_id: a user's own range named "detach" is no op.
  if (n.find(", op_id = ") == std::string_view::npos) return false;
  const std::string_view op = emit_nvtx_op_name(n);
  return op == "record_param_comms" || op == "detach" || op == "detach_";
}

bool is_library_range(std::string_view name) {
  if (is_emit_nvtx_op_range(name)) return true;
  std::string lower;
  for (size_t k = 0; k < name.size() && k < 6; ++k)
    lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(name[k]))));
  for (std::string_view p : {"nccl", "rccl", "cudnn", "cublas", "cuda", "hip"})
    if (lower.compare(0, p.size(), p) == 0) return true;
  return false;
}

bool is_framework_range(std::string_view name) {
  for (std::string_view p :
       {"Optimizer.", "enumerate(DataLoader)", "DataLoader", "DistributedDataParallel.",
        "FullyShardedDataParallel", "FSDP::", "Torch-Compiled Region", "CompiledFunction",
        "ProfilerStep#", "## ", "record_param_comms", "PyTorch Profiler"})
    if (name.substr(0, p.size()) == p) return true;
  return false;
}

namespace {

// Whether slice `i` spans at least half of the GPU's activity (first GPU op's start to last GPU
// op's end). A capture holds more than the loop: an Nsight Systems capture from the process's
// start holds CUDA's context creation, the import, the profiler's own threads and their calls,
// so a lone step range can hold the GPU's work and still not half of the capture.
// The GPU's activity: the first GPU op's start to the last one's end ({0, 0} without any).
std::pair<int64_t, int64_t> gpu_span_of(const SliceTable& s) {
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (uint32_t j = 0; j < s.size(); ++j) {
    if (!is_gpu_op(s.kind[j])) continue;
    first = std::min(first, s.ts[j]);
    last = std::max(last, s.end(j));
  }
  return last > first ? std::make_pair(first, last) : std::make_pair(int64_t{0}, int64_t{0});
}

bool holds_gpu_span(const SliceTable& s, uint32_t i, std::pair<int64_t, int64_t> gpu) {
  const auto [first, last] = gpu;
  if (last <= first) return false;
  const int64_t overlap = std::min(last, s.end(i)) - std::max(first, s.ts[i]);
  return overlap > 0 && 2 * overlap >= last - first;
}

// Step.queued_ns of the first step: the time the GPU spent, inside the step, on ops that start
// before the step's own first GPU op and were launched before the step began (or outside the
// capture: no launch in the trace): a backlog of earlier work, not the step's own. Their busy
// time, not their extent: a first step that spent 400 ms autotuning on the CPU while the GPU sat
// idle, and only then ran the capture's leftover ops, keeps those 400 ms as its own time (and an
// idle millisecond or two inside a real backlog stays the step's too).
void set_queued_time(const SliceTable& s, const LaunchJoin& join, Step* st) {
  int64_t covered = st->begin;  // the backlog's busy time is counted up to here
  int64_t busy = 0;
  for (uint32_t g : join.gpu_ops_by_ts) {
    if (s.ts[g] >= st->end) break;
    const int32_t launch = join.partner[g];
    const bool earlier = launch < 0 || s.ts[static_cast<size_t>(launch)] < st->host_begin;
    if (!earlier) break;  // the step's own work has begun
    const int64_t from = std::max(covered, s.ts[g]);
    const int64_t to = std::min(s.end(g), st->end);
    if (to > from) {
      busy += to - from;
      covered = to;
    }
  }
  st->queued_ns = busy;
}

// The time a range's instances (in time order, none overlapping) cover with the GPU work each
// launched: each instance from its start to the later of its end and the end of the GPU work of
// the calls that began inside it, the instances' union (an instance's GPU work may run past
// the next instance's start: a host that runs ahead). Calls on any thread, as a step's
// device-adjusted end counts them.
int64_t cover_with_gpu_work(const Trace& t, const LaunchJoin& join,
                            const std::vector<uint32_t>& kept) {
  const SliceTable& s = t.slices;
  const auto& rt = join.runtime_by_ts;
  int64_t cover = 0, covered_to = INT64_MIN;
  for (uint32_t i : kept) {
    int64_t end = s.end(i);
    auto it = std::lower_bound(rt.begin(), rt.end(), s.ts[i],
                               [&s](uint32_t c, int64_t ts) { return s.ts[c] < ts; });
    for (; it != rt.end() && s.ts[*it] < s.end(i); ++it)
      end = std::max(end, launched_work_end(t, join, *it));
    const int64_t from = std::max(s.ts[i], covered_to);
    if (end > from) cover += end - from;
    covered_to = std::max(covered_to, end);
  }
  return cover;
}

}  // namespace

// Whether a repeated outermost range is one phase of the loop, not its iteration: another
// outermost range on the same thread repeats as often (one more or less) and an instance of it
// lies between most pairs of this one's consecutive instances ("forward", "backward",
// "optimizer" each once per iteration, and nothing around the iteration). Taking "backward" as
// the step read a third of the loop as its whole, with shares of step time over 100%.
// A range named as one phase of a training step is not the step, even alone on its thread
// (autograd's backward thread: emit_nvtx's "backward" there, the forward ops elsewhere).
bool names_step_phase(std::string_view stem) {
  static const char* const kPhases[] = {"forward",   "backward", "fwd",      "bwd",
                                        "optimizer", "optim",    "opt_step", "optimizer_step",
                                        "zero_grad", "loss",     "backprop", "forward_backward"};
  std::string lower;
  for (char ch : stem) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  while (!lower.empty() && (lower.back() == ' ' || lower.back() == '_' || lower.back() == '-'))
    lower.pop_back();
  for (const char* p : kPhases)
    if (lower == p) return true;
  return false;
}

template <typename Groups>
bool is_phase_of_loop(const SliceTable& s, TrackId track, const Candidate& c,
                      const Groups& groups) {
  const std::vector<uint32_t>& mine = c.slices;  // in slice order: by start on one track
  for (const auto& kv : groups) {
    const Candidate& other = kv.second;
    if (&other == &c || kv.first.first != track) continue;
    const size_t a = mine.size(), b = other.slices.size();
    if (b + 1 < a || a + 1 < b) continue;
    size_t between = 0, j = 0;
    for (size_t i = 0; i + 1 < a; ++i) {
      while (j < b && s.ts[other.slices[j]] < s.ts[mine[i]]) ++j;
      if (j < b && s.ts[other.slices[j]] < s.ts[mine[i + 1]]) ++between;
    }
    if (a >= 2 && between * 5 >= (a - 1) * 4) return true;
  }
  return false;
}

StepsResult find_steps(const Trace& t, const LaunchJoin& join, bool drop_last,
                       const std::string& step_range) {
  const SliceTable& s = t.slices;
  StepsResult r;
  r.requested_range = step_range;
  int64_t process = -1;  // with ProfilerSteps in several processes: the one whose steps these are
  if (!step_range.empty()) {
    // The user's range: NAME, or NAME + separator + number; the thread with the most of them.
    std::map<TrackId, Candidate> by_track;
    for (uint32_t i = 0; i < s.size(); ++i) {
      if (is_gpu_side(s.kind[i])) continue;
      std::string_view name = t.str(s.name[i]);
      std::string_view stem;
      int64_t n;
      split_number(name, &stem, &n);
      if (name != step_range && stem != step_range) continue;
      Candidate& c = by_track[s.track[i]];
      if (c.slices.empty()) c.shown = std::string(name);
      c.slices.push_back(i);
    }
    const Candidate* best = nullptr;
    for (const auto& kv : by_track)
      if (!best || kv.second.slices.size() > best->slices.size()) best = &kv.second;
    // No range of that name: the marks of that name, when there are (nvtxMark("NAME") at each
    // iteration).
    if (!best) steps_from_marks(t, step_range, &r);
    if (best) {
      bool overlapped;
      std::vector<uint32_t> left_out;
      std::vector<uint32_t> kept = without_overlaps(s, best->slices, &overlapped, &left_out);
      note_left_out(t, left_out, &r);
      r.source = StepSource::kUserRange;
      r.range_name = step_range;
      int64_t ordinal = 0;
      for (uint32_t i : kept) {
        Step st;
        std::string_view stem;
        split_number(t.str(s.name[i]), &stem, &st.number);
        if (st.number < 0) st.number = ordinal;
        ++ordinal;
        st.slice = i;
        st.host_begin = s.ts[i];
        st.host_end = s.end(i);
        r.steps.push_back(st);
      }
    }
  } else {
    // One marker per step number: the longest host-side slice (some traces repeat it per
    // thread).
    std::map<int64_t, uint32_t> by_number;
    process = profiler_step_process(t, &r);
    for (uint32_t i = 0; i < s.size(); ++i) {
      if (is_gpu_side(s.kind[i])) continue;
      if (process >= 0 && static_cast<int64_t>(t.tracks[s.track[i]].process) != process) continue;
      int64_t n;
      if (!parse_profiler_step(t.str(s.name[i]), &n)) continue;
      auto it = by_number.find(n);
      if (it == by_number.end() || s.dur[i] > s.dur[it->second]) by_number[n] = i;
    }
    // Real ProfilerSteps follow one another; nested or overlapping ones (a hand-written or
    // merged file) are dropped as for ranges, so each runtime call is inside one step and the
    // device-adjusted bounds below stay one walk over the calls (80 k nested steps took 26 s).
    std::vector<uint32_t> markers;
    markers.reserve(by_number.size());
    for (const auto& kv : by_number) markers.push_back(kv.second);
    bool overlapped;
    std::vector<uint32_t> left_out;
    std::vector<uint32_t> kept = without_overlaps(s, std::move(markers), &overlapped, &left_out);
    note_left_out(t, left_out, &r);
    for (uint32_t i : kept) {
      Step st;
      parse_profiler_step(t.str(s.name[i]), &st.number);
      st.slice = i;
      st.host_begin = s.ts[i];
      st.host_end = s.end(i);
      r.steps.push_back(st);
    }
    if (!r.steps.empty()) r.source = StepSource::kProfilerStep;
  }
  if (r.steps.empty() && step_range.empty()) {
    // No ProfilerStep: user annotation ranges (NVTX) named like a step, grouped by thread and
    // name; a group counts with two or more instances that never overlap, or with one that holds
    // most of the capture or of the GPU's activity (nsys --capture-range=nvtx -p train_step
    // captures exactly one; a whole-process capture holds one step among its startup; a lone
    // optimizer_step inside a loop covers a sliver of both), as one ProfilerStep counts.
    std::map<std::pair<TrackId, std::string>, Candidate> groups;
    for (uint32_t i = 0; i < s.size(); ++i) {
      if (s.kind[i] != SliceKind::kUserAnnotation) continue;
      std::string base;
      int64_t n;
      std::string_view name = t.str(s.name[i]);
      if (!is_step_like_name(name, &base, &n)) continue;
      Candidate& c = groups[{s.track[i], base}];
      if (c.slices.empty()) c.shown = std::string(name);
      c.slices.push_back(i);
    }
    // Scanned once, and only when a lone step range needs it: a thread per range must not
    // rescan every slice per thread.
    std::optional<std::pair<int64_t, int64_t>> gpu_span_cache;
    auto gpu_span = [&] {
      if (!gpu_span_cache) gpu_span_cache = gpu_span_of(s);
      return *gpu_span_cache;
    };
    const Candidate* best = nullptr;
    for (const auto& kv : groups) {
      const Candidate& c = kv.second;
      bool overlapped;
      without_overlaps(s, c.slices, &overlapped);
      const bool holds_capture =
          c.slices.size() == 1 && (2 * s.dur[c.slices.front()] >= t.span_ns() ||
                                   holds_gpu_span(s, c.slices.front(), gpu_span()));
      if ((c.slices.size() < 2 && !holds_capture) || overlapped) continue;
      if (!best || c.slices.size() > best->slices.size() ||
          (c.slices.size() == best->slices.size() &&
           s.ts[c.slices.front()] < s.ts[best->slices.front()]))
        best = &c;
    }
    // With no step-like name, the program's own name for its loop: a range at the outermost
    // level of its thread (an NVTX range in Nsight Systems exports; a record_function in a
    // Kineto trace without prof.step(), as inference servers write: vLLM's "execute_model",
    // decode iterations), repeated without overlap, is the step: two or more numbered in
    // increasing order ("epoch_batch 7"), else three or more of one name; the group covering
    // the most time (and at least a tenth of the trace) wins. Ranges libraries push are never
    // steps (is_library_range), nor those PyTorch itself records around its own calls
    // (is_framework_range: Optimizer.step#SGD.step, the DataLoader's __next__).
    // Marks named like a step (nvtxMark("train_step") each iteration) say so as plainly as a
    // range does: they come before the outermost-range guess below.
    const bool from_marks = !best && steps_from_marks(t, std::string(), &r);
    std::map<std::pair<TrackId, std::string>, Candidate> outer;
    if (!best && !from_marks) {
      for (uint32_t i = 0; i < s.size(); ++i) {
        if (s.kind[i] != SliceKind::kUserAnnotation || s.depth[i] != 0) continue;
        std::string_view name = t.str(s.name[i]), stem;
        int64_t n;
        split_number(name, &stem, &n);
        if (is_library_range(name) || is_framework_range(name)) continue;
        Candidate& c = outer[{s.track[i], std::string(n >= 0 ? stem : name)}];
        if (c.slices.empty()) c.shown = std::string(name);
        c.slices.push_back(i);
      }
      int64_t best_cover = 0;
      for (const auto& kv : outer) {
        const Candidate& c = kv.second;
        bool overlapped;
        std::vector<uint32_t> kept = without_overlaps(s, c.slices, &overlapped);
        if (overlapped || kept.size() < 2) continue;
        if (names_step_phase(kv.first.second) || is_phase_of_loop(s, kv.first.first, c, outer))
          continue;
        int64_t prev = -1, cover = 0;
        bool numbered = true;
        for (uint32_t i : kept) {
          std::string_view stem;
          int64_t n;
          split_number(t.str(s.name[i]), &stem, &n);
          if (n <= prev) numbered = false;
          prev = n;
          cover += s.dur[i];
        }
        if (!numbered && kept.size() < 3) continue;
        // A training loop covers most of a capture; ranges covering a sliver of it are calls
        // inside the loop, not its iterations. An iteration's time runs to the end of the GPU
        // work it launched, as a step's device-adjusted end does: a framework that dispatches
        // asynchronously (JAX/XLA's "XlaModule:#hlo_module=jit_train_step...#", a CUDA graph
        // replay per iteration) covers its launches on the host, a sliver of the capture, while
        // its GPU work fills the capture.
        if (cover < t.span_ns() / 10) cover = cover_with_gpu_work(t, join, kept);
        if (cover < t.span_ns() / 10) continue;
        if (cover > best_cover) best_cover = cover, best = &c;
      }
    }
    if (best) {
      r.source = StepSource::kStepLikeRange;
      std::string base;
      int64_t n;
      if (is_step_like_name(best->shown, &base, &n)) {
        r.range_name = n >= 0 ? base : best->shown;
      } else {  // an outermost range of the program's own name
        r.repeated_range = true;
        std::string_view stem;
        split_number(best->shown, &stem, &n);
        r.range_name = std::string(n >= 0 ? stem : std::string_view(best->shown));
      }
      int64_t ordinal = 0;
      bool overlapped;
      for (uint32_t i : without_overlaps(s, best->slices, &overlapped)) {
        Step st;
        is_step_like_name(t.str(s.name[i]), &base, &st.number);
        if (st.number < 0) st.number = ordinal;
        ++ordinal;
        st.slice = i;
        st.host_begin = s.ts[i];
        st.host_end = s.end(i);
        r.steps.push_back(st);
      }
    }
  }
  std::sort(r.steps.begin(), r.steps.end(),
            [](const Step& a, const Step& b) { return a.host_begin < b.host_begin; });
  r.found = r.steps.size();
  // A first step cut by the capture's start (StepsResult::first_cut): nsys counts from the
  // capture's start, and a range pushed before it (--capture-range=cudaProfilerApi or nvtx,
  // --delay) keeps its own, earlier start, while its GPU work before the start was never traced:
  // an idle-looking step that is no step of the loop.
  if (r.steps.size() >= 2 && t.facts.format == TraceFormat::kNsysSqlite &&
      t.facts.has_session_start && r.steps.front().host_begin < t.facts.session_start_ns) {
    const Step& first = r.steps.front();
    r.first_cut = true;
    r.first_cut_begin = first.host_begin;
    r.first_cut_dur = first.host_end - first.host_begin;
    r.steps.erase(r.steps.begin());
  }
  // Device-adjusted bounds: walk the runtime calls (sorted by ts) inside each host step; the
  // steps never overlap (every source above drops overlaps), so this is one walk over the calls.
  const auto& rt = join.runtime_by_ts;
  int64_t prev_end = INT64_MIN;
  for (Step& st : r.steps) {
    auto lo = std::lower_bound(rt.begin(), rt.end(), st.host_begin,
                               [&s](uint32_t i, int64_t ts) { return s.ts[i] < ts; });
    int64_t gpu_end = INT64_MIN;
    for (auto it = lo; it != rt.end() && s.ts[*it] < st.host_end; ++it) {
      // Calls that began inside the host step: a call that starts where the step ends belongs
      // to the next step (steps are contiguous), and counting it here stretched this step to
      // the next step's GPU work. A call that began here and returned after the step's end (a
      // launch from another thread, the backward or a comm thread) is this step's, as the
      // multi-rank table puts a collective in the step its launch began in: the TB plugin's
      // "wholly inside" (_find_device_steps) left its GPU work to no step's end.
      // Another rank's launches (merged ranks) do not end this rank's step.
      if (process >= 0 && static_cast<int64_t>(t.tracks[s.track[*it]].process) != process) continue;
      // A CUDA graph replay's kernels all carry its launch's id: the step ends with the last.
      gpu_end = std::max(gpu_end, launched_work_end(t, join, *it));
    }
    st.begin = std::max(prev_end, st.host_begin);
    st.end = std::max(st.host_end, gpu_end);
    // As the TB plugin (_update_steps_duration): a step whose start was pushed past its end by
    // the previous step's GPU work is empty, never negative.
    st.end = std::max(st.end, st.begin);
    prev_end = st.end;
  }
  if (!r.steps.empty()) set_queued_time(s, join, &r.steps.front());
  if (!r.steps.empty()) {
    r.last_host_begin = r.steps.back().host_begin;
    r.last_host_end = r.steps.back().host_end;
  }
  // A last step cut by the capture's end (StepsResult::last_cut): a short last step read as
  // unstable step times, and as a regression in a diff against a capture that ends cleanly.
  if (r.steps.size() >= 2) {
    const Step& last = r.steps.back();
    const std::vector<uint64_t>& open = t.facts.unclosed_offsets;
    if (last.has_slice() &&
        std::binary_search(open.begin(), open.end(), s.file_offset(last.slice))) {
      r.last_cut = StepsResult::LastStepCut::kOpen;
    } else if (r.steps.size() >= 3) {
      // Host lengths: a step the previous step's GPU work overtook is empty on the device side
      // but as long as the others on the host.
      std::vector<int64_t> others;
      for (size_t i = 0; i + 1 < r.steps.size(); ++i)
        others.push_back(r.steps[i].host_end - r.steps[i].host_begin);
      std::nth_element(others.begin(), others.begin() + others.size() / 2, others.end());
      // ... and it launched no GPU work: a short last step that launches is the loop's own
      // (a step after a long warm-up step is short beside it).
      bool launched = false;
      const auto& rt = join.runtime_by_ts;
      auto lo = std::lower_bound(rt.begin(), rt.end(), last.host_begin,
                                 [&s](uint32_t i, int64_t ts) { return s.ts[i] < ts; });
      for (auto it = lo; it != rt.end() && s.ts[*it] <= last.host_end && !launched; ++it)
        launched = join.partner[*it] >= 0;
      if (!launched && (last.host_end - last.host_begin) * 4 < others[others.size() / 2])
        r.last_cut = StepsResult::LastStepCut::kShort;
    }
    if (r.last_cut != StepsResult::LastStepCut::kNone) {
      r.last_cut_dur = last.dur();
      r.steps.pop_back();
    }
  }
  // As HTA: with a single step there is nothing to compare it with, so it is kept. A step left
  // out above was the incomplete last step drop_last means.
  if (drop_last && r.last_cut == StepsResult::LastStepCut::kNone && r.steps.size() >= 2) {
    r.steps.pop_back();
    r.dropped_last = true;
  }
  // The statistics compare the steps' own times: a first step that starts with the warm-up's
  // queued GPU work (queued_ns) is not slower, and counting that backlog called a steady
  // GPU-bound loop unstable (spread 76% on a real H200 capture). total_ns stays the steps' whole
  // span: the rules use it as the window their shares are of.
  std::vector<int64_t> durs;
  int64_t window = 0;
  for (const Step& st : r.steps) {
    durs.push_back(st.own_dur());
    window += st.dur();
  }
  r.stats = compute_duration_stats(durs);
  r.stats.total_ns = window;
  if (r.stats.count > 0 && r.stats.median_ns > 0) {
    r.spread_pct = static_cast<double>(r.stats.max_ns - r.stats.min_ns) / r.stats.median_ns * 100;
  }
  if (r.stats.count > 1 && r.stats.avg_ns > 0) r.cv_pct = r.stats.stddev_ns / r.stats.avg_ns * 100;
  r.one_time_calls = one_time_calls_per_step(t, r.steps);
  // Each step's GPU work (ops by start time; the steps are disjoint and in time order).
  size_t g = 0;
  const auto& ops = join.gpu_ops_by_ts;
  for (Step& st : r.steps) {
    while (g < ops.size() && s.ts[ops[g]] < st.begin) ++g;
    for (size_t k = g; k < ops.size() && s.ts[ops[k]] < st.end; ++k)
      st.gpu_work_ns += s.dur[ops[k]];
  }
  r.kinds = find_step_kinds(r.steps);
  return r;
}

}  // namespace ks
