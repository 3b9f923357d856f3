// The Chrome JSON importer (src/import/chrome_json/importer.cpp, event_reader.cpp,
// top_level.cpp): what each kind of event becomes in the model, the repairs it counts, the
// errors it refuses with, and that none of it depends on how the bytes were chunked.
#include "import/chrome_json/importer.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "helpers.h"

using ks::Diag;
using ks::ImportErrorCode;
using ks_test::diag_count;
using ks_test::diag_offset;
using ks_test::load;
using ks_test::slice_named;

namespace {
size_t slices_named_count(const ks::Trace& t, std::string_view name) {
  return ks_test::slices_named(t, name).size();
}
}  // namespace

namespace {

ks_test::ImportResult import_all_chunkings(const std::string& json) {
  ks_test::ImportResult whole = ks_test::import_chunked(json, 0);
  for (size_t chunk : ks_test::chunk_sizes()) {
    ks_test::ImportResult r = ks_test::import_chunked(json, chunk);
    INFO("chunk size " << chunk);
    CHECK(r.ok == whole.ok);
    CHECK(r.error.code == whole.error.code);
    CHECK(r.error.offset == whole.error.offset);
    CHECK(r.error.message == whole.error.message);
  }
  return whole;
}

}  // namespace

TEST_CASE("Importer refuses input that is not a trace, with code, offset and message",
          "[import][json][error]") {
  SECTION("empty input") {
    auto r = import_all_chunkings("");
    CHECK_FALSE(r.ok);
    CHECK(r.error.code == ImportErrorCode::kEmptyInput);
    CHECK(r.error.to_line() == "empty_input at byte 0: empty input: no JSON value found");
  }
  SECTION("whitespace only") {
    auto r = import_all_chunkings("\n   \n");
    CHECK(r.error.code == ImportErrorCode::kEmptyInput);
    CHECK(r.error.offset == 5);
  }
  SECTION("hello: not JSON at byte 0") {
    auto r = import_all_chunkings("hello");
    CHECK(r.error.code == ImportErrorCode::kNotJson);
    CHECK(r.error.offset == 0);
    CHECK(r.error.message == "not JSON: a trace starts with '{' or '[', found 'h'");
  }
  SECTION("'  x': not JSON at byte 2") {
    auto r = import_all_chunkings("  x");
    CHECK(r.error.code == ImportErrorCode::kNotJson);
    CHECK(r.error.offset == 2);
    CHECK(r.error.to_line() ==
          "not_json at byte 2: not JSON: a trace starts with '{' or '[', found 'x'");
  }
  SECTION("a JSON object without traceEvents: not a trace, its keys listed") {
    auto r = import_all_chunkings(R"({"metadata": {"a": 1}, "results": [1, 2], "n": 3})");
    CHECK_FALSE(r.ok);
    CHECK(r.error.code == ImportErrorCode::kNotATrace);
    CHECK(r.error.offset == 0);
    CHECK(r.error.message ==
          "JSON, but not a Chrome trace: the top-level object has no traceEvents array "
          "(keys: metadata, results, n)");
  }
  SECTION(
      "an Nsight Systems JSON export (JSON Lines of {Type, ...Event}): said, with the command") {
    auto r = import_all_chunkings(
        "{\"Type\":48,\"TraceProcessEvent\":{\"startNs\":\"1\",\"endNs\":\"2\"}}\n"
        "{\"Type\":79,\"CudaEvent\":{\"startNs\":\"3\",\"endNs\":\"4\"}}\n");
    CHECK(r.error.code == ImportErrorCode::kNotATrace);
    CHECK(r.error.message.find("(keys: Type, TraceProcessEvent): this looks like an Nsight "
                               "Systems JSON export") != std::string::npos);
    CHECK(r.error.message.find("nsys export --type sqlite") != std::string::npos);
  }
  SECTION("an empty object: not a trace, no keys") {
    auto r = import_all_chunkings("{}");
    CHECK(r.error.code == ImportErrorCode::kNotATrace);
    CHECK(r.error.message ==
          "JSON, but not a Chrome trace: the top-level object has no traceEvents array "
          "(keys: none)");
  }
  SECTION("traceEvents that is not an array") {
    auto r = import_all_chunkings(R"({"traceEvents": {"ph": "X"}})");
    CHECK(r.error.code == ImportErrorCode::kNotATrace);
    CHECK(r.error.message ==
          "JSON, but not a Chrome trace: its traceEvents is not an array (keys: traceEvents)");
  }
  SECTION("a file cut off before its traceEvents: said so, at the cut") {
    const std::string head = R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "V)";
    auto r = import_all_chunkings(head);
    CHECK(r.error.code == ImportErrorCode::kNotATrace);
    CHECK(r.error.offset == head.size());
    CHECK(r.error.message.find("it looks cut off") != std::string::npos);
  }
  SECTION("an array of numbers: not a trace") {
    auto r = import_all_chunkings("[1, 2, 3]");
    CHECK_FALSE(r.ok);
    CHECK(r.error.code == ImportErrorCode::kNotATrace);
    CHECK(r.error.offset == 0);
    CHECK(r.error.message == "JSON array, but its elements are not trace event objects");
  }
  SECTION("an empty array is an empty trace, not an error") {
    auto r = import_all_chunkings("[]");
    CHECK(r.ok);
    REQUIRE(r.trace);
    CHECK(r.trace->facts.events_total == 0);
    CHECK(r.trace->facts.format == ks::TraceFormat::kChromeArray);
  }
  SECTION("the error as the page receives it") {
    auto r = import_all_chunkings("  x");
    CHECK(ks::import_error_json(r.error) ==
          "{\n"
          "  \"code\": \"not_json\",\n"
          "  \"message\": \"not JSON: a trace starts with '{' or '[', found 'x'\",\n"
          "  \"offset\": 2\n"
          "}\n");
  }
}

