// The framer (src/import/chrome_json/framer.cpp): the one tolerant place of the importer. Every
// case runs with every chunk size: the framer must hand out the same values, offsets,
// diagnostics and errors however the bytes arrive.
#include "import/chrome_json/framer.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "helpers.h"

namespace {

using ks::Diag;
using ks::Framer;
using ks::ImportErrorCode;
using ks::TraceContainer;

struct Value {
  std::string key;  // top-level members only
  std::string text;
  uint64_t offset;
  bool operator==(const Value& o) const {
    return key == o.key && text == o.text && offset == o.offset;
  }
};

std::ostream& operator<<(std::ostream& os, const Value& v) {
  return os << "{" << v.key << "|" << v.text << "@" << v.offset << "}";
}

class RecordingSink : public ks::FramerSink {
 public:
  void on_event(const char* data, size_t len, uint64_t offset) override {
    events.push_back({"", std::string(data, len), offset});
  }
  void on_top_level_member(std::string_view key, const char* data, size_t len,
                           uint64_t offset) override {
    members.push_back({std::string(key), std::string(data, len), offset});
  }
  std::vector<Value> events, members;
};

struct Framed {
  bool ok = false;
  ks::ImportError error;
  std::vector<Value> events, members;
  std::string diagnostics;
  ks::Diagnostics diags;
  TraceContainer container = TraceContainer::kUnknown;
  bool saw_event_array = false;
  std::vector<std::string> keys;
  uint64_t bytes = 0;
};

Framed frame(std::string_view input, size_t chunk, size_t max_value_bytes = size_t{64} << 20) {
  Framed out;
  RecordingSink sink;
  Framer framer(&sink, &out.diags, max_value_bytes);
  const size_t step = chunk == 0 ? (input.empty() ? 1 : input.size()) : chunk;
  bool fed = true;
  for (size_t pos = 0; pos < input.size() && fed; pos += step)
    fed = framer.feed(input.data() + pos, std::min(step, input.size() - pos));
  out.ok = fed && framer.finish();
  out.error = framer.error();
  out.events = sink.events;
  out.members = sink.members;
  out.diagnostics = ks_test::dump_diagnostics(out.diags);
  out.container = framer.container();
  out.saw_event_array = framer.saw_event_array();
  out.keys = framer.top_level_keys();
  out.bytes = framer.bytes_fed();
  return out;
}

// Frames `input` with every chunk size; checks they all agree and returns the whole-input run.
Framed frame_all(std::string_view input, size_t max_value_bytes = size_t{64} << 20) {
  Framed whole = frame(input, 0, max_value_bytes);
  for (size_t chunk : ks_test::chunk_sizes()) {
    Framed f = frame(input, chunk, max_value_bytes);
    INFO("chunk size " << chunk);
    CHECK(f.ok == whole.ok);
    CHECK(f.error.code == whole.error.code);
    CHECK(f.error.offset == whole.error.offset);
    CHECK(f.error.message == whole.error.message);
    CHECK(f.events == whole.events);
    CHECK(f.members == whole.members);
    CHECK(f.diagnostics == whole.diagnostics);
    CHECK(f.keys == whole.keys);
    if (whole.ok) CHECK(f.bytes == whole.bytes);  // after an error, feeding stops
  }
  return whole;
}

}  // namespace

