// Shares in titles, evidence and the report's JSON (src/util/format.cpp, src/findings/finding.cpp,
// Cell::share): a share that is not all or nothing is never written as 100.0% or 0.0%, the way the
// page's glance writes it.
#include <catch2/catch.hpp>

#include "analysis/gpu_idle.h"
#include "analysis/graph_capture.h"
#include "findings/finding.h"
#include "report/report_table.h"
#include "report/sections/sections.h"
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

TEST_CASE("The report's JSON keeps a share that is not all or nothing off 100 and 0",
          "[report][format]") {
  // HTA simple_add: 16 µs of kernels in a long GPU span. JSON's 2 decimals wrote 100.00, and the
  // page's glance read a GPU that ran nothing.
  ks::GpuIdleResult g;
  g.has_gpu_ops = true;
  g.window_ns = 400'000'000;
  g.busy_ns = 16'000;
  g.idle_pct = 99.996;
  ks::JsonWriter w;
  w.set_compact(true);
  w.begin_object();
  ks::write_section_json(w, ks::gpu_section(g, ks::GraphCaptures{}));
  w.end_object();
  CHECK(w.str().find(R"("idle_pct":99.996)") != std::string::npos);
  // 2 decimals where they tell it already; all and nothing as they are.
  CHECK(ks::share_digits(42.123, 2) == 2);
  CHECK(ks::share_digits(0.004, 2) == 3);
  CHECK(ks::share_digits(100.0, 2) == 2);
  CHECK(ks::share_digits(0.0, 2) == 2);
  // Where the 2-decimal value would round to another one-decimal share than the true one (the
  // page formats the value it reads): cuda_event_sync's SM efficiency 0.0499 was "0.05", which
  // the page wrote 0.1% beside the text report's <0.1%.
  CHECK(ks::share_digits(0.0499, 2) == 4);
  CHECK(ks::share_digits(12.35001, 2) == 5);
  CHECK(ks::share_digits(12.34, 2) == 2);
}

TEST_CASE("Markdown evidence reads as the terminal's: durations and bytes with their units",
          "[report][markdown]") {
  // "- window_us: 846408.000 us" was what a pull request showed for an 846 ms window.
  ks::Finding f;
  f.id = "gpu.idle";
  f.title = "GPU idle";
  f.number("window_us", 846408.0, 3, "us");
  f.number("bytes", 16384, 0, "B");
  f.number("idle_pct", 27.4, 1, "%");
  f.number("gaps", 12);
  std::string text, md;
  const ks::ReportSection s = ks::findings_section(nullptr, {f}, "none");
  ks::append_section_text(&text, s);
  ks::append_section_markdown(&md, s);
  CHECK(text.find("window=846.41 ms, bytes=16.0 KiB, idle_pct=27.4%, gaps=12") !=
        std::string::npos);
  CHECK(md.find("- window: 846.41 ms\n- bytes: 16.0 KiB\n- idle_pct: 27.4%\n- gaps: 12\n") !=
        std::string::npos);
}
