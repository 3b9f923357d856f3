#include "analysis/step_breakdown.h"

#include <cctype>
#include <string>

#include "analysis/intervals.h"
#include "analysis/kernel_class.h"
#include "analysis/name_cache.h"
#include "analysis/steps.h"
#include "model/export_row.h"
#include "util/text_match.h"

namespace ks {

const char* step_role_name(StepRole r) {
  switch (r) {
    case StepRole::kKernel:
      return "kernel";
    case StepRole::kMemcpy:
      return "memcpy";
    case StepRole::kMemset:
      return "memset";
    case StepRole::kCommunication:
      return "communication";
    case StepRole::kRuntime:
      return "runtime";
    case StepRole::kDataLoader:
      return "dataloader";
    case StepRole::kCpuExec:
      return "cpu_exec";
    case StepRole::kOther:
      return "other";
  }
  return "other";
}

namespace {

// A range the program named for loading its input ("data_loading", "load_batch", "DataLoad",
// "next batch", "fetch-data", ...): NVTX ranges in an Nsight Systems export, record_function
// in a Kineto trace. Compared lower-case with separators dropped, so spellings agree.
bool named_like_data_loading(std::string_view name) {
  // A sentence, a signature or a Python frame ("torch/utils/data/dataloader.py(630): __next__",
  // whose range is the iterator's own) is not such a name.
  if (name.size() > 64 || name.find_first_of("/(") != std::string_view::npos) return false;
  std::string k;
  for (char c : name) {
    if (c == '_' || c == ' ' || c == '-' || c == '.' || c == ':') continue;
    k.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  static const char* const kStems[] = {"dataload",  "loaddata", "loadbatch",  "batchload",
                                       "nextbatch", "getbatch", "fetchbatch", "datafetch",
                                       "fetchdata", "waitdata", "datawait",   "waitfordata"};
  for (const char* stem : kStems)
    if (k.find(stem) != std::string::npos) return true;
  return false;
}

}  // namespace

bool is_dataloader_range(std::string_view name) {
  // An export's emit_nvtx range carries the call's ids after the name (PyTorch 2.x:
  // "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__, op_id = 7"): the name is
  // what is matched.
  name = emit_nvtx_op_name(name);
  return (starts_with(name, "enumerate(DataLoader)#") && ends_with(name, ".__next__")) ||
         starts_with(name, "enumerate(DataPipe)#") || named_like_data_loading(name);
}

bool is_communication_cpu_op(std::string_view name) {
  return starts_with(name, "nccl:") || starts_with(name, "gloo:");
}

namespace {

// The role of a CPU op or annotation from its name (kOther: ProfilerStep, which is the step).
StepRole cpu_role(std::string_view name) {
  int64_t n;
  if (parse_profiler_step(name, &n)) return StepRole::kOther;
  if (is_dataloader_range(name)) return StepRole::kDataLoader;
  if (is_communication_cpu_op(name)) return StepRole::kCommunication;
  return StepRole::kCpuExec;
}

// The role of a slice, or kOther when it plays none (ProfilerStep, python frames, GPU-side
// annotations, async ranges).
template <typename KernelCache, typename CpuCache>
StepRole role_of(const Trace& t, uint32_t i, KernelCache& comm_kernel, CpuCache& cpu) {
  const SliceKind k = t.slices.kind[i];
  switch (k) {
    case SliceKind::kKernel:
      return comm_kernel(t.slices.name[i]) ? StepRole::kCommunication : StepRole::kKernel;
    case SliceKind::kMemcpy:
      return StepRole::kMemcpy;
    case SliceKind::kMemset:
      return StepRole::kMemset;
    case SliceKind::kRuntime:
    case SliceKind::kDriver:
      return StepRole::kRuntime;
    case SliceKind::kCpuOp:
    case SliceKind::kUserAnnotation:
      return static_cast<StepRole>(cpu(t.slices.name[i]));
    default:
      return StepRole::kOther;
  }
}

}  // namespace

StepBreakdown compute_step_breakdown(const Trace& t, const StepsResult& steps) {
  const SliceTable& s = t.slices;
  StepBreakdown r;
  auto comm_kernel = make_name_cache(t, [](std::string_view n) {
    return hta_category(SliceKind::kKernel, n) == HtaCategory::kCommunication ? 1 : 0;
  });
  auto cpu = make_name_cache(t, [](std::string_view n) { return static_cast<int>(cpu_role(n)); });
  if (steps.steps.empty()) {
    r.whole_trace = true;
    StepParts p;
    p.begin_ns = t.facts.start_ns;
    p.end_ns = t.facts.end_ns;
    r.steps.push_back(p);
  } else {
    for (const Step& st : steps.steps) {
      StepParts p;
      p.step_number = st.number;
      p.begin_ns = st.begin;
      p.end_ns = st.end;
      r.steps.push_back(p);
    }
  }
  // claimed: the union of roles 0..k, so role k's share is |claimed[k]| - |claimed[k-1]|. One
  // role at a time, and only the last union kept: holding every role's intervals and every union
  // at once was the largest allocation of a report (263 MB of 1.38 GB at 8.5 M slices).
  // Each slice's role is found once (one byte per slice) and each role's count with it: finding
  // it again in both passes of every role took 14 role lookups per slice, the largest analysis
  // of a report on the many-tiny-kernels shape.
  std::vector<uint8_t> roles(s.size());
  size_t count[kStepRoles] = {0};
  bool comm_kernels = false;
  for (uint32_t i = 0; i < s.size(); ++i) {
    roles[i] = static_cast<uint8_t>(role_of(t, i, comm_kernel, cpu));
    ++count[roles[i]];
    comm_kernels |= roles[i] == static_cast<uint8_t>(StepRole::kCommunication) &&
                    s.kind[i] == SliceKind::kKernel;
  }
  // The range that marks a step is the step, not work in it: a trace's ProfilerStep plays no
  // role by its name, and so neither does an export's NVTX step range ("step 10", "train_step").
  // Read as a CPU op, it claimed every moment of the step no op did, so an export's step
  // breakdown had no "other" time at all (the DLRM rank's 140 us of 14.46 ms went to cpu_exec).
  for (const Step& st : steps.steps) {
    if (!st.has_slice() || st.slice >= s.size()) continue;
    --count[roles[st.slice]];
    roles[st.slice] = static_cast<uint8_t>(StepRole::kOther);
    ++count[roles[st.slice]];
  }
  // An Nsight Systems rank whose GPU runs no collective communicates in its MPI calls
  // (--trace=mpi): blocking collectives, point-to-point calls and the waits on their requests,
  // as the multi-rank table counts them (multi_rank.cpp add_mpi_calls). Without this its step
  // breakdown read "communication 0.0%", the MPI time in cpu_exec.
  const StringId mpi = t.strings.find("mpi");
  if (!comm_kernels && t.facts.format == TraceFormat::kNsysSqlite && mpi != StringPool::kMissing) {
    auto barrier = make_name_cache(t, [](std::string_view n) { return n == "MPI_Barrier"; });
    for (uint32_t i = 0; i < s.size(); ++i) {
      if (s.kind[i] != SliceKind::kOther || s.cat[i] != mpi) continue;
      const ExportTable table = export_table_code(s.file_offset(i));
      if (table != ExportTable::kMpiP2p && table != ExportTable::kMpiCollectives &&
          table != ExportTable::kMpiStartWait && !barrier(s.name[i]))
        continue;
      --count[roles[i]];
      roles[i] = static_cast<uint8_t>(StepRole::kCommunication);
      ++count[roles[i]];
    }
  }
  std::vector<int64_t> before(r.steps.size(), 0);
  std::vector<Interval> claimed;
  for (int k = 0; k < kStepRoles - 1; ++k) {
    std::vector<Interval> role;
    role.reserve(count[k]);  // reserved exactly, not grown to up to twice the size
    for (uint32_t i = 0; i < s.size(); ++i)
      if (roles[i] == k) role.push_back({s.ts[i], s.end(i)});
    role = merge_intervals(std::move(role));
    claimed = k == 0 ? std::move(role) : unite(claimed, role);
    for (size_t j = 0; j < r.steps.size(); ++j) {
      StepParts& p = r.steps[j];
      int64_t upto = length_within(claimed, p.begin_ns, p.end_ns);
      p.ns[k] = upto - before[j];
      before[j] = upto;
    }
  }
  for (size_t j = 0; j < r.steps.size(); ++j) {
    StepParts& p = r.steps[j];
    p.ns[kStepRoles - 1] = (p.end_ns - p.begin_ns) - before[j];
    for (int k = 0; k < kStepRoles; ++k) r.total_ns[k] += p.ns[k];
    r.window_ns += p.end_ns - p.begin_ns;
  }
  return r;
}

}  // namespace ks
