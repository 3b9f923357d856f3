// The real Nsight Systems export (../shared/nsys/perlmutter-cloverleaf-cuda.sqlite: CloverLeaf on
// an A100, nsys 2024.5, schema 3.13.2) against the two CSVs another reader (pipit) wrote from the
// same run: per-kernel counts and total times to the nanosecond, memcpy counts and bytes, CUDA API
// calls per name, as users see them in the report (build_report -> JSON), plus the file's facts.
#include <simdjson.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/critical_path.h"
#include "analysis/launch_join.h"
#include "corpus/json_get.h"
#include "corpus/shared_traces.h"
#include "import/nsys_sqlite/nsys_file.h"
#include "report/report.h"

using namespace ks_test;

namespace {

std::string nsys_file(const std::string& name) {
  return shared_dir() + "/nsys/" + name;
}

struct Sum {
  uint64_t count = 0;
  int64_t total_ns = 0;
  int64_t bytes = 0;
};

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

// Enter rows of a pipit CSV, summed by `key_col`; the duration is _matching_timestamp - Timestamp.
std::map<std::string, Sum> csv_sums(const std::string& path, int key_col, int event_col, int ts_col,
                                    int match_col, int bytes_col = -1) {
  std::map<std::string, Sum> out;
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    auto c = split_csv(line);
    if (static_cast<int>(c.size()) <= match_col || c[event_col] != "Enter") continue;
    Sum& s = out[c[key_col]];
    s.count += 1;
    s.total_ns += std::stoll(c[match_col]) - std::stoll(c[ts_col]);
    if (bytes_col >= 0 && !c[bytes_col].empty()) s.bytes += std::stoll(c[bytes_col]);
  }
  return out;
}

// "void clover::par_ranged2d_kernel<PdV_kernel(...)...>(clover::Range2d, T1)" ->
// "par_ranged2d_kernel": the base name the CSV (nsys's shortName) uses.
std::string base_name_of(const std::string& demangled) {
  std::string s = demangled.substr(0, demangled.find('<'));
  s = s.substr(0, s.find('('));
  size_t colon = s.rfind("::");
  if (colon != std::string::npos) s = s.substr(colon + 2);
  size_t space = s.rfind(' ');
  if (space != std::string::npos) s = s.substr(space + 1);
  return s;
}

int64_t us_to_ns(double us) {
  return static_cast<int64_t>(std::llround(us * 1000.0));
}

}  // namespace

