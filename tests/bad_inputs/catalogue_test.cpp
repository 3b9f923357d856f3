// The bad-input catalogue (tests/bad_inputs/catalogue.json, table in docs/hardening.md) through
// the CLI's own import path (ks::import_file: zlib + the importer): for each file the exact error
// line, or every diagnostic with its count and byte offset and how many slices were kept. The big
// inputs are built here in memory (the same bytes generate.py --big writes for the CLI check).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <simdjson.h>

#include "helpers.h"
#include "import/file_reader.h"
#include "import/foreign_file.h"
#include "source_dir.h"

namespace {

// CPU seconds this process used: unlike wall time, not inflated by other work on the machine.
double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

const std::string kDir = ks_test::source_dir() + "/tests/bad_inputs/";

struct Expected {
  std::string file, source, error;
  int exit = 0;
  std::vector<std::string> diagnostics;  // "code count@offset"
  uint64_t slices = 0;
};

std::vector<Expected> catalogue() {
  std::vector<Expected> out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.load(kDir + "catalogue.json").get(doc)) return out;
  for (simdjson::dom::element row : doc.get_array()) {
    Expected e;
    std::string_view s;
    if (!row["file"].get(s)) e.file = std::string(s);
    e.source = !row["source"].get(s) ? std::string(s) : "small";
    if (!row["error"].get(s)) e.error = std::string(s);
    int64_t n = 0;
    if (!row["exit"].get(n)) e.exit = static_cast<int>(n);
    if (!row["slices"].get(n)) e.slices = static_cast<uint64_t>(n);
    simdjson::dom::array diags;
    if (!row["diagnostics"].get(diags)) {
      for (simdjson::dom::element d : diags) {
        std::string_view code;
        int64_t count = 0, offset = 0;
        if (d.at(0).get(code) || d.at(1).get(count) || d.at(2).get(offset)) continue;
        e.diagnostics.push_back(std::string(code) + " " + std::to_string(count) + "@" +
                                std::to_string(offset));
      }
    }
    out.push_back(e);
  }
  return out;
}

std::vector<std::string> diag_list(const ks::Diagnostics& d) {
  std::vector<std::string> out;
  for (int i = 0; i < static_cast<int>(ks::Diag::kCount); ++i) {
    const ks::DiagEntry& e = d.get(static_cast<ks::Diag>(i));
    if (e.count)
      out.push_back(std::string(ks::diag_info(static_cast<ks::Diag>(i)).code) + " " +
                    std::to_string(e.count) + "@" + std::to_string(e.first_offset));
  }
  return out;
}

const Expected* find(const std::vector<Expected>& all, const std::string& file) {
  for (const Expected& e : all)
    if (e.file == file) return &e;
  return nullptr;
}

void check_import(const Expected& want, const ks_test::ImportResult& got) {
  INFO(want.file);
  REQUIRE(got.ok == (want.exit == 0));
  if (!got.ok) {
    CHECK(got.error.to_line() == want.error);
    return;
  }
  CHECK(diag_list(got.trace->diagnostics) == want.diagnostics);
  CHECK(got.trace->slices.size() == want.slices);
}

}  // namespace

TEST_CASE("every small file of the bad-input catalogue gives its documented message",
          "[bad_inputs]") {
  const std::vector<Expected> all = catalogue();
  REQUIRE(all.size() >= 20);
  int checked = 0;
  for (const Expected& want : all) {
    std::string path = want.source == "small"    ? kDir + want.file
                       : want.source == "shared" ? ks_test::shared_trace_path(want.file)
                                                 : std::string();
    if (path.empty()) continue;
    if (want.source == "shared" && !std::ifstream(path)) {
      WARN("skipped " << want.file << ": ../shared/traces is absent");
      continue;
    }
    ks::ChromeJsonImporter importer;
    ks::ImportError error;
    ks_test::ImportResult got;
    got.ok = ks::import_file(path, &importer, &error);
    if (!got.ok) ks::explain_foreign_file(path, &error);  // as the CLI and the page do
    got.error = error;
    if (got.ok) got.trace = importer.take();
    check_import(want, got);
    ++checked;
  }
  CHECK(checked >= 20);
}

TEST_CASE("big bad inputs: deep nesting, a 10 MB name, an event above the cap", "[bad_inputs]") {
  const std::vector<Expected> all = catalogue();
  const std::string head =
      R"({"traceEvents":[{"ph":"X","name":"deep","ts":1,"dur":2,"pid":1,"tid":1,"args":{"a":)";
  std::string deep = head + std::string(100000, '[') + std::string(100000, ']') +
                     R"(}},{"ph":"X","name":"after","ts":5,"dur":1,"pid":1,"tid":1}]})";
  check_import(*find(all, "deep_nesting_100k.json"), ks_test::import_chunked(deep, 65536));

  std::string name(10 << 20, 'x');
  std::string big_name =
      R"({"traceEvents":[{"ph":"X","cat":"kernel","name":")" + name +
      R"(","ts":1,"dur":2,"pid":0,"tid":7,"args":{"stream":7,"device":0}},)" +
      R"({"ph":"X","cat":"kernel","name":"small","ts":5,"dur":1,"pid":0,"tid":7,"args":{"stream":7,"device":0}}]})";
  double t0 = cpu_seconds();
  auto got = ks_test::import_chunked(big_name, 1 << 20);
  check_import(*find(all, "string_10mb.json"), got);
  REQUIRE(got.ok);
  // The report of a trace whose kernel is named with 10 MB took minutes before names were cut.
  std::string report = ks_test::report_of(*got.trace);
  CHECK(report.size() < (size_t{2} << 20));
  CHECK(cpu_seconds() - t0 < 30.0);

  std::string over = R"({"traceEvents":[{"ph":"X","name":"kept","ts":1,"dur":2,"pid":1,"tid":1},)"
                     R"({"ph":"X","name":"huge","ts":3,"dur":1,"pid":1,"tid":1,"args":{"blob":")" +
                     std::string(size_t{65} << 20, 'y') +
                     R"("}},{"ph":"X","name":"kept_too","ts":9,"dur":1,"pid":1,"tid":1}]})";
  auto capped = ks_test::import_chunked(over, 1 << 20);
  check_import(*find(all, "event_over_cap.json"), capped);
  REQUIRE(capped.ok);
  // Which event was dropped is shown: the excerpt is its first 80 bytes.
  CHECK(capped.trace->diagnostics.get(ks::Diag::kEventTooLarge).excerpt ==
        std::string(
            R"({"ph":"X","name":"huge","ts":3,"dur":1,"pid":1,"tid":1,"args":{"blob":"yyyyyyyyy)"));
}

