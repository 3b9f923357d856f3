// libFuzzer target: any bytes as an Nsight Systems export, the way the CLI and the page read one:
// NsysDatabase::open over a ByteSource (the SQLite VFS), import_nsys, then build_report and every
// report writer, and every `nsys stats` report (kinetoscope stats) with its three writers. Whatever
// SQLite returns (damaged pages, odd schemas, NULLs, huge values), the importer must refuse with an
// error or produce a report; never crash, hang or leak. Seeds: the built exports
// (tests/nsys/make_exports.py --seeds), made by run_fuzz.sh.
#include <cstdlib>
#include <string>
#include <string_view>

#include "import/memory_byte_source.h"
#include "import/nsys_sqlite/nsys_database.h"
#include "import/nsys_sqlite/nsys_importer.h"
#include "report/report.h"
#include "stats/nsys_stats.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ks::MemoryByteSource source(std::string_view(reinterpret_cast<const char*>(data), size));
  ks::ImportError error;
  auto db = ks::NsysDatabase::open(&source, &error);
  if (!db) {
    if (error.ok() || ks::import_error_json(error).empty()) std::abort();
    return 0;
  }
  // The stats read the export's tables themselves: an error for a table they cannot read, never
  // a crash.
  std::vector<ks::StatsTable> tables;
  std::string stats_error;
  if (ks::run_nsys_stats(*db, ks::nsys_stats_report_names(), &tables, &stats_error) &&
      (ks::nsys_stats_json(tables).empty() || ks::nsys_stats_text(tables).empty()))
    std::abort();
  ks::NsysImportOptions options;
  options.source_name = "fuzz.sqlite";
  auto trace = ks::import_nsys(*db, options, &error);
  if (!trace) {
    if (error.ok() || ks::import_error_json(error).empty()) std::abort();
    return 0;
  }
  ks::Report report = ks::build_report(*trace, ks::AnalysisOptions{});
  if (ks::report_json(report).empty() || ks::report_text(report).empty() ||
      ks::report_markdown(report).empty())
    std::abort();
  return 0;
}
