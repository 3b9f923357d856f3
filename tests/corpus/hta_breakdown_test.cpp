// HTA's analyses agree with Kinetoscope's on the reference traces (../shared/reference, one file
// per trace with HTA's results for runs[0] = HTA's defaults and runs[1] =
// include_last_profiler_step=True): temporal breakdown, idle time per stream and category (with
// the gap counts), kernel-type breakdown, communication/computation overlap and the launch
// statistics. Compared under HTA's conventions, each recognised from the data (no file names):
//   - HTA's view of the trace (corpus/hta_view.h): its GPU ops are the events with a stream arg,
//     typed by its name rules. Our breakdowns (compute_temporal_breakdown, ...) are computed on
//     that op set; on every run where HTA's set and types are ours, the intervals must equal
//     what collect_gpu_intervals gives, so our own selection is checked there;
//   - microseconds: HTA rounds each event's start up and its end down (when the trace's
//     timestamps are floats; integer-microsecond traces are unchanged); the trace is rounded the
//     same way before analyzing. A sub-microsecond op can round to a negative length (0.6 us at
//     10.7 becomes [11, 10]); HTA keeps it, and so does the rounded trace here. HTA's interval
//     merge (merge_kernel_intervals) then counts such an op, when it overlaps nothing, as -1 us
//     of busy time, where ours drops empty intervals: the temporal breakdown is compared after
//     adding that difference (hta_union_length below);
//   - the op set: hta_view_kept (HTA's step filter, with HTA's last step);
//   - launch statistics: HTA looks at cudaLaunchKernel, cudaLaunchKernelExC, cudaMemcpyAsync,
//     cudaMemsetAsync (and MTIA's runFunction job submission) only;
//   - idle categories: a GPU op whose launch is not in the trace gets, in HTA, the start time of
//     the trace's first event as its launch time (its index_correlation is 0, which joins to
//     row 0), so its gap is host wait when that event starts after the previous op ended. The
//     test gives such ops the same launcher (hta_unmatched_launcher below).
// Times are equal to the microsecond (HTA's are whole microseconds, ours on the rounded trace
// too), counts exactly, overlap percentages within 0.01 points (HTA rounds them to two
// decimals). Every comparison kind has a minimum count, so a kind that is silently skipped
// fails.
#include <simdjson.h>

#include <catch2/catch.hpp>
#include <climits>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "analysis/analyze.h"
#include "corpus/hta_reference.h"
#include "corpus/hta_view.h"
#include "corpus/json_get.h"
#include "corpus/shared_traces.h"
#include "helpers.h"

using namespace ks_test;

