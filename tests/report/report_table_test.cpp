// The report's section model (src/report/report_table.h): one description of a table, three
// writers. What each writer must do with it: JSON in the columns' (schema) order with the
// omitted-row fields, text padded as printf would with prefixes, suffixes and the "N more"
// note, Markdown with an alignment row and trace names as inert code spans.
#include <catch2/catch.hpp>

#include "helpers.h"
#include "report/report_table.h"
#include "report/sections/sections.h"
#include "util/markdown.h"

using namespace ks_test;

namespace {

// A two-row table: a name, a time, a count with a suffix, a percent or a missing value.
ks::ReportSection sample() {
  ks::ReportSection s;
  s.key = "sample";
  s.field("count", ks::Cell::count(3));
  s.line("Sample: 3 rows");
  s.paragraph("## Sample\n\n");
  ks::Table& t = s.table();
  t.columns = {
      ks::Column("name").text("Name", ks::Show::kName).md("Name", ks::Show::kName).left(),
      ks::Column("total_us").text("Total", ks::Show::kUs, 8).md("Total (us)", ks::Show::kUs),
      ks::Column("calls")
          .text("Calls", ks::Show::kPlain, 5)
          .suffix(" x")
          .md("Calls", ks::Show::kPlain),
      ks::Column("pct").text("Pct", ks::Show::kPct, 6, 2).prefix("=").md("Pct", ks::Show::kPct),
      ks::Column(nullptr).md("Note", ks::Show::kPlain)};
  t.shown = {1, 2, 3, 0, 4};
  t.row() = {ks::Cell::str("gemm|`x`"), ks::Cell::ns(int64_t{1234567}), ks::Cell::count(7),
             ks::Cell::number(12.5), ks::Cell::str("md only")};
  t.row() = {ks::Cell::str("copy"), ks::Cell::ns(2500.0), ks::Cell::count(1), ks::Cell::null(),
             ks::Cell::str("")};
  t.omitted_rows = 1;
  t.omitted_ns = 999;
  t.text_rows = 1;
  t.md_rows = 1;
  t.text_more_note = true;
  return s;
}

}  // namespace

TEST_CASE("Section model: JSON keeps the schema's column order and says what it left out",
          "[report][report_table]") {
  ks::JsonWriter w;
  w.set_compact(true);
  w.begin_object();
  ks::write_section_json(w, sample());
  w.end_object();
  CHECK(w.str() ==
        R"({"sample":{"count":3,"rows":[{"name":"gemm|`x`","total_us":1234.567,"calls":7,)"
        R"("pct":12.50},{"name":"copy","total_us":2.500,"calls":1,"pct":null}],)"
        R"("omitted_rows":1,"omitted_total_us":0.999}})"
        "\n");
}

TEST_CASE("Section model: text pads like printf, shows its order and the rows left out",
          "[report][report_table]") {
  std::string out;
  ks::append_section_text(&out, sample());
  // printf("  %8s %5s x  =%6s %s"): the header without prefix or suffix, one row (text_rows),
  // then the 2 rows not shown (1 past text_rows + 1 omitted from every format).
  CHECK(out ==
        "Sample: 3 rows\n"
        "     Total Calls     Pct Name\n"
        "    1234.6     7 x  = 12.5% gemm|`x`\n"
        "  ... 2 more (see --format json)\n");
}

TEST_CASE("Section model: Markdown aligns numbers right and fences trace names",
          "[report][report_table]") {
  std::string out;
  ks::append_section_markdown(&out, sample());
  CHECK(out ==
        "## Sample\n\n"
        "| Total (us) | Calls | Pct | Name | Note |\n"
        "|---:|---:|---:|---|---:|\n"
        "| 1234.6 | 7 | 12.5% | " +
            ks::markdown_code_cell("gemm|`x`") + " | md only |\n\n");
  CHECK(out.find("| gemm|") == std::string::npos);  // the name's '|' cannot break the table
}

