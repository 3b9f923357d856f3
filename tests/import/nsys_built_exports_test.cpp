// BUILT exports (tests/nsys/make_exports.py: small files following NVIDIA's documented schema
// and the real export's tables; no nsys ran) for what the real file lacks: NVTX steps, OS runtime,
// GPU metrics, a capture from process start, older schemas, four ranks with a straggler, and the
// files that must be refused with a clear error.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>

#include "analysis/analyze.h"
#include "analysis/critical_path.h"
#include "analysis/multi_rank.h"
#include "analysis/python_source.h"
#include "analysis/rank_identity.h"
#include "analysis/trace_diff.h"
#include "corpus/shared_traces.h"
#include "findings/finding_run.h"
#include "findings/multi_rank_rules.h"
#include "import/file_byte_source.h"
#include "import/memory_byte_source.h"
#include "import/nsys_sqlite/nsys_database.h"
#include "import/nsys_sqlite/nsys_file.h"
#include "import/nsys_sqlite/nsys_importer.h"
#include "import/nsys_sqlite/nsys_rows.h"
#include "model/export_row.h"
#include "report/report.h"

#include <sqlite3.h>
#include "source_dir.h"

using namespace ks_test;

namespace {

// The generated files, made once per test run into build/nsys-tests/.
std::string built(const std::string& name) {
  static const std::string dir = ks_test::source_dir() + "/build/nsys-tests";
  static const bool made = [] {
    std::string cmd = "/usr/bin/python3 " + ks_test::source_dir() + "/tests/nsys/make_exports.py " +
                      dir + " >/dev/null";
    return std::system(cmd.c_str()) == 0;
  }();
  REQUIRE(made);
  return dir + "/" + name;
}

std::unique_ptr<ks::Trace> load_built(const std::string& name) {
  ks::ImportError error;
  auto t = ks::import_nsys_file(built(name), &error);
  INFO(name << ": " << error.to_line());
  REQUIRE(t);
  return t;
}

// The GPU processes an import gathers while reading are the ones the SQL scan
// (nsys_gpu_processes) finds, in its order.
void check_gpu_processes_gathered(const ks::NsysDatabase& db) {
  std::vector<ks::NsysGpuProcess> seen;
  ks::NsysImportOptions options;
  options.gpu_processes = &seen;
  ks::ImportError error;
  REQUIRE(ks::import_nsys(db, options, &error));
  const std::vector<ks::NsysGpuProcess> scanned = ks::nsys_gpu_processes(db);
  REQUIRE(seen.size() == scanned.size());
  for (size_t i = 0; i < seen.size(); ++i) {
    CHECK(seen[i].pid == scanned[i].pid);
    CHECK(seen[i].device == scanned[i].device);
  }
}

ks::ImportError error_of(const std::string& name) {
  ks::ImportError error;
  auto t = ks::import_nsys_file(built(name), &error);
  CHECK(!t);
  return error;
}

struct NameStats {
  size_t count = 0;
  int64_t total = 0;
};
std::map<std::string, NameStats> by_name(const ks::Trace& t, ks::SliceKind kind) {
  std::map<std::string, NameStats> out;
  for (size_t i = 0; i < t.slices.size(); ++i) {
    if (t.slices.kind[i] != kind) continue;
    NameStats& s = out[std::string(t.str(t.slices.name[i]))];
    s.count += 1;
    s.total += t.slices.dur[i];
  }
  return out;
}

const ks::Track* track_named(const ks::Trace& t, const std::string& name) {
  for (const auto& tr : t.tracks)
    if (tr.name == name) return &tr;
  return nullptr;
}

}  // namespace

TEST_CASE("nsys built: threads named by nvtxNameOsThread where ThreadNames has none",
          "[nsys][built]") {
  auto t = load_built("thread_names_nvtx.sqlite");
  // The worker had no ThreadNames row: its NvtxThread event names it (was "thread 4250").
  CHECK(track_named(*t, "batch_loader OS runtime"));
  CHECK_FALSE(track_named(*t, "thread 4250 OS runtime"));
  // The training thread has both: ThreadNames' name stands.
  CHECK(track_named(*t, "python3 CUDA API"));
  CHECK_FALSE(track_named(*t, "trainer_main CUDA API"));
  // Naming events are no ranges or marks.
  auto nvtx = by_name(*t, ks::SliceKind::kUserAnnotation);
  CHECK(nvtx.count("batch_loader") == 0);
}

TEST_CASE("nsys built: NVTX steps, copies, syncs, OS runtime, GPU metrics", "[nsys][built]") {
  auto t = load_built("training_steps.sqlite");
  auto nvtx = by_name(*t, ks::SliceKind::kUserAnnotation);
  for (int s = 0; s < 6; ++s) CHECK(nvtx["ProfilerStep#" + std::to_string(s)].count == 1);
  CHECK(nvtx["forward"].count == 6);
  CHECK(nvtx["setup"].count == 1);    // text through textId -> StringIds
  CHECK(nvtx["epoch 0"].count == 1);  // a start/end range never ended: closed, and noted
  CHECK(t->diagnostics.count(ks::Diag::kUnclosedBegin) == 1);
  // The steps the analyses find are the NVTX ranges.
  ks::Report report = ks::build_report(*t, ks::AnalysisOptions{});
  CHECK(report.analyses.steps.steps.size() == 6);
  // Tracks per thread and row, named like Nsight's.
  REQUIRE(track_named(*t, "python3 NVTX"));
  REQUIRE(track_named(*t, "python3 CUDA API"));
  REQUIRE(track_named(*t, "python3 OS runtime"));
  REQUIRE(track_named(*t, "pt_data_worker OS runtime"));
  REQUIRE(track_named(*t, "NVTX start/end ranges"));
  CHECK(track_named(*t, "NVTX start/end ranges")->kind == ks::TrackKind::kAsync);
  auto api = by_name(*t, ks::SliceKind::kRuntime);
  CHECK(api["cudaLaunchKernel"].count == 24);
  CHECK(api["cudaMemcpyAsync"].count == 6);
  CHECK(api["cudaStreamSynchronize"].count == 6);
  auto copies = by_name(*t, ks::SliceKind::kMemcpy);
  REQUIRE(copies.size() == 1);
  CHECK(copies.begin()->first == "Memcpy DtoH (Device -> Pageable)");
  CHECK(copies.begin()->second.count == 6);
  auto syncs = by_name(*t, ks::SliceKind::kSync);
  CHECK(syncs["Stream Sync"].count == 6);
  CHECK(by_name(*t, ks::SliceKind::kKernel).size() == 4);
  size_t osrt = 0, marks = 0;
  for (size_t i = 0; i < t->slices.size(); ++i) osrt += t->str(t->slices.cat[i]) == "os_runtime";
  for (size_t i = 0; i < t->instants.size(); ++i)
    marks += t->str(t->instants.cat[i]) == "user_annotation";
  CHECK(osrt == 12);
  CHECK(marks == 6);
  // GPU metrics: counters under the GPU's process, one series per metric.
  std::map<std::string, size_t> series;
  for (size_t i = 0; i < t->counters.size(); ++i) {
    CHECK(t->str(t->processes[t->counters.process[i]].pid_text) == "0");
    series[std::string(t->str(t->counters.series[i]))] += 1;
  }
  CHECK(series["SM Active"] == 24);
  CHECK(series["Tensor Active"] == 24);
  CHECK(series["DRAM Bandwidth"] == 24);
  // Every GPU op has its launch flow.
  size_t finishes = 0;
  for (size_t i = 0; i < t->flows.size(); ++i) finishes += t->flows.phase[i] == 'f';
  CHECK(finishes == 24 + 6);
}

TEST_CASE("nsys built: GPU metrics are the measured SM/Tensor Active, not only estimates",
          "[nsys][built][gpu_metrics]") {
  // training_steps.sqlite samples device 0 four times at the start of each of the 6 steps:
  // SM Active 60..63 and Tensor Active 20..23, so both means are x.5 over the capture and, all
  // samples lying inside the steps, within them.
  // Named as nsys 2023 and later name them ("SMs Active [Throughput %]"), the same samples.
  const char* file = GENERATE("training_steps.sqlite", "metrics_2024_names.sqlite");
  INFO(file);
  auto t = load_built(file);
  ks::Report report = ks::build_report(*t, ks::AnalysisOptions{});
  const ks::GpuMetrics& g = report.analyses.gpu_metrics;
  CHECK(g.measured);
  REQUIRE(g.devices.size() == 1);
  const ks::DeviceMetrics& d = g.devices[0];
  CHECK(d.sm_active_samples == 24);
  CHECK(d.sm_active_pct == Approx(61.5));
  CHECK(d.sm_active_step_samples == 24);
  CHECK(d.sm_active_steps_pct == Approx(61.5));
  CHECK(d.tensor_active_samples == 24);
  CHECK(d.tensor_active_pct == Approx(21.5));
  CHECK(d.tensor_active_steps_pct == Approx(21.5));
  const std::string text = ks::report_text(report);
  CHECK(text.find("GPU metrics measured (device 0, nsys --gpu-metrics-devices): SM Active 61.5% "
                  "(in steps 61.5%), Tensor Active 21.5% (in steps 21.5%)") != std::string::npos);
  const std::string json = ks::report_json(report);
  CHECK(json.find("\"source\": \"nsys_gpu_metrics\"") != std::string::npos);
  CHECK(json.find("\"tensor_active_pct\": 21.50,") != std::string::npos);
  // 21.5% tensor activity is not low: no finding.
  for (const ks::Finding& f : report.findings) CHECK(f.id != "gpu.low_tensor_active");
}