TEST_CASE("Importer reads the tolerated shapes", "[import][json]") {
  SECTION("object form and bare array form give the same slices") {
    auto a = load(R"({"traceEvents": [{"ph":"X","name":"op","pid":1,"tid":2,"ts":5,"dur":3}]})");
    auto b = load(R"([{"ph":"X","name":"op","pid":1,"tid":2,"ts":5,"dur":3}])");
    CHECK(a->facts.format == ks::TraceFormat::kChromeObject);
    CHECK(b->facts.format == ks::TraceFormat::kChromeArray);
    REQUIRE(a->slices.size() == 1);
    REQUIRE(b->slices.size() == 1);
    CHECK(a->slices.ts[0] == 5000);
    CHECK(b->slices.ts[0] == 5000);
    CHECK(a->slices.dur[0] == 3000);
    CHECK(b->slices.dur[0] == 3000);
  }
  SECTION("a trace cut off while writing keeps every complete event") {
    std::string json = R"({"traceEvents": [
      {"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1},
      {"ph":"X","name":"b","pid":1,"tid":1,"ts":3,"dur":1},
      {"ph":"X","name":"c","pid":1,"tid":1,"ts":5,"du)";
    auto t = load(json);
    CHECK(t->slices.size() == 2);
    CHECK(diag_count(*t, Diag::kTruncatedEvent) == 1);
    CHECK(diag_offset(*t, Diag::kTruncatedEvent) == json.rfind('{'));
    CHECK(diag_count(*t, Diag::kMissingArrayClose) == 1);
    CHECK(diag_count(*t, Diag::kMissingObjectClose) == 1);
  }
  SECTION("speedscope's partial trace with a trailing comma") {
    // sample/profiles/trace-event/simple-partial-trailing-comma.json, as STYLE.md names it.
    std::string json = R"([
  {"pid": 0, "tid": 0, "ph": "B", "name": "alpha", "ts": 0},
  {"pid": 0, "tid": 0, "ph": "B", "name": "beta", "ts": 1},
  {"pid": 0, "tid": 0, "ph": "X", "name": "gamma", "ts": 2, "dur": 5, "args": {"detail": "foobar"}},
  {"pid": 0, "tid": 0, "ph": "X", "name": "epsilon", "ts": 7, "tdur": 4},
  {"pid": 0, "tid": 0, "ph": "E", "name": "beta", "ts": 13},
  {"pid": 0, "tid": 0, "ph": "E", "name": "alpha", "ts": 14},
)";
    auto t = load(json);
    CHECK(t->slices.size() == 4);
    CHECK(diag_count(*t, Diag::kMissingArrayClose) == 1);
    CHECK(diag_count(*t, Diag::kCompleteWithoutDur) == 1);  // epsilon has tdur, not dur
    uint32_t alpha = slice_named(*t, "alpha");
    CHECK(t->slices.dur[alpha] == 14000);
    uint32_t beta = slice_named(*t, "beta");
    CHECK(t->slices.dur[beta] == 12000);  // 13 - 1
    CHECK(t->slices.parent[beta] == static_cast<int32_t>(alpha));
    CHECK(t->slices.depth[slice_named(*t, "gamma")] == 2);
  }
  SECTION("non-object elements and malformed events are skipped and counted") {
    //                  0         1         2         3
    //                  0123456789012345678901234567890123456789
    std::string json = R"([1,{"ph":"X" "name":"a"},{"ph":"i","ts":1,"pid":1,"tid":1}])";
    auto t = load(json);
    CHECK(t->instants.size() == 1);
    CHECK(diag_count(*t, Diag::kNonObjectEvent) == 1);
    CHECK(diag_offset(*t, Diag::kNonObjectEvent) == 1);
    CHECK(diag_count(*t, Diag::kMalformedEvent) == 1);
    CHECK(diag_offset(*t, Diag::kMalformedEvent) == 3);
    CHECK(t->diagnostics.get(Diag::kMalformedEvent).excerpt == R"({"ph":"X" "name":"a"})");
    CHECK(t->facts.events_total == 1);  // only events that could be read
  }
}

TEST_CASE("Importer repairs strings and counts the repairs", "[import][json]") {
  SECTION("raw control characters inside strings become spaces") {
    std::string json =
        "[{\"ph\":\"X\",\"name\":\"a\tb\x01"
        "c\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1},"
        "{\"ph\":\"X\",\"name\":\"d\x1f\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1}]";
    auto t = load(json);
    REQUIRE(t->slices.size() == 2);
    CHECK(t->str(t->slices.name[0]) == "a b c");
    CHECK(t->str(t->slices.name[1]) == "d ");
    CHECK(diag_count(*t, Diag::kControlCharsInString) == 2);
    CHECK(diag_offset(*t, Diag::kControlCharsInString) == 1);
    CHECK(diag_count(*t, Diag::kMalformedEvent) == 0);
  }
  SECTION("invalid UTF-8 is replaced, valid UTF-8 elsewhere is kept") {
    std::string json =
        "[{\"ph\":\"X\",\"name\":\"caf\xE9\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1},"
        "{\"ph\":\"X\",\"name\":\"caf\xC3\xA9\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1}]";
    auto t = load(json);
    REQUIRE(t->slices.size() == 2);
    CHECK(t->str(t->slices.name[0]) == "caf?");
    CHECK(t->str(t->slices.name[1]) == "caf\xC3\xA9");
    CHECK(diag_count(*t, Diag::kInvalidUtf8) == 1);
    CHECK(diag_offset(*t, Diag::kInvalidUtf8) == 1);
  }
  SECTION("a lone surrogate escape keeps its event, read as U+FFFD and counted") {
    // JSON.stringify writes "\ud800" for a lone surrogate; simdjson refuses the whole event.
    std::string json =
        R"([{"ph":"X","name":"a\ud800b","pid":1,"tid":1,"ts":0,"dur":1},)"
        R"({"ph":"X","name":"\udc00\u00e9","cat":"c\uDBFF","pid":1,"tid":1,"ts":2,"dur":1},)"
        R"({"ph":"X","name":"pair \ud83d\ude00 \\ud800","pid":1,"tid":1,"ts":4,"dur":1}])";
    for (size_t chunk : ks_test::chunk_sizes()) {
      INFO("chunk " << chunk);
      auto t = load(json, chunk);
      REQUIRE(t->slices.size() == 3);
      CHECK(t->str(t->slices.name[0]) ==
            "a\xEF\xBF\xBD"
            "b");
      CHECK(t->str(t->slices.name[1]) == "\xEF\xBF\xBD\xC3\xA9");
      CHECK(t->str(t->slices.cat[1]) == "c\xEF\xBF\xBD");
      // A whole pair is one character; an escaped backslash before "ud800" is plain text.
      CHECK(t->str(t->slices.name[2]) == "pair \xF0\x9F\x98\x80 \\ud800");
      CHECK(diag_count(*t, Diag::kLoneSurrogate) == 2);
      CHECK(diag_offset(*t, Diag::kLoneSurrogate) == 1);
      CHECK(diag_count(*t, Diag::kMalformedEvent) == 0);
    }
  }
  SECTION("both in one event: both repaired, both counted") {
    std::string json =
        "[{\"ph\":\"X\",\"name\":\"a\x01\xFF\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1}]";
    auto t = load(json);
    REQUIRE(t->slices.size() == 1);
    CHECK(t->str(t->slices.name[0]) == "a ?");
    CHECK(diag_count(*t, Diag::kControlCharsInString) == 1);
    CHECK(diag_count(*t, Diag::kInvalidUtf8) == 1);
    CHECK(diag_count(*t, Diag::kMalformedEvent) == 0);
  }
  SECTION("the report stays valid UTF-8 with the raw excerpt") {
    std::string json =
        "[{\"ph\":\"X\",\"name\":\"caf\xE9\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1}]";
    auto t = load(json);
    std::string report = ks_test::report_of(*t);
    // The excerpt's byte 0xE9 is written as U+FFFD, never raw.
    CHECK(report.find("\xE9") == std::string::npos);
    CHECK(report.find("caf\xEF\xBF\xBD") != std::string::npos);
  }
}

TEST_CASE("Importer reads numbers exactly", "[import][json]") {
  SECTION("epoch-microsecond integer ts keeps every nanosecond") {
    auto t = load(R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1666149715033200,"dur":1}])");
    REQUIRE(t->slices.size() == 1);
    CHECK(t->slices.ts[0] == 1666149715033200000);
    CHECK(t->facts.start_ns == 1666149715033200000);
    CHECK(t->facts.end_ns == 1666149715033201000);
  }
  SECTION("float ts and dur with more than 3 decimals are rounded to the nanosecond") {
    // ts 12.3456 us = 12345.6 ns -> 12346; dur 0.0004 us = 0.4 ns -> 0.
    auto t = load(R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":12.3456,"dur":1.0004}])");
    REQUIRE(t->slices.size() == 1);
    CHECK(t->slices.ts[0] == 12346);
    CHECK(t->slices.dur[0] == 1000);
  }
  SECTION("ts and dur as strings") {
    auto t = load(R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":"1.5","dur":"2"}])");
    REQUIRE(t->slices.size() == 1);
    CHECK(t->slices.ts[0] == 1500);
    CHECK(t->slices.dur[0] == 2000);
    CHECK(diag_count(*t, Diag::kBadNumber) == 0);
  }
  SECTION("a ts that is not a number: counted, the event skipped") {
    auto t = load(R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":"soon","dur":1}])");
    CHECK(t->slices.size() == 0);
    CHECK(diag_count(*t, Diag::kBadNumber) == 1);
    CHECK(diag_count(*t, Diag::kMissingTimestamp) == 1);
  }
  SECTION("integers above 2^53 in args and ids do not break parsing") {
    // correlation 2^53 + 1 is kept exactly (int64); External id 2^64 - 1 keeps its low 63 bits;
    // a stream above 2^64 (only a double can hold it) counts as absent; flow ids keep their text.
    std::string json = R"([
      {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":1,
       "args":{"correlation":9007199254740993,"External id":18446744073709551615,
               "stream":123456789012345678901234567890,"device":0,
               "Sequence number":1e400}},
      {"ph":"s","cat":"ac2g","id":123456789012345678901234567890,"pid":0,"tid":7,"ts":1},
      {"ph":"f","cat":"ac2g","id":123456789012345678901234567890,"pid":0,"tid":7,"ts":2,"bp":"e"}
    ])";
    auto t = load(json);
    REQUIRE(t->slices.size() == 1);
    CHECK(t->slices.correlation[0] == 9007199254740993);
    CHECK(t->tracks[t->slices.track[0]].stream == ks::kNoValue);
    CHECK(t->tracks[t->slices.track[0]].device == 0);
    REQUIRE(t->flows.size() == 2);
    REQUIRE((t->flows.id[0] & ks::kFlowIdText) != 0);  // too long for a value: its text
    CHECK(t->str(static_cast<ks::StringId>(t->flows.id[0] & ~ks::kFlowIdText)) ==
          "123456789012345678901234567890");
    CHECK(t->flows.id[0] == t->flows.id[1]);
    CHECK(diag_count(*t, Diag::kFlowWithoutEnd) == 0);
  }
}

