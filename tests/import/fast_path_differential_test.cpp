// The fast path (src/import/chrome_json/fast_event_reader.h) against the reference, simdjson's
// EventReader: whatever event the fast path accepts must come out as exactly the RawEvent
// EventReader reads from the same bytes, and whole imports with the fast path on and off must give
// the same report and diagnostics at every chunk size. Checked event by event on hand-made events
// (each give-up reason and each conversion) and on every event of ../shared/traces, and import by
// import on the shared traces, the planted pathologies, the bad-input catalogue and the fuzzers'
// regression inputs.
#include <algorithm>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "corpus/shared_traces.h"
#include "helpers.h"
#include "import/chrome_json/event_reader.h"
#include "import/chrome_json/fast_event_reader.h"
#include "import/chrome_json/framer.h"
#include "source_dir.h"

namespace {

std::string describe(const ks::RawEvent& e) {
  std::ostringstream o;
  auto s = [](std::string_view v) { return "'" + std::string(v) + "'"; };
  o << "ph=" << int(e.ph) << s(e.ph_text) << " name=" << s(e.name) << " cat=" << s(e.cat)
    << " json_text=" << e.text_was_json << " pid=" << e.pid.present << s(e.pid.text)
    << " tid=" << e.tid.present << s(e.tid.text) << " ts=" << e.has_ts << "/" << e.ts_ns
    << " dur=" << e.has_dur << "/" << e.dur_ns << " bad=" << e.bad_number << " id=" << s(e.id)
    << " bp=" << e.binds_enclosing << " s=" << int(e.scope) << " corr=" << e.correlation
    << " stream=" << e.stream << " device=" << e.device << " bytes=" << e.bytes
    << " grid=" << e.has_grid << ":" << e.grid[0] << "," << e.grid[1] << "," << e.grid[2]
    << " block=" << e.has_block << ":" << e.block[0] << "," << e.block[1] << "," << e.block[2]
    << " bps=" << e.blocks_per_sm << " wps=" << e.warps_per_sm << " occ=" << e.occupancy_pct
    << " bw=" << e.bandwidth_gbps << " stack=" << e.has_call_stack << s(e.call_stack)
    << " flops=" << e.has_flops << " dims=" << e.has_input_dims << s(e.input_dims_json)
    << s(e.input_types_json) << s(e.concrete_inputs_json) << " meta=" << s(e.meta_name)
    << s(e.meta_labels) << " sort=" << e.has_sort_index << "/" << e.sort_index
    << " counters=" << e.counter_values.size() << " mem=" << e.mem_bytes << ","
    << e.mem_total_allocated << "," << e.mem_total_reserved << "," << e.mem_device
    << " collective=" << e.has_collective << s(e.collective) << e.in_nelems << "," << e.out_nelems
    << "," << e.group_size << s(e.dtype) << s(e.process_group) << " legacy=" << e.legacy_nelems
    << s(e.legacy_dtype);
  return o.str();
}

// Field-by-field equality (floats bitwise: a correctly rounded conversion is one value).
bool same(const ks::RawEvent& a, const ks::RawEvent& b) {
  return describe(a) == describe(b) &&
         std::memcmp(&a.blocks_per_sm, &b.blocks_per_sm, sizeof(float)) == 0 &&
         std::memcmp(&a.warps_per_sm, &b.warps_per_sm, sizeof(float)) == 0 &&
         std::memcmp(&a.occupancy_pct, &b.occupancy_pct, sizeof(float)) == 0 &&
         std::memcmp(&a.bandwidth_gbps, &b.bandwidth_gbps, sizeof(float)) == 0;
}

// Both readers on one event object. Returns "" when they agree (or the fast path declined),
// otherwise what differed. *accepted: whether the fast path took it.
class EventComparer {
 public:
  std::string compare(std::string_view event, bool* accepted) {
    padded_.assign(event.data(), event.size());
    padded_.append(ks::kFramerPadding, ' ');
    const size_t len = ks::fast_read_event(padded_.data(), event.size(), &fast_);
    *accepted = len != 0;
    if (!len) return "";
    if (len != event.size())
      return "fast path ended the event at byte " + std::to_string(len) + " of " +
             std::to_string(event.size());
    ks::ReadStatus st = reader_.read(padded_.data(), event.size(), &slow_);
    if (st != ks::ReadStatus::kOk) return "fast path accepted an event simdjson refuses";
    if (!same(fast_, slow_)) return "fast:  " + describe(fast_) + "\nsimdjson: " + describe(slow_);
    return "";
  }