TEST_CASE("nsys built: the whole Hopper metric set, each share by its name",
          "[nsys][built][gpu_metrics]") {
  // make_exports.GH100_SET: 23 series at each step's start, a memory-bound loop's values.
  using M = ks::MeasuredMetric;
  auto t = load_built("metrics_gh100_set.sqlite");
  ks::Report report = ks::build_report(*t, ks::AnalysisOptions{});
  const ks::GpuMetrics& g = report.analyses.gpu_metrics;
  REQUIRE(g.devices.size() == 1);
  const ks::DeviceMetrics& d = g.devices[0];
  CHECK(d.sm_active_step_samples == 6);
  CHECK(d.sm_active_steps_pct == Approx(90.0));
  CHECK(d.tensor_active_steps_pct == Approx(3.0));
  CHECK(d.of(M::kGrActive).steps_pct == Approx(95.0));
  CHECK(d.of(M::kSmIssue).steps_pct == Approx(12.0));
  CHECK(d.of(M::kWarpsInFlight).steps_pct == Approx(40.0));  // not [Avg] (3380)
  CHECK(d.of(M::kUnallocatedWarps).steps_pct == Approx(50.0));
  CHECK(d.of(M::kDramRead).steps_pct == Approx(55.0));
  CHECK(d.of(M::kDramWrite).steps_pct == Approx(25.0));
  CHECK(d.of(M::kPcieRx).steps_pct == Approx(2.0));
  CHECK(d.of(M::kPcieTx).steps_pct == Approx(1.0));     // not BAR1's requests
  CHECK(d.of(M::kNvlinkRx).steps_pct == Approx(10.0));  // 4 + 6 user data, not the protocol's
  CHECK(d.of(M::kNvlinkTx).steps_pct == Approx(5.0));
  bool memory_bound = false;
  for (const ks::Finding& f : report.findings) memory_bound |= f.id == "gpu.memory_bound";
  CHECK(memory_bound);
  const std::string json = ks::report_json(report);
  CHECK(json.find("\"nvlink_rx_steps_pct\": 10.00") != std::string::npos);
  const std::string md = ks::report_markdown(report);
  CHECK(md.find("| DRAM Read |") != std::string::npos);
}

TEST_CASE("nsys built: train_step ranges and a capture from process start", "[nsys][built]") {
  auto t = load_built("train_step_ranges.sqlite");
  CHECK(by_name(*t, ks::SliceKind::kUserAnnotation)["train_step"].count == 6);

  auto p = load_built("process_start.sqlite");
  auto drv = by_name(*p, ks::SliceKind::kDriver);
  CHECK(drv["cuInit"].count == 1);
  CHECK(drv["cuDevicePrimaryCtxRetain"].count == 1);
  auto api = by_name(*p, ks::SliceKind::kRuntime);
  CHECK(api["cudaMalloc"].count == 200);
  CHECK(api["cudaFree"].count == 50);
  auto memsets = by_name(*p, ks::SliceKind::kMemset);
  CHECK(memsets["Memset (Device)"].count == 20);
  ks::Report report = ks::build_report(*p, ks::AnalysisOptions{});
  // One card for the start-up work: the capture has no steps, so capture.warmup_ops would count
  // the same 250 allocator calls over the same window.
  int warmup = 0, from_start = 0;
  for (const auto& f : report.findings) {
    warmup += f.id == "capture.warmup_ops";
    if (f.id != "nsys.from_process_start") continue;
    ++from_start;
    CHECK(f.title.find("250 cudaMalloc/cudaFree") != std::string::npos);
  }
  CHECK(warmup == 0);
  CHECK(from_start == 1);
}

TEST_CASE("nsys built: an older schema reads with defaults and says what was absent",
          "[nsys][built]") {
  auto t = load_built("old_schema.sqlite");
  CHECK(t->facts.schema_version == "2.7.1");
  CHECK(t->diagnostics.count(ks::Diag::kNsysSchemaVersion) == 1);
  CHECK(t->diagnostics.count(ks::Diag::kNsysColumnMissing) == 3);  // demangledName, src/dstKind
  CHECK(t->diagnostics.get(ks::Diag::kNsysColumnMissing).excerpt ==
        "CUPTI_ACTIVITY_KIND_KERNEL.demangledName");
  auto kernels = by_name(*t, ks::SliceKind::kKernel);
  CHECK(kernels.count("ampere_sgemm_128x64_tn") == 1);
  CHECK(kernels.count("vectorized_elementwise_kernel") == 1);  // shortName without demangledName
  auto copies = by_name(*t, ks::SliceKind::kMemcpy);
  REQUIRE(copies.size() == 1);
  CHECK(copies.begin()->first == "Memcpy DtoH (Unknown -> Unknown)");
}

TEST_CASE("nsys built: a view named like an nsys table is not read", "[nsys][built]") {
  auto t = load_built("view_named_kernel.sqlite");
  CHECK(t->diagnostics.count(ks::Diag::kNsysObjectIgnored) == 1);
  CHECK(t->diagnostics.get(ks::Diag::kNsysObjectIgnored).excerpt ==
        "view CUPTI_ACTIVITY_KIND_KERNEL");
  CHECK(by_name(*t, ks::SliceKind::kKernel).empty());
  CHECK(by_name(*t, ks::SliceKind::kRuntime)["cudaLaunchKernel"].count == 8);
}

TEST_CASE("nsys built: four ranks, rank 2 the straggler", "[nsys][built][multirank]") {
  std::vector<ks::RankDigest> digests;
  std::vector<std::unique_ptr<ks::Trace>> traces;
  for (int r = 0; r < 4; ++r) {
    std::string file = "trace_rank" + std::to_string(r) + ".sqlite";
    traces.push_back(load_built(file));
    const ks::Trace& t = *traces.back();
    CHECK(t.distributed.rank == r);  // from RANK in the recorded environment
    CHECK(t.distributed.world_size == 4);
    ks::RankIdentity id = ks::identify_rank(t, file, static_cast<size_t>(3 - r));
    CHECK(id.rank == r);
    // The file name says the rank the export recorded: recorded, not guessed (the report said
    // "Not every trace records its rank" of these exports).
    CHECK(id.source == ks::RankSource::kEnvironment);
    // Where they differ, the file name comes first (rank_identity.h).
    ks::RankIdentity named = ks::identify_rank(t, "trace_rank9.sqlite", 0);
    CHECK(named.rank == 9);
    CHECK(named.source == ks::RankSource::kFileName);
    ks::RankIdentity env = ks::identify_rank(t, "trace.sqlite", 0);
    CHECK(env.rank == r);
    CHECK(env.source == ks::RankSource::kEnvironment);
    ks::Report report = ks::build_report(t, ks::AnalysisOptions{});
    CHECK(report.analyses.steps.steps.size() == 5);
    digests.push_back(ks::make_rank_digest(t, report.analyses, file, id));
  }
  ks::MultiRankResult result = ks::compare_ranks(digests);
  auto findings = ks::run_multi_rank_findings(result);
  bool straggler = false;
  for (const auto& f : findings) {
    if (f.id != "ranks.straggler") continue;
    straggler = true;
    CHECK(f.title.find("Rank 2 ") != std::string::npos);
  }
  CHECK(straggler);
}

TEST_CASE("nsys built: one export of four torchrun processes reads as four ranks",
          "[nsys][built][multirank]") {
  // The whole file is one trace with all four GPUs; per process, each rank has its own GPU, its
  // own five steps and its own launches (correlation ids repeat across processes).
  ks::ImportError error;
  std::vector<ks::NsysGpuProcess> procs;  // gathered by the whole file's reading, as the CLI does
  auto whole = ks::import_nsys_file(built("torchrun_4procs.sqlite"), &error, &procs);
  REQUIRE(whole);
  CHECK(whole->devices.size() == 4);
  REQUIRE(procs.size() == 4);
  auto ranks = ks::import_nsys_file_by_process(built("torchrun_4procs.sqlite"), procs, &error);
  REQUIRE(ranks.size() == 4);
  CHECK(ks::import_nsys_file_by_process(built("torchrun_4procs.sqlite"), &error).size() == 4);
  std::vector<ks::RankDigest> digests;
  for (size_t r = 0; r < ranks.size(); ++r) {
    const ks::Trace& t = *ranks[r];
    INFO("rank " << r);
    CHECK(t.distributed.rank == static_cast<int64_t>(r));
    CHECK(t.distributed.world_size == 4);
    CHECK(t.facts.source_name == "torchrun_4procs.sqlite pid " + std::to_string(6001 + r));
    auto kernels = by_name(t, ks::SliceKind::kKernel);
    size_t n = 0;
    for (const auto& kv : kernels) n += kv.second.count;
    CHECK(n == 10);  // 5 steps x (GEMM + all-reduce), this process's only
    for (size_t i = 0; i < t.slices.size(); ++i)
      if (t.slices.kind[i] == ks::SliceKind::kKernel)
        CHECK(t.tracks[t.slices.track[i]].device == static_cast<int64_t>(r));
    ks::Report report = ks::build_report(t, ks::AnalysisOptions{});
    CHECK(report.analyses.steps.steps.size() == 5);
    CHECK(report.analyses.launches.total.launches == 10);
    digests.push_back(
        ks::make_rank_digest(t, report.analyses, t.facts.source_name,
                             ks::RankIdentity{t.distributed.rank, ks::RankSource::kExportProcess}));
  }
  const ks::MultiRankResult compared = ks::compare_ranks(digests);
  // nsys records no collective args: the kernel's name says which collective it is.
  REQUIRE(compared.collective_groups.size() == 1);
  CHECK(compared.collective_groups[0].collective == "allreduce");
  auto findings = ks::run_multi_rank_findings(compared);
  bool straggler = false;
  for (const auto& f : findings)
    if (f.id == "ranks.straggler") straggler = f.title.find("Rank 2 ") != std::string::npos;
  CHECK(straggler);
  // A one-process export is not split.
  CHECK(ks::import_nsys_file_by_process(built("training_steps.sqlite"), &error).empty());
}

namespace {

// An export's GPU processes as the import gathers them and as the SQL scan finds them: the rank
// plan must come out the same from both.
std::vector<std::vector<ks::NsysGpuProcess>> gpu_processes_both_ways(const std::string& path) {
  ks::ImportError error;
  std::vector<ks::NsysGpuProcess> seen;
  REQUIRE(ks::import_nsys_file(path, &error, &seen));
  auto source = ks::FileByteSource::open(path, &error);
  REQUIRE(source);
  auto db = ks::NsysDatabase::open(source.get(), &error);
  REQUIRE(db);
  return {seen, ks::nsys_gpu_processes(*db)};
}

}  // namespace