TEST_CASE("Importer turns complete and begin/end events into slices", "[import][json]") {
  SECTION("negative dur is clamped to zero and counted") {
    std::string json = R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":10,"dur":-5}])";
    auto t = load(json);
    REQUIRE(t->slices.size() == 1);
    CHECK(t->slices.dur[0] == 0);
    CHECK(diag_count(*t, Diag::kNegativeDuration) == 1);
    CHECK(diag_offset(*t, Diag::kNegativeDuration) == 1);
  }
  SECTION("X without dur is kept with zero length and counted") {
    auto t = load(R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":10}])");
    REQUIRE(t->slices.size() == 1);
    CHECK(t->slices.ts[0] == 10000);
    CHECK(t->slices.dur[0] == 0);
    CHECK(diag_count(*t, Diag::kCompleteWithoutDur) == 1);
  }
  SECTION("B/E pair per thread and nest") {
    // Thread 1: outer [0, 10] holds inner [2, 5]. Thread 2's B at 3 interleaves with them but
    // pairs only with thread 2's E at 8.
    auto t = load(R"([
      {"ph":"B","name":"outer","pid":1,"tid":1,"ts":0},
      {"ph":"B","name":"inner","pid":1,"tid":1,"ts":2},
      {"ph":"B","name":"other","pid":1,"tid":2,"ts":3},
      {"ph":"E","pid":1,"tid":1,"ts":5},
      {"ph":"E","pid":1,"tid":2,"ts":8},
      {"ph":"E","pid":1,"tid":1,"ts":10}
    ])");
    uint32_t outer = slice_named(*t, "outer"), inner = slice_named(*t, "inner"),
             other = slice_named(*t, "other");
    CHECK(t->slices.dur[outer] == 10000);
    CHECK(t->slices.dur[inner] == 3000);
    CHECK(t->slices.dur[other] == 5000);
    CHECK(t->slices.parent[inner] == static_cast<int32_t>(outer));
    CHECK(t->slices.depth[inner] == 1);
    CHECK(t->slices.parent[other] == -1);
    CHECK(t->slices.track[other] != t->slices.track[outer]);
    CHECK_FALSE(t->diagnostics.any());
  }
  SECTION("an unmatched E is counted; an unclosed B ends at its thread's last time") {
    //   E at 1 on thread 1 has no B. B "open" at 4 on thread 2 never ends; the last time seen
    //   on thread 2 is the end of X [6, 9], so "open" lasts 9 - 4 = 5 us.
    std::string json = R"([
      {"ph":"E","pid":1,"tid":1,"ts":1},
      {"ph":"B","name":"open","pid":1,"tid":2,"ts":4},
      {"ph":"X","name":"x","pid":1,"tid":2,"ts":6,"dur":3}
    ])";
    auto t = load(json);
    CHECK(diag_count(*t, Diag::kUnmatchedEnd) == 1);
    CHECK(diag_offset(*t, Diag::kUnmatchedEnd) == json.find('{'));
    CHECK(diag_count(*t, Diag::kUnclosedBegin) == 1);
    uint32_t open = slice_named(*t, "open");
    CHECK(t->slices.dur[open] == 5000);
    CHECK(t->slices.parent[slice_named(*t, "x")] == static_cast<int32_t>(open));
  }
  SECTION("an E earlier than its B gives zero length") {
    auto t = load(R"([{"ph":"B","name":"b","pid":1,"tid":1,"ts":10},
                      {"ph":"E","pid":1,"tid":1,"ts":5}])");
    CHECK(t->slices.dur[slice_named(*t, "b")] == 0);
    CHECK(diag_count(*t, Diag::kEndBeforeBegin) == 1);
  }
  SECTION("a named E closes the open B of its name when slices cross (Perfetto's rule)") {
    // Kineto's python_function "enter" [0, 7] and ProfilerStep [3, 100] cross on one thread
    // (the X events of tests/corpus/metamorphic.py's bert trace). As B/E the E of "enter" at 7
    // must close "enter", not the step: the step keeps its 97 us, as its X event says.
    auto t = load(R"([{"ph":"B","name":"enter","pid":1,"tid":1,"ts":0},
                      {"ph":"B","name":"ProfilerStep#6","pid":1,"tid":1,"ts":3},
                      {"ph":"E","name":"enter","pid":1,"tid":1,"ts":7},
                      {"ph":"B","name":"aten::mm","pid":1,"tid":1,"ts":10},
                      {"ph":"E","pid":1,"tid":1,"ts":20},
                      {"ph":"E","name":"ProfilerStep#6","pid":1,"tid":1,"ts":100}])");
    CHECK(t->slices.dur[slice_named(*t, "enter")] == 7000);
    CHECK(t->slices.dur[slice_named(*t, "ProfilerStep#6")] == 97000);
    CHECK(t->slices.dur[slice_named(*t, "aten::mm")] == 10000);  // unnamed E: the innermost
    CHECK(diag_count(*t, Diag::kUnmatchedEnd) == 0);
    CHECK(diag_count(*t, Diag::kUnclosedBegin) == 0);
  }
}