TEST_CASE("nsys real export: the report's tables match the reference CSVs", "[nsys][corpus]") {
  const std::string path = nsys_file("perlmutter-cloverleaf-cuda.sqlite");
  if (!file_exists(path)) {
    WARN("../shared/nsys is absent: real-export test skipped");
    return;
  }
  ks::ImportError error;
  auto trace = ks::import_nsys_file(path, &error);
  INFO(error.to_line());
  REQUIRE(trace);
  const std::string json = ks::report_json(ks::build_report(*trace, ks::AnalysisOptions{}));
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(!parser.parse(json).get(doc));

  SECTION("kernels: count and total per base name, to the nanosecond") {
    auto ref = csv_sums(nsys_file("cloverleaf_gpu_trace.csv"), 0, 5, 6, 8);
    std::map<std::string, Sum> got;
    simdjson::dom::array rows;
    REQUIRE(array(at(doc, "kernels"), "rows", &rows));
    uint64_t total = 0;
    for (auto row : rows) {
      Sum& s = got[base_name_of(str(row, "name"))];
      s.count += u64(row, "count");
      s.total_ns += us_to_ns(dbl(row, "total_us"));
      total += u64(row, "count");
    }
    CHECK(total == 1312);
    CHECK(u64(at(doc, "kernels"), "count") == 1312);
    size_t kernel_names = 0;
    for (const auto& kv : ref) {
      if (kv.first.rfind("CUDA_MEMCPY", 0) == 0) continue;
      ++kernel_names;
      INFO(kv.first);
      CHECK(got[kv.first].count == kv.second.count);
      CHECK(got[kv.first].total_ns == kv.second.total_ns);
    }
    CHECK(kernel_names == 3);
    CHECK(got.size() == kernel_names);
  }

  SECTION("memory copies: count, bytes and time per direction") {
    auto ref = csv_sums(nsys_file("cloverleaf_gpu_trace.csv"), 0, 5, 6, 8, 3);
    simdjson::dom::array rows;
    REQUIRE(array(at(doc, "memory_ops"), "rows", &rows));
    std::map<std::string, Sum> got;
    for (auto row : rows) {
      Sum& s = got[str(row, "kind")];
      s.count = u64(row, "count");
      s.bytes = static_cast<int64_t>(u64(row, "bytes"));
      s.total_ns = us_to_ns(dbl(row, "total_us"));
    }
    for (const char* kind : {"HtoD", "DtoH"}) {
      const Sum& r = ref[std::string("CUDA_MEMCPY_KIND_") + (kind[0] == 'H' ? "HTOD" : "DTOH")];
      INFO(kind);
      CHECK(got[kind].count == r.count);
      CHECK(got[kind].bytes == r.bytes);
      CHECK(got[kind].total_ns == r.total_ns);
    }
    CHECK(got["HtoD"].count == 254);
    CHECK(got["DtoH"].count == 25);
    CHECK(u64(at(doc, "memory_ops"), "count") == 279);
  }

  SECTION("CUDA API calls: count and total per name (version suffix dropped)") {
    // The CSV keeps nsys's names (cudaMemcpy_v3020); the report shows them as Nsight's GUI does.
    std::map<std::string, Sum> ref;
    for (const auto& kv : csv_sums(nsys_file("cloverleaf-cuda_api_trace.csv"), 0, 4, 5, 7)) {
      std::string name = kv.first;
      size_t v = name.rfind("_v");
      if (v != std::string::npos && v + 2 < name.size() &&
          name.find_first_not_of("0123456789", v + 2) == std::string::npos)
        name.resize(v);
      ref[name] = kv.second;
    }
    CHECK(ref.count("cudaLaunchKernel") == 1);
    simdjson::dom::array rows;
    REQUIRE(array(at(doc, "api_calls"), "rows", &rows));
    std::map<std::string, Sum> got;
    for (auto row : rows) {
      Sum& s = got[str(row, "name")];
      s.count = u64(row, "count");
      s.total_ns = us_to_ns(dbl(row, "total_us"));
    }
    REQUIRE(ref.size() == 6);
    CHECK(got.size() == ref.size());
    for (const auto& kv : ref) {
      INFO(kv.first);
      CHECK(got[kv.first].count == kv.second.count);
      CHECK(got[kv.first].total_ns == kv.second.total_ns);
    }
    CHECK(u64(at(doc, "api_calls"), "count") == 3048);
  }

  SECTION("facts: format, schema, GPUs, process, threads, tracks") {
    const ks::TraceFacts& f = trace->facts;
    CHECK(f.format == ks::TraceFormat::kNsysSqlite);
    CHECK(f.schema_version == "3.13.2");
    CHECK(f.trace_name == "Nsight Systems 2024.5.1.113");
    CHECK(f.has_base_time);
    CHECK(f.base_time_ns == 1696392839587175550);
    // The first event: an OS runtime call 78291151 ns after the session start. nsys' own
    // zero-length rows on thread id 0 ("OS runtime libraries profiling started" at 56574271 ns,
    // "... finished" twice at the end) are no call of the program, and no part of the span.
    CHECK(f.start_ns == 1696392839587175550 + 78291151);
    CHECK(f.categories.at("kernel") == 1312);
    CHECK(f.categories.at("cuda_runtime") == 3047);
    CHECK(f.categories.at("cuda_driver") == 1);
    CHECK(f.categories.at("gpu_memcpy") == 279);
    CHECK(f.categories.at("cuda_sync") == 1312);
    CHECK(f.categories.at("os_runtime") == 1828);  // 1831 rows, 3 of them on thread id 0
    REQUIRE(trace->devices.size() == 4);
    for (const auto& d : trace->devices) {
      CHECK(d.name == "NVIDIA A100-SXM4-80GB");
      CHECK(d.num_sms == 108);
      CHECK(d.compute_major == 8);
      CHECK(d.compute_minor == 0);
      CHECK(d.total_memory == 84990623744);
    }
    // One CPU process (the application) and one GPU (device 0), as Kineto lays them out.
    REQUIRE(trace->processes.size() == 2);
    bool app = false, gpu = false;
    for (const auto& p : trace->processes) {
      if (trace->str(p.pid_text) == "1701896") app = p.name == "cuda-cloverleaf";
      // CUDA device 0 is nsys' GPU 3, on bus 0000:03:00.0 (TARGET_INFO_GPU.cuDevice): the nsys
      // GUI's model and bus, not GPU 0's row (nsys id 0 is on 0000:c1:00.0).
      if (trace->str(p.pid_text) == "0")
        gpu = p.name == "GPU 0: NVIDIA A100-SXM4-80GB (0000:03:00.0)" && p.has_gpu_ops;
    }
    CHECK(app);
    CHECK(gpu);
    size_t streams = 0, api_tracks = 0, osrt_tracks = 0;
    for (const auto& tr : trace->tracks) {
      if (tr.kind == ks::TrackKind::kGpuStream && tr.has_gpu_ops) {
        ++streams;
        CHECK(tr.device == 0);
        CHECK(tr.stream == 7);
      }
      if (tr.name.size() > 9 && tr.name.compare(tr.name.size() - 9, 9, " CUDA API") == 0)
        ++api_tracks;
      if (tr.name.size() > 11 && tr.name.compare(tr.name.size() - 11, 11, " OS runtime") == 0)
        ++osrt_tracks;
    }
    CHECK(streams == 1);
    CHECK(api_tracks == 1);  // every CUDA call is on the main thread
    CHECK(osrt_tracks >= 1);
    // Every GPU op has its launch: one ac2g flow start and finish each.
    size_t starts = 0, finishes = 0;
    for (size_t i = 0; i < trace->flows.size(); ++i) {
      starts += trace->flows.phase[i] == 's';
      finishes += trace->flows.phase[i] == 'f';
    }
    CHECK(starts == 1312 + 279);
    CHECK(finishes == 1312 + 279);
    CHECK(trace->distributed.from_environment);
    CHECK(trace->distributed.rank == 0);
  }

  SECTION("cudaDeviceSynchronize is a context sync, so the critical path waits for the GPU") {
    // The export types all 1312 of them as 1 (event synchronize), with no event and no stream:
    // read so, the critical path had no edge from the kernels to the call's end, and called a
    // program whose GPU is busy 89% of its span "100% CPU-bound".
    size_t context_syncs = 0;
    for (size_t i = 0; i < trace->slices.size(); ++i)
      context_syncs += trace->slices.kind[i] == ks::SliceKind::kSync &&
                       trace->str(trace->slices.name[i]) == "Context Sync";
    CHECK(context_syncs == 1312);
    // Every kernel is followed by such a sync, so every kernel is on the path: over the whole
    // trace, all the GPU's busy time is its compute-bound share (it was 0).
    const ks::LaunchJoin join = ks::build_launch_join(*trace);
    ks::CriticalPathOptions whole;
    whole.whole_trace = true;
    const ks::CriticalPathResult path = ks::critical_path(*trace, join, whole);
    REQUIRE(path.ok);
    const double busy = dbl(at(doc, "gpu"), "busy_us");
    CHECK(busy > 300000);
    CHECK(static_cast<double>(path.bound[static_cast<int>(ks::CpBound::kGpuCompute)]) / 1e3 >
          0.99 * busy);
    // The report takes the first iteration its launches repeat in (no NVTX steps): GPU-bound
    // there, as it is over its whole GPU span, not the start-up's cudaMalloc.
    auto cp = at(doc, "critical_path");
    CHECK(str(cp, "window") == "inferred iteration 0");
    CHECK(dbl(at(cp, "bound_by_pct"), "gpu_compute_bound") > 90);
    CHECK(dbl(at(cp, "bound_by_pct"), "cpu_bound") < 10);
  }
}

TEST_CASE("nsys real export: threads that share a name are told apart by their thread id",
          "[nsys][corpus]") {
  const std::string path = nsys_file("perlmutter-cloverleaf-cuda.sqlite");
  if (!file_exists(path)) {
    WARN("../shared/nsys is absent: real-export test skipped");
    return;
  }
  ks::ImportError error;
  auto trace = ks::import_nsys_file(path, &error);
  REQUIRE(trace);
  std::set<std::string> names;
  for (const auto& track : trace->tracks) names.insert(track.name);
  // Two threads named cuda-EvtHandlr (tids 1701906 and 1701908): two rows each, told apart.
  CHECK(names.count("cuda-EvtHandlr [1701906] OS runtime") == 1);
  CHECK(names.count("cuda-EvtHandlr [1701908] OS runtime") == 1);
  CHECK(names.count("cuda-EvtHandlr OS runtime") == 0);
  // A name only one thread has stays as it was.
  CHECK(names.count("cuda-cloverleaf CUDA API") == 1);
}
