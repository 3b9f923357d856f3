// BUILT exports (tests/nsys/make_exports.py: small files following NVIDIA's documented schema
// and the real export's tables; no nsys ran) for what the real file lacks: NVTX steps, OS runtime,
// GPU metrics, a capture from process start, older schemas, four ranks with a straggler, and the
// files that must be refused with a clear error.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "analysis/analyze.h"
#include "analysis/multi_rank.h"
#include "analysis/rank_identity.h"
#include "corpus/shared_traces.h"
#include "findings/multi_rank_rules.h"
#include "import/memory_byte_source.h"
#include "import/nsys_sqlite/nsys_database.h"
#include "import/nsys_sqlite/nsys_file.h"
#include "import/nsys_sqlite/nsys_importer.h"
#include "report/report.h"

using namespace ks_test;

namespace {

// The generated files, made once per test run into build/nsys-tests/.
std::string built(const std::string& name) {
  static const std::string dir = std::string(KS_SOURCE_DIR) + "/build/nsys-tests";
  static const bool made = [] {
    std::string cmd = "/usr/bin/python3 " + std::string(KS_SOURCE_DIR) +
                      "/tests/nsys/make_exports.py " + dir + " >/dev/null";
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
  auto t = load_built("training_steps.sqlite");
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
  bool warmup = false;
  for (const auto& f : report.findings) warmup = warmup || f.id == "capture.warmup_ops";
  CHECK(warmup);
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
    CHECK(id.source == ks::RankSource::kFileName);  // the file name comes first
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