TEST_CASE("Importer reads async, flow, counter and instant events", "[import][json]") {
  SECTION("async b/e pairs become slices on the process's async track") {
    std::string json = R"([
      {"ph":"b","cat":"req","name":"load","id":"0x1","pid":1,"tid":5,"ts":10},
      {"ph":"b","cat":"req","name":"load","id":"0x2","pid":1,"tid":6,"ts":12},
      {"ph":"e","cat":"req","name":"load","id":"0x1","pid":1,"tid":9,"ts":25},
      {"ph":"n","cat":"req","name":"mark","id":"0x3","pid":1,"ts":13},
      {"ph":"e","cat":"req","name":"load","id":"0x9","pid":1,"ts":30}
    ])";
    auto t = load(json);
    // 0x1: 25 - 10 = 15 us. 0x2 never ends: zero length, counted once. 'n' is zero-length.
    // 'e' for 0x9 has no 'b': counted.
    std::vector<uint32_t> loads = ks_test::slices_named(*t, "load");
    REQUIRE(loads.size() == 2);
    CHECK(t->slices.ts[loads[0]] == 10000);
    CHECK(t->slices.dur[loads[0]] == 15000);
    CHECK(t->slices.ts[loads[1]] == 12000);
    CHECK(t->slices.dur[loads[1]] == 0);
    CHECK(t->slices.dur[slice_named(*t, "mark")] == 0);
    const ks::Track& tr = t->tracks[t->slices.track[loads[0]]];
    CHECK(tr.kind == ks::TrackKind::kAsync);
    CHECK(t->str(tr.tid_text) == "async req");
    CHECK(t->slices.kind[loads[0]] == ks::SliceKind::kAsync);
    CHECK(t->slices.track[loads[1]] == t->slices.track[loads[0]]);
    CHECK(diag_count(*t, Diag::kUnclosedBegin) == 1);
    CHECK(diag_offset(*t, Diag::kUnclosedBegin) == json.find("{\"ph\":\"b\"", 10));
    CHECK(diag_count(*t, Diag::kUnmatchedEnd) == 1);
  }
  SECTION("flows s/f keep id, phase, category and binding; unpaired ones are counted") {
    auto t = load(R"([
      {"ph":"s","cat":"ac2g","name":"ac2g","id":5,"pid":1,"tid":1,"ts":10},
      {"ph":"f","cat":"ac2g","name":"ac2g","id":5,"pid":0,"tid":7,"ts":20,"bp":"e"},
      {"ph":"s","cat":"fwdbwd","id":6,"pid":1,"tid":1,"ts":11}
    ])");
    REQUIRE(t->flows.size() == 3);
    CHECK(t->flows.phase[0] == 's');
    CHECK(t->flows.phase[1] == 'f');
    CHECK(t->flows.ts[1] == 20000);
    CHECK(t->flows.id[1] == 5);  // a decimal id is kept as its value (ks::flow_id_of)
    CHECK(t->str(t->flows.cat[1]) == "ac2g");
    CHECK_FALSE(t->flows.binds_enclosing[0]);
    CHECK(t->flows.binds_enclosing[1]);
    CHECK(t->str(t->tracks[t->flows.track[1]].tid_text) == "7");
    CHECK(diag_count(*t, Diag::kFlowWithoutEnd) == 1);  // fwdbwd 6 has no finish
  }
  SECTION("counters: one value is a series named after the event, several get suffixes") {
    auto t = load(R"([
      {"ph":"C","name":"mem","pid":1,"ts":5,"args":{"bytes":100}},
      {"ph":"C","name":"q","pid":2,"ts":6,"args":{"a":1.5,"b":2,"label":"x"}},
      {"args":{"v":7},"ph":"C","name":"late","pid":1,"ts":7}
    ])");
    // "label" is not a number: not a series. The third event has args before ph.
    REQUIRE(t->counters.size() == 4);
    CHECK(t->str(t->counters.series[0]) == "mem");
    CHECK(t->counters.value[0] == 100.0);
    CHECK(t->counters.ts[0] == 5000);
    CHECK(t->str(t->counters.series[1]) == "q.a");
    CHECK(t->counters.value[1] == 1.5);
    CHECK(t->str(t->counters.series[2]) == "q.b");
    CHECK(t->counters.value[2] == 2.0);
    CHECK(t->counters.process[1] != t->counters.process[0]);
    CHECK(t->str(t->counters.series[3]) == "late");
    CHECK(t->counters.value[3] == 7.0);
  }
  SECTION("instants, incl. Kineto's [memory] records") {
    auto t = load(R"([
      {"ph":"i","cat":"cpu_instant_event","name":"mark","pid":1,"tid":1,"ts":1,"s":"g"},
      {"ph":"i","cat":"[memory]","name":"[memory]","pid":1,"tid":1,"ts":2,"s":"t",
       "args":{"Device Type":1,"Device Id":0,"Addr":140000000000,"Bytes":512,
               "Total Allocated":1024,"Total Reserved":2097152}},
      {"ph":"I","name":"legacy","pid":1,"tid":1,"ts":3}
    ])");
    REQUIRE(t->instants.size() == 3);
    CHECK(t->instants.scope[0] == 'g');
    CHECK(t->instants.mem_bytes[0] == ks::kNoValue);
    CHECK(t->str(t->instants.cat[1]) == "[memory]");
    CHECK(t->instants.ts[1] == 2000);
    CHECK(t->instants.mem_bytes[1] == 512);
    CHECK(t->instants.mem_total_allocated[1] == 1024);
    CHECK(t->instants.mem_total_reserved[1] == 2097152);
    CHECK(t->instants.mem_device[1] == 0);
    CHECK(t->instants.scope[2] == 't');  // the default scope
    CHECK(t->facts.categories.at("[memory]") == 1);
  }
}

