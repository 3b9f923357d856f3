// Chunking invariance of the whole import (framer, event reader, builder): the page feeds
// whatever the browser's stream hands it, the CLI 1 MiB at a time. Every chunk size must give
// the same model (compared through the full JSON report) and the same diagnostics.
#include <catch2/catch.hpp>

#include "helpers.h"

namespace {

void check_chunking_invariance(const std::string& json) {
  ks_test::ImportResult whole = ks_test::import_chunked(json, 0);
  INFO("import error: " << whole.error.to_line());
  REQUIRE(whole.ok);
  const std::string report = ks_test::report_of(*whole.trace);
  const std::string report_drop = ks_test::report_of(*whole.trace, true);
  const std::string diags = ks_test::dump_diagnostics(whole.trace->diagnostics);
  for (size_t chunk : ks_test::chunk_sizes()) {
    INFO("chunk size " << chunk);
    ks_test::ImportResult r = ks_test::import_chunked(json, chunk);
    REQUIRE(r.ok);
    CHECK(ks_test::dump_diagnostics(r.trace->diagnostics) == diags);
    CHECK(ks_test::report_of(*r.trace) == report);
    CHECK(ks_test::report_of(*r.trace, true) == report_drop);
    CHECK(r.trace->slices.source.offsets() == whole.trace->slices.source.offsets());
  }
}

// Every tolerance and every kind of event in one file, with strings that hold brackets,
// escaped quotes and backslashes (a chunk boundary falls after each of them somewhere).
std::string kitchen_sink() {
  return "\xEF\xBB\xBF"
         R"J({"schemaVersion": 1, "traceName": "a \"quoted\" {name} [x]",
  "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85899345920,
    "computeMajor": 8, "computeMinor": 0, "numSms": 108}],
  "distributedInfo": {"backend": "nccl", "rank": 1, "world_size": 2},
  "traceEvents": [
  {"ph":"M","name":"process_name","pid":1,"args":{"name":"python \\ main"}},
  {"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"thread ]}"}},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":100,"dur":100},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":200,"dur":60},
  {"ph":"X","cat":"cpu_op","name":"aten::item","pid":1,"tid":1,"ts":10,"dur":30,
   "args":{"Input Dims":[[2,3],[]],"External id":18446744073709551615}},
  {"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":1,"tid":1,"ts":11,"dur":28},
  {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":12,"dur":3,
   "args":{"correlation":9007199254740993}},
  {"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoH (Device -> Pageable)","pid":0,"tid":7,
   "ts":20,"dur":2,"args":{"correlation":9007199254740993,"bytes":4,"stream":7,"device":0}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":1,"tid":1,"ts":16,"dur":20},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":110,"dur":5,
   "args":{"correlation":2}},
  {"ph":"X","cat":"kernel","name":"ampere_sgemm_128x64_nn","pid":0,"tid":7,"ts":120,
   "dur":90.1234,"args":{"correlation":2,"stream":7,"grid":[80,1,1],"block":[256,1,1],
   "est. achieved occupancy %":50}},
  {"ph":"X","cat":"kernel","name":"k \"two\" \\ {[","pid":0,"tid":8,"ts":"130.5","dur":"5",
   "args":{"stream":8}},
  {"ph":"X","cat":"kernel","name":"overlap","pid":0,"tid":7,"ts":200,"dur":20,"args":{"stream":7}},
  {"ph":"X","cat":"kernel","name":"overlap2","pid":0,"tid":7,"ts":210,"dur":20,"args":{"stream":7}},
  ,,
  {"ph":"B","name":"outer","pid":1,"tid":2,"ts":5},
  {"ph":"B","name":"inner","pid":1,"tid":2,"ts":6},
  {"ph":"E","pid":1,"tid":2,"ts":7},
  {"ph":"E","pid":1,"tid":3,"ts":8},
  {"ph":"B","name":"never closed","pid":1,"tid":4,"ts":9},
  {"ph":"b","cat":"async","name":"req","id":"0x1","pid":1,"ts":1},
  {"ph":"e","cat":"async","name":"req","id":"0x1","pid":1,"ts":4},
  {"ph":"b","cat":"async","name":"open","id":"0x2","pid":1,"ts":2},
  {"ph":"s","cat":"ac2g","id":2,"pid":1,"tid":1,"ts":110},
  {"ph":"f","cat":"ac2g","id":2,"pid":0,"tid":7,"ts":120,"bp":"e"},
  {"ph":"s","cat":"fwdbwd","id":3,"pid":1,"tid":1,"ts":50},
  {"ph":"C","name":"mem","pid":1,"ts":30,"args":{"allocated":1.5e3,"reserved":2048}},
  {"ph":"i","cat":"[memory]","name":"[memory]","pid":1,"tid":1,"ts":31,"s":"t",
   "args":{"Bytes":512,"Total Allocated":1024,"Total Reserved":4096,"Device Id":0}},
  {"ph":"X","name":"neg","pid":1,"tid":5,"ts":40,"dur":-3},
  {"ph":"X","name":"nodur","pid":1,"tid":5,"ts":41},
  {"ph":"X","name":"ctrl	char","pid":1,"tid":5,"ts":42,"dur":1},
  {"ph":"X","name":"bad utf8 )J"
         "\xC3\x28"
         R"J(","pid":1,"tid":5,"ts":43,"dur":1},
  {"ph":"ZZ","name":"odd","pid":1,"tid":5,"ts":44},
  {"ph":"P","name":"sample","pid":1,"tid":5,"ts":45},
  {"name":"no phase","ts":46},
  7,
  {"ph":"X","name":"malformed" "x":1},
  {"ph":"X","cat":"cpu_op","name":"truncated","pid":1,"tid":1,"ts":300,"du)J";
}

}  // namespace