TEST_CASE("nsys built: a rank that touched GPU 0 before set_device is the rank of its own GPU",
          "[nsys][built][multirank]") {
  // Every worker ran one 2 us kernel on GPU 0 before its training on GPU r: each is keyed by the
  // GPU it worked on, so the ranks are GPUs 0-3, in that order, and none shares one.
  for (const auto& procs : gpu_processes_both_ways(built("torchrun_stray_gpu0.sqlite"))) {
    const ks::NsysRankPlan plan = ks::nsys_rank_plan(procs);
    REQUIRE(plan.ranks.size() == 4);
    for (size_t r = 0; r < 4; ++r) {
      INFO("rank " << r);
      CHECK(plan.ranks[r].pid == 6001 + static_cast<int64_t>(r));
      CHECK(plan.ranks[r].device == static_cast<int64_t>(r));
    }
    CHECK(plan.shared_devices.empty());
  }
}

TEST_CASE("nsys built: one GPU visible per rank: each rank's cuda:0 is its own GPU",
          "[nsys][built][multirank]") {
  // Every GPU row says deviceId 0; TARGET_INFO_CUDA_DEVICE says pid 6001+r's cuda:0 is GPU r.
  ks::ImportError error;
  std::vector<ks::NsysGpuProcess> seen;
  auto whole = ks::import_nsys_file(built("torchrun_visible_devices.sqlite"), &error, &seen);
  REQUIRE(whole);
  CHECK(whole->devices.size() == 4);
  std::set<int64_t> devices;  // the GPUs the kernels are drawn on
  for (size_t i = 0; i < whole->slices.size(); ++i)
    if (whole->slices.kind[i] == ks::SliceKind::kKernel)
      devices.insert(whole->tracks[whole->slices.track[i]].device);
  CHECK(devices == std::set<int64_t>{0, 1, 2, 3});
  for (const auto& procs : gpu_processes_both_ways(built("torchrun_visible_devices.sqlite"))) {
    const ks::NsysRankPlan plan = ks::nsys_rank_plan(procs);
    REQUIRE(plan.ranks.size() == 4);
    for (size_t r = 0; r < 4; ++r) CHECK(plan.ranks[r].device == static_cast<int64_t>(r));
    CHECK(plan.shared_devices.empty());
  }
  auto ranks =
      ks::import_nsys_file_by_process(built("torchrun_visible_devices.sqlite"), seen, &error);
  REQUIRE(ranks.size() == 4);
  for (size_t r = 0; r < ranks.size(); ++r) {
    const ks::Trace& t = *ranks[r];
    INFO("rank " << r);
    CHECK(t.facts.other_processes_gpu_work.empty());
    for (size_t i = 0; i < t.slices.size(); ++i)
      if (t.slices.kind[i] == ks::SliceKind::kKernel)
        CHECK(t.tracks[t.slices.track[i]].device == static_cast<int64_t>(r));
  }
}

TEST_CASE("nsys built: a CUDA graph launch counts once, its kernels' GPU time all counts",
          "[nsys][built]") {
  auto t = load_built("cuda_graphs.sqlite");
  ks::Report report = ks::build_report(*t, ks::AnalysisOptions{});
  const ks::LaunchApiRow& l = report.analyses.launches.total;
  CHECK(l.launches == 16);   // 12 eager cudaLaunchKernel + 4 cudaGraphLaunch
  CHECK(l.graph_ops == 44);  // 4 x 12 graph kernels, less the first of each
  CHECK(l.gpu_ns == 60 * 30000);
  CHECK(l.delay_outliers == 0);  // graph kernels are 1 us apart: no delay grows along the graph
  int64_t max_queue = 0;
  for (const auto& q : report.analyses.launches.queues) max_queue = std::max(max_queue, q.max_len);
  CHECK(max_queue == 1);
}

TEST_CASE("nsys built: NVTX kinds by the export's own ENUM_NSYS_EVENT_TYPE codes",
          "[nsys][built]") {
  // training_steps.sqlite with every NVTX eventType moved by 1000 and named in the enum table
  // (code 59, schema 3.x's push/pop, now a domain row): read by name, not by fixed numbers.
  const std::string path = ks_test::source_dir() + "/build/nsys-tests/nvtx_codes.sqlite";
  {
    std::ifstream in(built("training_steps.sqlite"), std::ios::binary);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << in.rdbuf();
  }
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  const char* sql =
      "UPDATE NVTX_EVENTS SET eventType = eventType + 1000;"
      "CREATE TABLE ENUM_NSYS_EVENT_TYPE (id INTEGER PRIMARY KEY, name TEXT, label TEXT);"
      "INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES (1059, 'NvtxPushPopRange', ''),"
      " (1060, 'NvtxStartEndRange', ''), (1034, 'NvtxMark', ''), (59, 'NvtxDomainCreate', '');";
  REQUIRE(sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);
  ks::ImportError error;
  auto t = ks::import_nsys_file(path, &error);
  REQUIRE(t);
  auto nvtx = by_name(*t, ks::SliceKind::kUserAnnotation);
  CHECK(nvtx["forward"].count == 6);
  CHECK(nvtx["epoch 0"].count == 1);  // the start/end range
  ks::Report report = ks::build_report(*t, ks::AnalysisOptions{});
  CHECK(report.analyses.steps.steps.size() == 6);
}

TEST_CASE("nsys built: graphs traced whole are GPU time, counted once, and said so",
          "[nsys][built][graphs]") {
  auto t = load_built("graph_trace.sqlite");
  auto kernels = by_name(*t, ks::SliceKind::kKernel);
  // 4 replays of exec 5 from the graph-trace table; the 5th was traced node by node too, so its
  // 12 kernels stand for it. Exec 6 twice, on its own stream.
  CHECK(kernels["CUDA graph exec 5 (graph 2)"].count == 4);
  CHECK(kernels["CUDA graph exec 5 (graph 2)"].total == 4 * 371000);
  CHECK(kernels["CUDA graph exec 6 (graph 3)"].count == 2);
  CHECK(kernels["ampere_sgemm_64x64_nn"].count == 24);
  CHECK(t->facts.categories["cuda_graph"] == 6);
  // The replay whose first node ran on the host (deviceId INT_MAX) is on its stream's GPU.
  for (const auto& tr : t->tracks) CHECK(tr.device < 0x7FFFFFFF);
  CHECK(track_named(*t, "stream 13") != nullptr);
  ks::Report report = ks::build_report(*t, ks::AnalysisOptions{});
  // Every replay is linked to its cudaGraphLaunch: no GPU op without a launch.
  const ks::LaunchApiRow& l = report.analyses.launches.total;
  CHECK(l.launches == 12 + 7);
  CHECK(l.gpu_ns == 24 * 30000 + 4 * 371000 + 2 * 200000);
  auto has = [&](const char* id) {
    return std::any_of(report.findings.begin(), report.findings.end(),
                       [&](const ks::Finding& f) { return f.id == id; });
  };
  CHECK(has("nsys.graph_trace"));
  // Their kernels are unknown: neither "overhead kernels" nor "small grids".
  CHECK_FALSE(has("kernels.overhead_dominant"));
  CHECK_FALSE(has("gpu.low_sm_efficiency"));
  // Node by node (cuda_graphs.sqlite): nothing hidden, nothing said.
  auto nodes = load_built("cuda_graphs.sqlite");
  ks::Report node_report = ks::build_report(*nodes, ks::AnalysisOptions{});
  CHECK(std::none_of(node_report.findings.begin(), node_report.findings.end(),
                     [](const ks::Finding& f) { return f.id == "nsys.graph_trace"; }));
}

TEST_CASE("nsys built: a server's start-up CUDA graph capture is said to be one",
          "[nsys][built][graphs]") {
  auto t = load_built("graph_capture.sqlite");
  ks::Report report = ks::build_report(*t, ks::AnalysisOptions{});
  const ks::GraphCaptures& g = report.analyses.graph_captures;
  // The nsys names carry version suffixes (cudaStreamBeginCapture_v10000).
  REQUIRE(g.windows.size() == 1);
  CHECK(g.windows[0].length() == 20'000'000);
  CHECK(g.instantiations == 1);
  CHECK(g.replays == 2);
  const ks::Finding* capture = nullptr;
  const ks::Finding* idle = nullptr;
  for (const ks::Finding& f : report.findings) {
    if (f.id == "capture.graph_capture") capture = &f;
    if (f.id == "gpu.idle") idle = &f;
  }
  REQUIRE(capture);
  CHECK(capture->severity == ks::Severity::kWarning);
  CHECK(capture->title.find("85.2% of the GPU span (1 capture, 20.00 ms)") != std::string::npos);
  CHECK(capture->fix_code.find("nsys profile") != std::string::npos);
  // 95% idle, 89% of it in the capture: what is left outside it is not a problem.
  REQUIRE(idle);
  CHECK(idle->severity == ks::Severity::kInfo);
  CHECK(idle->title.find("89.4% of the idle time") != std::string::npos);
  // The eager and replayed loops of cuda_graphs.sqlite hold no capture.
  auto replays = load_built("cuda_graphs.sqlite");
  CHECK_FALSE(ks::analyze(*replays, ks::AnalysisOptions{}).graph_captures.any());
}

