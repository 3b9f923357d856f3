// The JSON report (src/report/json_report.cpp): valid JSON, the documented schema's key
// values, times relative to the first event, and strings escaped so they come back unchanged.
#include <simdjson.h>

#include <catch2/catch.hpp>

#include "helpers.h"

namespace {

// ProfilerStep#5 [1000.5, 1100.5) us launches a kernel named like an HTML injection, which
// runs [1020.25, 1070.25); a second kernel [1080, 1090) has quotes, a backslash, a tab, a
// newline and a control character in its name. The first event is at 1000.5 us: report times
// are relative to it.
const char* kTiny = R"({"schemaVersion": 1, "traceEvents": [
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#5","pid":1,"tid":1,"ts":1000.5,"dur":100},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1010,"dur":5,
   "args":{"correlation":1}},
  {"ph":"X","cat":"kernel","name":"<img src=x onerror=alert(1)>","pid":0,"tid":7,"ts":1020.25,
   "dur":50,"args":{"correlation":1,"stream":7}},
  {"ph":"X","cat":"kernel","name":"quote \" back \\ tab \t nl \n ctrl \u0001 end","pid":0,
   "tid":7,"ts":1080,"dur":10,"args":{"stream":7}}
]})";

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

double num(simdjson::dom::element e) {
  double d = -1;
  CHECK_FALSE(e.get_double().get(d));
  return d;
}

std::string str(simdjson::dom::element e) {
  std::string_view s;
  CHECK_FALSE(e.get_string().get(s));
  return std::string(s);
}

}  // namespace

TEST_CASE("JSON report of a tiny trace", "[report][json]") {
  auto t = ks_test::load(kTiny);
  const std::string report = ks_test::report_of(*t);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  // simdjson validates the structure and the UTF-8.
  REQUIRE_FALSE(parser.parse(report).get(doc));

  SECTION("schema and generator first") {
    CHECK(report.rfind(
              "{\n  \"schema\": \"kinetoscope.report/1\",\n  \"generator\": \"kinetoscope ", 0) ==
          0);
    CHECK(str(doc["schema"]) == "kinetoscope.report/1");
    CHECK(report.back() == '\n');
  }
  SECTION("times are microseconds with 3 decimals relative to the first event") {
    // Span: first event 1000.5, last end 1100.5 -> 100.000 us. Absolute start as a string.
    CHECK(has_line(report, "    \"span_us\": 100.000,"));
    CHECK(has_line(report, "    \"start_ns\": \"1000500\","));
    simdjson::dom::element step = doc["steps"]["rows"].at(0);
    CHECK(str(step["name"]) == "ProfilerStep#5");
    CHECK(num(step["start_us"]) == 0.0);
    CHECK(num(step["end_us"]) == 100.0);
    // The idle gap before the kernel: [1000.5, 1020.25) -> 0.000 .. 19.750.
    simdjson::dom::element f = doc["findings"].at(0);
    CHECK(str(f["id"]) == "gpu.idle");
    CHECK(num(f["ranges"].at(0)["start_us"]) == 0.0);
    CHECK(num(f["ranges"].at(0)["end_us"]) == 19.75);
    CHECK(has_line(report, "          \"end_us\": 19.750,"));
  }
  SECTION("the step and GPU numbers") {
    // Busy [19.75, 69.75) + [79.5, 89.5) = 60 of the step's 100 us: idle 40 %.
    CHECK(num(doc["gpu"]["window_us"]) == 100.0);
    CHECK(num(doc["gpu"]["busy_us"]) == 60.0);
    CHECK(num(doc["gpu"]["idle_pct"]) == 40.0);
    CHECK(str(doc["gpu"]["window"]) == "steps");
    CHECK(has_line(report, "    \"idle_pct\": 40.00"));
    CHECK(num(doc["kernels"]["rows"].at(0)["percent"]) == 83.33);  // 50 / 60
    CHECK(num(doc["kernels"]["rows"].at(1)["percent"]) == 16.67);  // 10 / 60
  }
  SECTION("strings are escaped and read back unchanged") {
    // HTML stays text (JSON does not escape it; the page must show it as text).
    CHECK(has_line(report, "        \"name\": \"<img src=x onerror=alert(1)>\","));
    CHECK(str(doc["kernels"]["rows"].at(0)["name"]) == "<img src=x onerror=alert(1)>");
    CHECK(has_line(report, R"(        "name": "quote \" back \\ tab \t nl \n ctrl \u0001 end",)"));
    CHECK(str(doc["kernels"]["rows"].at(1)["name"]) ==
          std::string("quote \" back \\ tab \t nl \n ctrl \x01 end"));
  }
  SECTION("no diagnostics for a clean trace") {
    CHECK(has_line(report, "  \"diagnostics\": []"));
  }
}

TEST_CASE("JSON report lists diagnostics with code, count, offset and an escaped excerpt",
          "[report][json]") {
  // A raw control character (repaired) in the first event, invalid UTF-8 in the second, and a
  // trailing comma.
  std::string json =
      "[{\"ph\":\"X\",\"name\":\"a\x01\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1},"
      "{\"ph\":\"X\",\"name\":\"caf\xE9\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1},]";
  auto t = ks_test::load(json);
  const std::string report = ks_test::report_of(*t);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE_FALSE(parser.parse(report).get(doc));  // valid UTF-8 despite the 0xE9 byte
  simdjson::dom::array diags;
  REQUIRE_FALSE(doc["diagnostics"].get_array().get(diags));
  REQUIRE(diags.size() == 3);
  // In the catalogue's order: trailing_comma, control_chars_in_string, invalid_utf8.
  simdjson::dom::element d0 = diags.at(0);
  CHECK(str(d0["code"]) == "trailing_comma");
  CHECK(str(d0["severity"]) == "info");
  CHECK(str(d0["message"]) == "A trailing comma before the closing bracket was accepted.");
  CHECK(num(d0["count"]) == 1);
  CHECK(num(d0["first_offset"]) == json.size() - 1);
  CHECK(str(diags.at(1)["code"]) == "control_chars_in_string");
  CHECK(has_line(
      report,
      R"(      "excerpt": "{\"ph\":\"X\",\"name\":\"a\u0001\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1}")"));
  CHECK(str(diags.at(2)["code"]) == "invalid_utf8");
  CHECK(num(diags.at(2)["first_offset"]) == json.find("{", 1 + json.find("},")));
  CHECK(str(diags.at(2)["excerpt"]).find("caf\xEF\xBF\xBD") != std::string::npos);
}

TEST_CASE("JSON report of an empty trace", "[report][json]") {
  auto t = ks_test::load(R"({"traceEvents": []})");
  const std::string report = ks_test::report_of(*t);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE_FALSE(parser.parse(report).get(doc));
  CHECK(str(doc["findings"].at(0)["id"]) == "capture.empty");
  CHECK(str(doc["gpu"]["window"]) == "none");
  CHECK(has_line(report, "  \"memory_ops\": {"));
  CHECK(has_line(report, "    \"device\": null,"));
  CHECK(has_line(report, "    \"span_us\": 0.000,"));
}

TEST_CASE("JSON report writes absolute epoch times exactly", "[report][json]") {
  auto t =
      ks_test::load(R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1666149715033200,"dur":1.5}])");
  const std::string report = ks_test::report_of(*t);
  CHECK(has_line(report, "    \"start_ns\": \"1666149715033200000\","));
  CHECK(has_line(report, "    \"span_us\": 1.500,"));
}