TEST_CASE("Importing gives the same model and diagnostics for every chunk size",
          "[import][json][chunking]") {
  SECTION("a hand-made trace with every tolerance and event kind") {
    std::string json = kitchen_sink();
    // Make sure the fixture exercises what it claims: a look at a few diagnostics.
    auto t = ks_test::load(json);
    CHECK(t->diagnostics.count(ks::Diag::kUtf8Bom) == 1);
    CHECK(t->diagnostics.count(ks::Diag::kExtraComma) == 2);
    CHECK(t->diagnostics.count(ks::Diag::kTruncatedEvent) == 1);
    CHECK(t->diagnostics.count(ks::Diag::kControlCharsInString) == 1);
    CHECK(t->diagnostics.count(ks::Diag::kInvalidUtf8) == 1);
    // The sgemm [120, 210.1234) and "overlap" [200, 220), then "overlap" and "overlap2".
    CHECK(t->diagnostics.count(ks::Diag::kPartialOverlap) == 2);
    CHECK(t->diagnostics.count(ks::Diag::kMalformedEvent) == 1);
    CHECK(t->diagnostics.count(ks::Diag::kNonObjectEvent) == 1);
    // "outer" (its E went to another thread), "never closed", async 0x2.
    CHECK(t->diagnostics.count(ks::Diag::kUnclosedBegin) == 3);
    CHECK(t->diagnostics.count(ks::Diag::kUnmatchedEnd) == 1);
    check_chunking_invariance(json);
  }
  SECTION("the same events after the object's other keys, base time last, trailing data") {
    check_chunking_invariance(R"({"a": [1, {"b": "]"}], "traceEvents": [
      {"ph":"X","name":"x","pid":1,"tid":1,"ts":1.5,"dur":2},
      {"ph":"X","name":"y","pid":1,"tid":1,"ts":2,"dur":0.25}],
      "baseTimeNanoseconds": 1700000000000000000} trailing "bytes")");
  }
  SECTION("a bare array with a trailing comma") {
    check_chunking_invariance(R"([{"ph":"i","name":"a","pid":1,"tid":1,"ts":1},])");
  }
}

TEST_CASE("Importing real traces gives the same report for every chunk size",
          "[import][json][chunking][shared]") {
  // From ../shared/traces: a cut-off trace, a GPU trace with syncs, DevTools-style nesting, and
  // newer Kineto with baseTimeNanoseconds (595 KB).
  for (const char* file : {"speedscope__simple-partial.json", "speedscope__bex-interaction.json",
                           "hta__cuda_event_sync__event_sync_trace.json.gz",
                           "tracelens__sglang_Qwen3-8B_decode.json.gz"}) {
    std::string json;
    if (!ks_test::read_file_maybe_gzip(ks_test::shared_trace_path(file), &json)) {
      WARN("shared trace not found, skipped: " << ks_test::shared_trace_path(file));
      continue;
    }
    INFO("trace " << file);
    check_chunking_invariance(json);
  }
}

// reserve_for_total (the CLI after 16 MiB, the page after its first projection): the columns are
// reserved for the whole file at the rate so far, and the model is the one an import without the
// hint gives, for a right size and for sizes far off or absurd.
TEST_CASE("A reservation for the whole file changes the model's memory, not the model",
          "[import][json][chunking][shared]") {
  const char* file = "hta__mtia_rank_0.json.gz";
  std::string json;
  if (!ks_test::read_file_maybe_gzip(ks_test::shared_trace_path(file), &json)) {
    WARN("shared trace not found, skipped: " << ks_test::shared_trace_path(file));
    return;
  }
  const size_t eighth = json.size() / 8;
  // Fed as the CLI feeds (an eighth, then the rest), with the hint after the eighth or without.
  auto import = [&](const uint64_t* hint, size_t* before, size_t* reserved) {
    auto importer = std::make_unique<ks::ChromeJsonImporter>();
    importer->set_source(file, false);
    REQUIRE(importer->feed(json.data(), eighth));
    *before = importer->trace().slices.ts.capacity();
    if (hint) importer->reserve_for_total(*hint);
    *reserved = importer->trace().slices.ts.capacity();
    REQUIRE(importer->feed(json.data() + eighth, json.size() - eighth));
    REQUIRE(importer->finish());
    return importer;
  };
  size_t before = 0, reserved = 0;
  const auto plain = import(nullptr, &before, &reserved);
  const std::string report = ks_test::report_of(plain->trace());
  const size_t slices = plain->trace().slices.size();
  for (uint64_t hint : {uint64_t{json.size()}, uint64_t{json.size()} / 2, uint64_t{0},
                        uint64_t{json.size()} * 2000, UINT64_MAX}) {
    INFO("hint " << hint << " for " << json.size() << " bytes");
    const auto hinted = import(&hint, &before, &reserved);
    if (hint == json.size()) {
      // An eighth read: room for the whole (this trace's first eighth is denser than the rest),
      // far past what doubling had made.
      CHECK(reserved >= slices);
      CHECK(before < slices / 2);
    } else if (hint > json.size() * 1024 || hint <= eighth) {
      CHECK(reserved == before);  // not believed, or nothing left to read
    }
    CHECK(hinted->trace().slices.size() == slices);
    CHECK(ks_test::report_of(hinted->trace()) == report);
  }
}