TEST_CASE("nsys built: the profiler's own warnings, and a device sync typed as an event sync",
          "[nsys][built]") {
  auto t = load_built("lost_events.sqlite");
  // Warnings and errors about the capture are kept, in time order; "No OpenGL events collected"
  // and CPU sampling's settings are not; info messages are not.
  const auto& msgs = t->facts.profiler_warnings;
  REQUIRE(msgs.size() == 2);
  CHECK(msgs[0].text.find("1834 CUDA events were lost") != std::string::npos);
  CHECK(msgs[1].text.find("driver version") != std::string::npos);
  ks::Report report = ks::build_report(*t, ks::AnalysisOptions{});
  const ks::Finding* warned = nullptr;
  for (const ks::Finding& f : report.findings)
    if (f.id == "nsys.profiler_warnings") warned = &f;
  REQUIRE(warned);
  CHECK(warned->severity == ks::Severity::kWarning);  // events were lost
  CHECK(warned->title.find("2 warnings") != std::string::npos);
  CHECK(warned->title.find("events were lost") != std::string::npos);
  REQUIRE(warned->ranges.size() == 2);
  // At its time on the trace's clock (the session's base time added, as to every row): the
  // lost-events message came 50.6 ms into the session, during the second step.
  CHECK(warned->ranges[0].begin_ns - t->facts.base_time_ns == 50'600'000);
  CHECK(warned->ranges[0].begin_ns >= t->facts.start_ns);
  // cudaDeviceSynchronize, typed 1 (event synchronize) on no stream and no event: the whole
  // context, so the critical path waits for the kernel before the call returns.
  auto syncs = by_name(*t, ks::SliceKind::kSync);
  CHECK(syncs["Context Sync"].count == 1);
  CHECK(syncs["Event Sync"].count == 0);
  CHECK(syncs["Stream Sync"].count == 3);
  // 250 warnings, written latest first: the earliest 100 are kept, in time order.
  auto flood = load_built("diagnostics_flood.sqlite");
  const auto& many = flood->facts.profiler_warnings;
  REQUIRE(many.size() == 100);
  CHECK(many.front().text == "CUPTI buffer 1 overflowed: events were lost.");
  CHECK(many.back().text == "CUPTI buffer 100 overflowed: events were lost.");
  CHECK(std::is_sorted(many.begin(), many.end(),
                       [](const auto& a, const auto& b) { return a.ts < b.ts; }));
  // Without such messages, no such finding (the training export has none).
  auto plain = load_built("training_steps.sqlite");
  CHECK(plain->facts.profiler_warnings.empty());
  ks::Report plain_report = ks::build_report(*plain, ks::AnalysisOptions{});
  CHECK(std::none_of(plain_report.findings.begin(), plain_report.findings.end(),
                     [](const ks::Finding& f) { return f.id == "nsys.profiler_warnings"; }));
}

TEST_CASE("nsys built: GPU memory usage gives the device's peak, as profile_memory does",
          "[nsys][built]") {
  auto t = load_built("memory_usage.sqlite");
  ks::Report report = ks::build_report(*t, ks::AnalysisOptions{});
  // Eight 9.5 GiB segments of device memory. Left out: the 40 GiB pinned host buffer. The 1 GiB
  // freed before them was allocated before the capture: the device held it, so the totals start
  // at 1 GiB (never below 0), drop to 0 at its free, and peak at the eight segments.
  const ks::MemoryUsage& m = report.analyses.memory;
  REQUIRE(m.devices.size() == 1);
  const ks::DeviceMemory& d = m.devices[0];
  CHECK(d.device == 0);
  CHECK(m.events == 10);
  CHECK(d.peak_reserved == 8 * (int64_t{19} << 29));
  CHECK(d.peak_allocated == ks::kNoValue);  // the export has no allocator totals
  CHECK(d.largest_allocation == int64_t{19} << 29);
  CHECK(d.device_total == 85520809984);
  // At the 8th cudaMalloc: its event 150 us into the call, on the calling thread's CUDA API row.
  bool on_api_row = false;
  for (size_t i = 0; i < t->instants.size(); ++i)
    if (t->instants.ts[i] == d.peak_reserved_ns)
      on_api_row = t->tracks[t->instants.track[i]].name == "python3 CUDA API";
  CHECK(on_api_row);
  const ks::Finding* peak = nullptr;
  const ks::Finding* flags = nullptr;
  for (const ks::Finding& f : report.findings) {
    if (f.id == "memory.peak_high") peak = &f;
    if (f.id == "capture.diagnostic_flags") flags = &f;
  }
  REQUIRE(peak);
  CHECK(peak->severity == ks::Severity::kWarning);
  CHECK(peak->title.find("Peak reserved memory") != std::string::npos);
  CHECK(peak->title.find("% of the GPU's") != std::string::npos);
  // The loss copy's call is inside NVTX ranges of its thread (another track than the call's):
  // they say where it came from, as the CPU ops do in a PyTorch trace.
  const ks::Finding* dtoh = nullptr;
  const ks::Finding* syncs = nullptr;
  for (const ks::Finding& f : report.findings) {
    if (f.id == "sync.dtoh_in_step") dtoh = &f;
    if (f.id == "sync.runtime_calls") syncs = &f;
  }
  REQUIRE(dtoh);
  REQUIRE(syncs);
  auto text_of = [](const ks::Finding& f, const std::string& key) {
    for (const auto& e : f.evidence)
      if (e.key == key) return e.text;
    return std::string();
  };
  CHECK(text_of(*dtoh, "issued_by") == "log_loss > loss.item (NVTX)");
  CHECK(text_of(*syncs, "called_from") == "log_loss (NVTX)");  // after loss.item ended
  // Without such ranges, the export says so in its own terms.
  ks::Report training = ks::build_report(*load_built("training_steps.sqlite"), {});
  for (const ks::Finding& f : training.findings)
    if (f.id == "sync.dtoh_in_step") CHECK(text_of(f, "issued_by") == "(no enclosing NVTX range)");
  REQUIRE(flags);  // nsys's own flag, named as the user typed it
  CHECK(flags->title.find("--cuda-memory-usage=true") != std::string::npos);
  CHECK(flags->title.find("profile_memory") == std::string::npos);
  // Captured without it: no memory events, no such findings.
  auto plain = load_built("training_steps.sqlite");
  ks::Report plain_report = ks::build_report(*plain, ks::AnalysisOptions{});
  CHECK(plain_report.analyses.memory.events == 0);
  CHECK(std::none_of(plain_report.findings.begin(), plain_report.findings.end(),
                     [](const ks::Finding& f) { return f.id == "capture.diagnostic_flags"; }));
}

TEST_CASE("nsys built: event waits know the stream of the event they wait for",
          "[nsys][built][critical_path]") {
  auto t = load_built("event_waits.sqlite");
  // Each step: the side stream waits for event 5 (recorded on stream 7 after the GEMM), the
  // host for event 6 (recorded on stream 13 after the side kernel).
  size_t stream_waits = 0, event_syncs = 0;
  for (const auto& [slice, w] : t->slices.sync_waits) {
    const std::string_view name = t->str(t->slices.name[slice]);
    if (name == "Stream Wait Event" && w.wait_on_stream == 7) ++stream_waits;
    if (name == "Event Sync" && w.wait_on_stream == 13) ++event_syncs;
  }
  CHECK(stream_waits == 3);
  CHECK(event_syncs == 3);
  // The critical path of a step then runs through the GEMM and the side kernel (2.6 ms of
  // GPU compute): without the events, cudaEventSynchronize waited for nothing it could name
  // and the step read as CPU-bound.
  ks::CriticalPathOptions o;
  o.annotation = "train_step";
  auto traced = ks::critical_path(*t, ks::build_launch_join(*t), o);
  REQUIRE(traced.ok);
  CHECK(traced.bound[static_cast<int>(ks::CpBound::kGpuCompute)] >= 2'600'000);
  CHECK(traced.dominant() == ks::CpBound::kGpuCompute);
  // The report's window is the first NVTX step, as it is the first ProfilerStep in Kineto's.
  ks::Report report = ks::build_report(*t, ks::AnalysisOptions{});
  const ks::CriticalPathResult& in_report = report.analyses.critical_path;
  REQUIRE(report.analyses.steps.steps.size() == 3);
  CHECK(in_report.window_label == "train_step");
  CHECK(in_report.window_slice == static_cast<int32_t>(report.analyses.steps.steps[0].slice));
  CHECK(in_report.total == traced.total);
  auto u = load_built("event_waits_untraced.sqlite");
  CHECK(u->slices.sync_waits.empty());
  auto untraced = ks::critical_path(*u, ks::build_launch_join(*u), o);
  REQUIRE(untraced.ok);
  CHECK(untraced.bound[static_cast<int>(ks::CpBound::kGpuCompute)] <
        traced.bound[static_cast<int>(ks::CpBound::kGpuCompute)]);
}

TEST_CASE("nsys built: NVTX ranges named for data loading are the input pipeline's time",
          "[nsys][built]") {
  auto t = load_built("data_stall.sqlite");
  ks::Report report = ks::build_report(*t, ks::AnalysisOptions{});
  // Each step waits 3 ms in "data_loading" with the GPU idle, then runs 1 ms of GEMMs.
  const ks::IdleCauses& idle = report.analyses.idle_causes;
  CHECK(idle.gaps[static_cast<int>(ks::GapCause::kDataLoader)] == 4);
  CHECK(idle.idle_ns[static_cast<int>(ks::GapCause::kDataLoader)] >
        0.9 * static_cast<double>(idle.idle_total_ns()));
  const ks::Finding* slow = nullptr;
  for (const ks::Finding& f : report.findings)
    if (f.id == "dataloader.slow") slow = &f;
  REQUIRE(slow);
  CHECK(slow->severity == ks::Severity::kCritical);
  CHECK(slow->title.find("Data loading (\"data_loading\" ranges) takes 73.") == 0);
}

