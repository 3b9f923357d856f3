#include "analysis/gap_activity.h"

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "analysis/name_families.h"
#include "analysis/nvtx_context.h"

namespace ks {

HostActivityKind os_call_kind(std::string_view name) {
  // Names as the C library spells them (nsys' OS runtime rows carry these), each list
  // space-separated with a space at both ends, so " name " finds whole names only.
  static constexpr std::string_view kSleep = " nanosleep clock_nanosleep usleep sleep ";
  static constexpr std::string_view kBlocked =
      " poll ppoll epoll_wait epoll_pwait select pselect pselect6 futex sem_wait sem_timedwait "
      "pthread_cond_wait pthread_cond_timedwait pthread_join pthread_mutex_lock "
      "pthread_rwlock_rdlock pthread_rwlock_wrlock recv recvfrom recvmsg accept accept4 waitpid "
      "wait wait4 waitid msgrcv sigwait sigtimedwait ";
  static constexpr std::string_view kFileIo =
      " read pread pread64 readv preadv fread write pwrite pwrite64 writev fwrite open open64 "
      "openat fopen fopen64 fclose fflush fsync fdatasync getdents64 mmap mmap64 ";
  if (name.empty() || name.size() > 32 || name.find(' ') != std::string_view::npos)
    return HostActivityKind::kCpuWork;
  const std::string word = " " + std::string(name) + " ";
  if (kSleep.find(word) != std::string_view::npos) return HostActivityKind::kSleep;
  if (kBlocked.find(word) != std::string_view::npos) return HostActivityKind::kBlocked;
  if (kFileIo.find(word) != std::string_view::npos) return HostActivityKind::kFileIo;
  return HostActivityKind::kCpuWork;
}

namespace {

// The labels of time with no call, when context switches tell the two apart.
constexpr std::string_view kOffCpuLabel = "off CPU (no call traced)";
constexpr std::string_view kOnCpuLabel = "on CPU (no call traced)";

}  // namespace

std::string GapActivity::lead_phrase() const {
  const HostActivity* h = lead();
  if (!h || h->kind == HostActivityKind::kNothingRecorded) return "";
  // "off CPU (no call traced)" alone reads after "was"; a named range or call after "was in".
  return h->label == kOffCpuLabel || h->label == kOnCpuLabel ? h->label : "in " + h->label;
}

namespace {

// One instant-attribution piece: [begin, end) spent in `slice` (-1: no slice of that list).
struct Piece {
  int64_t begin, end;
  int32_t slice;
};

// A time-ordered run of slices of one thread (a track's CPU slices, or the merge of an nsys
// thread's CUDA API and OS runtime rows) swept gap by gap, in time order, with the stack of the
// slices open at the sweep's position: one pass over the run for all of the thread's gaps.
class Sweep {
 public:
  Sweep(const SliceTable& s, std::vector<uint32_t> run) : s_(s), run_(std::move(run)) {}

  // The innermost open slice at every instant of [b, e) (b at or after the previous call's e).
  void pieces(int64_t b, int64_t e, std::vector<Piece>* out) {
    out->clear();
    while (next_ < run_.size() && s_.ts[run_[next_]] < b) push(run_[next_++]);
    pop_ended(b);
    int64_t pos = b;
    auto emit = [&](int64_t to, int32_t slice) {
      to = std::min(to, e);
      if (to > pos) out->push_back({pos, to, slice}), pos = to;
    };
    while (next_ < run_.size() && s_.ts[run_[next_]] < e) {
      const uint32_t x = run_[next_++];
      while (!open_.empty() && s_.end(open_.back()) <= s_.ts[x]) {
        emit(s_.end(open_.back()), static_cast<int32_t>(open_.back()));
        open_.pop_back();
      }
      emit(s_.ts[x], top());
      open_.push_back(x);
    }
    while (!open_.empty() && s_.end(open_.back()) <= e) {
      emit(s_.end(open_.back()), static_cast<int32_t>(open_.back()));
      open_.pop_back();
    }
    emit(e, top());
  }