TEST_CASE("Kernels section on a real trace: 15 rows in text, 20 in Markdown, all in JSON",
          "[report][report_table][real]") {
  std::string json;
  const std::string path =
      shared_trace_path("kineto__resnet50_nw0__worker0.1623143089861.pt.trace.json.gz");
  if (!read_file_maybe_gzip(path, &json)) {
    WARN("shared trace not found, skipped: " << path);
    return;
  }
  std::unique_ptr<ks::Trace> t = load(json);
  REQUIRE(t);
  ks::Report r = ks::build_report(*t, ks::AnalysisOptions{});
  const size_t names = r.analyses.kernels.rows.size();
  REQUIRE(names > 20);
  ks::ReportSection s = ks::kernels_section(*t, r.analyses.kernels, r.analyses.launches);
  REQUIRE(s.tables.size() == 1);
  CHECK(s.tables[0].rows.size() == std::min(names, ks::kMaxTableRows));
  std::string text, md;
  ks::append_section_text(&text, s);
  ks::append_section_markdown(&md, s);
  CHECK(text.find("  ... " + std::to_string(names - 15) + " more (see --format json)\n") !=
        std::string::npos);
  size_t text_rows = 0, md_rows = 0;
  for (size_t p = text.find("\n  "); p != std::string::npos; p = text.find("\n  ", p + 1))
    ++text_rows;
  for (size_t p = md.find("\n| "); p != std::string::npos; p = md.find("\n| ", p + 1)) ++md_rows;
  CHECK(text_rows == 1 + 15 + 1);  // header, rows, the "more" note
  CHECK(md_rows == 1 + 20);        // header (the alignment row starts "|-"), rows
}

TEST_CASE("Section model: nested objects, keys left out, series and tables JSON does not list",
          "[report][report_table]") {
  ks::ReportSection s("nested");
  s.begin_object("parts");
  s.field("a_us", ks::Cell::ns(int64_t{1500}));
  s.field("gone", ks::Cell::absent());
  s.end_object();
  ks::Table& t = s.table("rows");
  t.columns = {ks::Column("id"),
               ks::Column("count").in("delay"),
               ks::Column("max_us").in("delay"),
               ks::Column("n").in("gaps", "host"),
               ks::Column("n").in("gaps", "other"),
               ks::Column("source").in("measured"),
               ks::Column("series")};
  const std::vector<std::array<int64_t, 2>> series = {{1000, 3}, {2500, 7}};
  t.row() = {ks::Cell::optional(-1),  ks::Cell::count(2), ks::Cell::ns(int64_t{40}),
             ks::Cell::count(5),      ks::Cell::count(6), ks::Cell::absent(),
             ks::Cell::pairs(&series)};
  ks::Table& md = s.table(nullptr);  // Markdown only
  md.columns = {ks::Column(nullptr).md("Part", ks::Show::kPlain).left(),
                ks::Column(nullptr).md("Share", ks::Show::kPct).null_as("n/a")};
  md.row() = {ks::Cell::str("kernel"), ks::Cell::null()};
  ks::JsonWriter w;
  w.set_compact(true);
  w.begin_object();
  ks::write_section_json(w, s);
  w.end_object();
  // "gone" and the absent `measured` object are left out; the paths open and close in order.
  CHECK(
      w.str() ==
      R"({"nested":{"parts":{"a_us":1.500},"rows":[{"id":null,"delay":{"count":2,"max_us":0.040},)"
      R"("gaps":{"host":{"n":5},"other":{"n":6}},"series":[[1.000,3],[2.500,7]]}]}})"
      "\n");
  std::string text, markdown;
  ks::append_section_text(&text, s);
  ks::append_section_markdown(&markdown, s);
  CHECK(text.empty());  // no column shows in text
  CHECK(markdown == "| Part | Share |\n|---|---:|\n| kernel | n/a |\n\n");
}

TEST_CASE("Section model: a section without a key writes its parts into the enclosing object",
          "[report][report_table]") {
  ks::ReportSection s(nullptr);
  s.line("Diagnostics:");
  ks::Table& t = s.table("diagnostics");
  t.columns = {ks::Column("code").text("", ks::Show::kPlain, 6).left(),
               ks::Column("count").text("", ks::Show::kPlain).prefix("x")};
  t.text_header = false;
  t.row() = {ks::Cell::str("bad"), ks::Cell::count(3)};
  ks::JsonWriter w;
  w.set_compact(true);
  w.begin_object();
  ks::write_section_json(w, s);
  w.end_object();
  CHECK(w.str() == R"({"diagnostics":[{"code":"bad","count":3}]})"
                   "\n");
  std::string text;
  ks::append_section_text(&text, s);
  CHECK(text == "Diagnostics:\n  bad    x3\n");
}
