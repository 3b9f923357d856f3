// Memory-copy traffic: copies between the host and pageable (not pinned) memory run at a
// fraction of the bus speed and block the CPU (Nsight Systems' "async memcpy from pageable
// memory" rule). Device-to-host copies inside steps are rule_dtoh_in_steps (sync_rules.cpp).
#include <climits>
#include <map>
#include <vector>

#include "analysis/gpu_intervals.h"
#include "analysis/gpu_op_summary.h"
#include "findings/rules.h"

namespace ks {

void rule_pageable_copies(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  const Analyses& a = in.analyses;
  const SliceTable& s = t.slices;
  constexpr int64_t kMinBytes = 1 << 20;  // tiny copies (a scalar read back) are not traffic
  uint64_t copies = 0, htod = 0, dtoh = 0;
  int64_t bytes = 0, gpu_ns = 0, launch_ns = 0;
  std::vector<Interval> launches;             // the copies' launching calls, for their cost below
  std::map<StringId, uint64_t> launch_names;  // to name the call the trace's API used
  uint32_t longest = 0;
  // With steps, the copies inside them (so per-step numbers match the steps counted).
  const std::vector<Step>& steps_v = a.steps.steps;
  const int64_t from = steps_v.empty() ? INT64_MIN : steps_v.front().begin;
  const int64_t to = steps_v.empty() ? INT64_MAX : steps_v.back().end;
  for (uint32_t g : a.join.gpu_ops_by_ts) {
    if (s.kind[g] != SliceKind::kMemcpy || s.ts[g] < from || s.ts[g] >= to) continue;
    std::string_view name = t.str(s.name[g]);
    if (!is_pageable_copy(name)) continue;
    MemoryOpKind kind = memory_op_kind(s.kind[g], name);
    if (kind == MemoryOpKind::kHtoD)
      ++htod;
    else if (kind == MemoryOpKind::kDtoH)
      ++dtoh;
    if (copies == 0 || s.dur[g] > s.dur[longest]) longest = g;
    ++copies;
    if (const int64_t b = s.copy_size(g); b > 0) bytes += b;
    gpu_ns += s.dur[g];
    if (a.join.partner[g] >= 0) {
      const uint32_t launch = static_cast<uint32_t>(a.join.partner[g]);
      launch_ns += s.dur[launch];
      launches.push_back({s.ts[launch], s.end(launch)});
      ++launch_names[s.name[launch]];
    }
  }
  if (copies == 0 || bytes < kMinBytes) return;
  // The launching call blocks the CPU until the copy is done, and also while the GPU finishes
  // the work queued before it: in a GPU-bound loop (a real H200 capture: 588 ms blocked, the GPU
  // busy for 455 ms of it) that wait costs nothing. What costs is the copy's GPU time, or the
  // CPU blocked while the GPU had nothing to run, whichever is larger.
  launches = merge_intervals(std::move(launches));
  const int64_t launch_idle_ns = total_length(launches) - gpu_busy_within(t, a.join, launches);
  const int64_t window = analysis_window_ns(t, a);
  const double share = window > 0 ? 100.0 * static_cast<double>(std::max(gpu_ns, launch_idle_ns)) /
                                        static_cast<double>(window)
                                  : 0;
  const double gbps = gpu_ns > 0 ? static_cast<double>(bytes) / static_cast<double>(gpu_ns) : 0;
  const size_t steps = a.steps.steps.size();
  Finding f;
  f.id = "memcpy.pageable";
  f.severity = share >= 5.0 ? Severity::kWarning : Severity::kInfo;
  f.title =
      strf("%llu cop%s from/to pageable host memory: %s at %.1f GB/s (%s of %s)",
           static_cast<unsigned long long>(copies), copies == 1 ? "y" : "ies",
           format_bytes(bytes).c_str(), gbps, format_pct(share).c_str(), analysis_window_name(a));
  // The launching call as the trace names it (hipMemcpyWithStream on ROCm, urEnqueueUSMMemcpy
  // on XPU): the most frequent; the vendor's usual one when no copy has its launch joined.
  const GpuVendor vendor = gpu_vendor(t, a);
  std::string launcher = vendor == GpuVendor::kAmd     ? "hipMemcpyAsync"
                         : vendor == GpuVendor::kIntel ? "urEnqueueUSMMemcpy"
                                                       : "cudaMemcpyAsync";
  uint64_t most = 0;
  for (const auto& kv : launch_names)
    if (kv.second > most) most = kv.second, launcher = std::string(t.str(kv.first));
  f.meaning =
      "Host memory that is not pinned has to be staged by the driver: the copy runs far "
      "below the bus bandwidth, cannot overlap with compute, and the launching " +
      launcher + " blocks the CPU until it is done.";
  f.fix =
      "Pin the host buffers (DataLoader pin_memory=True, or tensor.pin_memory()) and copy "
      "with non_blocking=True.";
  f.fix_code = std::string("loader = DataLoader(dataset, batch_size=..., pin_memory=True)\n") +
               "x = x.to('" + torch_device_name(vendor) + "', non_blocking=True)";
  f.number("copies", static_cast<double>(copies));
  f.number("htod", static_cast<double>(htod));
  f.number("dtoh", static_cast<double>(dtoh));
  f.number("bytes", static_cast<double>(bytes), 0, "B");
  f.number("gb_per_s", gbps, 2, "GB/s");
  f.number("copy_us", us_of(gpu_ns), 3, "us");
  f.number("launch_blocked_us", us_of(launch_ns), 3, "us");
  f.number("launch_blocked_gpu_idle_us", us_of(launch_idle_ns), 3, "us");
  if (steps > 0) {
    const double n = static_cast<double>(steps);
    f.number("bytes_per_step", static_cast<double>(bytes) / n, 0, "B");
    f.number("copy_us_per_step", us_of(gpu_ns) / n, 3, "us");
    f.number("launch_blocked_us_per_step", us_of(launch_ns) / n, 3, "us");
  }
  f.number("share_pct", share, 1, "%");
  f.range(s.ts[longest], s.end(longest), std::string(t.str(s.name[longest])));
  f.events.push_back(longest);
  if (a.join.partner[longest] >= 0) {
    const uint32_t launch = static_cast<uint32_t>(a.join.partner[longest]);
    f.events.push_back(launch);
    add_call_site(t, launch, &f);
  }
  out->push_back(std::move(f));
}

// Managed memory (cudaMallocManaged) that the driver migrated between host and GPU: nsys records
// each migration as a CUPTI_ACTIVITY_KIND_MEMCPY row of copyKind CUDA_MEMCPY_KIND_UVM_* with no
// API call (correlationId 0). A kernel that touches pages resident elsewhere stalls on the fault
// while they move, so the time they take is worth a note once it is a visible share (1%) of the
// window; they are kept out of the HtoD/DtoH counts and the .item() rule (gpu_op_summary.h).
void rule_unified_migrations(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  const Analyses& a = in.analyses;
  const SliceTable& s = t.slices;
  uint64_t count = 0, to_gpu = 0, to_host = 0;
  int64_t bytes = 0, gpu_ns = 0;
  uint32_t longest = 0;
  for (uint32_t g : a.join.gpu_ops_by_ts) {
    if (s.kind[g] != SliceKind::kMemcpy) continue;
    const std::string_view name = t.str(s.name[g]);
    if (memory_op_kind(s.kind[g], name) != MemoryOpKind::kUnified) continue;
    if (count == 0 || s.dur[g] > s.dur[longest]) longest = g;
    ++count;
    to_gpu += name.find("HtoD") != std::string_view::npos;
    to_host += name.find("DtoH") != std::string_view::npos;
    if (const int64_t b = s.copy_size(g); b > 0) bytes += b;
    gpu_ns += s.dur[g];
  }
  const int64_t window = analysis_window_ns(t, a);
  const double share =
      window > 0 ? 100.0 * static_cast<double>(gpu_ns) / static_cast<double>(window) : 0;
  constexpr double kMinPct = 1.0;
  if (count == 0 || share < kMinPct) return;
  // Pages that went to the GPU and back (nsys exports carry each migration's address): the
  // program touches the same managed memory on both sides in turn, and pays the move twice each
  // time. Thrashing at a tenth of the window or more costs the run enough to warn.
  const TraceFacts::UnifiedMemory& um = t.facts.unified_memory;
  const bool thrashing = um.pages_both_ways > 0;
  constexpr double kWarnPct = 10.0;
  Finding f;
  f.id = "memcpy.unified_migrations";
  f.severity = thrashing && share >= kWarnPct ? Severity::kWarning : Severity::kInfo;
  f.title = strf("%llu unified-memory page migration%s: %s in %s (%s of %s)",
                 static_cast<unsigned long long>(count), count == 1 ? "" : "s",
                 format_bytes(bytes).c_str(), format_duration(gpu_ns).c_str(),
                 format_pct(share).c_str(), analysis_window_name(a));
  if (thrashing)
    f.title += strf("; %llu of %llu pages moved both ways (thrashing)",
                    static_cast<unsigned long long>(um.pages_both_ways),
                    static_cast<unsigned long long>(um.pages_migrated));
  f.meaning =
      "Managed memory (cudaMallocManaged) moved between the host and the GPU by the driver, "
      "not copies the program issued: a kernel that touches pages resident on the host stalls "
      "on the page fault while they migrate, and the host touching pages on the GPU moves "
      "them back.";
  f.fix =
      "Prefetch managed buffers to the GPU before the kernels that use them "
      "(cudaMemPrefetchAsync), give the driver hints with cudaMemAdvise (preferred location, "
      "read-mostly), or allocate with cudaMalloc and copy explicitly.";
  f.fix_code = "cudaMemPrefetchAsync(ptr, bytes, device, stream);  // before the first kernel";
  f.number("migrations", static_cast<double>(count));
  f.number("to_gpu", static_cast<double>(to_gpu));
  f.number("to_host", static_cast<double>(to_host));
  f.number("bytes", static_cast<double>(bytes), 0, "B");
  f.number("migration_us", us_of(gpu_ns), 3, "us");
  f.number("share_pct", share, 1, "%");
  if (um.pages_migrated > 0) {
    f.number("pages_migrated", static_cast<double>(um.pages_migrated));
    f.number("pages_both_ways", static_cast<double>(um.pages_both_ways));
  }
  // The faults behind the migrations, where captured (--cuda-um-gpu-page-faults,
  // --cuda-um-cpu-page-faults), and the host function that faulted most: where to prefetch.
  if (um.gpu_fault_groups > 0) {
    f.number("gpu_page_faults", static_cast<double>(um.gpu_faults));
    f.number("gpu_fault_us", us_of(um.gpu_fault_ns), 3, "us");
  }
  if (um.cpu_faults > 0) f.number("cpu_page_faults", static_cast<double>(um.cpu_faults));
  if (!um.cpu_site.empty())
    f.text("cpu_fault_site", strf("%s (%llu of %llu CPU page faults)", um.cpu_site.c_str(),
                                  static_cast<unsigned long long>(um.cpu_site_faults),
                                  static_cast<unsigned long long>(um.cpu_faults)));
  f.range(s.ts[longest], s.end(longest), std::string(t.str(s.name[longest])));
  f.events.push_back(longest);
  out->push_back(std::move(f));
}

}  // namespace ks