 private:
  std::string padded_;
  ks::EventReader reader_;
  ks::RawEvent fast_, slow_;
};

bool fast_accepts(std::string_view event) {
  static EventComparer cmp;
  bool accepted = false;
  std::string diff = cmp.compare(event, &accepted);
  INFO(event);
  INFO(diff);
  CHECK(diff.empty());
  return accepted;
}

}  // namespace

TEST_CASE("fast path: each field and conversion equals simdjson's reading", "[import][fast_path]") {
  const char* accepted[] = {
      R"({})",
      R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":2,"ts":10.5,"dur":3})",
      // Kineto's layout: newlines and indentation everywhere.
      "{\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7,\n"
      "    \"ts\": 1623143090001234.567, \"dur\": 12,\n    \"args\": {\n      \"External id\": 2,"
      " \"device\": 0, \"stream\": 7, \"correlation\": 42,\n      \"grid\": [1, 2, 3],"
      " \"block\": [128,1,1], \"registers per thread\": 32,\n      \"blocks per SM\": 0.002083,"
      " \"warps per SM\": 0.016667, \"est. achieved occupancy %\": 0,\n"
      "      \"memory bandwidth (GB/s)\": 1.5e-3\n    }\n  }",
      // Space before commas and colons; numbers as ts text with exponents and signs.
      R"({ "ph" : "X" , "ts" : 1.5e3 , "dur" : -2 , "pid" : "rank 0" , "tid" : -3 })",
      R"({"ph":"X","ts":"12.25","dur":"7"})",
      R"({"ph":"X","ts":1e400,"dur":0.0000001})",  // bad number; sub-ns fraction
      R"({"ph":"X","ts":123456789012345678901234567890})",
      R"({"ph":"i","s":"g","name":"[memory]","ts":5,"args":{"Bytes":-512,"Total Allocated":1024,)"
      R"("Total Reserved":2048,"Device Id":-1,"Device Type":0,"Addr":140225331462144}})",
      R"({"ph":"M","name":"process_name","pid":3,"args":{"name":"python3"}})",
      R"({"ph":"M","name":"process_sort_index","pid":3,"args":{"sort_index":-5}})",
      R"({"ph":"M","name":"process_labels","pid":3,"args":{"labels":"GPU 0","extra":[1,{"a":null}]}})",
      R"({"ph":"s","id":12345678901234567890123,"pid":1,"tid":1,"ts":1,"cat":"ac2g","bp":"e"})",
      R"({"ph":"f","id":"0x1f","pid":1,"tid":1,"ts":1,"bp":"x"})",
      R"({"ph":"b","id":7,"name":"async","cat":"c","ts":1,"pid":1})",
      // Args the model skips, of every JSON type, nested, with escapes (those are not kept).
      R"({"ph":"X","name":"aten::cat","ts":1,"dur":1,"args":{"Input Dims":[[2,3],[]],"Input type":["float","\"q\"\\"],)"
      R"("Concrete Inputs":["", "\u00e9\n"],"flag":true,"off":false,"none":null,"neg":-0.5e-7,)"
      R"("obj":{"k":{"k":[{}]}},"Call stack":"a.py(1): f;b.py(2): g"}})",
      // Shape args are kept as raw text (math ops): spaces inside and before the comma, and
      // values that are not arrays (kept as "").
      R"({"ph":"X","name":"aten::mm","ts":1,"args":{"Input Dims" : [ [2, 3] , [3,4] ]  ,)"
      R"("Input type":["float" ,"float"] ,"Concrete Inputs":[]}})",
      // with_flops: only that the arg is there is kept; "flop" and "flopsx" are other args.
      R"({"ph":"X","name":"aten::mm","ts":1,"dur":1,"args":{"flop":1,"flopsx":2,"flops":12288}})",
      R"({"ph":"X","name":"aten::mm","ts":1,"args":{"Input Dims":5,"Input type":"float",)"
      R"("Concrete Inputs":{"a":[1]}}})",
      // Non-ASCII text, kept and skipped: valid UTF-8 of 2, 3 and 4 bytes.
      "{\"ph\":\"X\",\"name\":\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\",\"ts\":1,"
      "\"args\":{\"x\":\"\xE6\x97\xA5\"}}",
      // A key with an escape matches no field name (EventReader compares raw key text).
      R"({"p\u0068":"X","ph":"B","name":"n","ts":1})",
      // Repeated keys: the last one wins, as in EventReader; args read twice accumulate.
      R"({"ph":"X","name":"a","name":"b","ts":1,"ts":2,"args":{"stream":1},"args":{"device":2}})",
      R"({"ph":"X","ts":1,"args":{"grid":[1,2,3,4],"block":[],"correlation":9223372036854775}})",
      R"({"ph":"XY","ts":1})",
      R"({"ph":"","ts":1})",
      R"({"ph":"X","ts":1,"args":{}})",
      R"({"ph":"X","ts":1,"args":{"blocks per SM":123456789012345,"warps per SM":1e22,)"
      R"J("memory bandwidth (GB/s)":-0.0,"est. achieved occupancy %":12345.6789e-18}})J",
      // ts/dur read from their digits (read_time_digits), at each length and at the limits of
      // that form: 8 and 16 integer digits, the largest time kept and one past it, 17 digits,
      // rounding at the fourth fraction digit, signs and zeros, an exponent after a fraction.
      R"({"ph":"X","ts":12345678,"dur":123456789})",
      R"({"ph":"X","ts":1623142623460016,"dur":1234567890123456.5})",
      R"({"ph":"X","ts":4000000000000000,"dur":4000000000000001})",
      R"({"ph":"X","ts":-4000000000000000.0004,"dur":-4000000000000000.0005})",
      R"({"ph":"X","ts":16231426234600161,"dur":99999999999999999999.5})",
      R"({"ph":"X","ts":0.0005,"dur":0.0004999})",
      R"({"ph":"X","ts":-0,"dur":-0.0})",
      R"({"ph":"X","ts":0,"dur":7})",
      R"({"ph":"X","ts":1623142623460016.123456789,"dur":12.3456})",
      R"({"ph":"X","ts":1.5e2,"dur":12345678.9E-3})",
      R"({"ph":"X","ts":10000000,"dur":100000000.000})",
      // Text fields of another JSON type: a number's or literal's token, an object's or array's
      // text (cut to 256 bytes, counted as name_not_string), with the spaces simdjson's raw
      // views run on to dropped. An object name read as "{" in simdjson before (every such
      // event one name), the fast path declined it.
      R"({"ph":"X","name":7,"ts":1})",
      R"({"ph":1,"ts":1})",
      R"({"ph":"X","name": -1.5e3 ,"cat": true ,"ts":1})",
      R"({"ph":"X","name":null,"cat":false,"ts":1})",
      R"({"ph":"X","name": {"a": [1, {"b": "c\"d"}], "e": null} ,"ts":1})",
      R"({"ph":"X","name":[1,2,"x"] ,"cat":{},"ts":1})",
      R"({"ph":"X","cat":[[],[{}]],"name":[],"ts":1})",
      R"({"ph":{"k":"X"},"ts":1})",
      R"({"ph":"M","name":"process_name","pid":3,"args":{"name":{"n":"python3"},"labels":[1]}})",
  };
  for (const char* event : accepted) {
    INFO(event);
    CHECK(fast_accepts(event));
  }
  // What it leaves to simdjson (each still compared: a decline is always safe).
  const char* declined[] = {
      R"({"ph":"X","name":"a\"b","ts":1})",  // escape in a kept string
      R"({"ph":"X","name":"a\u0041","ts":1})",
      R"({"ph":"X","name":"tab	in name","ts":1})",                     // raw control character
      "{\"ph\":\"X\",\"name\":\"\xFF\",\"ts\":1}",                      // invalid UTF-8
      "{\"ph\":\"X\",\"name\":\"\xC0\xAF\",\"ts\":1}",                  // overlong
      "{\"ph\":\"X\",\"name\":\"\xED\xA0\x80\",\"ts\":1}",              // surrogate
      "{\"ph\":\"X\",\"args\":{\"x\":\"\xF4\x90\x80\x80\"},\"ts\":1}",  // above U+10FFFF
      R"({"ph":"X","ts":1,"args":{"x":"\q"}})",    // invalid escape, even where skipped
      R"({"args":{"stream":1},"ph":"X","ts":1})",  // args before ph
      R"({"ph":"C","name":"mem","ts":1,"args":{"a":1.5,"b":2}})",  // counters
      R"({"ph":"X","ts":NaN})",
      R"({"ph":"X","ts":null})",
      R"({"ph":"X","ts":01})",
      R"({"ph":"X","ts":1.})",
      R"({"ph":"X","ts":+1})",
      R"({"ph":"X","ts":1,})",
      R"({"ph":"X","ts":1 "dur":2})",
      R"({"ph":"X","ts":1,"args":{"correlation":"12"}})",                  // int as string
      R"({"ph":"X","ts":1,"args":{"correlation":1.5}})",                   // int as float
      R"({"ph":"X","ts":1,"args":{"correlation":1234567890123456789}})",   // 19 digits
      R"({"ph":"X","ts":1,"args":{"blocks per SM":0.1234567890123456}})",  // 16 digits
      R"({"ph":"X","ts":1,"args":{"blocks per SM":1e23}})",
      R"({"ph":"X","ts":1,"args":{"grid":[1,"2",3]}})",
      R"({"ph":"X","ts":1,"args":{"grid":{"x":1}}})",
      R"({"ph":"X","ts":1,"args":[1]})",
      R"({"ph":"X","ts":1,"args":{"x":[1,,2]}})",
      R"({"ph":"X","ts":1,"args":{"x":tru}})",
      R"({"ph":"X","ts":1,"args":{"x":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}})",
      R"({"ph":"X","pid":null,"ts":1})",
      R"({"ph":"X","s":1,"ts":1})",
      R"({"ph":"X","ts":1)",  // cut off
      // Collective args (message sizes) are read by EventReader only.
      R"({"ph":"X","name":"nccl:all_reduce","ts":1,"args":{"Input Dims":[[4,2]]}})",
      R"({"ph":"X","ts":1,"args":{"Input Dims":[[4,2]]},"name":"nccl:all_reduce"})",
      R"({"ph":"X","name":"k","ts":1,"args":{"In msg nelems":8,"dtype":"Float"}})",
      R"({"ph":"X","name":"k","ts":1,"args":{"Out msg nelems":8}})",
      R"({"ph":"X","name":"k","ts":1,"args":{"Group size":8}})",
      R"({"ph":"X","name":"k","ts":1,"args":{"Process Group Name":"0"}})",
      R"({"ph":"X","name":"k","ts":1,"args":{"Collective name":"allreduce"}})",
  };
  for (const char* event : declined) {
    INFO(event);
    CHECK_FALSE(fast_accepts(event));
  }
  // An object name longer than the cut, and one nested past the fast path's depth (declined,
  // read by simdjson to the same text).
  const std::string object_name =
      R"({"ph":"X","ts":1,"name":{"k":")" + std::string(249, 'x') + "\xc3\xa9" + R"("}})";
  CHECK(fast_accepts(object_name));
  const std::string deep_name =
      R"({"ph":"X","ts":1,"name":)" + std::string(40, '[') + std::string(40, ']') + "}";
  CHECK_FALSE(fast_accepts(deep_name));
}

