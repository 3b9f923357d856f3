// Decimal microsecond text to integer nanoseconds (src/util/decimal_time.cpp): the digits are
// parsed, never a double, so epoch timestamps keep every nanosecond.
#include "util/decimal_time.h"

#include <catch2/catch.hpp>

namespace {
int64_t ns(std::string_view text) {
  int64_t out = -999;
  INFO("text '" << text << "'");
  CHECK(ks::parse_us_text_to_ns(text, &out));
  return out;
}
bool rejects(std::string_view text) {
  int64_t out = -999;
  bool ok = ks::parse_us_text_to_ns(text, &out);
  return !ok && out == -999;  // and *out untouched
}
}  // namespace

TEST_CASE("Decimal microseconds parse to exact nanoseconds", "[util][time]") {
  SECTION("integers are multiplied by 1000") {
    CHECK(ns("0") == 0);
    CHECK(ns("7") == 7000);
    CHECK(ns("-3") == -3000);
    CHECK(ns("+12") == 12000);
  }
  SECTION("epoch microseconds above 2^53 ns keep every digit") {
    // 1666149715033200 us = 1666149715033200000 ns; as a double it would round (2^53 ~ 9.0e15).
    CHECK(ns("1666149715033200") == 1666149715033200000);
    CHECK(ns("1666149715033201") == 1666149715033201000);
    // With a fraction: .123 us = 123 ns.
    CHECK(ns("1666149715033200.123") == 1666149715033200123);
  }
  SECTION("up to three decimals are exact") {
    CHECK(ns("12.5") == 12500);
    CHECK(ns("12.34") == 12340);
    CHECK(ns("12.345") == 12345);
    CHECK(ns(".5") == 500);
    CHECK(ns("3.") == 3000);
  }
  SECTION("more decimals round half away from zero on the fourth digit") {
    CHECK(ns("12.3454") == 12345);      // .3454 us = 345.4 ns -> 345
    CHECK(ns("12.3455") == 12346);      // 345.5 ns -> 346
    CHECK(ns("12.34549999") == 12345);  // 345.49999 ns -> 345
    CHECK(ns("0.0005") == 1);           // 0.5 ns -> 1
    CHECK(ns("1.9995") == 2000);        // 1999.5 ns -> 2000: the carry reaches the integer part
    CHECK(ns("-0.0005") == -1);         // away from zero
    CHECK(ns("-1.2346") == -1235);
  }
  SECTION("exponents are read through long double") {
    CHECK(ns("1.5e3") == 1500000);  // 1500 us
    CHECK(ns("2E-3") == 2);         // 0.002 us = 2 ns
  }
  SECTION("surrounding whitespace is ignored") {
    CHECK(ns(" 42 \n") == 42000);
    CHECK(ns("42\t\r") == 42000);
  }
  SECTION("what is not a number is rejected and the output left alone") {
    CHECK(rejects(""));
    CHECK(rejects("   "));
    CHECK(rejects("-"));
    CHECK(rejects("."));
    CHECK(rejects("-."));
    CHECK(rejects("abc"));
    CHECK(rejects("12abc"));
    CHECK(rejects("1.2.3"));
    CHECK(rejects("1e"));
    CHECK(rejects("1e400"));
    CHECK(rejects("null"));
  }
  SECTION("values beyond int64 nanoseconds are rejected") {
    // 4e15 us = 4e18 ns (the year 2096) is the largest accepted integer part, so that any two
    // times add or subtract inside int64 (decimal_time.h, kMaxAbsTimeNs).
    CHECK(ns("4000000000000000") == 4000000000000000000);
    CHECK(rejects("4000000000000001"));
    CHECK(rejects("9000000000000000"));
    CHECK(rejects("99999999999999999999999"));
  }
}