TEST_CASE("Importer reads metadata events", "[import][json]") {
  SECTION("process and thread names and sort indices") {
    auto t = load(R"([
      {"ph":"M","name":"process_name","pid":1,"args":{"name":"python"}},
      {"ph":"M","name":"process_sort_index","pid":1,"args":{"sort_index":3}},
      {"ph":"M","name":"process_labels","pid":1,"args":{"labels":"CPU"}},
      {"ph":"M","name":"thread_name","pid":1,"tid":7,"args":{"name":"main thread"}},
      {"ph":"M","name":"thread_sort_index","pid":1,"tid":7,"args":{"sort_index":"2"}},
      {"ph":"X","name":"op","pid":1,"tid":7,"ts":1,"dur":1}
    ])");
    REQUIRE(t->processes.size() == 1);
    CHECK(t->processes[0].name == "python");
    CHECK(t->processes[0].labels == "CPU");
    CHECK(t->processes[0].has_sort_index);
    CHECK(t->processes[0].sort_index == 3);
    REQUIRE(t->tracks.size() == 1);
    CHECK(t->tracks[0].name == "main thread");
    CHECK(t->tracks[0].has_sort_index);
    CHECK(t->tracks[0].sort_index == 2);
    CHECK(t->slices.track[0] == 0);
    // Metadata is counted by phase, but not by category.
    CHECK(t->facts.events_by_phase.at("M") == 5);
    CHECK(t->facts.categories.size() == 1);
    CHECK(t->facts.start_ns == 1000);
  }
  SECTION("a second, different name wins and is counted; the same name again is not") {
    std::string json = R"([
      {"ph":"M","name":"thread_name","pid":1,"tid":7,"args":{"name":"a"}},
      {"ph":"M","name":"thread_name","pid":1,"tid":7,"args":{"name":"a"}},
      {"ph":"M","name":"thread_name","pid":1,"tid":7,"args":{"name":"b"}}
    ])";
    auto t = load(json);
    REQUIRE(t->tracks.size() == 1);
    CHECK(t->tracks[0].name == "b");
    CHECK(diag_count(*t, Diag::kDuplicateMetadata) == 1);
    CHECK(diag_offset(*t, Diag::kDuplicateMetadata) == json.rfind("{\"ph\""));
  }
  SECTION("string pids and tids are names; tid defaults to the pid") {
    auto t = load(R"([{"ph":"X","name":"a","pid":"Spans","tid":"worker","ts":1,"dur":1},
                      {"ph":"X","name":"b","pid":3,"ts":1,"dur":1}])");
    REQUIRE(t->tracks.size() == 2);
    CHECK(t->str(t->processes[t->tracks[0].process].pid_text) == "Spans");
    CHECK(t->str(t->tracks[0].tid_text) == "worker");
    CHECK(t->str(t->tracks[1].tid_text) == "3");
  }
}