TEST_CASE("fast path: an event running past the bytes at hand is declined", "[import][fast_path]") {
  const std::string event = R"({"ph":"X","name":"aten::mm","ts":1,"dur":2,"args":{"stream":7}})";
  // Long digit runs too, which are read 8 bytes at a time.
  const std::string digits =
      R"({"ph":"X","ts":1623142623460016.123,"dur":12345678,"args":{"correlation":1234567}})";
  for (const std::string& whole : {event, digits}) {
    for (size_t avail = 1; avail < whole.size(); ++avail) {
      // The bytes after `avail` are the rest of the event: the reader must not use them.
      std::string buf = whole + std::string(ks::kFramerPadding, ' ');
      ks::RawEvent e;
      INFO(whole << " avail " << avail);
      CHECK(ks::fast_read_event(buf.data(), avail, &e) == 0);
    }
  }
  std::string buf = event + "," + event + std::string(ks::kFramerPadding, ' ');
  ks::RawEvent e;
  CHECK(ks::fast_read_event(buf.data(), buf.size() - ks::kFramerPadding, &e) == event.size());
  CHECK(e.stream == 7);
  CHECK(e.name == "aten::mm");
}

namespace {

// A framer sink that compares the two readers on every event the framer hands out.
class ComparingSink : public ks::FramerSink {
 public:
  void on_event(const char* data, size_t len, uint64_t offset) override {
    ++events;
    bool accepted = false;
    std::string diff = cmp_.compare(std::string_view(data, len), &accepted);
    if (accepted) ++fast;
    if (!diff.empty() && first_diff.empty())
      first_diff = "at byte " + std::to_string(offset) + ": " +
                   std::string(data, std::min<size_t>(len, 300)) + "\n" + diff;
    if (!diff.empty()) ++differences;
  }
  void on_top_level_member(std::string_view, const char*, size_t, uint64_t) override {}
  uint64_t events = 0, fast = 0, differences = 0;
  std::string first_diff;

