// HTA's analyses agree with Kinetoscope's on the reference traces (../shared/reference, one file
// per trace with HTA's results for runs[0] = HTA's defaults and runs[1] =
// include_last_profiler_step=True): temporal breakdown, idle time per stream and category (with
// the gap counts), kernel-type breakdown, communication/computation overlap and the launch
// statistics. Compared under HTA's conventions:
//   - microseconds: HTA rounds each event's start up and its end down (when the trace's
//     timestamps are floats; integer-microsecond traces are unchanged); the trace is rounded the
//     same way before analyzing. A sub-microsecond op can round to a negative length (0.6 us at
//     10.7 becomes [11, 10]); HTA keeps it, and so does the rounded trace here. HTA's interval
//     merge (merge_kernel_intervals) then counts such an op, when it overlaps nothing, as -1 us
//     of busy time, where ours drops empty intervals: the temporal breakdown is compared after
//     adding that difference (hta_union_length below), so it is checked to the microsecond;
//   - the op set: hta_kept_ops (corpus/hta_reference.h), as in hta_reference_test.cpp;
//   - launch statistics: HTA looks at cudaLaunchKernel, cudaLaunchKernelExC, cudaMemcpyAsync,
//     cudaMemsetAsync (and MTIA's runFunction job submission) only;
//   - idle categories: a GPU op whose launch is not in the trace gets, in HTA, the start time of
//     the trace's first event as its launch time (its index_correlation is 0, which joins to
//     row 0), so its gap is host wait when that event starts after the previous op ended. The
//     test gives such ops the same launcher (hta_unmatched_launcher below).
// Times agree within 0.5% (or 1 us), counts exactly. What differs for a reason we can name is
// listed in kKnownDifferences and explained in docs/hta-differences.md.
#include <simdjson.h>

#include <catch2/catch.hpp>
#include <climits>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "analysis/analyze.h"
#include "corpus/hta_reference.h"
#include "corpus/json_get.h"
#include "corpus/shared_traces.h"
#include "helpers.h"

using namespace ks_test;

