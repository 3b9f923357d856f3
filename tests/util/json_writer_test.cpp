// The deterministic JSON writer (src/util/json_writer.cpp) behind every report.
#include "util/json_writer.h"

#include <catch2/catch.hpp>
#include <limits>

namespace {
std::string escaped(std::string_view s) {
  std::string out;
  ks::append_json_escaped(&out, s);
  return out;
}
}  // namespace

TEST_CASE("Strings are escaped per RFC 8259", "[util][json]") {
  SECTION("quotes, backslashes and the short escapes") {
    CHECK(escaped(R"(say "hi" \ bye)") == R"("say \"hi\" \\ bye")");
    CHECK(escaped("a\nb\rc\td") == R"("a\nb\rc\td")");
  }
  SECTION("other control characters as \\u00XX") {
    CHECK(escaped(std::string("\x01\x1f\x00", 3)) == R"("\u0001\u001f\u0000")");
  }
  SECTION("HTML is not special in JSON: it stays text for the page to show as text") {
    CHECK(escaped("<img src=x onerror=alert(1)>") == R"("<img src=x onerror=alert(1)>")");
    CHECK(escaped("</script>") == R"("</script>")");
  }
  SECTION("valid UTF-8 passes through") {
    CHECK(escaped("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80") ==
          "\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"");
  }
  SECTION("invalid UTF-8 becomes U+FFFD, one per maximal invalid subsequence") {
    const std::string fffd = "\xEF\xBF\xBD";
    CHECK(escaped("caf\xE9") == "\"caf" + fffd + "\"");                  // Latin-1
    CHECK(escaped("\xE2\x82") == "\"" + fffd + "\"");                    // cut-off euro sign
    CHECK(escaped("\xE2\x82x") == "\"" + fffd + "x\"");                  // next byte kept
    CHECK(escaped("\xC0\xAF") == "\"" + fffd + fffd + "\"");             // overlong '/'
    CHECK(escaped("\xED\xA0\x80") == "\"" + fffd + fffd + fffd + "\"");  // a surrogate
    CHECK(escaped("\xF4\x90\x80\x80") == "\"" + fffd + fffd + fffd + fffd + "\"");  // > U+10FFFF
    CHECK(escaped("\x80") == "\"" + fffd + "\"");  // a lone continuation byte
  }
}

TEST_CASE("Numbers are written the same way everywhere", "[util][json]") {
  SECTION("nanoseconds as microseconds with 3 decimals, exactly") {
    CHECK(ks::format_micros(0) == "0.000");
    CHECK(ks::format_micros(1) == "0.001");
    CHECK(ks::format_micros(1234567) == "1234.567");
    CHECK(ks::format_micros(-1500) == "-1.500");
    CHECK(ks::format_micros(1666149715033200123) == "1666149715033200.123");
    CHECK(ks::format_micros(std::numeric_limits<int64_t>::min()) == "-9223372036854775.808");
  }
  SECTION("fixed decimals, no negative zero, null for NaN and infinity") {
    CHECK(ks::format_fixed(2.0 / 3.0, 3) == "0.667");
    CHECK(ks::format_fixed(-0.0001, 2) == "0.00");
    CHECK(ks::format_fixed(-1.5, 1) == "-1.5");
    CHECK(ks::format_fixed(std::numeric_limits<double>::quiet_NaN(), 2) == "null");
    CHECK(ks::format_fixed(std::numeric_limits<double>::infinity(), 2) == "null");
  }
}

TEST_CASE("The writer indents by two spaces and separates with commas", "[util][json]") {
  ks::JsonWriter w;
  w.begin_object();
  w.field("a", int64_t{1});
  w.key("b").begin_array();
  w.value("x").value(true).null();
  w.end_array();
  w.key("c").begin_object().end_object();
  w.key("d").begin_array().end_array();
  w.field("e", 0.5, 2);
  w.field_micros("f", 1500);
  w.end_object();
  CHECK(w.str() ==
        "{\n"
        "  \"a\": 1,\n"
        "  \"b\": [\n"
        "    \"x\",\n"
        "    true,\n"
        "    null\n"
        "  ],\n"
        "  \"c\": {},\n"
        "  \"d\": [],\n"
        "  \"e\": 0.50,\n"
        "  \"f\": 1.500\n"
        "}\n");
}