 private:
  EventComparer cmp_;
};

// The whole import with the fast path on or off: the JSON report (both step conventions) and
// every diagnostic, or the error.
std::string import_outcome(const std::string& json, size_t chunk, bool fast_path) {
  ks::ChromeJsonImporter importer;
  importer.set_fast_path(fast_path);
  const size_t step = chunk == 0 ? std::max<size_t>(json.size(), 1) : chunk;
  bool fed = true;
  for (size_t pos = 0; pos < json.size() && fed; pos += step)
    fed = importer.feed(json.data() + pos, std::min(step, json.size() - pos));
  if (!fed || !importer.finish()) return "error: " + importer.error().to_line();
  const ks::Trace& t = importer.trace();
  return std::to_string(importer.events_read()) + " events\n" +
         ks_test::dump_diagnostics(t.diagnostics) + ks_test::report_of(t) +
         ks_test::report_of(t, true);
}

void check_imports_agree(const std::string& path, const std::vector<size_t>& chunks) {
  std::string json;
  INFO(path);
  // The damaged gzip files of the catalogue are refused before any JSON is read.
  if (!ks_test::read_file_maybe_gzip(path, &json)) {
    CHECK(path.find("/bad_inputs/gzip_") != std::string::npos);
    return;
  }
  const std::string reference = import_outcome(json, 0, /*fast_path=*/false);
  for (size_t chunk : chunks) {
    INFO("chunk " << chunk);
    CHECK(import_outcome(json, chunk, /*fast_path=*/true) == reference);
  }
}

}  // namespace