namespace {

// HTA's times are whole microseconds, and so are ours on the rounded trace: equal, to the
// microsecond (a difference under half a microsecond is float noise in HTA's JSON).
bool close_us(double ours_us, double theirs_us) {
  return std::fabs(ours_us - theirs_us) < 0.5;
}

double us(int64_t ns) {
  return static_cast<double>(ns) / 1000.0;
}

void check_close(const char* what, double ours_us, double theirs_us) {
  INFO(what << ": Kinetoscope " << ours_us << " us, HTA " << theirs_us << " us");
  CHECK(close_us(ours_us, theirs_us));
}

void check_count(const char* what, uint64_t ours, uint64_t theirs) {
  INFO(what << ": Kinetoscope " << ours << ", HTA " << theirs);
  CHECK(ours == theirs);
}

// The slice that is HTA's row 0: the trace's first event, when it is a slice HTA keeps (it has a
// dur and a category other than "Trace"); -1 otherwise.
int32_t hta_row0_slice(const std::string& json, const ks::Trace& t) {
  const ks::SliceTable& s = t.slices;
  if (s.size() == 0) return -1;
  uint32_t first = 0;
  for (uint32_t i = 1; i < s.size(); ++i)
    if (s.file_offset(i) < s.file_offset(first)) first = i;
  size_t key = json.find("\"traceEvents\"");
  if (key == std::string::npos) return -1;
  size_t pos = json.find('[', key);
  if (pos == std::string::npos) return -1;
  ++pos;
  while (pos < json.size() && std::isspace(static_cast<unsigned char>(json[pos]))) ++pos;
  if (pos != s.file_offset(first)) return -1;
  std::string event = json.substr(pos, s.byte_len(first));
  if (event.find("\"dur\"") == std::string::npos || t.str(s.cat[first]) == "Trace") return -1;
  return static_cast<int32_t>(first);
}

// HTA's launcher for a GPU op whose launch is not in the trace: row 0 (see the top comment).
ks::LaunchJoin hta_unmatched_launcher(const ks::Trace& t, ks::LaunchJoin join, int32_t row0) {
  if (row0 < 0) return join;
  for (uint32_t g : join.gpu_ops_by_ts)
    if (join.partner[g] < 0 && t.slices.correlation[g] != ks::kNoValue) join.partner[g] = row0;
  return join;
}

// HTA's merged groups (hta/utils/utils.py merge_kernel_intervals): sorted by start, a new group
// begins where an op starts after every earlier op's end; a group lasts from its first start to
// its last end, which is before its start for a lone op that rounded to a negative length.
std::vector<ks::Interval> hta_groups(std::vector<ks::Interval> v) {
  std::stable_sort(v.begin(), v.end(),
                   [](const ks::Interval& a, const ks::Interval& b) { return a.begin < b.begin; });
  std::vector<ks::Interval> out;
  size_t i = 0;
  while (i < v.size()) {
    int64_t begin = v[i].begin, end = v[i].end;
    size_t j = i + 1;
    while (j < v.size() && v[j].begin <= end) {
      end = std::max(end, v[j].end);
      ++j;
    }
    out.push_back({begin, end});
    i = j;
  }
  return out;
}

// HTA's union length: the sum of its groups' lengths (a negative-length group subtracts).
int64_t hta_union_length(const std::vector<ks::Interval>& v) {
  int64_t total = 0;
  for (const ks::Interval& g : hta_groups(v)) total += g.end - g.begin;
  return total;
}

// HTA's span (kernel_time): the last group's end minus the first group's start.
int64_t hta_span(const std::vector<ks::Interval>& v) {
  std::vector<ks::Interval> g = hta_groups(v);
  return g.empty() ? 0 : g.back().end - g.front().begin;
}

// HTA's kernel-type sweep (breakdown_analysis.py _get_gpu_kernel_type_time): each type's groups
// become +bit at the start and -bit at the end, sorted by time; between consecutive events the
// running sum's bits name the types running ("computation overlapping communication"). With a
// negative-length group the running sum dips, and the time around it gets another label.
std::map<std::string, int64_t> hta_sweep(const std::vector<ks::Interval>* by_type[3]) {
  static const char* const kNames[3] = {"computation", "communication", "memory"};
  std::vector<std::pair<int64_t, int>> events;
  for (int t = 0; t < 3; ++t)
    for (const ks::Interval& g : hta_groups(*by_type[t])) {
      events.push_back({g.begin, 1 << t});
      events.push_back({g.end, -(1 << t)});
    }
  std::stable_sort(events.begin(), events.end(),
                   [](const std::pair<int64_t, int>& a, const std::pair<int64_t, int>& b) {
                     return a.first < b.first;
                   });
  std::map<std::string, int64_t> out;
  int running = 0;
  for (size_t i = 0; i + 1 < events.size(); ++i) {
    running += events[i].second;
    if (running <= 0) continue;
    std::string label;
    for (int t = 0; t < 3; ++t)
      if (running & (1 << t))
        label += (label.empty() ? "" : " overlapping ") + std::string(kNames[t]);
    out[label] += events[i + 1].first - events[i].first;
  }
  return out;
}

struct Ours {
  ks::TemporalBreakdown temporal;
  int64_t hta_extra_busy_ns = 0;     // HTA's union length of all GPU ops minus ours
  int64_t hta_extra_compute_ns = 0;  // the same for computation kernels
  int64_t hta_extra_span_ns = 0;     // HTA's span minus ours
  // Per kernel-type label: HTA's sweep over HTA's groups minus the same sweep over our merged
  // intervals (what negative-length ops change).
  std::map<std::string, int64_t> hta_extra_type_ns;
  ks::KernelTypeBreakdown kernel_types;
  ks::CommOverlap overlap;
  ks::IdleBreakdown idle;
  ks::LaunchStats launches;
};

struct Counters {
  size_t runs = 0, temporal = 0, idle_rows = 0, kernel_types = 0, overlaps = 0, launches = 0;
  size_t same_view = 0;       // runs where HTA's op set and types are ours (intervals compared)
  size_t hta_view_rules = 0;  // runs where a rule of hta_view.h changed HTA's view
};

bool same(const std::vector<ks::Interval>& a, const std::vector<ks::Interval>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].begin != b[i].begin || a[i].end != b[i].end) return false;
  return true;
}