TEST_CASE("Importer counts what it cannot model", "[import][json]") {
  auto t = load(R"([
    {"name":"no phase","ts":1},
    {"ph":"X","name":"no ts","pid":1,"tid":1},
    {"ph":"P","name":"sample","pid":1,"tid":1,"ts":1},
    {"ph":"ZZ","name":"odd","pid":1,"tid":1,"ts":1},
    {"ph":"X","name":"late","pid":1,"tid":1,"ts":9,"dur":1},
    {"ph":"X","name":"early","pid":1,"tid":1,"ts":2,"dur":1}
  ])");
  CHECK(diag_count(*t, Diag::kMissingPhase) == 1);
  CHECK(diag_count(*t, Diag::kMissingTimestamp) == 1);
  CHECK(diag_count(*t, Diag::kUnknownPhase) == 1);  // "ZZ"; DevTools' P is known
  CHECK(diag_count(*t, Diag::kTimestampsOutOfOrder) == 1);
  CHECK(t->facts.events_by_phase.at("P") == 1);
  CHECK(t->facts.events_by_phase.at("ZZ") == 1);
  CHECK(t->facts.events_total == 6);
  CHECK(t->slices.size() == 2);
  // Sorted on load: "early" first.
  CHECK(t->str(t->slices.name[0]) == "early");
}