TEST_CASE("fast path: every event of the shared traces reads as simdjson reads it",
          "[import][fast_path][corpus]") {
  const std::vector<std::string> files = ks_test::shared_trace_files();
  if (files.empty()) {
    WARN("../shared/traces not found: fast-path corpus comparison skipped");
    return;
  }
  uint64_t events = 0, fast = 0;
  for (const std::string& path : files) {
    std::string json;
    REQUIRE(ks_test::read_file_maybe_gzip(path, &json));
    ComparingSink sink;
    ks::Diagnostics diags;
    ks::Framer framer(&sink, &diags);
    framer.feed(json.data(), json.size());
    framer.finish();
    INFO(path << ": " << sink.events << " events, " << sink.fast << " on the fast path");
    INFO(sink.first_diff);
    CHECK(sink.differences == 0);
    events += sink.events;
    fast += sink.fast;
  }
  // The fast path must actually carry the real traces (otherwise it speeds up nothing).
  WARN(fast << " of " << events << " events of " << files.size()
            << " shared traces on the fast path");
  CHECK(fast * 100 >= events * 99);
}

TEST_CASE("fast path on and off: same imports at every chunk size", "[import][fast_path][corpus]") {
  const std::vector<std::string> small = ks_test::damaged_inputs();
  REQUIRE(small.size() >= 20);
  for (const std::string& f : small) check_imports_agree(f, ks_test::chunk_sizes());
  for (const char* dir : {"/examples/pathologies/cpu", "/examples/pathologies/gpu"})
    for (const std::string& f : ks_test::files_in(ks_test::source_dir() + dir))
      if (f.find(".json") != std::string::npos) check_imports_agree(f, {0, 4093, 1 << 20});
  const std::vector<std::string> shared = ks_test::shared_trace_files();
  if (shared.empty()) {
    WARN("../shared/traces not found: fast-path import comparison skipped");
    return;
  }
  for (const std::string& f : shared) check_imports_agree(f, {0, 65521, 1 << 20});
}