Ours analyze_like_hta(const ks::Trace& t, const HtaView& view, bool include_last, int32_t row0,
                      Counters* n) {
  ks::LaunchJoin join = ks::build_launch_join(t);
  std::vector<bool> kept = hta_view_kept(t, join, view, include_last);
  const std::vector<bool>* included = kept.empty() ? nullptr : &kept;
  Ours o;
  // HTA's op set and types: our GPU ops that HTA sees, and the CPU-side ops it takes for GPU
  // ops (hta_view.h); OTHER ops are busy time of no type.
  std::vector<ks::Interval> all, comp, comm, mem;
  auto add = [&](uint32_t i) {
    ks::Interval iv{t.slices.ts[i], t.slices.end(i)};
    all.push_back(iv);
    switch (view.type(t.slices.name[i])) {
      case HtaType::kComputation:
        comp.push_back(iv);
        break;
      case HtaType::kCommunication:
        comm.push_back(iv);
        break;
      case HtaType::kMemory:
        mem.push_back(iv);
        break;
      case HtaType::kOther:
        break;
    }
  };
  for (uint32_t g : join.gpu_ops_by_ts)
    if (ks::op_counted(included, g)) add(g);
  for (uint32_t i : hta_view_extra(view, kept)) add(i);
  ks::GpuIntervals gpu;
  gpu.ops = all.size();
  gpu.all = ks::merge_intervals(all);
  gpu.computation = ks::merge_intervals(comp);
  gpu.communication = ks::merge_intervals(comm);
  gpu.memory = ks::merge_intervals(mem);
  if (view.same_ops_and_types()) {
    // HTA's ops and types are ours: our own selection and typing must give the same intervals.
    ks::GpuIntervals ours = ks::collect_gpu_intervals(t, join, included);
    CHECK(ours.ops == gpu.ops);
    CHECK(same(ours.all, gpu.all));
    CHECK(same(ours.computation, gpu.computation));
    CHECK(same(ours.communication, gpu.communication));
    CHECK(same(ours.memory, gpu.memory));
    ++n->same_view;
  } else {
    ++n->hta_view_rules;
  }
  o.temporal = ks::compute_temporal_breakdown(gpu);
  o.hta_extra_busy_ns = hta_union_length(all) - ks::total_length(gpu.all);
  o.hta_extra_compute_ns = hta_union_length(comp) - ks::total_length(gpu.computation);
  o.hta_extra_span_ns = hta_span(all) - o.temporal.span_ns;
  const std::vector<ks::Interval>* raw[3] = {&comp, &comm, &mem};
  const std::vector<ks::Interval>* merged[3] = {&gpu.computation, &gpu.communication, &gpu.memory};
  for (const auto& kv : hta_sweep(raw)) o.hta_extra_type_ns[kv.first] += kv.second;
  for (const auto& kv : hta_sweep(merged)) o.hta_extra_type_ns[kv.first] -= kv.second;
  o.kernel_types = ks::compute_kernel_type_breakdown(gpu);
  o.overlap = ks::compute_comm_overlap(gpu);
  o.idle = ks::compute_idle_breakdown(t, hta_unmatched_launcher(t, join, row0), included);
  o.launches = ks::compute_launch_stats(t, join, included);
  return o;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

void compare_temporal(simdjson::dom::element results, const Ours& o, Counters* n) {
  simdjson::dom::array rows;
  if (!array(results, "temporal_breakdown", &rows)) return;  // HTA failed here
  for (simdjson::dom::element row : rows) {
    INFO("temporal breakdown");
    // HTA's numbers from ours: its span and union differ by hta_extra_* (negative-length ops).
    const int64_t span = o.temporal.span_ns + o.hta_extra_span_ns;
    check_close("span", us(span), dbl(row, "kernel_time(us)"));
    const int64_t idle = o.temporal.idle_ns + o.hta_extra_span_ns - o.hta_extra_busy_ns;
    const int64_t compute = o.temporal.compute_ns + o.hta_extra_compute_ns;
    const int64_t non_compute = span - idle - compute;
    check_close("idle", us(idle), dbl(row, "idle_time(us)"));
    check_close("compute", us(compute), dbl(row, "compute_time(us)"));
    check_close("non-compute", us(non_compute), dbl(row, "non_compute_time(us)"));
    ++n->temporal;
  }
}

void compare_idle(simdjson::dom::element results, const Ours& o, Counters* n) {
  simdjson::dom::element idle;
  simdjson::dom::array rows, stats;
  if (results["idle_time_breakdown"].get(idle) || !idle.is_object()) return;  // HTA failed here
  if (!array(idle, "idle_time", &rows)) return;
  // Ours per stream number (HTA groups a rank's ops by the stream arg alone).
  std::map<std::pair<int64_t, std::string>, double> ours_us;
  std::map<std::pair<int64_t, std::string>, uint64_t> ours_count;
  std::set<int64_t> our_streams;
  for (const ks::StreamIdle& st : o.idle.streams) {
    our_streams.insert(st.stream);
    for (int c = 0; c < ks::kIdleCauses; ++c) {
      auto key = std::make_pair(st.stream,
                                std::string(ks::idle_cause_name(static_cast<ks::IdleCause>(c))));
      ours_us[key] += us(st.idle_ns[c]);
      ours_count[key] += st.gaps[c].count;
    }
  }
  std::set<int64_t> their_streams;
  for (simdjson::dom::element row : rows) {
    int64_t stream = static_cast<int64_t>(dbl(row, "stream", -1));
    std::string cat = str(row, "idle_category");
    their_streams.insert(stream);
    INFO("idle time: stream " << stream << " " << cat);
    check_close("idle time", ours_us[{stream, cat}], dbl(row, "idle_time"));
    ++n->idle_rows;
  }
  CHECK(our_streams == their_streams);
  if (!array(idle, "interval_stats", &stats)) return;
  for (simdjson::dom::element row : stats) {
    int64_t stream = static_cast<int64_t>(dbl(row, "stream", -1));
    std::string cat = str(row, "idle_category");
    INFO("idle gaps: stream " << stream << " " << cat);
    check_count("gaps", ours_count[{stream, cat}],
                static_cast<uint64_t>(std::llround(dbl(row, "count"))));
  }
}

void compare_kernel_types(simdjson::dom::element results, const Ours& o, Counters* n) {
  simdjson::dom::element breakdown;
  simdjson::dom::array rows;
  if (results["gpu_kernel_breakdown"].get(breakdown) || !breakdown.is_object()) return;
  if (!array(breakdown, "kernel_type", &rows)) return;
  std::map<std::string, double> ours;
  for (const ks::KernelTypeRow& r : o.kernel_types.rows) ours[r.label] = us(r.ns);
  for (const auto& kv : o.hta_extra_type_ns) ours[kv.first] += us(kv.second);
  std::set<std::string> seen;
  for (simdjson::dom::element row : rows) {
    std::string type = lower(str(row, "kernel_type"));
    double sum = dbl(row, "sum");
    INFO("kernel type: " << type);
    seen.insert(type);
    check_close("time", ours[type], sum);
    ++n->kernel_types;
  }
  for (const auto& kv : ours) {
    INFO("kernel type only in Kinetoscope: " << kv.first << " " << kv.second << " us");
    CHECK((seen.count(kv.first) == 1 || kv.second <= 1.0));
  }
}

void compare_overlap(simdjson::dom::element results, const Ours& o, Counters* n) {
  simdjson::dom::array rows;
  if (!array(results, "comm_comp_overlap", &rows)) return;
  for (simdjson::dom::element row : rows) {
    double pct = 0;
    bool theirs_present = !row["comp_comm_overlap_pctg"].get(pct);
    INFO("comm/comp overlap");
    CHECK(o.overlap.has_communication == theirs_present);
    if (theirs_present && o.overlap.has_communication) {
      INFO("overlap: Kinetoscope " << o.overlap.overlap_pct << "%, HTA " << pct << "%");
      CHECK(std::fabs(o.overlap.overlap_pct - pct) <= 0.01);
    }
    ++n->overlaps;
  }
}

void compare_launches(simdjson::dom::element results, const ks::Trace& t, const Ours& o,
                      Counters* n) {
  simdjson::dom::object per_rank;
  if (!object(results, "cuda_kernel_launch_stats", &per_rank)) return;
  // HTA's launch calls (not the driver's cuLaunchKernel, nor HIP's), and MTIA's job submission.
  static const std::set<std::string> kHtaApis = {"cudaLaunchKernel", "cudaLaunchKernelExC",
                                                 "cudaMemcpyAsync", "cudaMemsetAsync",
                                                 "runFunction - job_prep_and_submit_for_execution"};
  ks::LaunchApiRow ours;
  for (const ks::LaunchApiRow& r : o.launches.apis) {
    if (!kHtaApis.count(std::string(t.str(r.api)))) continue;
    ours.launches += r.launches;
    ours.short_kernels += r.short_kernels;
    ours.runtime_outliers += r.runtime_outliers;
    ours.delay_outliers += r.delay_outliers;
    ours.cpu_ns += r.cpu_ns;
    ours.gpu_ns += r.gpu_ns;
    ours.delay.total_ns += r.delay.total_ns;
  }
  for (auto kv : per_rank) {
    simdjson::dom::element row = kv.value;
    INFO("launch stats");
    check_count("launches", ours.launches, u64(row, "n_launches"));
    check_count("short kernels", ours.short_kernels,
                u64(row, "gpu_shorter_than_cpu_and_cpu_le_50us"));
    check_count("runtime outliers", ours.runtime_outliers, u64(row, "cpu_duration_gt_50us"));
    check_count("delay outliers", ours.delay_outliers, u64(row, "launch_delay_gt_100us"));
    simdjson::dom::element sums = at(row, "sum_us");
    if (ours.launches > 0) {
      check_close("launch cpu time", us(ours.cpu_ns), dbl(sums, "cpu_duration"));
      check_close("launch gpu time", us(ours.gpu_ns), dbl(sums, "gpu_duration"));
      check_close("launch delay", us(ours.delay.total_ns), dbl(sums, "launch_delay"));
    }
    ++n->launches;
  }
}

}  // namespace

