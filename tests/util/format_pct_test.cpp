// Shares in titles and evidence (src/util/format.cpp, src/findings/finding.cpp): a share that is
// not all or nothing is never written as 100.0% or 0.0%, the way the page's glance writes it.
#include <catch2/catch.hpp>

#include "findings/finding.h"
#include "util/format.h"

TEST_CASE("format_pct never rounds a share inside (0, 100) to all or nothing", "[util][format]") {
  CHECK(ks::format_pct(99.99) == ">99.9%");  // 16 µs of kernels in a 109 ms GPU span
  CHECK(ks::format_pct(0.003) == "<0.1%");
  CHECK(ks::format_pct(100.0) == "100.0%");
  CHECK(ks::format_pct(0.0) == "0.0%");
  CHECK(ks::format_pct(99.94) == "99.9%");
  CHECK(ks::format_pct(0.05) == "0.1%");
  CHECK(ks::format_pct(30.25) == "30.2%");  // printf's tie to even, as the page's fixed() does
}

TEST_CASE("A share's evidence keeps the digits that show it is not all or nothing",
          "[findings][format]") {
  ks::Finding f;
  f.number("idle_pct", 99.99, 1, "%");
  f.number("tiny_pct", 0.003, 1, "%");
  f.number("almost_all_pct", 99.99999, 1, "%");
  f.number("whole_pct", 100.0, 1, "%");
  f.number("plain_pct", 30.2, 1, "%");
  f.number("not_a_share", 99.99, 1, "");
  REQUIRE(f.evidence.size() == 6);
  CHECK(f.evidence[0].digits == 2);
  CHECK(f.evidence[1].digits == 3);
  CHECK(f.evidence[2].digits == 5);
  CHECK(f.evidence[3].digits == 1);
  CHECK(f.evidence[4].digits == 1);
  CHECK(f.evidence[5].digits == 1);
}