namespace {

// HTA's microseconds, in place: start rounded up, end rounded down, on the timestamps as the
// trace wrote them (relative to baseTimeNanoseconds when it has one).
void round_like_hta(ks::Trace* t) {
  const int64_t base = t->facts.has_base_time ? t->facts.base_time_ns : 0;
  ks::SliceTable& s = t->slices;
  for (size_t i = 0; i < s.size(); ++i) {
    const int64_t begin = ceil_div(s.ts[i] - base, 1000) * 1000 + base;
    const int64_t end = floor_div(s.ts[i] + s.dur[i] - base, 1000) * 1000 + base;
    s.ts[i] = begin;
    s.dur[i] = end - begin;  // may be negative, as in HTA
  }
}

// What differs from HTA for a reason we can name (docs/hta-differences.md).
struct KnownDifference {
  const char* trace;
  int include_last;      // 0, 1, or -1 for both runs
  const char* analysis;  // "temporal", "idle", "kernel_type", "overlap", "launch", or "*"
  const char* reason;
};
const KnownDifference kKnownDifferences[] = {
    // Triton: the launcher cpu_op has the kernel's name and carries args.stream = 0; HTA takes
    // it for a GPU op (COMPUTATION) on stream 0.
    {"hta__triton_example.json.gz", -1, "temporal", "Triton launcher cpu_op counted as a kernel"},
    {"hta__triton_example.json.gz", -1, "kernel_type",
     "Triton launcher cpu_op counted as a kernel"},
    {"tracelens__vllm_decode_full__graph_capture_rank_0.1773709742341309550.pt.trace.json.gz", -1,
     "temporal", "Triton launcher cpu_op counted as a kernel"},
    {"tracelens__vllm_decode_full__graph_capture_rank_0.1773709742341309550.pt.trace.json.gz", -1,
     "kernel_type", "Triton launcher cpu_op counted as a kernel"},
    {"tracelens__xdit_flux.1__capture_trace_rank_0.json.gz", -1, "temporal",
     "Triton launcher cpu_op counted as a kernel"},
    {"tracelens__xdit_flux.1__capture_trace_rank_0.json.gz", -1, "kernel_type",
     "Triton launcher cpu_op counted as a kernel"},
    // cuda_sync events (Stream Sync, Event Sync, Context Sync) with a stream arg other than -1
    // (Context Sync carries 4294967295): HTA's temporal breakdown selects GPU events by
    // stream != -1 and counts them as busy, non-compute GPU time; they are not GPU work.
    {"hta__benchmark_result_2869224_1695835535_trace.json.gz", -1, "temporal",
     "cuda_sync events counted as GPU time"},
    {"hta__benchmark_result_493459_1694039959_trace.json.gz", -1, "temporal",
     "cuda_sync events counted as GPU time"},
    {"hta__overlaid_critical_path_trace.json.gz", -1, "temporal",
     "cuda_sync events counted as GPU time"},
    {"hta__cuda_event_sync__event_sync_trace.json.gz", -1, "temporal",
     "cuda_sync events counted as GPU time"},
    {"hta__cuda_event_sync_multi_stream__event_sync_trace.json.gz", -1, "temporal",
     "cuda_sync events counted as GPU time"},
    // A kernel with cat "kernel" but no stream arg: HTA ignores it (no communication at all).
    {"hta__rank-70.Mar_25_20_48_12.2861.pt.trace.json.gz", -1, "kernel_type",
     "ncclKernel without a stream arg ignored by HTA"},
    {"hta__rank-70.Mar_25_20_48_12.2861.pt.trace.json.gz", -1, "overlap",
     "ncclKernel without a stream arg ignored by HTA"},
};

// ROCm: the GPU-side ProfilerStep annotations have no stream arg, so HTA takes them for CPU
// events and its last-step cut-off falls after every launch: its runs[0] drops nothing (but
// still drops GPU ops whose launch is not in the trace). Compared with that op set.
const char* const kCutOffAfterEverything = "tracelens__mi300__resnet_act_checkpoint.json.gz";

const KnownDifference* known(const std::string& trace, bool include_last, const char* analysis) {
  for (const KnownDifference& k : kKnownDifferences) {
    if (trace != k.trace) continue;
    if (k.include_last >= 0 && k.include_last != (include_last ? 1 : 0)) continue;
    if (std::string(k.analysis) == "*" || std::string(k.analysis) == analysis) return &k;
  }
  return nullptr;
}

bool close_us(double ours_us, double theirs_us) {
  return std::fabs(ours_us - theirs_us) <= std::max(1.0, 0.005 * std::fabs(theirs_us));
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
int32_t hta_row0_slice(const std::string& path, const ks::Trace& t) {
  const ks::SliceTable& s = t.slices;
  if (s.size() == 0) return -1;
  uint32_t first = 0;
  for (uint32_t i = 1; i < s.size(); ++i)
    if (s.file_offset[i] < s.file_offset[first]) first = i;
  std::string json;
  if (!read_file_maybe_gzip(path, &json)) return -1;
  size_t key = json.find("\"traceEvents\"");
  if (key == std::string::npos) return -1;
  size_t pos = json.find('[', key);
  if (pos == std::string::npos) return -1;
  ++pos;
  while (pos < json.size() && std::isspace(static_cast<unsigned char>(json[pos]))) ++pos;
  if (pos != s.file_offset[first]) return -1;
  std::string event = json.substr(pos, s.byte_len[first]);
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

// HTA's union length (hta/utils/utils.py merge_kernel_intervals): sorted by start, a new group
// begins where an op starts after every earlier op's end; a group lasts from its first start to
// its last end, which is negative for a lone op that rounded to a negative length.
int64_t hta_union_length(std::vector<ks::Interval> v) {
  std::stable_sort(v.begin(), v.end(),
                   [](const ks::Interval& a, const ks::Interval& b) { return a.begin < b.begin; });
  int64_t total = 0;
  size_t i = 0;
  while (i < v.size()) {
    int64_t begin = v[i].begin, end = v[i].end, reach = v[i].end;
    size_t j = i + 1;
    while (j < v.size() && v[j].begin <= reach) {
      end = std::max(end, v[j].end);
      reach = std::max(reach, v[j].end);
      ++j;
    }
    total += end - begin;
    i = j;
  }
  return total;
}

struct Ours {
  ks::TemporalBreakdown temporal;
  int64_t hta_extra_busy_ns = 0;     // HTA's union length of all GPU ops minus ours
  int64_t hta_extra_compute_ns = 0;  // the same for computation kernels
  ks::KernelTypeBreakdown kernel_types;
  ks::CommOverlap overlap;
  ks::IdleBreakdown idle;
  ks::LaunchStats launches;
};

Ours analyze_like_hta(const ks::Trace& t, bool include_last, int32_t row0, bool keep_all_launched) {
  ks::LaunchJoin join = ks::build_launch_join(t);
  std::vector<bool> kept = hta_kept_ops(t, join, include_last);
  // Where HTA's cut-off falls after every launch (kCutOffAfterEverything): all launched ops.
  if (keep_all_launched && !kept.empty()) kept = ks::hta_launched_before(t, join, INT64_MAX, true);
  const std::vector<bool>* included = kept.empty() ? nullptr : &kept;
  Ours o;
  ks::GpuIntervals gpu = ks::collect_gpu_intervals(t, join, included);
  o.temporal = ks::compute_temporal_breakdown(gpu);
  std::vector<ks::Interval> all, comp;
  for (uint32_t g : join.gpu_ops_by_ts) {
    if (!ks::op_counted(included, g)) continue;
    ks::Interval iv{t.slices.ts[g], t.slices.end(g)};
    all.push_back(iv);
    if (ks::hta_category(t.slices.kind[g], t.str(t.slices.name[g])) ==
        ks::HtaCategory::kComputation)
      comp.push_back(iv);
  }
  o.hta_extra_busy_ns = hta_union_length(all) - ks::total_length(gpu.all);
  o.hta_extra_compute_ns = hta_union_length(comp) - ks::total_length(gpu.computation);
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

struct Counters {
  size_t runs = 0, temporal = 0, idle_rows = 0, kernel_types = 0, overlaps = 0, launches = 0;
};

void compare_temporal(simdjson::dom::element results, const Ours& o, Counters* n) {
  simdjson::dom::array rows;
  if (!array(results, "temporal_breakdown", &rows)) return;  // HTA failed here
  for (simdjson::dom::element row : rows) {
    INFO("temporal breakdown");
    check_close("span", us(o.temporal.span_ns), dbl(row, "kernel_time(us)"));
    // HTA's numbers from ours: its union is longer by hta_extra_* (negative-length ops).
    const int64_t idle = o.temporal.idle_ns - o.hta_extra_busy_ns;
    const int64_t compute = o.temporal.compute_ns + o.hta_extra_compute_ns;
    const int64_t non_compute = o.temporal.span_ns - idle - compute;
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
    double pct;
    bool theirs_present = !row["comp_comm_overlap_pctg"].get(pct);
    INFO("comm/comp overlap");
    CHECK(o.overlap.has_communication == theirs_present);
    if (theirs_present && o.overlap.has_communication) {
      INFO("overlap: Kinetoscope " << o.overlap.overlap_pct << "%, HTA " << pct << "%");
      CHECK(std::fabs(o.overlap.overlap_pct - pct) <= std::max(0.01, 0.005 * pct));
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
    const std::string& trace_name = r.trace_name;
    round_like_hta(r.loaded.trace.get());
    const ks::Trace& trace = *r.loaded.trace;
    const int32_t row0 = hta_row0_slice(r.trace_path, trace);
    for (simdjson::dom::element run : r.runs) {
      bool include_last = boolean(run, "include_last_profiler_step");
      INFO("include_last_profiler_step=" << include_last);
      Ours o = analyze_like_hta(trace, include_last, row0,
                                !include_last && trace_name == kCutOffAfterEverything);
      simdjson::dom::element results = at(run, "results");
      if (!known(trace_name, include_last, "temporal")) compare_temporal(results, o, &n);
      if (!known(trace_name, include_last, "idle")) compare_idle(results, o, &n);
      if (!known(trace_name, include_last, "kernel_type")) compare_kernel_types(results, o, &n);
      if (!known(trace_name, include_last, "overlap")) compare_overlap(results, o, &n);
      if (!known(trace_name, include_last, "launch")) compare_launches(results, trace, o, &n);
      ++n.runs;
    }
  });
  if (!found) return;
  INFO("runs " << n.runs << ", temporal " << n.temporal << ", idle rows " << n.idle_rows
               << ", kernel types " << n.kernel_types << ", overlaps " << n.overlaps
               << ", launch stats " << n.launches);
  CHECK(n.runs >= 80);
  CHECK(n.temporal >= 60);
  CHECK(n.idle_rows >= 200);
  CHECK(n.launches >= 80);
}