TEST_CASE("HTA's breakdowns, overlap and launch statistics agree on the reference traces",
          "[corpus][hta]") {
  Counters n;
  const bool found = for_each_hta_reference([&](HtaReference& r) {
    std::string json;
    REQUIRE(read_file_maybe_gzip(r.trace_path, &json));
    round_like_hta(r.loaded.trace.get());
    const ks::Trace& trace = *r.loaded.trace;
    const HtaView view = hta_view(trace, json);
    INFO("HTA's view: " << view.unseen_gpu_ops.size() << " GPU ops without a stream arg, "
                        << view.extra_ops.size() << " CPU-side ops with one, "
                        << view.retyped_ops.size() << " GPU ops typed otherwise, GPU-side steps "
                        << view.gpu_side_steps);
    const int32_t row0 = hta_row0_slice(json, trace);
    for (simdjson::dom::element run : r.runs) {
      bool include_last = boolean(run, "include_last_profiler_step");
      INFO("include_last_profiler_step=" << include_last);
      Ours o = analyze_like_hta(trace, view, include_last, row0, &n);
      simdjson::dom::element results = at(run, "results");
      compare_temporal(results, o, &n);
      compare_idle(results, o, &n);
      compare_kernel_types(results, o, &n);
      compare_overlap(results, o, &n);
      compare_launches(results, trace, o, &n);
      ++n.runs;
    }
  });
  if (!found) return;
  INFO("runs " << n.runs << ", temporal " << n.temporal << ", idle rows " << n.idle_rows
               << ", kernel types " << n.kernel_types << ", overlaps " << n.overlaps
               << ", launch stats " << n.launches << ", runs with HTA's view = ours " << n.same_view
               << ", with a rule applied " << n.hta_view_rules);
  CHECK(n.runs >= 90);
  CHECK(n.temporal >= 80);
  CHECK(n.idle_rows >= 200);
  CHECK(n.kernel_types >= 150);
  CHECK(n.overlaps >= 80);
  CHECK(n.launches >= 80);
  CHECK(n.same_view >= 75);
  CHECK(n.hta_view_rules >= 10);
}
