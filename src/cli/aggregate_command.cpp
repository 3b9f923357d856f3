#include "cli/aggregate_command.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "cli/loaded_trace.h"
#include "cli/options.h"
#include "import/file_reader.h"
#include "import/foreign_file.h"
#include "timeline_query/aggregate.h"
#include "timeline_query/id_list.h"
#include "timeline_query/view_index.h"
#include "util/decimal_time.h"

namespace ks::cli {

using timeline_query::aggregate_json;
using timeline_query::aggregate_range;
using timeline_query::parse_typed_ids;
using timeline_query::ViewIndex;

namespace {

const char kAggregateUsage[] =
    "Usage: kinetoscope aggregate TRACE --from-us A --to-us B [--tracks 1,2,3]\n"
    "\n"
    "Per slice name, the slices that overlap [A, B) on the given tracks: count; total,\n"
    "self, avg, min, max of the whole slices; in_range and in_range_self, _avg, _min, _max\n"
    "of the slices clipped to [A, B) (the timeline's area selection table), as JSON.\n"
    "A and B are microseconds\n"
    "from the trace's first event; tracks are the timeline's track ids (default: all).\n";

int usage(const std::string& msg) {
  std::fprintf(stderr, "kinetoscope aggregate: %s\n\n%s", msg.c_str(), kAggregateUsage);
  return 2;
}

}  // namespace

int aggregate_command(const std::vector<std::string>& args) {
  std::string file;
  std::vector<TrackId> tracks;
  bool have_from = false, have_to = false, have_tracks = false;
  int64_t from = 0, to = 0;
  ArgWalker w(args);
  while (w.next()) {
    const std::string& a = w.arg();
    std::string v;
    if (w.flag({"-h", "--help"})) {
      std::fputs(kAggregateUsage, stdout);
      return 0;
    }
    if (w.value({"--from-us", "--to-us", "--tracks"}, &v)) {
      if (w.missing()) return usage(a + " needs a value");
      if (a == "--tracks") {
        std::string why;
        if (!parse_typed_ids(v, &tracks, &why)) return usage("--tracks: " + why);
        have_tracks = true;
        continue;
      }
      int64_t* dst = a == "--from-us" ? &from : &to;
      if (!parse_us_text_to_ns(v, dst)) {
        // A finite number parse_us_text_to_ns refuses is out of its range, not "not a number".
        char* end = nullptr;
        const double d = std::strtod(v.c_str(), &end);
        const bool number = !v.empty() && *end == '\0' && std::isfinite(d) &&
                            v.find_first_not_of("0123456789+-.eE") == std::string::npos;
        return usage(number ? "out of range: " + v + " (times are within +-4e15 us)"
                            : "not a number: " + v);
      }
      (a == "--from-us" ? have_from : have_to) = true;
    } else if (w.unknown_option()) {
      return usage("unknown option '" + a + "'");
    } else if (file.empty()) {
      file = a;
    } else {
      return usage("one trace at a time");
    }
  }
  if (file.empty()) return usage("no trace file given");
  if (!have_from || !have_to) return usage("--from-us and --to-us are required");
  ChromeJsonImporter importer;
  ImportError error;
  if (!import_file(file, &importer, &error)) {
    explain_foreign_file(file, &error);
    std::fputs(file_error_line(file, error.to_line()).c_str(), stderr);
    return 1;
  }
  ViewIndex index(importer.trace());
  if (!have_tracks) {
    for (TrackId t = 0; t < index.tracks().size(); ++t) tracks.push_back(t);
  }
  std::string out = aggregate_json(index, aggregate_range(index, from, to, tracks)) + "\n";
  return write_output(out, "") ? 0 : 1;
}

}  // namespace ks::cli