TEST_CASE("Framer hands out every event with its byte offset", "[import][json][framer]") {
  SECTION("a bare array, as the legacy autograd profiler writes it") {
    //                  0123456789012345678
    std::string in = R"([{"a":1}, {"b":2}])";
    Framed f = frame_all(in);
    CHECK(f.ok);
    CHECK(f.container == TraceContainer::kArray);
    CHECK(f.saw_event_array);
    REQUIRE(f.events.size() == 2);
    CHECK(f.events[0] == Value{"", R"({"a":1})", 1});
    CHECK(f.events[1] == Value{"", R"({"b":2})", 10});
    CHECK(f.members.empty());
    CHECK(f.diagnostics.empty());
    CHECK(f.bytes == 18);
  }
  SECTION("the traceEvents member of an object, as Kineto writes it") {
    //                  0         1         2
    //                  012345678901234567890123456789
    std::string in = R"({"traceEvents": [{"a":1}]})";
    Framed f = frame_all(in);
    CHECK(f.ok);
    CHECK(f.container == TraceContainer::kObject);
    CHECK(f.saw_event_array);
    REQUIRE(f.events.size() == 1);
    CHECK(f.events[0] == Value{"", R"({"a":1})", 17});
    CHECK(f.keys == std::vector<std::string>{"traceEvents"});
    CHECK(f.diagnostics.empty());
  }
  SECTION("traceEvents after other top-level keys, and keys after it") {
    std::string in =
        R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "A}]"}], )"
        R"("traceEvents": [{"ph":"X"}], "traceName": "t\"x", "baseTimeNanoseconds": 17})";
    Framed f = frame_all(in);
    CHECK(f.ok);
    CHECK(f.keys == std::vector<std::string>{"schemaVersion", "deviceProperties", "traceEvents",
                                             "traceName", "baseTimeNanoseconds"});
    REQUIRE(f.members.size() == 4);
    // Offsets are where each value starts: "1" at 18, the device array at 41, ...
    CHECK(f.members[0] == Value{"schemaVersion", "1", 18});
    CHECK(f.members[1] == Value{"deviceProperties", R"([{"id": 0, "name": "A}]"}])", 41});
    CHECK(f.members[2] == Value{"traceName", R"("t\"x")", in.find(R"("t\")")});
    // A number that ends the object ends at the '}' (the delimiter is not part of it).
    CHECK(f.members[3] == Value{"baseTimeNanoseconds", "17", in.size() - 3});
    REQUIRE(f.events.size() == 1);
    CHECK(f.events[0] == Value{"", R"({"ph":"X"})", in.find(R"({"ph")")});
    CHECK(f.diagnostics.empty());
  }
  SECTION("strings with brackets, quotes and escapes do not end an event early") {
    std::string in = R"([{"n":"a]}\"\\"},{"m":"{[\\\""}])";
    Framed f = frame_all(in);
    CHECK(f.ok);
    REQUIRE(f.events.size() == 2);
    CHECK(f.events[0].text == R"({"n":"a]}\"\\"})");
    CHECK(f.events[1].text == R"({"m":"{[\\\""})");
    CHECK(f.events[1].offset == 17);
    CHECK(f.diagnostics.empty());
  }
  SECTION("an empty event array is a trace with no events") {
    Framed f = frame_all(R"({"traceEvents": []})");
    CHECK(f.ok);
    CHECK(f.saw_event_array);
    CHECK(f.events.empty());
    CHECK(f.diagnostics.empty());
  }
}