TEST_CASE("distinct phases and categories: the report lists the 100 most frequent of each",
          "[bad_inputs]") {
  // As generate.py's distinct_phases_categories, smaller: every distinct phase and category was
  // a key of the JSON report (50,000 of each: 102 MB), and the text header listed every phase.
  const int n = 2000;
  const std::string pad(1010, 'p');
  std::string json = "{\"traceEvents\":[";
  char num[32];
  for (int i = 0; i < n; ++i) {
    std::snprintf(num, sizeof(num), "%06d", i);
    json += "{\"ph\":\"" + pad + num +
            "\",\"name\":\"odd\",\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(i) + "},";
  }
  for (int i = 0; i < n; ++i) {
    std::snprintf(num, sizeof(num), "%06d", i);
    json += std::string(i ? "," : "") + "{\"ph\":\"X\",\"cat\":\"" + pad + num +
            "\",\"name\":\"op\",\"pid\":1,\"tid\":2,\"ts\":" + std::to_string(2 * i) +
            ",\"dur\":1}";
  }
  json += "]}";
  const auto got = ks_test::import_chunked(json, 1 << 16);
  REQUIRE(got.ok);
  ks::AnalysisOptions options;
  const ks::Report report = ks::build_report(*got.trace, options);
  const std::string out = ks::report_json(report);
  CHECK(out.size() < (size_t{512} << 10));  // 4.3 MB before
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(!parser.parse(out).get(doc));
  simdjson::dom::object phases, cats;
  REQUIRE(!doc["trace"]["events_by_phase"].get(phases));
  REQUIRE(!doc["trace"]["categories"].get(cats));
  CHECK(phases.size() == 100);
  CHECK(cats.size() == 100);
  // The most frequent first (X: n events; "(none)": the n events of unknown phase), then ties
  // in key order; the rest counted.
  CHECK(uint64_t(phases["X"]) == uint64_t(n));
  CHECK(uint64_t(cats["(none)"]) == uint64_t(n));
  CHECK(phases[pad + "000000"].error() == simdjson::SUCCESS);
  CHECK(phases[pad + "000099"].error() != simdjson::SUCCESS);
  for (const char* key : {"events_by_phase_omitted", "categories_omitted"}) {
    INFO(key);
    CHECK(uint64_t(doc["trace"][key]["keys"]) == uint64_t(n + 1 - 100));
    CHECK(uint64_t(doc["trace"][key]["events"]) == uint64_t(n + 1 - 100));
  }
  // The text header names the first 16 phases, each cut, and counts the rest.
  const std::string text = ks::report_text(report);
  CHECK(text.find(", and " + std::to_string(n + 1 - 16) + " more phases") != std::string::npos);
  CHECK(text.size() < (size_t{512} << 10));
}

TEST_CASE("millions of tiny events stream through in bounded time and memory", "[bad_inputs]") {
#if defined(__SANITIZE_ADDRESS__) || defined(KS_UNDER_SANITIZER)
  const uint64_t n = 1000000;  // the sanitizers make each event ~10x slower
#else
  const uint64_t n = 10000000;
#endif
  ks::ChromeJsonImporter importer;
  double t0 = cpu_seconds();
  std::string chunk = "{\"traceEvents\":[\n";
  char buf[128];
  for (uint64_t i = 0; i < n; ++i) {
    int len = std::snprintf(
        buf, sizeof(buf),
        "%s{\"ph\":\"X\",\"name\":\"e%d\",\"ts\":%llu,\"dur\":1,\"pid\":1,\"tid\":%d}",
        i ? ",\n" : "", static_cast<int>(i % 16), static_cast<unsigned long long>(i * 2),
        static_cast<int>(i % 4));
    chunk.append(buf, static_cast<size_t>(len));
    if (chunk.size() > (1 << 20)) {
      REQUIRE(importer.feed(chunk.data(), chunk.size()));
      chunk.clear();
    }
  }
  chunk += "\n]}\n";
  REQUIRE(importer.feed(chunk.data(), chunk.size()));
  REQUIRE(importer.finish());
  const ks::Trace& t = importer.trace();
  CHECK(t.slices.size() == n);
  CHECK(ks_test::dump_diagnostics(t.diagnostics).empty());
  ks::AnalysisOptions options;
  std::string report = ks::report_json(ks::build_report(t, options));
  double secs = cpu_seconds() - t0;
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  double rss_mb = static_cast<double>(ru.ru_maxrss) / 1024.0;
  WARN(n << " events imported and reported in " << secs << " s of CPU, peak RSS " << rss_mb
         << " MB");
  CHECK(secs < 120.0);
  CHECK(rss_mb < 3072.0);
}