TEST_CASE("Importer reads a name or category that is an object or array as its JSON text, cut",
          "[import][json]") {
  // Both read as their first byte before ("{", "["): every such event had one name, unsaid.
  const std::string big = "{\"k\": \"" + std::string(300, 'x') + "\"}";
  const std::string json = R"({"traceEvents":[
    {"ph":"X","name":"fine","pid":1,"tid":1,"ts":1,"dur":1},
    {"ph":"X","name": {"op": [1, 2]} ,"pid":1,"tid":1,"ts":2,"dur":1},
    {"ph":"X","name":["a", {"b": null}],"cat":{"c":1},"pid":1,"tid":1,"ts":3,"dur":1},
    {"ph":"X","name":)" + big +
                           R"(,"pid":1,"tid":1,"ts":4,"dur":1},
    {"ph":"X","name":42 ,"pid":1,"tid":1,"ts":5,"dur":1}
  ]})";
  for (bool fast : {true, false}) {
    for (size_t chunk : ks_test::chunk_sizes()) {
      INFO("fast path " << fast << ", chunk " << chunk);
      ks::ChromeJsonImporter importer;
      importer.set_fast_path(fast);
      const size_t step = chunk ? chunk : json.size();
      for (size_t pos = 0; pos < json.size(); pos += step)
        importer.feed(json.data() + pos, std::min(step, json.size() - pos));
      REQUIRE(importer.finish());
      const ks::Trace& t = importer.trace();
      REQUIRE(t.slices.size() == 5);
      CHECK(slices_named_count(t, R"({"op": [1, 2]})") == 1);
      CHECK(slices_named_count(t, R"(["a", {"b": null}])") == 1);
      CHECK(slices_named_count(t, big.substr(0, 256)) == 1);
      CHECK(slices_named_count(t, "42") == 1);  // a number keeps its token, without the space
      CHECK(t.facts.categories.count(R"({"c":1})") == 1);
      // Three events (the third's name and category count once), the first at its offset.
      CHECK(diag_count(t, Diag::kNameNotString) == 3);
      CHECK(diag_offset(t, Diag::kNameNotString) == json.find(R"({"ph":"X","name": {"op")"));
    }
  }
}

TEST_CASE("Importer keeps a bounded list of top-level keys", "[import][json]") {
  // Every top-level key was kept whole, and every rank of a merged file copies the list: 200
  // ranks and 20,000 keys of 1 KiB (a 20 MB file) peaked at 4.1 GB.
  std::string json = "{";
  for (int i = 0; i < 5000; ++i)
    json += "\"" + std::string(1000, 'k') + std::to_string(i) + "\":0,";
  std::string good =
      json + R"("traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}]})";
  auto t = load(good);
  CHECK(t->facts.top_level_keys.size() == 64);
  for (const std::string& k : t->facts.top_level_keys) CHECK(k.size() <= 256);
  CHECK(t->slices.size() == 1);
  // A traceEvents key past the kept ones is still known: the message says it is not an array.
  ks_test::ImportResult bad = ks_test::import_chunked(json + R"("traceEvents":7})");
  REQUIRE_FALSE(bad.ok);
  CHECK(bad.error.message.find("its traceEvents is not an array") != std::string::npos);
}

TEST_CASE("Importer reads the top-level members", "[import][json]") {
  SECTION("baseTimeNanoseconds is added to relative timestamps") {
    // Newer Kineto: ts 10 us relative to the base; the key comes after traceEvents.
    auto t = load(R"({"traceEvents":[
        {"ph":"X","name":"a","pid":1,"tid":1,"ts":10,"dur":2},
        {"ph":"i","name":"m","pid":1,"tid":1,"ts":11},
        {"ph":"C","name":"c","pid":1,"ts":12,"args":{"v":1}},
        {"ph":"s","id":1,"cat":"x","pid":1,"tid":1,"ts":13},
        {"ph":"f","id":1,"cat":"x","pid":1,"tid":1,"ts":13}],
      "baseTimeNanoseconds": 1700000000000000000})");
    CHECK(t->facts.has_base_time);
    CHECK(t->facts.base_time_ns == 1700000000000000000);
    REQUIRE(t->slices.size() == 1);
    CHECK(t->slices.ts[0] == 1700000000000010000);
    CHECK(t->instants.ts[0] == 1700000000000011000);
    CHECK(t->counters.ts[0] == 1700000000000012000);
    CHECK(t->flows.ts[0] == 1700000000000013000);
    CHECK(t->facts.start_ns == 1700000000000010000);
    CHECK(t->facts.end_ns == 1700000000000012000);  // flows do not extend the span
    CHECK(diag_count(*t, Diag::kBaseTimeApplied) == 1);
  }
  SECTION("the same base before traceEvents gives the same times") {
    auto t = load(R"({"baseTimeNanoseconds": 1700000000000000000, "traceEvents":[
        {"ph":"X","name":"a","pid":1,"tid":1,"ts":10,"dur":2}]})");
    CHECK(t->slices.ts[0] == 1700000000000010000);
  }
  SECTION("the base is not added twice to absolute timestamps") {
    // ts 1700000000000000 us = 1.7e18 ns is already absolute: far above base / 2.
    auto t = load(R"({"traceEvents":[
        {"ph":"X","name":"a","pid":1,"tid":1,"ts":1700000000000005,"dur":2}],
      "baseTimeNanoseconds": 1700000000000000000})");
    CHECK(t->slices.ts[0] == 1700000000000005000);
    CHECK(diag_count(*t, Diag::kBaseTimeApplied) == 0);
  }
  SECTION("deviceProperties, distributedInfo and the capture settings") {
    auto t = load(R"({"schemaVersion": 1, "traceName": "rank0",
      "deviceProperties": [
        {"id": 0, "name": "NVIDIA H100", "totalGlobalMem": 85000000000, "computeMajor": 9,
         "computeMinor": 0, "numSms": 132, "maxThreadsPerBlock": 1024},
        {"id": 1, "name": "NVIDIA H100", "totalGlobalMem": 85000000000, "computeMajor": 9,
         "computeMinor": 0, "numSms": 132}],
      "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8, "pg_count": 2},
      "record_shapes": 1, "profile_memory": 0, "with_stack": true,
      "traceEvents": []})");
    REQUIRE(t->devices.size() == 2);
    CHECK(t->devices[0].name == "NVIDIA H100");
    CHECK(t->devices[0].total_memory == 85000000000);
    CHECK(t->devices[0].compute_major == 9);
    CHECK(t->devices[0].compute_minor == 0);
    CHECK(t->devices[0].num_sms == 132);
    CHECK(t->devices[1].id == 1);
    CHECK(t->distributed.present);
    CHECK(t->distributed.rank == 3);
    CHECK(t->distributed.world_size == 8);
    CHECK(t->distributed.backend == "nccl");
    CHECK(t->facts.schema_version == "1");
    CHECK(t->facts.trace_name == "rank0");
    CHECK(t->facts.record_shapes == 1);
    CHECK(t->facts.profile_memory == 0);
    CHECK(t->facts.with_stack == 1);
    CHECK(t->facts.with_flops == -1);
    CHECK(t->facts.top_level_keys == std::vector<std::string>{"schemaVersion", "traceName",
                                                              "deviceProperties", "distributedInfo",
                                                              "record_shapes", "profile_memory",
                                                              "with_stack", "traceEvents"});
  }
  SECTION("legacy computeProperties (2021 Kineto) with its own field names") {
    auto t = load(R"({"schemaVersion": 1, "computeProperties": [
        {"id": 0, "name": "Tesla V100-DGXS-32GB", "totalGlobalMem": 34084028416,
         "major": 7, "minor": 0, "multiProcessorCount": 80}],
      "traceEvents": []})");
    REQUIRE(t->devices.size() == 1);
    CHECK(t->devices[0].name == "Tesla V100-DGXS-32GB");
    CHECK(t->devices[0].total_memory == 34084028416);
    CHECK(t->devices[0].compute_major == 7);
    CHECK(t->devices[0].compute_minor == 0);
    CHECK(t->devices[0].num_sms == 80);
    CHECK(diag_count(*t, Diag::kLegacyComputeProperties) == 1);
    CHECK(diag_offset(*t, Diag::kLegacyComputeProperties) == 42);
  }
}