TEST_CASE("Framer tolerances are accepted and counted", "[import][json][framer]") {
  SECTION("trailing comma") {
    //                  0123456789
    std::string in = R"([{"a":1},])";
    Framed f = frame_all(in);
    CHECK(f.ok);
    REQUIRE(f.events.size() == 1);
    // Counted at the ']' that follows the comma.
    CHECK(f.diagnostics == "trailing_comma 1@9 \n");
  }
  SECTION("trailing comma in the top-level object") {
    std::string in = R"({"traceEvents":[{"a":1}],})";
    Framed f = frame_all(in);
    CHECK(f.ok);
    CHECK(f.events.size() == 1);
    CHECK(f.diagnostics == "trailing_comma 1@" + std::to_string(in.size() - 1) + " \n");
  }
  SECTION("double comma between events") {
    //                  01234567890
    std::string in = R"([{"a":1},,{"b":2}])";
    Framed f = frame_all(in);
    CHECK(f.ok);
    REQUIRE(f.events.size() == 2);
    CHECK(f.events[1] == Value{"", R"({"b":2})", 10});
    // The second comma, at 9, is the empty element.
    CHECK(f.diagnostics == "extra_comma 1@9 \n");
  }
  SECTION("missing final ']' (bare array cut off after an event)") {
    std::string in = R"([{"a":1},{"b":2})";
    Framed f = frame_all(in);
    CHECK(f.ok);
    CHECK(f.events.size() == 2);
    // Counted at the end of the input: 16 bytes.
    CHECK(f.diagnostics == "missing_array_close 1@16 \n");
  }
  SECTION("missing final '}' (the object is not closed)") {
    std::string in = R"({"traceEvents":[{"a":1}])";
    Framed f = frame_all(in);
    CHECK(f.ok);
    CHECK(f.events.size() == 1);
    CHECK(f.diagnostics == "missing_object_close 1@24 \n");
  }
  SECTION("missing final ']' and '}' (Kineto cut off while writing)") {
    std::string in = "{\"traceEvents\":[{\"a\":1},\n";
    Framed f = frame_all(in);
    CHECK(f.ok);
    CHECK(f.events.size() == 1);
    CHECK(f.diagnostics == "missing_array_close 1@25 \nmissing_object_close 1@25 \n");
  }
  SECTION("truncated last event") {
    //                  0123456789
    std::string in = R"([{"a":1},{"b":[1,)";
    Framed f = frame_all(in);
    CHECK(f.ok);
    REQUIRE(f.events.size() == 1);
    CHECK(f.events[0].text == R"({"a":1})");
    // Dropped, counted at its start (9) with its text; then the array is not closed either.
    CHECK(f.diagnostics == "missing_array_close 1@17 \ntruncated_event 1@9 {\"b\":[1,\n");
  }
  SECTION("truncated inside a string of the last event") {
    std::string in = R"([{"a":1},{"b":"x\")";
    Framed f = frame_all(in);
    CHECK(f.ok);
    CHECK(f.events.size() == 1);
    CHECK(f.diags.count(Diag::kTruncatedEvent) == 1);
    CHECK(f.diags.get(Diag::kTruncatedEvent).first_offset == 9);
  }
  SECTION("UTF-8 byte order mark") {
    std::string in = "\xEF\xBB\xBF[{\"a\":1}]";
    Framed f = frame_all(in);
    CHECK(f.ok);
    REQUIRE(f.events.size() == 1);
    // Offsets count the BOM's three bytes.
    CHECK(f.events[0] == Value{"", R"({"a":1})", 4});
    CHECK(f.diagnostics == "utf8_bom 1@0 \n");
  }
  SECTION("empty chunks (a stream may hand them out) change nothing, before a BOM too") {
    RecordingSink sink;
    ks::Diagnostics diags;
    Framer framer(&sink, &diags);
    std::string in = "\xEF\xBB\xBF[{\"a\":1}]";
    CHECK(framer.feed(in.data(), 0));
    CHECK(framer.feed(in.data(), 2));
    CHECK(framer.feed(in.data() + 2, 0));
    CHECK(framer.feed(in.data() + 2, in.size() - 2));
    CHECK(framer.feed(in.data() + in.size(), 0));
    CHECK(framer.finish());
    REQUIRE(sink.events.size() == 1);
    CHECK(sink.events[0] == Value{"", R"({"a":1})", 4});
    CHECK(ks_test::dump_diagnostics(diags) == "utf8_bom 1@0 \n");
  }
  SECTION("a BOM alone is an empty input") {
    Framed f = frame_all("\xEF\xBB\xBF");
    CHECK_FALSE(f.ok);
    CHECK(f.error.code == ImportErrorCode::kEmptyInput);
    CHECK(f.error.offset == 3);
  }
  SECTION("trailing data after the closing bracket") {
    //                  0123456789012
    std::string in = R"([{"a":1}] xyz)";
    Framed f = frame_all(in);
    CHECK(f.ok);
    CHECK(f.events.size() == 1);
    // Counted once at the first byte that is not whitespace, however it is chunked.
    CHECK(f.diagnostics == "trailing_data 1@10 \n");
  }
  SECTION("trailing whitespace is not trailing data") {
    Framed f = frame_all("[{\"a\":1}]\n\n  \r\n");
    CHECK(f.ok);
    CHECK(f.diagnostics.empty());
  }
  SECTION("a huge top-level member is scanned but not kept") {
    // With a 16-byte cap, the 30-byte string is skipped; traceEvents after it still reads.
    std::string in = R"({"big": "aaaaaaaaaaaaaaaaaaaaaaaaaaaa", "traceEvents": [{"a":1}], "s": 1})";
    Framed f = frame_all(in, 16);
    CHECK(f.ok);
    REQUIRE(f.members.size() == 1);
    CHECK(f.members[0] == Value{"s", "1", in.size() - 2});
    REQUIRE(f.events.size() == 1);
    CHECK(f.events[0].text == R"({"a":1})");
    CHECK(f.diagnostics == "top_level_value_skipped 1@8 big\n");
  }
  SECTION("an event above the size cap is skipped, the next one is read") {
    std::string in = R"([{"a":"xxxxxxxxxxxxxxxxxxxxxxxxxx"},{"b":2}])";
    Framed f = frame_all(in, 16);
    CHECK(f.ok);
    REQUIRE(f.events.size() == 1);
    CHECK(f.events[0] == Value{"", R"({"b":2})", 36});
    // The excerpt is its first cap + 1 = 17 bytes, however the input was chunked.
    CHECK(f.diagnostics == "event_too_large 1@1 {\"a\":\"xxxxxxxxxxx\n");
  }
  SECTION("elements that are not objects are skipped and counted") {
    std::string in = R"([1, "x", {"a":1}, null])";
    Framed f = frame_all(in);
    CHECK(f.ok);
    REQUIRE(f.events.size() == 1);
    CHECK(f.events[0].offset == 9);
    // Three of them; the first, "1", at offset 1.
    CHECK(f.diagnostics == "non_object_event 3@1 1\n");
  }
  SECTION("a number that ends the input is complete") {
    std::string in = R"({"traceEvents":[],"x":12)";
    Framed f = frame_all(in);
    CHECK(f.ok);
    REQUIRE(f.members.size() == 1);
    CHECK(f.members[0] == Value{"x", "12", 22});
    CHECK(f.diagnostics == "missing_object_close 1@24 \n");
  }
}

