// Names from a trace must render as inert text in GitHub-flavoured Markdown: a report pasted into
// a pull request must not load an attacker's image (a tracking pixel) or offer a link. The
// single, diff and multi-rank Markdown reports of a trace full of such names are rendered by
// Debian's cmark-gfm (with GitHub's extensions: tables, autolinks, tag filter) and the HTML must
// hold no <img> and no <a>. scripts/setup.sh installs cmark-gfm; without it the test fails.
#include <cstdio>
#include <fstream>
#include <string>

#include "analysis/multi_rank.h"
#include "analysis/rank_identity.h"
#include "analysis/trace_diff.h"
#include "helpers.h"
#include "report/multi_rank_report.h"
#include "report/trace_diff_report.h"
#include "util/markdown.h"

namespace {

// The names, as JSON string contents (already escaped where JSON needs it).
const char* const kHostile[] = {
    "![x](http://host.example/x.png)",
    "[click](javascript:alert(1))",
    "gemm`_![y](http://host.example/y.png)",
    "``a``![z](http://host.example/z.png)`",
    "`[ref]: http://host.example/r",
    "visit www.evil.example now",
    "mail me@evil.example",
    "https://evil.example/path?q=1",
    "<http://evil.example/auto>",
    "<img src=http://host.example/i.png>",
    "&lt;img src=x&gt; [a]&#40;http://host.example&#41;",
    "![w]\\n(http://host.example/w.png)",
    "x | ![t](http://host.example/t.png) | y",
};

std::string hostile_trace(const std::string& suffix) {
  std::string ev =
      R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100000},)"
      R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":100000,"dur":100000})";
  long long at = 10;
  int corr = 1;
  for (const char* raw : kHostile) {
    const std::string name = std::string(raw) + suffix;
    const std::string c = std::to_string(corr++);
    for (int step = 0; step < 2; ++step) {
      const long long ts = at + step * 100000;
      ev += R"(,{"ph":"X","cat":"cpu_op","name":")" + name + R"(","pid":1,"tid":1,"ts":)" +
            std::to_string(ts) + R"(,"dur":50})";
      ev += R"(,{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" +
            std::to_string(ts + 10) + R"(,"dur":5,"args":{"correlation":)" + c +
            std::to_string(step) + "}}";
      ev += R"(,{"ph":"X","cat":"kernel","name":")" + name + R"(","pid":0,"tid":7,"ts":)" +
            std::to_string(ts + 20) + R"(,"dur":)" + std::to_string(400 + at % 97) +
            R"(,"args":{"stream":7,"device":0,"correlation":)" + c + std::to_string(step) + "}}";
      ev += R"(,{"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoH )" + name +
            R"(","pid":0,"tid":7,"ts":)" + std::to_string(ts + 900) +
            R"(,"dur":30,"args":{"stream":7,"device":0,"bytes":64}})";
      ev += R"(,{"ph":"X","cat":"gpu_user_annotation","name":")" + name +
            R"(","pid":0,"tid":9,"ts":)" + std::to_string(ts + 15) + R"(,"dur":500})";
      ev +=
          R"(,{"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":1,"tid":1,"ts":)" +
          std::to_string(ts + 950) + R"(,"dur":40})";
    }
    at += 2000;
  }
  return std::string("{\"deviceProperties\":[{\"id\":0,\"name\":") +
         "\"![d](http://host.example/d.png)\"}],\"traceEvents\":[" + ev + "]}";
}

std::string render_gfm(const std::string& markdown) {
  const std::string path = "ks_markdown_inert_test.md";
  {
    std::ofstream out(path, std::ios::binary);
    out << markdown;
  }
  std::string html;
  FILE* p = popen(
      ("cmark-gfm -e table -e autolink -e tagfilter -e strikethrough " + path + " 2>&1").c_str(),
      "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) html.append(buf, n);
  const int rc = pclose(p);
  std::remove(path.c_str());
  INFO("cmark-gfm output: " << html.substr(0, 300));
  REQUIRE(rc == 0);  // missing? scripts/setup.sh installs Debian's cmark-gfm
  return html;
}

void check_inert(const std::string& markdown) {
  const std::string html = render_gfm(markdown);
  INFO(markdown);
  CHECK(html.find("<img") == std::string::npos);
  CHECK(html.find("<a ") == std::string::npos);
  CHECK(html.find("<a>") == std::string::npos);
  CHECK(html.find("href") == std::string::npos);
  // Every name survives as text: the hostile image markup is shown, not dropped.
  CHECK(html.find("![x](http://host.example/x.png)") != std::string::npos);
}

}  // namespace

TEST_CASE("Markdown code cells and text render inert in GFM", "[report][markdown]") {
  std::string md = "| a | b |\n|---|---|\n";
  for (const char* raw : kHostile) {
    std::string name = raw;
    for (size_t k; (k = name.find("\\n")) != std::string::npos;) name.replace(k, 2, "\n");
    md += "| " + ks::markdown_code_cell(name) + " | " + ks::markdown_text(name) + " |\n";
  }
  md += "\n" + ks::markdown_text("![p](http://host.example/p.png) me@evil.example") + "\n";
  check_inert(md);
  // A backtick in the name lengthens the fence instead of dropping the code span.
  CHECK(ks::markdown_code_cell("a`b") == "``a`b``");
  CHECK(ks::markdown_code_cell("`x") == "`` `x ``");
  CHECK(ks::markdown_code_cell("plain") == "`plain`");
}

TEST_CASE("Reports of a trace with hostile names render without images or links",
          "[report][markdown]") {
  std::unique_ptr<ks::Trace> base = ks_test::load(hostile_trace(""));
  std::unique_ptr<ks::Trace> test = ks_test::load(hostile_trace(" v2"));
  base->facts.source_name = "[f](http://host.example/f) ![g](http://host.example/g.png).json";
  test->facts.source_name = "rank-1 `x` www.evil.example.json";
  const ks::Report rb = ks::build_report(*base, {});
  const ks::Report rt = ks::build_report(*test, {});
  REQUIRE(rb.analyses.kernels.rows.size() >= 13);

  SECTION("the single report") {
    check_inert(ks::report_markdown(rb));
  }
  SECTION("the diff") {
    const ks::TraceDiff d =
        ks::diff_traces(ks::make_diff_digest(*base, rb.analyses, base->facts.source_name),
                        ks::make_diff_digest(*test, rt.analyses, test->facts.source_name));
    check_inert(ks::trace_diff_markdown(d));
  }
  SECTION("the ranks of one job") {
    std::vector<ks::RankDigest> digests = {
        ks::make_rank_digest(*base, rb.analyses, base->facts.source_name,
                             ks::identify_rank(*base, base->facts.source_name, 0)),
        ks::make_rank_digest(*test, rt.analyses, test->facts.source_name,
                             ks::identify_rank(*test, test->facts.source_name, 1))};
    const ks::MultiRankReport m = ks::combine_ranks(digests);
    check_inert(ks::multi_rank_markdown(m, {ks::report_markdown(rb), ks::report_markdown(rt)}));
  }
}