TEST_CASE("Importer reads kernel args into the model", "[import][json]") {
  auto t = load(R"J([
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":4,
     "args":{"External id":11,"correlation":42}},
    {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":6,"dur":10,
     "args":{"External id":11,"correlation":42,"stream":7,"device":0,"grid":[80,2,1],
             "block":[128,1,1],"blocks per SM":0.5,"warps per SM":2,
             "est. achieved occupancy %":25}},
    {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,
     "ts":20,"dur":2,"args":{"stream":7,"bytes":4096,"memory bandwidth (GB/s)":2.048}}
  ])J");
  uint32_t k = slice_named(*t, "gemm");
  CHECK(t->slices.kind[k] == ks::SliceKind::kKernel);
  CHECK(t->slices.correlation[k] == 42);
  REQUIRE(t->slices.launch_info[k] >= 0);
  const ks::KernelLaunchInfo& li = t->slices.launch_infos[t->slices.launch_info[k]];
  CHECK(li.grid[0] == 80);
  CHECK(li.grid[1] == 2);
  CHECK(li.block[0] == 128);
  CHECK(li.blocks_per_sm == 0.5f);
  CHECK(li.warps_per_sm == 2.0f);
  CHECK(li.occupancy_pct == 25.0f);
  uint32_t m = slice_named(*t, "Memcpy HtoD (Pageable -> Device)");
  CHECK(t->slices.kind[m] == ks::SliceKind::kMemcpy);
  CHECK(t->slices.copy_size(m) == 4096);
  CHECK(t->slices.launch_infos[t->slices.launch_info[m]].bandwidth_gbps == 2.048f);
  CHECK(t->slices.launch_info[slice_named(*t, "cudaLaunchKernel")] == -1);
  const ks::Track& stream = t->tracks[t->slices.track[k]];
  CHECK(stream.kind == ks::TrackKind::kGpuStream);
  CHECK(stream.stream == 7);
  CHECK(stream.name == "stream 7");
}

TEST_CASE("Importer reads XPU and PrivateUse1 runtime/driver categories as CUDA's",
          "[import][json]") {
  // Kineto's ActivityType names on Intel XPU builds and out-of-tree (PrivateUse1) backends:
  // the launches, syncs and driver calls are what cuda_runtime / cuda_driver / cuda_sync are
  // on CUDA (tests/corpus/metamorphic.py: renaming them changed launches and syncs to 0).
  auto t = load(R"([
    {"ph":"X","cat":"xpu_runtime","name":"urEnqueueKernelLaunch","pid":1,"tid":1,"ts":0,"dur":5},
    {"ph":"X","cat":"xpu_driver","name":"zeCommandListAppendLaunchKernel","pid":1,"tid":1,
     "ts":6,"dur":2},
    {"ph":"X","cat":"xpu_sync","name":"urQueueFinish","pid":1,"tid":1,"ts":9,"dur":2},
    {"ph":"X","cat":"privateuse1_runtime","name":"Launch","pid":1,"tid":2,"ts":0,"dur":5},
    {"ph":"X","cat":"privateuse1_driver","name":"drvLaunch","pid":1,"tid":2,"ts":6,"dur":2}
  ])");
  CHECK(t->slices.kind[slice_named(*t, "urEnqueueKernelLaunch")] == ks::SliceKind::kRuntime);
  CHECK(t->slices.kind[slice_named(*t, "zeCommandListAppendLaunchKernel")] ==
        ks::SliceKind::kDriver);
  CHECK(t->slices.kind[slice_named(*t, "urQueueFinish")] == ks::SliceKind::kSync);
  CHECK(t->slices.kind[slice_named(*t, "Launch")] == ks::SliceKind::kRuntime);
  CHECK(t->slices.kind[slice_named(*t, "drvLaunch")] == ks::SliceKind::kDriver);
}