TEST_CASE("Framer rejects what is not JSON with the exact offset and message",
          "[import][json][framer][error]") {
  SECTION("empty input") {
    Framed f = frame_all("");
    CHECK_FALSE(f.ok);
    CHECK(f.error.code == ImportErrorCode::kEmptyInput);
    CHECK(f.error.offset == 0);
    CHECK(f.error.message == "empty input: no JSON value found");
  }
  SECTION("whitespace only: the value was expected at the end of the input") {
    Framed f = frame_all(" \n\t \r");
    CHECK_FALSE(f.ok);
    CHECK(f.error.code == ImportErrorCode::kEmptyInput);
    CHECK(f.error.offset == 5);
    CHECK(f.error.message == "empty input: no JSON value found");
  }
  SECTION("a word") {
    Framed f = frame_all("hello");
    CHECK_FALSE(f.ok);
    CHECK(f.error.code == ImportErrorCode::kNotJson);
    CHECK(f.error.offset == 0);
    CHECK(f.error.message == "not JSON: a trace starts with '{' or '[', found 'h'");
    CHECK(f.error.to_line() ==
          "not_json at byte 0: not JSON: a trace starts with '{' or '[', found 'h'");
  }
  SECTION("leading spaces move the offset") {
    Framed f = frame_all("  x");
    CHECK(f.error.code == ImportErrorCode::kNotJson);
    CHECK(f.error.offset == 2);
    CHECK(f.error.message == "not JSON: a trace starts with '{' or '[', found 'x'");
  }
  SECTION("a control byte is shown in hex") {
    Framed f = frame_all("\x01[]");
    CHECK(f.error.code == ImportErrorCode::kNotJson);
    CHECK(f.error.offset == 0);
    CHECK(f.error.message == "not JSON: a trace starts with '{' or '[', found 0x01");
  }
  SECTION("a member name that is not a string") {
    Framed f = frame_all("{ 1: 2}");
    CHECK(f.error.code == ImportErrorCode::kNotJson);
    CHECK(f.error.offset == 2);
    CHECK(f.error.message == "invalid JSON: expected a member name, found '1'");
  }
  SECTION("a missing colon") {
    //                  01234567
    Framed f = frame_all(R"({"abc" 1})");
    CHECK(f.error.code == ImportErrorCode::kNotJson);
    CHECK(f.error.offset == 7);
    CHECK(f.error.message == "invalid JSON: expected ':' after \"abc\", found '1'");
  }
  SECTION("a missing comma between top-level members") {
    //                  0123456789
    Framed f = frame_all(R"({"a": 1 "b": 2})");
    CHECK(f.error.code == ImportErrorCode::kNotJson);
    CHECK(f.error.offset == 8);
    CHECK(f.error.message ==
          "invalid JSON: expected ',' or '}' in the top-level object, found '\"'");
  }
  SECTION("input after a fatal error is ignored") {
    RecordingSink sink;
    ks::Diagnostics diags;
    Framer framer(&sink, &diags);
    CHECK_FALSE(framer.feed("x[", 2));
    CHECK_FALSE(framer.feed("{\"a\":1}]", 8));
    CHECK_FALSE(framer.finish());
    CHECK(sink.events.empty());
    CHECK(framer.error().offset == 0);
  }
}