TEST_CASE("nsys built: emit_nvtx's op ranges give the GPU time by op, named without seq/shapes",
          "[nsys][built][gpu_by_op]") {
  auto t = load_built("nvtx_domains.sqlite");
  ks::Report report = ks::build_report(*t, ks::AnalysisOptions{});
  // Per step: aten::linear > aten::addmm -> a 200 us GEMM, twice; aten::gelu -> a 200 us
  // kernel; the ranges are named "aten::addmm, seq = N, op_id = M, sizes = [...]".
  const ks::GpuTimeByOp& g = report.analyses.gpu_by_op;
  CHECK(g.source == ks::OpSource::kNvtxOps);
  CHECK(g.gpu_ops == 12);
  CHECK(g.attributed_ops == 12);
  REQUIRE(g.rows.size() == 3);  // one row per op, whatever its sequence numbers
  CHECK(g.rows[0].name == "aten::addmm");
  CHECK(g.rows[0].gpu_ops == 8);
  CHECK(g.rows[0].self_ns == 1'600'000);
  CHECK(g.rows[1].name == "aten::gelu");
  CHECK(g.rows[1].self_ns == 800'000);
  CHECK(g.rows[2].name == "aten::linear");
  CHECK(g.rows[2].self_ns == 0);
  CHECK(g.rows[2].total_ns == 1'600'000);
  const std::string text = ks::report_text(report);
  CHECK(text.find("ops from the NVTX ranges of emit_nvtx") != std::string::npos);
  // The same ranges are the export's CPU ops: aten::linear (230 us, 8 calls) holds aten::addmm
  // (10 us): its self time is 220 us a call. The 6 us cudaLaunchKernel inside each innermost op
  // is the op's child, as a trace's runtime event is its CPU op's: aten::addmm's self time is
  // 4 us a call, aten::gelu's 224 us (was 10 and 230: the call, on the CUDA API row, was
  // nobody's child).
  const ks::CpuOpSummary& ops = report.analyses.cpu_ops;
  REQUIRE(ops.rows.size() == 3);
  CHECK(ops.rows[0].label == "aten::linear");
  CHECK(ops.rows[0].total.count == 8);
  CHECK(ops.rows[0].self_ns == 8 * 220'000);
  CHECK(ops.rows[1].label == "aten::gelu");
  CHECK(ops.rows[1].self_ns == 4 * 224'000);
  CHECK(ops.rows[2].label == "aten::addmm");
  CHECK(ops.rows[2].self_ns == 8 * 4'000);
  CHECK(text.find("CPU ops by self time: 20 ops") != std::string::npos);
  // And the trace diff compares them as ops, by op name.
  const ks::DiffDigest digest = ks::make_diff_digest(*t, report.analyses, "nvtx_domains.sqlite");
  REQUIRE(digest.cpu_ops.size() == 3);
  CHECK(digest.cpu_ops[0].name == "aten::addmm");
  CHECK(digest.cpu_ops[0].count == 8);
  CHECK(digest.cpu_ops[2].name == "aten::linear");
}

TEST_CASE("nsys built: emit_nvtx(record_shapes) sizes give FLOPs, the kernels' types, and MFU",
          "[nsys][built][math]") {
  auto t = load_built("autograd_shapes.sqlite");
  CHECK(t->facts.saw_input_dims);
  ks::Report report = ks::build_report(*t, ks::AnalysisOptions{});
  const ks::MathEfficiency& m = report.analyses.math;
  REQUIRE(m.has_shapes);
  // Three steps of: addmm [4096], [8192, 4096], [4096, 4096] (a bf16 cuBLAS GEMM, 458 us), an
  // fp16 bmm [32, 512, 128] x [32, 128, 512] (10 us), gelu (no formula), and a convolution whose
  // stride and padding emit_nvtx does not record.
  CHECK(m.counted_ops == 6);
  REQUIRE(m.ops.size() == 2);
  const ks::MathOpRow& addmm = m.ops[0];
  CHECK(addmm.name == "aten::addmm");  // not "aten::addmm, seq = 1, ...": one row for 3 calls
  CHECK(addmm.count == 3);
  CHECK(addmm.shapes == "4096, 8192x4096, 4096x4096");
  CHECK(addmm.flops_each == 2.0 * 8192 * 4096 * 4096);
  CHECK(addmm.dtype == ks::MathDtype::kBf16);  // from the kernel's name: no types recorded
  CHECK(addmm.gpu_ns == 3 * 458'000);
  CHECK(addmm.achieved_tflops == Approx(600.2).epsilon(1e-3));
  CHECK(addmm.pct_of_peak == Approx(60.66).epsilon(1e-3));  // H100 SXM bf16 dense 989.5
  const ks::MathOpRow& bmm = m.ops[1];
  CHECK(bmm.name == "aten::bmm");
  CHECK(bmm.flops_each == 2.0 * 32 * 512 * 512 * 128);
  CHECK(bmm.dtype == ks::MathDtype::kFp16);
  REQUIRE(m.uncounted.size() == 1);
  CHECK(m.uncounted[0].name == "aten::convolution");
  CHECK(m.uncounted[0].count == 3);
  REQUIRE(m.steps.size() == 3);
  const double flops = 2.0 * 8192 * 4096 * 4096 + 2.0 * 32 * 512 * 512 * 128;
  CHECK(m.steps[0].flops == flops);
  CHECK(m.steps[0].dominant == ks::MathDtype::kBf16);
  CHECK(m.steps[0].mfu_pct == Approx(flops / (990'000.0 * 989.5 * 1e3) * 100).epsilon(1e-6));
  // The capture flag is named as nsys names it.
  const ks::Finding* flags = nullptr;
  for (const ks::Finding& f : report.findings)
    if (f.id == "capture.diagnostic_flags") flags = &f;
  REQUIRE(flags);
  CHECK(flags->title.find("--pytorch=autograd-shapes-nvtx") != std::string::npos);
  // Without sizes (nvtx_domains' linear and gelu ranges have none; its addmm has tiny ones)
  // the export without any says how to get them.
  auto plain = load_built("training_steps.sqlite");
  ks::Report none = ks::build_report(*plain, ks::AnalysisOptions{});
  CHECK(!none.analyses.math.has_shapes);
  CHECK(std::string(ks::math_no_shapes_hint(none.analyses.math))
            .find("--pytorch=autograd-shapes-nvtx") != std::string::npos);
}

TEST_CASE("nsys built: the GPU's host waits name what the launching thread was doing",
          "[nsys][built]") {
  auto t = load_built("host_stall.sqlite");
  ks::Report report = ks::build_report(*t, ks::AnalysisOptions{});
  // Each step's thread sleeps 2.9 ms (clock_nanosleep, OS runtime) inside its NVTX "log_metrics"
  // range before launching 1 ms of GEMMs: four 3 ms host waits, the sleep 96% of them.
  const ks::GapActivity& act = report.analyses.idle_causes.host_wait_activity;
  CHECK(act.gaps == 4);
  REQUIRE(!act.top.empty());
  CHECK(act.top[0].label == "log_metrics (NVTX) > clock_nanosleep (OS runtime)");
  CHECK(act.top[0].kind == ks::HostActivityKind::kSleep);
  CHECK(act.top[0].ns > 0.95 * static_cast<double>(act.total_ns));
  const ks::Finding* idle = nullptr;
  for (const ks::Finding& f : report.findings)
    if (f.id == "gpu.idle") idle = &f;
  REQUIRE(idle);
  CHECK(idle->title.find("the launching thread was in log_metrics (NVTX) > clock_nanosleep") !=
        std::string::npos);
  CHECK(idle->fix.find("was sleeping (clock_nanosleep)") != std::string::npos);
  // The same loop waiting in a range named for data loading is the DataLoader's, not a sleep.
  auto stall = load_built("data_stall.sqlite");
  ks::Report loader = ks::build_report(*stall, ks::AnalysisOptions{});
  CHECK(loader.analyses.idle_causes.host_wait_activity.gaps == 0);
}

TEST_CASE("nsys built: a GPU wait spent in the profiler's own work is the profiler's",
          "[nsys][built]") {
  auto t = load_built("profiler_stall.sqlite");
  // Four 2.8 ms flushes on the main thread's "Profiler overhead" row; the CUPTI worker thread's
  // rows (nsys' own thread), the row with no thread and the start-up before the program's first
  // row are left out: one thread, and the span starts at the first step.
  const ks::SliceTable& s = t->slices;
  const ks::StringId cat = t->strings.find("profiler_overhead");
  size_t rows = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.cat[i] != cat) continue;
    ++rows;
    CHECK(t->str(t->tracks[s.track[i]].tid_text) == "4242 Profiler overhead");
    CHECK(t->str(s.name[i]) == "CUDA profiling data flush");
    CHECK(ks::export_table_of(s.file_offset(i)) == "PROFILER_OVERHEAD");
  }
  CHECK(rows == 4);
  CHECK(t->facts.start_ns - t->facts.base_time_ns == 10'000'000);
  ks::Report report = ks::build_report(*t, ks::AnalysisOptions{});
  const ks::GapActivity& act = report.analyses.idle_causes.host_wait_activity;
  REQUIRE(!act.top.empty());
  CHECK(act.top[0].label == "CUDA profiling data flush (profiler overhead)");
  CHECK(act.top[0].kind == ks::HostActivityKind::kProfiler);
  const ks::Finding *idle = nullptr, *overhead = nullptr;
  for (const ks::Finding& f : report.findings) {
    if (f.id == "gpu.idle") idle = &f;
    if (f.id == "nsys.profiler_overhead") overhead = &f;
  }
  REQUIRE(idle);
  CHECK(idle->fix.find("Nsight Systems' own work") != std::string::npos);
  REQUIRE(overhead);
  CHECK(overhead->severity == ks::Severity::kWarning);
  CHECK(overhead->events.size() == 4);
  // 4 x 2.8 ms of four 4.008 ms steps.
  CHECK(ks_test::evidence_number(*overhead, "overhead_pct") == Approx(69.9).margin(0.05));
  // The same loop without the profiler's rows: no such finding.
  auto plain = load_built("host_stall.sqlite");
  for (const ks::Finding& f : ks::build_report(*plain, ks::AnalysisOptions{}).findings)
    CHECK(f.id != "nsys.profiler_overhead");
}

TEST_CASE("nsys built: cuDNN and cuBLAS calls are rows of their thread, and named in GPU waits",
          "[nsys][built]") {
  auto t = load_built("library_calls.sqlite");
  std::map<std::string, size_t> per_track;
  for (size_t i = 0; i < t->slices.size(); ++i) {
    const std::string cat(t->str(t->slices.cat[i]));
    if (cat == "cudnn" || cat == "cublas")
      ++per_track[std::string(t->str(t->tracks[t->slices.track[i]].tid_text))];
  }
  // 4 handles and 16 GEMM calls on the cuBLAS row, the one autotuning call on the cuDNN row.
  CHECK(per_track == std::map<std::string, size_t>{{"4242 cuBLAS", 20}, {"4242 cuDNN", 1}});
  ks::Report report = ks::build_report(*t, ks::AnalysisOptions{});
  // One thread, whatever its rows: the cuBLAS handle created in each step holds the GPU waits.
  CHECK(ks::count_tracks(*t).threads == 1);
  const ks::GapActivity& act = report.analyses.idle_causes.host_wait_activity;
  REQUIRE(!act.top.empty());
  CHECK(act.top[0].label == "cublasCreate_v2 (cuBLAS)");
  const ks::Finding* start = nullptr;
  for (const ks::Finding& f : report.findings)
    if (f.id == "nsys.from_process_start") start = &f;
  REQUIRE(start);
  CHECK(ks_test::evidence_number(*start, "cudnn_find_calls") == 1);
  // With no context created in the window, what it points at is the autotuning.
  CHECK(start->title == "The capture starts with the process: 1 cuDNN autotuning call");
  REQUIRE(start->events.size() == 1);
  CHECK(t->str(t->slices.name[start->events[0]]) == "cudnnFindConvolutionForwardAlgorithmEx");
}

TEST_CASE("nsys built: MPI calls are rows of their thread; a rank waiting in MPI_Allreduce",
          "[nsys][built][multirank]") {
  std::vector<ks::RankDigest> digests;
  for (int r = 0; r < 2; ++r) {
    const std::string file = "mpi_rank" + std::to_string(r) + ".sqlite";
    auto t = load_built(file);
    // MPI_Init, then per iteration MPI_Irecv, MPI_Isend, one MPI_Waitall (two rows, one per
    // request: one call) and MPI_Allreduce, all on the thread's MPI row.
    std::map<std::string, size_t> calls;
    for (size_t i = 0; i < t->slices.size(); ++i)
      if (t->str(t->slices.cat[i]) == "mpi") {
        CHECK(t->str(t->tracks[t->slices.track[i]].tid_text) == std::to_string(7500 + r) + " MPI");
        ++calls[std::string(t->str(t->slices.name[i]))];
      }
    CHECK(calls == std::map<std::string, size_t>{{"MPI_Allreduce", 6},
                                                 {"MPI_Init", 1},
                                                 {"MPI_Irecv", 6},
                                                 {"MPI_Isend", 6},
                                                 {"MPI_Waitall", 6}});
    CHECK(ks::count_tracks(*t).threads == 1);
    ks::Report report = ks::build_report(*t, ks::AnalysisOptions{});
    if (r == 0) {
      // Rank 0's GPU waits ~2 ms of each 3.1 ms iteration for rank 1, inside MPI_Allreduce: it was
      // "nothing recorded" (99%) with advice about Python before the MPI tables were read.
      const ks::GapActivity& act = report.analyses.idle_causes.host_wait_activity;
      REQUIRE(!act.top.empty());
      CHECK(act.top[0].label == "MPI_Allreduce (MPI)");
      CHECK(act.top[0].kind == ks::HostActivityKind::kMpi);
      CHECK(act.pct(act.top[0]) > 95);
      const ks::Finding* idle = nullptr;
      for (const ks::Finding& f : report.findings)
        if (f.id == "gpu.idle") idle = &f;
      REQUIRE(idle);
      CHECK(idle->title.find("the launching thread was in MPI_Allreduce (MPI)") !=
            std::string::npos);
      CHECK(idle->fix.find("blocked in MPI") != std::string::npos);
      CHECK(idle->fix.find("with_stack") == std::string::npos);
    }
    digests.push_back(
        ks::make_rank_digest(*t, report.analyses, file, ks::identify_rank(*t, file, 0)));
  }
  // Host-side MPI collectives are each rank's communication: rank 0 waits ~2 ms in each of its
  // 6 MPI_Allreduce calls, rank 1 (the straggler) arrives last and waits ~0.05 ms. Both were 0.
  REQUIRE(digests[0].comm.size() == 6);
  REQUIRE(digests[1].comm.size() == 6);
  CHECK(digests[0].comm[0].collective == "allreduce");
  CHECK(digests[0].communication_ns > 11'000'000);
  CHECK(digests[1].communication_ns < 1'000'000);
  ks::MultiRankResult result = ks::compare_ranks(digests);
  CHECK(result.ranks[0].wait_ns > 11'000'000);  // rank 0 waited for its peer
  CHECK(result.ranks[1].wait_ns == 0);
  bool straggler = false;
  for (const auto& f : ks::run_multi_rank_findings(result))
    if (f.id == "ranks.straggler") straggler = f.title.find("Rank 1 ") != std::string::npos;
  CHECK(straggler);
}

TEST_CASE("nsys built: unified-memory migrations are neither copies nor .item() reads",
          "[nsys][built]") {
  auto t = load_built("managed_memory.sqlite");
  // copyKind 11/12 (CUDA_MEMCPY_KIND_UVM_HTOD/DTOH): named apart from the program's copies.
  const auto copies = by_name(*t, ks::SliceKind::kMemcpy);
  CHECK(copies.at("Memcpy Unified HtoD (Managed -> Managed)").count == 20);
  CHECK(copies.at("Memcpy Unified DtoH (Managed -> Managed)").count == 5);
  ks::Report report = ks::build_report(*t, ks::AnalysisOptions{});
  // They were "5 device-to-host copies inside steps (.item(), .cpu() ...)" and HtoD/DtoH rows.
  CHECK(report.analyses.sync.dtoh_in_steps_count == 0);
  const ks::MemoryOpSummary& ops = report.analyses.memory_ops;
  REQUIRE(ops.rows.size() == 1);
  CHECK(ops.rows[0].kind == ks::MemoryOpKind::kUnified);
  CHECK(ops.rows[0].stats.count == 25);
  const ks::Finding* uvm = nullptr;
  for (const ks::Finding& f : report.findings) {
    CHECK(f.id != "sync.dtoh_in_steps");
    if (f.id == "memcpy.unified_migrations") uvm = &f;
  }
  REQUIRE(uvm);
  // 25 migrations of 8 us in 5 iterations of 1.13 ms: 200 us, 3.5% of step time.
  CHECK(ks_test::evidence_number(*uvm, "migrations") == 25);
  CHECK(ks_test::evidence_number(*uvm, "to_gpu") == 20);
  CHECK(ks_test::evidence_number(*uvm, "share_pct") == Approx(3.5).margin(0.1));
  CHECK(uvm->fix.find("cudaMemPrefetchAsync") != std::string::npos);
}

TEST_CASE(
    "nsys built: managed memory that thrashes, with its page faults and where the host "
    "faulted",
    "[nsys][built]") {
  for (const char* file : {"um_thrash.sqlite", "um_thrash_old.sqlite"}) {
    INFO(file);
    auto t = load_built(file);
    const ks::TraceFacts::UnifiedMemory& um = t->facts.unified_memory;
    // 5 steps: 8 fault groups of 3 on the GPU, 4 host faults; 8 pages, 4 moved back each step.
    CHECK(um.gpu_fault_groups == 40);
    CHECK(um.gpu_faults == 120);
    CHECK(um.gpu_fault_ns == 40 * 4000);
    CHECK(um.cpu_faults == 20);
    CHECK(um.pages_migrated == 8);
    CHECK(um.pages_both_ways == 4);
    ks::Report report = ks::build_report(*t, ks::AnalysisOptions{});
    const ks::Finding* uvm = nullptr;
    for (const ks::Finding& f : report.findings)
      if (f.id == "memcpy.unified_migrations") uvm = &f;
    REQUIRE(uvm);
    // 60 migrations of 20 us in 5 steps of 1.405 ms: 1.2 ms, 17.1% of step time, thrashing.
    CHECK(uvm->severity == ks::Severity::kWarning);
    CHECK(uvm->title.find("4 of 8 pages moved both ways (thrashing)") != std::string::npos);
    CHECK(ks_test::evidence_number(*uvm, "migrations") == 60);
    CHECK(ks_test::evidence_number(*uvm, "gpu_page_faults") == 120);
    CHECK(ks_test::evidence_number(*uvm, "cpu_page_faults") == 20);
    const std::string site = ks_test::evidence_text(*uvm, "cpu_fault_site");
    CHECK(site == (std::string(file) == "um_thrash.sqlite"
                       ? "update_weights (/home/user/train.py:42) (20 of 20 CPU page faults)"
                       : "update_weights in python3.10 (20 of 20 CPU page faults)"));
  }
}

TEST_CASE("nsys built: a device memset and a device-to-device cudaMemcpy do not synchronize",
          "[nsys][built]") {
  auto t = load_built("api_variants.sqlite");
  ks::Report report = ks::build_report(*t, ks::AnalysisOptions{});
  // Only the 6 cuStreamSynchronize calls block the host (were 18, with the memsets and copies).
  const ks::SyncResult& sync = report.analyses.sync;
  CHECK(sync.count == 6);
  REQUIRE(sync.calls.size() == 1);
  CHECK(t->str(sync.calls[0].name) == "cuStreamSynchronize");
  for (const ks::Finding& f : report.findings)
    if (f.id == "sync.runtime_calls")
      CHECK(f.title.rfind("6 synchronizing CUDA driver calls", 0) == 0);
}

TEST_CASE("nsys built: --cudabacktrace names the function that made a sync or a copy",
          "[nsys][built]") {
  auto t = load_built("cuda_backtraces.sqlite");
  // Each call's caller is its innermost frame outside libcuda/libcudart and a static libcudart's
  // cuda*/cudart:: frames, resolved: not cudaMemcpyAsync, cuStreamSynchronize or an address.
  std::map<std::string, std::map<std::string, int>> callers;  // call name -> caller -> count
  for (uint32_t i = 0; i < t->slices.size(); ++i)
    if (t->slices.kind[i] == ks::SliceKind::kRuntime)
      ++callers[std::string(t->str(t->slices.name[i]))][ks::native_caller_of(*t, i)];
  CHECK(callers["cudaMemcpyAsync"] ==
        std::map<std::string, int>{{"read_loss(float const*) in train_app", 4}});
  CHECK(callers["cudaStreamSynchronize"] ==
        std::map<std::string, int>{{"check_step(int) in train_app", 4}});
  CHECK(callers["cudaLaunchKernel"] == std::map<std::string, int>{{"", 16}});  // no backtrace
  // The copies' origin and the sync finding name them.
  ks::Report report = ks::build_report(*t, ks::AnalysisOptions{});
  REQUIRE(!report.analyses.sync.dtoh_in_steps.empty());
  CHECK(report.analyses.sync.dtoh_in_steps[0].cpu_ops == "read_loss(float const*) in train_app");
  bool named = false;
  for (const ks::Finding& f : report.findings)
    for (const ks::Evidence& e : f.evidence)
      if (f.id == "sync.runtime_calls" && e.key == "caller")
        named = e.text == "check_step(int) in train_app";
  CHECK(named);
  // Without the table (the other exports), no call has a caller.
  auto plain = load_built("training_steps.sqlite");
  CHECK(plain->slices.call_stacks.empty());
}

TEST_CASE("nsys built: a call stack's frame is kept once and cut, however many chains name it",
          "[nsys][built]") {
  // Each API call with a chain of its own ending on one 100,000-byte symbol: each caller
  // text is the symbol's first 8,192 bytes and the module, one string in the pool for all.
  auto t = load_built("long_frame_backtraces.sqlite");
  REQUIRE_FALSE(t->slices.call_stacks.empty());
  std::set<ks::StringId> texts;
  for (const auto& [slice, text] : t->slices.call_stacks) texts.insert(text);
  CHECK(texts.size() == 1);
  const std::string_view frame = t->str(*texts.begin());
  CHECK(frame.size() == ks::nsys_sqlite::kMaxFrameBytes + std::string(" in train_app").size());
  CHECK(frame.rfind("check_step_xxx", 0) == 0);
}

TEST_CASE("nsys built: GPUs are keyed by their CUDA ordinal, not nsys' own GPU id",
          "[nsys][built]") {
  // nsys' GPU 0 is an A100 that CUDA calls device 1; its GPU 1 is cuda:0, an H100, where every
  // kernel runs (deviceId 0).
  auto t = load_built("mixed_node.sqlite");
  REQUIRE(t->devices.size() == 2);
  CHECK(t->devices[0].id == 0);
  CHECK(t->devices[0].name == "NVIDIA H100 80GB HBM3");
  CHECK(t->devices[0].num_sms == 132);
  CHECK(t->devices[1].id == 1);
  CHECK(t->devices[1].name == "NVIDIA A100-SXM4-80GB");
  ks::Report report = ks::build_report(*t, ks::AnalysisOptions{});
  CHECK(report.analyses.math.gpu_name == "NVIDIA H100 80GB HBM3");
}

TEST_CASE("os_call_kind sorts C library calls into sleeps, waits and file I/O", "[analysis]") {
  CHECK(ks::os_call_kind("nanosleep") == ks::HostActivityKind::kSleep);
  CHECK(ks::os_call_kind("clock_nanosleep") == ks::HostActivityKind::kSleep);
  CHECK(ks::os_call_kind("pthread_cond_timedwait") == ks::HostActivityKind::kBlocked);
  CHECK(ks::os_call_kind("poll") == ks::HostActivityKind::kBlocked);
  CHECK(ks::os_call_kind("fopen64") == ks::HostActivityKind::kFileIo);
  CHECK(ks::os_call_kind("pread64") == ks::HostActivityKind::kFileIo);
  CHECK(ks::os_call_kind("ioctl") == ks::HostActivityKind::kCpuWork);
  CHECK(ks::os_call_kind("") == ks::HostActivityKind::kCpuWork);
}

TEST_CASE("nsys built: bad files give one clear error", "[nsys][built][errors]") {
  ks::ImportError e = error_of("empty_capture.sqlite");
  CHECK(e.code == ks::ImportErrorCode::kNoCudaTrace);
  CHECK(e.message.find(
            "no CUPTI_ACTIVITY_KIND_KERNEL table: was the capture run with --trace=cuda") == 0);
  CHECK(e.message.find("OSRT_API (5 rows)") != std::string::npos);

  e = error_of("not_an_export.sqlite");
  CHECK(e.code == ks::ImportErrorCode::kNotNsysExport);
  CHECK(e.message.find("2 tables: users, orders") != std::string::npos);

  e = error_of("not_sqlite.sqlite");
  CHECK(e.code == ks::ImportErrorCode::kNotSqlite);
  CHECK(e.offset == 0);
  CHECK(e.message.find("(\"<html><body>502 \")") != std::string::npos);

  e = error_of("damaged_truncated.sqlite");
  CHECK(e.code == ks::ImportErrorCode::kDamagedDatabase);
  CHECK(e.message.find("cut off") != std::string::npos);
  std::ifstream cut(built("damaged_truncated.sqlite"), std::ios::binary | std::ios::ate);
  CHECK(e.offset == static_cast<uint64_t>(cut.tellg()));

  e = error_of("damaged_garbage.sqlite");
  CHECK(e.code == ks::ImportErrorCode::kDamagedDatabase);
  CHECK(e.message.find("damaged") != std::string::npos);
  CHECK(e.offset > 0);

  // No bytes at all, and bytes that stop inside the header.
  ks::MemoryByteSource empty("");
  CHECK(!ks::NsysDatabase::open(&empty, &e));
  CHECK(e.code == ks::ImportErrorCode::kEmptyInput);
  std::string header("SQLite format 3\0\x10\x00", 18);
  ks::MemoryByteSource short_header(header);
  auto db = ks::NsysDatabase::open(&short_header, &e);
  CHECK(!db);
  CHECK(e.code == ks::ImportErrorCode::kDamagedDatabase);
}

TEST_CASE("nsys built: the same bytes from memory and from a file give the same report",
          "[nsys][built]") {
  std::ifstream in(built("training_steps.sqlite"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ks::MemoryByteSource source(bytes);
  ks::ImportError error;
  auto db = ks::NsysDatabase::open(&source, &error);
  REQUIRE(db);
  ks::NsysImportOptions options;
  options.source_name = "training_steps.sqlite";
  auto from_memory = ks::import_nsys(*db, options, &error);
  REQUIRE(from_memory);
  auto from_file = load_built("training_steps.sqlite");
  CHECK(ks::report_json(ks::build_report(*from_memory, ks::AnalysisOptions{})) ==
        ks::report_json(ks::build_report(*from_file, ks::AnalysisOptions{})));
}

TEST_CASE("nsys hostile rows: odd ids, NULLs, reversed and extreme times, text in numbers",
          "[nsys][built][errors]") {
  // Built here with SQLite itself: what a crafted file can hold within a valid database.
  const std::string path = ks_test::source_dir() + "/build/nsys-tests/hostile.sqlite";
  std::remove(path.c_str());
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  std::string sql =
      "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER,"
      " globalTid INTEGER, correlationId INTEGER, nameId INTEGER);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,"
      " streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER,"
      " shortName INTEGER, gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER,"
      " blockY INTEGER, blockZ INTEGER);";
  // Ids that grow fourfold per row: a dense table for them would need terabytes.
  int64_t id = 1;
  for (int k = 0; k < 30; ++k, id *= 4)
    sql += "INSERT INTO StringIds VALUES (" + std::to_string(id) + ", 'name" + std::to_string(k) +
           "');";
  sql +=
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (100, 200, 0, 70368744177664, 1, " +
      std::to_string(id / 4) +
      ");"
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (NULL, 200, 0, 1, 2, 1);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (300, 100, 0, 1, 3, 1);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (-9223372036854775807, 9223372036854775807,"
      " 0, 1, 4, 1);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES ('soon', 'later', 'x', 'y', 'z', 123456);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (150, 180, -5, 4294967295, 1, 70368744177664,"
      " 99999999, 4, -1, 9223372036854775807, 0, 1, 1, 1),"
      // Another process's kernel with no time and no device: skipped, yet a GPU process.
      " (NULL, 190, NULL, 7, 3, 50331648, 99999999, 4, 1, 1, 1, 1, 1, 1);"
      // Memory rows whose frees sum past INT64_MIN, a negative size and a NULL time; a wait on
      // an event recorded by a call that is not there.
      "CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS (start INTEGER, globalPid INTEGER,"
      " deviceId INTEGER, bytes INTEGER, memKind INTEGER, memoryOperationType INTEGER,"
      " correlationId INTEGER);"
      "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES (100, 70368744177664, 0,"
      " 9223372036854775807, 2, 1, 1), (110, 70368744177664, 0, 9223372036854775807, 2, 1, 1),"
      " (120, 70368744177664, 0, -5, 2, 0, 1), (NULL, 70368744177664, 0, 8, 2, 0, 1),"
      " (130, 70368744177664, 0, 9223372036854775807, 2, 0, 99);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_CUDA_EVENT (correlationId INTEGER, globalPid INTEGER,"
      " streamId INTEGER, eventId INTEGER);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT VALUES (77, 70368744177664, 7,"
      " -9223372036854775807), (1, 70368744177664, -1, 5);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER, end INTEGER,"
      " deviceId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER,"
      " syncType INTEGER, eventId INTEGER);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (160, 170, 0, 7, 1, 70368744177664,"
      " 2, -9223372036854775807);";
  REQUIRE(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);
  ks::ImportError error;
  auto t = ks::import_nsys_file(path, &error);
  INFO(error.to_line());
  REQUIRE(t);
  {
    auto source = ks::FileByteSource::open(path, &error);
    REQUIRE(source);
    auto db = ks::NsysDatabase::open(source.get(), &error);
    REQUIRE(db);
    check_gpu_processes_gathered(*db);  // with rows of NULL and reversed times
  }
  // The good runtime row and the kernel are kept; NULL, reversed, overflowing and text times
  // ('soon', 'later': a call at time 0 before they read as absent) are not.
  CHECK(by_name(*t, ks::SliceKind::kRuntime)["name29"].count == 1);
  CHECK(by_name(*t, ks::SliceKind::kKernel)["<unknown>"].count == 1);
  CHECK(t->diagnostics.count(ks::Diag::kNsysBadRow) == 7);  // and two memory rows
  CHECK(t->slices.sync_waits.empty());                      // the record's call was not captured
  CHECK(t->diagnostics.count(ks::Diag::kNsysUnknownStringId) >= 1);
  CHECK(!ks::report_json(ks::build_report(*t, ks::AnalysisOptions{})).empty());
}

TEST_CASE("nsys built: what the importer reserves and gathers while reading matches the tables",
          "[nsys][built]") {
  // Reserving less than an import adds doubles every column when the last rows come in.
  for (const char* name :
       {"training_steps.sqlite", "gil_wait.sqlite", "python_busy.sqlite", "host_stall.sqlite",
        "mixed_node.sqlite", "autograd_shapes.sqlite", "cuda_graphs.sqlite", "graph_trace.sqlite",
        "memory_usage.sqlite", "event_waits.sqlite", "process_start.sqlite", "nvtx_domains.sqlite",
        "torchrun_4procs.sqlite", "data_stall.sqlite", "alloc_churn.sqlite", "old_schema.sqlite",
        "profiler_stall.sqlite", "library_calls.sqlite", "graph_capture.sqlite"}) {
    INFO(name);
    std::ifstream in(built(name), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ks::MemoryByteSource source(bytes);
    ks::ImportError error;
    auto db = ks::NsysDatabase::open(&source, &error);
    REQUIRE(db);
    const ks::NsysRowBound bound = ks::nsys_row_bound(*db);
    check_gpu_processes_gathered(*db);
    auto t = load_built(name);
    CHECK(t->slices.size() <= bound.slices);
    CHECK(t->flows.size() <= bound.flows);
    CHECK(t->slices.launch_infos.size() <= bound.launch_infos);
    CHECK(t->slices.size() > 0);
  }
}

namespace {

const ks::Finding* finding(const ks::Report& r, const std::string& id) {
  for (const ks::Finding& f : r.findings)
    if (f.id == id) return &f;
  return nullptr;
}

ks::NsysGpuProcess gpu_process(int64_t pid, int64_t device, int64_t first, int64_t last,
                               bool collective = false) {
  ks::NsysGpuProcess p;
  p.pid = pid;
  p.device = device;
  p.first_ns = first;
  p.last_ns = last;
  p.op_ns = (last - first) / 2;
  p.collective = collective;
  return p;
}

}  // namespace

TEST_CASE("nsys built: a short helper process on the training GPU is not a second rank",
          "[nsys][built][multirank]") {
  // torch.compile's autotuning subprocess: 30 Triton kernels on GPU 0 before training starts.
  ks::ImportError error;
  std::vector<ks::NsysGpuProcess> procs;
  auto whole = ks::import_nsys_file(built("helper_process.sqlite"), &error, &procs);
  REQUIRE(whole);
  REQUIRE(procs.size() == 2);  // both ran GPU work
  const ks::NsysRankPlan plan = ks::nsys_rank_plan(procs);
  REQUIRE(plan.ranks.size() == 1);
  CHECK(plan.ranks[0].pid == 4242);
  CHECK(plan.ranks[0].helpers == std::vector<int64_t>{4300});
  CHECK_FALSE(plan.split());
  // One trace, the helper's kernels in it (they took the GPU's time), and a note naming it.
  CHECK(ks::import_nsys_file_by_process(built("helper_process.sqlite"), procs, &error).empty());
  CHECK(by_name(*whole, ks::SliceKind::kKernel).count("triton_mm_0"));
  CHECK(whole->diagnostics.count(ks::Diag::kNsysHelperProcess) == 1);
  CHECK(whole->diagnostics.get(ks::Diag::kNsysHelperProcess).excerpt ==
        "pid 4300 with pid 4242 (GPU 0)");
  // The SQL scan (the page's rank Sessions plan from it) makes the same plan.
  auto source = ks::FileByteSource::open(built("helper_process.sqlite"), &error);
  REQUIRE(source);
  auto db = ks::NsysDatabase::open(source.get(), &error);
  REQUIRE(db);
  const ks::NsysRankPlan scanned = ks::nsys_rank_plan(ks::nsys_gpu_processes(*db));
  REQUIRE(scanned.ranks.size() == 1);
  CHECK(scanned.ranks[0].helpers == std::vector<int64_t>{4300});
}

TEST_CASE("nsys built: two ranks on one GPU, each rank's idle time says what the other filled",
          "[nsys][built][multirank]") {
  // mpirun -np 2 on one GPU: both processes run every iteration, so both are ranks; rank 7701's
  // own kernels leave the GPU idle 80% of its iterations, rank 7702's fill 60 of those 80 points.
  ks::ImportError error;
  std::vector<ks::NsysGpuProcess> procs;
  REQUIRE(ks::import_nsys_file(built("shared_gpu.sqlite"), &error, &procs));
  const ks::NsysRankPlan plan = ks::nsys_rank_plan(procs);
  REQUIRE(plan.ranks.size() == 2);
  CHECK(plan.shared_devices == std::vector<int64_t>{0});
  auto ranks = ks::import_nsys_file_by_process(built("shared_gpu.sqlite"), procs, &error);
  REQUIRE(ranks.size() == 2);
  const ks::Trace& t = *ranks[0];
  CHECK(t.facts.source_name == "shared_gpu.sqlite pid 7701");
  CHECK(t.facts.other_processes_gpu_work.size() == 5);  // the other rank's five kernels
  ks::Report report = ks::build_report(t, ks::AnalysisOptions{});
  const ks::Finding* idle = finding(report, "gpu.idle");
  REQUIRE(idle);
  INFO(idle->title);
  CHECK(idle->title.find("idle 80.0% of step time") != std::string::npos);
  CHECK(idle->title.find("the device was idle 20.0%") != std::string::npos);
  CHECK(idle->meaning.find("no kernel, copy or memset ran on any GPU stream") == std::string::npos);
  CHECK(idle->severity == ks::Severity::kInfo);  // the device's 20%, not the process's 80%
}

TEST_CASE("nsys rank plan: GPUs, collectives and span tell ranks from helpers",
          "[nsys][multirank]") {
  // Four GPUs, one process each: four ranks, in device order.
  std::vector<ks::NsysGpuProcess> procs;
  for (int d = 0; d < 4; ++d) procs.push_back(gpu_process(10 + d, d, 0, 1000));
  CHECK(ks::nsys_rank_plan(procs).ranks.size() == 4);
  // A short process on GPU 1 is rank 1's helper; one running a collective is a rank.
  procs.insert(procs.begin() + 2, gpu_process(90, 1, 100, 120));
  procs.insert(procs.begin() + 3, gpu_process(91, 1, 100, 120, true));
  ks::NsysRankPlan plan = ks::nsys_rank_plan(procs);
  REQUIRE(plan.ranks.size() == 5);
  CHECK(plan.ranks[1].pid == 11);
  CHECK(plan.ranks[1].helpers == std::vector<int64_t>{90});
  CHECK(plan.ranks[2].pid == 91);
  CHECK(plan.shared_devices == std::vector<int64_t>{1});
  // The GPU's main process is the one with the most GPU time, whatever its pid.
  std::vector<ks::NsysGpuProcess> one = {gpu_process(5, 0, 0, 10), gpu_process(6, 0, 0, 1000)};
  plan = ks::nsys_rank_plan(one);
  REQUIRE(plan.ranks.size() == 1);
  CHECK(plan.ranks[0].pid == 6);
  CHECK(plan.ranks[0].helpers == std::vector<int64_t>{5});
  // More rank-like processes than are read one by one: one trace.
  std::vector<ks::NsysGpuProcess> many;
  for (int d = 0; d < static_cast<int>(ks::kMaxExportRanks) + 1; ++d)
    many.push_back(gpu_process(100 + d, d, 0, 1000));
  plan = ks::nsys_rank_plan(many);
  CHECK(plan.too_many);
  CHECK(plan.rank_like == ks::kMaxExportRanks + 1);
  CHECK_FALSE(plan.split());
}

TEST_CASE("nsys built: an export without a recorded rank gets nsys' advice, not Kineto's",
          "[nsys][built]") {
  // The torchrun export read whole (--separate): collectives, and only the launcher's environment.
  auto t = load_built("torchrun_4procs.sqlite");
  ks::Report report = ks::build_report(*t, ks::AnalysisOptions{});
  const ks::Finding* f = finding(report, "capture.no_distributed_info");
  REQUIRE(f);
  CHECK(f->title.find("export") != std::string::npos);
  CHECK(f->fix.find("Kineto") == std::string::npos);
  CHECK(f->fix_code.find("nsys profile") != std::string::npos);
  CHECK(f->title == "Multi-GPU export without a recorded rank: the rank is unknown");
  // One rank's export whose process sees one GPU (deviceId 0, CUDA_VISIBLE_DEVICES) is not a
  // multi-GPU export: was called one.
  t = load_built("visible_device_no_rank_env.sqlite");
  report = ks::build_report(*t, ks::AnalysisOptions{});
  f = finding(report, "capture.no_distributed_info");
  REQUIRE(f);
  CHECK(f->title == "One GPU's export with collectives but no recorded rank: the rank is unknown");
}

TEST_CASE("ranks the exports recorded in their environment are not called guessed",
          "[nsys][multirank]") {
  // mpirun nsys profile: each export's environment holds OMPI_COMM_WORLD_RANK; the names none.
  ks::MultiRankResult r;
  for (int k = 0; k < 2; ++k) {
    ks::RankRow row;
    row.rank = k;
    row.source = ks::RankSource::kEnvironment;
    row.file = k ? "b.sqlite" : "a.sqlite";
    r.ranks.push_back(row);
  }
  auto has_identity = [](const std::vector<ks::Finding>& fs) {
    for (const ks::Finding& f : fs)
      if (f.id == "ranks.identity") return true;
    return false;
  };
  CHECK_FALSE(has_identity(ks::run_multi_rank_findings(r)));
  // One taken from the load order: said, in words that fit both formats.
  r.ranks[1].source = ks::RankSource::kLoadOrder;
  const auto findings = ks::run_multi_rank_findings(r);
  REQUIRE(has_identity(findings));
  for (const ks::Finding& f : findings)
    if (f.id == "ranks.identity") CHECK(f.fix.find("nsys") != std::string::npos);
}