 private:
  int32_t top() const { return open_.empty() ? -1 : static_cast<int32_t>(open_.back()); }
  void pop_ended(int64_t ts) {
    while (!open_.empty() && s_.end(open_.back()) <= ts) open_.pop_back();
  }
  void push(uint32_t x) {
    pop_ended(s_.ts[x]);
    open_.push_back(x);
  }
  const SliceTable& s_;
  std::vector<uint32_t> run_;
  size_t next_ = 0;
  std::vector<uint32_t> open_;
};

struct ThreadSweeps {
  Sweep ranges, calls;
  // The thread's "off CPU" slices (an export's context switches: its "CPU state" row), in time
  // order, without overlaps; empty without context switches.
  std::vector<std::array<int64_t, 2>> off;
  size_t next_off = 0;
  // How much of [b, e) the thread was off CPU (b at or after the previous call's e).
  int64_t off_time(int64_t b, int64_t e) {
    while (next_off < off.size() && off[next_off][1] <= b) ++next_off;
    int64_t sum = 0;
    for (size_t k = next_off; k < off.size() && off[k][0] < e; ++k)
      sum += std::min(e, off[k][1]) - std::max(b, off[k][0]);
    return sum;
  }
};

}  // namespace

GapActivity activity_in_gaps(const Trace& t, const LaunchJoin& join, const StepsResult& steps,
                             std::vector<GapToFollow> gaps, size_t max_gaps) {
  const SliceTable& s = t.slices;
  const bool nsys = t.facts.format == TraceFormat::kNsysSqlite;
  GapActivity r;
  if (gaps.size() > max_gaps) {
    std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(max_gaps), gaps.end(),
                     [](const GapToFollow& a, const GapToFollow& b) {
                       return a.end_ns - a.begin_ns > b.end_ns - b.begin_ns;
                     });
    gaps.resize(max_gaps);
  }
  std::sort(gaps.begin(), gaps.end(),
            [](const GapToFollow& a, const GapToFollow& b) { return a.begin_ns < b.begin_ns; });
  // A thread is its track, or for an export every "<tid> <row>" track of one process and tid.
  std::map<std::pair<uint32_t, std::string_view>, uint32_t> thread_of_name;
  std::vector<int32_t> thread_of_track(t.tracks.size(), -1);
  std::vector<std::vector<TrackId>> thread_tracks;
  for (TrackId k = 0; k < t.tracks.size(); ++k) {
    if (t.tracks[k].kind != TrackKind::kCpuThread) continue;
    std::string_view tid = t.str(t.tracks[k].tid_text);
    std::string_view thread = nsys ? export_thread_of(tid) : tid;
    if (thread.empty()) continue;
    auto it = thread_of_name.emplace(std::make_pair(t.tracks[k].process, thread),
                                     static_cast<uint32_t>(thread_tracks.size()));
    if (it.second) thread_tracks.emplace_back();
    thread_tracks[it.first->second].push_back(k);
    thread_of_track[k] = static_cast<int32_t>(it.first->second);
  }
  std::unordered_set<uint32_t> step_slices;
  for (const Step& st : steps.steps)
    if (st.has_slice()) step_slices.insert(st.slice);
  // What the launching thread can be in, by the kind of call (and the time with none).
  enum CallClass {
    kNoCall,
    kOsCall,
    kCudaCall,
    kLaunchCall,
    kOtherCall,
    kOffCpu,
    kOnCpu,
    kProfilerCall,
    kCudnnCall,
    kCublasCall,
    kMpiCall
  };
  // An export's calls that are "other" slices, told by their category: OS runtime calls, Nsight
  // Systems' own work (its "Profiler overhead" row: a call, the profiler's, not the program's),
  // cuDNN's and cuBLAS' API calls (--trace=cudnn,cublas), MPI calls (--trace=mpi). Kineto's other
  // CPU slices (the "PyTorch Profiler" range over the whole capture) are no call: kNoCall.
  const std::pair<StringId, CallClass> other_calls[] = {
      {t.strings.find("os_runtime"), kOsCall},
      {t.strings.find("profiler_overhead"), kProfilerCall},
      {t.strings.find("cudnn"), kCudnnCall},
      {t.strings.find("cublas"), kCublasCall},
      {t.strings.find("mpi"), kMpiCall}};
  auto other_call = [&](size_t i) {
    for (const auto& [cat, cls] : other_calls)
      if (cat != StringPool::kMissing && s.cat[i] == cat) return cls;
    return kNoCall;
  };
  const StringId cpu_state = t.strings.find("cpu_state");
  auto is_off_cpu = [&](size_t i) {
    return cpu_state != StringPool::kMissing && s.cat[i] == cpu_state;
  };
  std::unordered_map<uint32_t, ThreadSweeps> sweeps;
  auto sweeps_of = [&](uint32_t thread) -> ThreadSweeps& {
    auto it = sweeps.find(thread);
    if (it != sweeps.end()) return it->second;
    std::vector<uint32_t> ranges, calls;
    std::vector<std::array<int64_t, 2>> off;
    for (TrackId k : thread_tracks[thread]) {
      // Slices are sorted by (track, ts, longer first): each track is one run in order.
      auto lo = std::lower_bound(s.track.begin(), s.track.end(), k);
      auto hi = std::upper_bound(lo, s.track.end(), k);
      const size_t mid = calls.size();
      for (auto p = lo; p != hi; ++p) {
        const uint32_t i = static_cast<uint32_t>(p - s.track.begin());
        const SliceKind kind = s.kind[i];
        if (kind == SliceKind::kUserAnnotation) {
          if (!step_slices.count(i)) ranges.push_back(i);
        } else if (kind == SliceKind::kOther && is_off_cpu(i)) {
          off.push_back({s.ts[i], s.end(i)});  // one track, in time order, not overlapping
        } else if (kind == SliceKind::kCpuOp || kind == SliceKind::kPythonFunction ||
                   kind == SliceKind::kRuntime || kind == SliceKind::kDriver ||
                   (kind == SliceKind::kOther && other_call(i) != kNoCall)) {
          calls.push_back(i);
        }
      }
      // An export's CUDA API, OS runtime, profiler overhead, cuDNN, cuBLAS and MPI rows are runs of
      // one thread: merged in order.
      std::inplace_merge(calls.begin(), calls.begin() + static_cast<std::ptrdiff_t>(mid),
                         calls.end(), [&s](uint32_t a, uint32_t b) {
                           return s.ts[a] != s.ts[b] ? s.ts[a] < s.ts[b] : s.dur[a] > s.dur[b];
                         });
    }
    return sweeps
        .emplace(thread, ThreadSweeps{Sweep(s, std::move(ranges)), Sweep(s, std::move(calls)),
                                      std::move(off)})
        .first->second;
  };
  // (range name or -1, call name or -1, call class) -> time.
  std::map<std::tuple<int64_t, int64_t, int>, int64_t> time_in;
  auto name_of = [&s](int32_t slice) -> int64_t {
    return slice < 0 ? -1 : static_cast<int64_t>(s.name[static_cast<size_t>(slice)]);
  };
  // A range counts under its family: emit_nvtx's per-call ranges under their op.
  NameFamilies families(t);
  auto range_of = [&](int32_t slice) -> int64_t {
    return slice < 0
               ? -1
               : static_cast<int64_t>(families.row_of(static_cast<StringId>(name_of(slice)), true));
  };
  std::vector<Piece> ranges, calls;
  for (const GapToFollow& g : gaps) {
    const int32_t launcher = join.partner[g.next_op];
    if (launcher < 0 || g.end_ns <= g.begin_ns) continue;
    const int32_t thread = thread_of_track[s.track[static_cast<size_t>(launcher)]];
    if (thread < 0) continue;
    ThreadSweeps& ts = sweeps_of(static_cast<uint32_t>(thread));
    ts.ranges.pieces(g.begin_ns, g.end_ns, &ranges);
    ts.calls.pieces(g.begin_ns, g.end_ns, &calls);
    ++r.gaps;
    r.total_ns += g.end_ns - g.begin_ns;
    // Both lists cover [begin, end) in order: walk them together.
    size_t a = 0, b = 0;
    int64_t pos = g.begin_ns;
    while (a < ranges.size() && b < calls.size()) {
      const int64_t to = std::min(ranges[a].end, calls[b].end);
      const int32_t range = ranges[a].slice, call = calls[b].slice;
      int cls = kNoCall;
      if (call >= 0) {
        const SliceKind k = s.kind[static_cast<size_t>(call)];
        const bool cuda = k == SliceKind::kRuntime || k == SliceKind::kDriver;
        const CallClass other = other_call(static_cast<size_t>(call));
        cls = cuda && join.partner[static_cast<size_t>(call)] >= 0 ? kLaunchCall
              : cuda                                               ? kCudaCall
              : other != kNoCall                                   ? other
                                                                   : kOtherCall;
      }
      if (call < 0 && !ts.off.empty()) {  // no call: switched out, or running untraced code
        const int64_t off = ts.off_time(pos, to);
        if (off > 0) time_in[{range_of(range), -1, kOffCpu}] += off;
        if (to - pos > off) time_in[{range_of(range), -1, kOnCpu}] += to - pos - off;
      } else {
        time_in[{range_of(range), name_of(call), cls}] += to - pos;
      }
      pos = to;
      if (ranges[a].end == to) ++a;
      if (calls[b].end == to) ++b;
    }
  }
  for (const auto& kv : time_in) {
    HostActivity act;
    act.ns = kv.second;
    const int64_t range = std::get<0>(kv.first), call = std::get<1>(kv.first);
    const int cls = std::get<2>(kv.first);
    if (range >= 0) {
      act.label = families.label_of(static_cast<StringId>(range));
      if (act.label.empty()) act.label = std::string(t.str(static_cast<StringId>(range)));
      if (nsys) act.label += " (NVTX)";
    }
    if (call >= 0) {
      act.call = std::string(t.str(static_cast<StringId>(call)));
      std::string name = act.call;
      if (cls == kOsCall)
        act.kind = os_call_kind(name), name += " (OS runtime)";
      else if (cls == kProfilerCall)
        act.kind = HostActivityKind::kProfiler, name += " (profiler overhead)";
      else if (cls == kCudnnCall || cls == kCublasCall)
        act.kind = HostActivityKind::kCpuWork, name += cls == kCudnnCall ? " (cuDNN)" : " (cuBLAS)";
      else if (cls == kMpiCall)
        act.kind = HostActivityKind::kMpi, name += " (MPI)";
      else if (cls == kCudaCall || cls == kLaunchCall) {
        act.kind = cls == kLaunchCall ? HostActivityKind::kLaunch : HostActivityKind::kCudaCall;
        if (nsys) name += " (CUDA API)";
      } else
        act.kind = HostActivityKind::kCpuWork;
      act.label += (act.label.empty() ? "" : " > ") + name;
    } else if (cls == kOffCpu || cls == kOnCpu) {
      act.kind = cls == kOffCpu ? HostActivityKind::kOffCpu : HostActivityKind::kOnCpu;
      act.label += std::string(act.label.empty() ? "" : " > ") +
                   std::string(cls == kOffCpu ? kOffCpuLabel : kOnCpuLabel);
    } else if (range >= 0) {
      act.kind = HostActivityKind::kCpuWork;
    } else {
      act.label = "nothing recorded";
    }
    r.top.push_back(std::move(act));
  }
  std::stable_sort(r.top.begin(), r.top.end(),
                   [](const HostActivity& a, const HostActivity& b) { return a.ns > b.ns; });
  if (r.top.size() > 5) r.top.resize(5);
  return r;
}

}  // namespace ks
