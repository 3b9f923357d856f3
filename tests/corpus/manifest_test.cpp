// Every real trace in ../shared/traces is read and its counts agree with MANIFEST.json (facts
// computed there with a plain JSON reader). Deliberate differences, documented:
//   - the manifest counts GPU ops and streams of the categories kernel, gpu_memcpy, gpu_memset
//     (and the 2021 spellings Kernel, Memcpy, Memset) only; we also count device ops of other
//     categories that carry a positive `stream` arg (MTIA's mtia_ccp_events: 25677 in
//     hta__mtia_rank_0, 22224 dma_request and 3453 compute ops), as HTA does (checked against
//     HTA's numbers in hta_reference_test.cpp), and their lanes as streams. The rule, from the
//     data: the expected counts are the manifest's plus our ops of such categories (never more
//     than the manifest's count of the category) and the tracks that carry only such ops. MTIA's
//     metadata names three device lanes ("Stream 1 FW", "Stream 102 FW", "DMA_REQUEST"); the
//     third's 137 dma_request have no stream arg, are no GPU ops to HTA or us, and it is no
//     stream: 2 streams, as HTA's idle breakdown has;
//   - gpu_streams counts tracks that carry kernels/memcpys/memsets; Kineto's device-wide
//     cuda_sync lane (tid -1) is drawn on the GPU side but is not a stream (the manifest agrees).
#include <simdjson.h>

#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "corpus/json_get.h"
#include "corpus/shared_traces.h"
#include "report/report.h"

using namespace ks_test;

namespace {

// The categories whose events MANIFEST.json counts as GPU kernels, copies and memsets.
bool manifest_gpu_category(const std::string& cat) {
  for (const char* c : {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"})
    if (cat == c) return true;
  return false;
}

}  // namespace

TEST_CASE("Every trace in ../shared/traces loads and agrees with MANIFEST.json", "[corpus]") {
  std::string manifest_path = shared_trace("MANIFEST.json");
  if (!file_exists(manifest_path)) {
    WARN("SKIPPED: " << manifest_path << " is absent (the corpus tests need ../shared/traces)");
    return;
  }
  simdjson::dom::parser parser;
  simdjson::dom::element manifest;
  REQUIRE_FALSE(parser.load(manifest_path).get(manifest));
  simdjson::dom::array files;
  REQUIRE(array(manifest, "files", &files));
  size_t checked = 0;
  for (simdjson::dom::element entry : files) {
    std::string file = str(entry, "file");
    std::string format = str(entry, "format");
    INFO("trace: " << file);
    Loaded l = load_file(shared_trace(file));
    if (format == "not_chrome_trace") {
      REQUIRE_FALSE(l.ok);
      CHECK(l.error.code == ks::ImportErrorCode::kNotATrace);
      CHECK(l.error.message.find("no traceEvents") != std::string::npos);
      continue;
    }
    REQUIRE(l.ok);
    const ks::Trace& t = *l.trace;
    CHECK(t.facts.events_total == u64(entry, "n_events"));
    // Events by phase, exactly.
    simdjson::dom::object phases;
    REQUIRE(object(entry, "ph_counts", &phases));
    CHECK(phases.size() == t.facts.events_by_phase.size());
    for (auto kv : phases) {
      std::string ph(kv.key);
      auto it = t.facts.events_by_phase.find(ph);
      INFO("phase " << ph);
      REQUIRE(it != t.facts.events_by_phase.end());
      uint64_t n = 0;
      REQUIRE_FALSE(kv.value.get(n));
      CHECK(it->second == n);
    }
    ks::Report r = ks::build_report(t, {});
    // Our GPU ops of categories the manifest does not count, and the tracks carrying only such.
    simdjson::dom::object categories;
    REQUIRE(object(entry, "categories", &categories));
    std::map<std::string, uint64_t> other_ops;
    std::map<ks::TrackId, bool> track_known;  // GPU-op tracks: carries a category counted there
    for (uint32_t i = 0; i < t.slices.size(); ++i) {
      if (!ks::is_gpu_op(t.slices.kind[i])) continue;
      const std::string cat(t.str(t.slices.cat[i]));
      const bool known = manifest_gpu_category(cat);
      if (!known && t.slices.kind[i] == ks::SliceKind::kKernel) ++other_ops[cat];
      track_known[t.slices.track[i]] |= known;
    }
    uint64_t extra_kernels = 0, extra_streams = 0;
    for (const auto& kv : other_ops) {
      INFO("category " << kv.first);
      uint64_t in_manifest = 0;
      CHECK_FALSE(categories[kv.first].get(in_manifest));
      CHECK(kv.second <= in_manifest);
      extra_kernels += kv.second;
    }
    for (const auto& kv : track_known) extra_streams += kv.second ? 0 : 1;
    CHECK(r.analyses.kernels.count == u64(entry, "n_gpu_kernels") + extra_kernels);
    uint64_t memset = 0, memcpy = 0;
    for (const auto& row : r.analyses.memory_ops.rows) {
      (row.kind == ks::MemoryOpKind::kMemset ? memset : memcpy) += row.stats.count;
    }
    CHECK(memcpy == u64(entry, "n_gpu_memcpy"));
    CHECK(memset == u64(entry, "n_gpu_memset"));
    CHECK(r.analyses.steps.found == u64(entry, "n_steps"));
    CHECK(ks::count_tracks(t).gpu_streams == u64(entry, "n_gpu_streams") + extra_streams);
    ++checked;
  }
  CHECK(checked >= 50);
}

TEST_CASE("Cut-off and trailing-comma traces load with the repair counted", "[corpus][import]") {
  std::string partial = shared_trace("speedscope__simple-partial.json");
  if (!file_exists(partial)) {
    WARN("SKIPPED: " << partial << " is absent");
    return;
  }
  Loaded l = load_file(partial);
  REQUIRE(l.ok);
  CHECK(l.trace->diagnostics.count(ks::Diag::kMissingArrayClose) == 1);
  CHECK(l.trace->facts.events_total == 6);
  // B/E pairs nest: alpha > beta > {gamma, epsilon}.
  CHECK(l.trace->slices.size() == 4);
}

TEST_CASE("The rocprof output is refused with a clear error", "[corpus][import]") {
  std::string path = shared_trace("tracelens__rocprof__908_results.json.gz");
  if (!file_exists(path)) {
    WARN("SKIPPED: " << path << " is absent");
    return;
  }
  Loaded l = load_file(path);
  REQUIRE_FALSE(l.ok);
  CHECK(l.error.to_line() ==
        "not_a_trace at byte 0: JSON, but not a Chrome trace: the top-level object has no "
        "traceEvents array (keys: rocprofiler-sdk-tool): this is rocprofv3's own JSON "
        "(--output-format json); open the same run's torch.profiler trace (export_chrome_trace) "
        "here, or rocprofv3's pftrace output in Perfetto");
}