namespace {

// A sink whose fast path reads the flat events of the test below: an object with no '{' inside,
// taken when its '}' is within what it is offered (as fast_read_event, it declines one cut off).
// Events holding "slow" it declines whole, as the real reader declines an unusual event.
class FastPathSink : public ks::FramerSink {
 public:
  size_t on_event_fast(const char* data, size_t avail, uint64_t offset) override {
    ++offers[offset];
    const std::string_view text(data, avail);
    const size_t close = text.find('}');
    if (close == std::string_view::npos) return 0;
    if (text.substr(0, close).find("slow") != std::string_view::npos) return 0;
    fast.push_back({"", std::string(data, close + 1), offset});
    return close + 1;
  }
  void on_event(const char* data, size_t len, uint64_t offset) override {
    slow.push_back({"", std::string(data, len), offset});
  }
  void on_top_level_member(std::string_view, const char*, size_t, uint64_t) override {}
  std::vector<Value> fast, slow;
  std::map<uint64_t, int> offers;  // by event offset: how often the fast path was offered it
};

}  // namespace

TEST_CASE("Framer gives the fast path an event a chunk cut, once it is whole",
          "[import][json][framer]") {
  // The page feeds 64 KiB pieces: the event a piece ends in went to simdjson (on_event), ~30x
  // the fast reader's cost, one event in every ~300.
  //                        0         1         2         3         4
  //                        012345678901234567890123456789012345678901234567
  const std::string in = R"({"traceEvents": [{"a":1}, {"slow":2}, {"b":3}]})";
  const std::vector<Value> fast = {{"", R"({"a":1})", 17}, {"", R"({"b":3})", 38}};
  const std::vector<Value> slow = {{"", R"({"slow":2})", 26}};
  for (size_t chunk : ks_test::chunk_sizes()) {
    INFO("chunk size " << chunk);
    FastPathSink sink;
    ks::Diagnostics diags;
    Framer framer(&sink, &diags);
    const size_t step = chunk == 0 ? in.size() : chunk;
    for (size_t pos = 0; pos < in.size(); pos += step)
      REQUIRE(framer.feed(in.data() + pos, std::min(step, in.size() - pos)));
    REQUIRE(framer.finish());
    CHECK(sink.fast == fast);
    CHECK(sink.slow == slow);
    // An event declined whole is not offered again; one cut off, at most once more.
    for (const auto& [offset, n] : sink.offers) CHECK(n <= (chunk == 0 ? 1 : 2));
  }
}
