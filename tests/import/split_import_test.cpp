// Two importers on one file (importer.h start_part / apply_part, model/trace_part.h,
// split_point.h): the page's two-worker read must give exactly what one importer reading the whole
// file gives: the same model (string ids, tracks, slices with their byte ranges, flows, counters,
// instants), the same diagnostics (counts, first offsets, excerpts) and the same report. Checked on
// every shared trace at several split points, and at every possible split point of the bad-input
// catalogue and the fuzz regressions; a damaged part is refused without harm.
#include <algorithm>
#include <string>
#include <vector>

#include "corpus/shared_traces.h"
#include "helpers.h"
#include "import/chrome_json/split_point.h"
#include "model/trace_part.h"
#include "source_dir.h"

namespace {

constexpr size_t kChunk = 65521;  // not a power of two: events cross chunk ends everywhere

void feed_range(ks::ChromeJsonImporter* importer, const std::string& json, size_t from, size_t to) {
  for (size_t pos = from; pos < to; pos += kChunk)
    if (!importer->feed(json.data() + pos, std::min(kChunk, to - pos))) return;
}

template <typename T>
void dump_column(std::string* out, const char* what, const std::vector<T>& v) {
  *out += what;
  for (const T& x : v) *out += " " + std::to_string(static_cast<int64_t>(x));
  *out += "\n";
}

// Everything the report, the timeline and the details view read: the finalized model, string
// ids included (they must be the ids one importer gives), the diagnostics and the report.
std::string outcome(ks::ChromeJsonImporter* importer) {
  if (!importer->finish()) return "error: " + importer->error().to_line();
  const ks::Trace& t = importer->trace();
  std::string m = std::to_string(importer->events_read()) + " events\n";
  for (ks::StringId i = 0; i < t.strings.size(); ++i) m += std::string(t.str(i)) + "|";
  for (const ks::Process& p : t.processes)
    m += "\nprocess " + std::to_string(p.pid_text) + " " + p.name + " " + p.labels + " " +
         std::to_string(p.sort_index) + std::to_string(p.has_sort_index) +
         std::to_string(p.has_gpu_ops);
  for (const ks::Track& tr : t.tracks)
    m += "\ntrack " + std::to_string(tr.process) + " " + std::to_string(tr.tid_text) + " " +
         tr.name + " " + std::to_string(tr.sort_index) + std::to_string(tr.has_sort_index) +
         std::to_string(int(tr.kind)) + " " + std::to_string(tr.stream) + " " +
         std::to_string(tr.device) + std::to_string(tr.has_gpu_ops);
  m += "\n";
  const ks::SliceTable& s = t.slices;
  dump_column(&m, "ts", s.ts);
  dump_column(&m, "dur", s.dur);
  dump_column(&m, "track", s.track);
  dump_column(&m, "name", s.name);
  dump_column(&m, "cat", s.cat);
  dump_column(&m, "depth", s.depth);
  dump_column(&m, "parent", s.parent);
  dump_column(&m, "launch", s.launch_info);
  dump_column(&m, "offset", s.source.offsets());
  std::vector<uint32_t> lens(s.size());
  for (size_t i = 0; i < s.size(); ++i) lens[i] = s.byte_len(i);
  dump_column(&m, "len", lens);
  m += "stacks " + std::to_string(s.call_stacks.size()) + " collectives " +
       std::to_string(s.collective_args.size()) + "\n";
  for (size_t i = 0; i < s.size(); ++i)
    if (s.call_stack(static_cast<uint32_t>(i)) || s.collective(static_cast<uint32_t>(i)))
      m += std::to_string(i) + ":" + std::to_string(s.call_stack(static_cast<uint32_t>(i))) + " ";
  dump_column(&m, "flow ts", t.flows.ts);
  dump_column(&m, "flow track", t.flows.track);
  dump_column(&m, "flow id", t.flows.id);
  dump_column(&m, "counter process", t.counters.process);
  dump_column(&m, "counter series", t.counters.series);
  dump_column(&m, "instant track", t.instants.track);
  dump_column(&m, "instant name", t.instants.name);
  return m + ks_test::dump_diagnostics(t.diagnostics) + ks_test::report_of(t);
}

std::string whole_import(const std::string& json) {
  ks::ChromeJsonImporter importer;
  feed_range(&importer, json, 0, json.size());
  return outcome(&importer);
}

enum class Split { kTaken, kNotABoundary, kPartNotUsable };

// What the page does with two workers (web/worker/split.js): a guess at `from`, the part read from
// there by a second importer, the first fed up to it, checked, then given the part's log in pieces,
// then the rest. When the guess is not a boundary or the part cannot be used, the first reads on by
// itself.
std::string split_import_at(const std::string& json, size_t start, Split* how) {
  ks::ChromeJsonImporter first;
  ks::ChromeJsonImporter part;
  part.start_part(start);
  for (size_t pos = start; pos < json.size() && !part.part_ended() && !part.part_failed();
       pos += kChunk)
    part.feed(json.data() + pos, std::min(kChunk, json.size() - pos));
  const std::string bytes = part.take_part();

  feed_range(&first, json, 0, start);
  if (!first.at_part_boundary()) {
    *how = Split::kNotABoundary;
    CHECK(!first.apply_part(bytes.data(), bytes.size()));
  } else if (bytes.empty()) {
    *how = Split::kPartNotUsable;
    CHECK(!first.apply_part(bytes.data(), bytes.size()));
  } else {
    *how = Split::kTaken;
    REQUIRE(first.apply_part(bytes.data(), bytes.size()));
    REQUIRE(first.part_applied());
    // The part ended where the array ends: the first reads on from that byte.
    const size_t resume = first.resume_offset();
    REQUIRE(resume >= start);
    REQUIRE(resume <= json.size());
    feed_range(&first, json, resume, json.size());
    return outcome(&first);
  }
  feed_range(&first, json, start, json.size());
  return outcome(&first);
}

// The page's guess: the first candidate within 1 MiB of `from`.
size_t guess_start(const std::string& json, size_t from) {
  size_t at =
      ks::find_part_start(json.data() + from, std::min<size_t>(json.size() - from, 1 << 20));
  return at == std::string::npos ? at : from + at;
}

struct SplitCounts {
  int taken = 0, declined = 0;
};

SplitCounts check_split_imports(const std::string& path, const std::vector<double>& fractions) {
  SplitCounts counts;
  std::string json;
  INFO(path);
  if (!ks_test::read_file_maybe_gzip(path, &json)) return counts;  // damaged gzip: no JSON
  const std::string reference = whole_import(json);
  for (double f : fractions) {
    const size_t from = static_cast<size_t>(json.size() * f);
    if (from >= json.size()) continue;
    const size_t start = guess_start(json, from);
    if (start == std::string::npos) {
      ++counts.declined;
      continue;
    }
    INFO("part starts at byte " << start);
    Split how;
    CHECK(split_import_at(json, start, &how) == reference);
    (how == Split::kTaken ? counts.taken : counts.declined)++;
  }
  return counts;
}

// Small damaged inputs: a part starting at every candidate any guess can give.
void check_every_split(const std::string& path, SplitCounts* counts) {
  std::string json;
  INFO(path);
  if (!ks_test::read_file_maybe_gzip(path, &json) || json.size() > (16 << 10)) return;
  const std::string reference = whole_import(json);
  size_t last = std::string::npos;
  for (size_t from = 0; from < json.size(); ++from) {
    const size_t start = guess_start(json, from);
    if (start == std::string::npos) break;
    if (start == last) continue;
    last = start;
    INFO("part starts at byte " << start);
    Split how;
    CHECK(split_import_at(json, start, &how) == reference);
    (how == Split::kTaken ? counts->taken : counts->declined)++;
  }
}

// What the page does with N workers (web/worker/split.js readSplit): guesses near k/N, part k read
// from guess k up to guess k+1 by an importer of its own, the first fed up to guess 1, given part
// 1, resumed where it ended, given part 2 when that is where part 2 starts, and so on; a part it
// cannot take it reads itself. `taken` counts the parts merged.
std::string n_way_import(const std::string& json, int readers, int* taken) {
  std::vector<size_t> starts;
  for (int k = 1; k < readers; ++k) {
    const size_t from = json.size() * k / readers;
    if (!starts.empty() && from <= starts.back()) continue;
    const size_t at = guess_start(json, from);
    if (at != std::string::npos && (starts.empty() || at > starts.back())) starts.push_back(at);
  }
  std::vector<std::string> parts;
  for (size_t k = 0; k < starts.size(); ++k) {
    ks::ChromeJsonImporter part;
    part.start_part(starts[k], k + 1 < starts.size() ? starts[k + 1] : UINT64_MAX);
    for (size_t pos = starts[k]; pos < json.size() && !part.part_ended() && !part.part_failed();
         pos += kChunk)
      part.feed(json.data() + pos, std::min(kChunk, json.size() - pos));
    parts.push_back(part.take_part());
  }
  ks::ChromeJsonImporter first;
  size_t pos = 0;
  *taken = 0;
  for (size_t k = 0; k < starts.size(); ++k) {
    if (pos > starts[k]) continue;
    feed_range(&first, json, pos, starts[k]);
    pos = starts[k];
    if (first.at_part_boundary() && !parts[k].empty() &&
        first.apply_part(parts[k].data(), parts[k].size())) {
      pos = first.resume_offset();
      ++*taken;
    }
  }
  feed_range(&first, json, pos, json.size());
  return outcome(&first);
}

}  // namespace

TEST_CASE("split import: where a part may start", "[import][split]") {
  auto at = [](const std::string& s) { return ks::find_part_start(s.data(), s.size()); };
  // Kineto's layout: the guess is the next event after a line break.
  CHECK(at("\"X\", \"ts\": 1\n  },\n  {\n    \"ph\": \"X\"") == 20);
  // Braces and commas inside strings (after the line break) are not taken.
  CHECK(at("x\n \"a}, {b\", }, {") == 16);
  CHECK(at("x\n \"a\\\"}, {\"}\n") == std::string::npos);
  CHECK(at("no candidate here") == std::string::npos);
  // No line break at all (a one-line file): the separator alone, from the start, even where it
  // may be inside a string (a guess, checked before use).
  CHECK(at("{\"ph\":\"X\"},{\"ph\":\"B\"}") == 11);
  CHECK(at("ts\": 1}, {\"ph\"") == 9);
  CHECK(at("a}, {b\", 1}, {\"") == 4);
}

TEST_CASE("split import: two importers give what one gives", "[import][split][corpus]") {
  const std::vector<std::string> small = ks_test::damaged_inputs();
  REQUIRE(small.size() >= 20);
  SplitCounts damaged;
  for (const std::string& f : small) check_every_split(f, &damaged);
  WARN(damaged.taken << " splits of small damaged inputs taken over, " << damaged.declined
                     << " read on alone");
  CHECK(damaged.taken > 0);
  CHECK(damaged.declined > 0);
  SplitCounts planted;
  for (const char* dir : {"/examples/pathologies/cpu", "/examples/pathologies/gpu"})
    for (const std::string& f : ks_test::files_in(ks_test::source_dir() + dir))
      if (f.find(".json") != std::string::npos) {
        SplitCounts c = check_split_imports(f, {0.25, 0.6});
        planted.taken += c.taken, planted.declined += c.declined;
      }
  CHECK(planted.taken > 0);
  const std::vector<std::string> shared = ks_test::shared_trace_files();
  if (shared.empty()) {
    WARN("../shared/traces not found: split-import comparison on real traces skipped");
    return;
  }
  SplitCounts real;
  for (const std::string& f : shared) {
    SplitCounts c = check_split_imports(f, {0.1, 0.25, 0.5, 0.77, 0.97});
    real.taken += c.taken, real.declined += c.declined;
  }
  WARN(real.taken << " split imports of shared traces took the part over, " << real.declined
                  << " read on alone");
  // The page gains only if real traces split: most guesses must be taken.
  CHECK(real.taken * 10 >= (real.taken + real.declined) * 8);
}

// The helper writes its part into one string of exactly the encoding's size (a sizing pass
// first). Grown by appends, a 16 MB part's string was reallocated by doubling, and each new
// block was fresh memory: 2.3x the part's size in page faults in the helper (session 41,
// bench/split_node.mjs: 9,100 faults for a 16 MB part, now 4,000).
TEST_CASE("split import: a part is written into a string sized once", "[import][split]") {
  std::string json;
  REQUIRE(ks_test::read_file_maybe_gzip(
      ks_test::source_dir() + "/examples/pathologies/gpu/gpu_item_sync.pt.trace.json.gz", &json));
  const size_t start = guess_start(json, json.size() / 3);
  REQUIRE(start != std::string::npos);
  ks::ChromeJsonImporter part;
  part.start_part(start);
  part.feed(json.data() + start, json.size() - start);
  REQUIRE(part.part_ended());
  const std::string bytes = part.take_part();
  REQUIRE(bytes.size() > 4096);
  CHECK(bytes.capacity() == bytes.size());

  // encode_trace_part and append_trace_part write the same bytes, each growing its string once.
  ks::Trace t;
  ks::PartState st;
  REQUIRE(ks::decode_trace_part(bytes.data() + 18, bytes.size() - 18, &t, &st));
  const std::string encoded = ks::encode_trace_part(t, st);
  CHECK(encoded == bytes.substr(18));
  CHECK(encoded.capacity() == encoded.size());
  std::string behind = "header";
  behind.shrink_to_fit();
  ks::append_trace_part(t, st, &behind);
  CHECK(behind == "header" + encoded);
  CHECK(behind.capacity() == behind.size());
}

TEST_CASE("split import: a damaged part is refused and changes nothing", "[import][split]") {
  std::string json;
  REQUIRE(ks_test::read_file_maybe_gzip(
      ks_test::source_dir() + "/examples/pathologies/gpu/gpu_item_sync.pt.trace.json.gz", &json));
  const size_t start = guess_start(json, json.size() / 3);
  REQUIRE(start != std::string::npos);
  ks::ChromeJsonImporter part;
  part.start_part(start);
  part.feed(json.data() + start, json.size() - start);
  REQUIRE(part.part_ended());
  const std::string bytes = part.take_part();
  REQUIRE(!bytes.empty());
  Split how;
  const std::string reference = whole_import(json);
  REQUIRE(split_import_at(json, start, &how) == reference);
  REQUIRE(how == Split::kTaken);

  ks::ChromeJsonImporter first;
  feed_range(&first, json, 0, start);
  REQUIRE(first.at_part_boundary());
  // Every cut (under the sanitizers a read past the end would stop the test), and bytes that
  // are no part at all.
  int refused = 0;
  for (size_t cut = 0; cut < bytes.size(); cut += 1 + cut / 64) {
    refused += !first.apply_part(bytes.data(), cut);
    REQUIRE(!first.part_applied());
  }
  CHECK(refused > 100);
  const std::string junk(4096, '\xff');
  CHECK(!first.apply_part(junk.data(), junk.size()));
  // Flipped bytes may decode (a changed timestamp is still a part), but never to indexes
  // outside the part: a copy of the first importer takes each, and must not crash.
  for (size_t at = 0; at < bytes.size(); at += 1 + bytes.size() / 300) {
    std::string bad = bytes;
    bad[at] = static_cast<char>(bad[at] ^ 0x5a);
    ks::ChromeJsonImporter other;
    feed_range(&other, json, 0, start);
    if (other.apply_part(bad.data(), bad.size())) {
      if (other.resume_offset() <= json.size())
        feed_range(&other, json, other.resume_offset(), json.size());
      other.finish();
    }
  }
  // After all that, the untouched first importer still takes the real part.
  REQUIRE(first.apply_part(bytes.data(), bytes.size()));
  feed_range(&first, json, first.resume_offset(), json.size());
  CHECK(outcome(&first) == reference);
}

TEST_CASE("split import: N importers give what one gives", "[import][split][corpus]") {
  // The planted traces always; the shared traces when present. 2..8 readers, as the page uses
  // (one per core, at most 8); every report and model must be the one importer's.
  std::vector<std::string> files;
  for (const char* dir : {"/examples/pathologies/cpu", "/examples/pathologies/gpu"})
    for (const std::string& f : ks_test::files_in(ks_test::source_dir() + dir))
      if (f.find(".json") != std::string::npos) files.push_back(f);
  for (const std::string& f : ks_test::shared_trace_files()) files.push_back(f);
  int taken = 0, offered = 0;
  for (const std::string& f : files) {
    std::string json;
    INFO(f);
    if (!ks_test::read_file_maybe_gzip(f, &json)) continue;
    const std::string reference = whole_import(json);
    for (int readers : {3, 4, 8}) {
      INFO(readers << " readers");
      int t = 0;
      CHECK(n_way_import(json, readers, &t) == reference);
      taken += t;
      offered += readers - 1;
    }
  }
  WARN(taken << " of " << offered << " parts taken over");
  // Real traces split: most parts must be merged, or the page gains nothing.
  CHECK(taken * 10 >= offered * 7);
}

TEST_CASE("split import: a part with a stop ends at the next part's start", "[import][split]") {
  const std::string json =
      "{\"traceEvents\":[\n{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},\n"
      "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1},\n"
      "{\"ph\":\"X\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":1},\n"
      "{\"ph\":\"X\",\"name\":\"d\",\"pid\":1,\"tid\":1,\"ts\":4,\"dur\":1}\n]}";
  const size_t b = json.find("{\"ph\":\"X\",\"name\":\"b\"");
  const size_t d = json.find("{\"ph\":\"X\",\"name\":\"d\"");
  ks::ChromeJsonImporter part1, part2, first;
  part1.start_part(b, d);
  part1.feed(json.data() + b, json.size() - b);
  REQUIRE(part1.part_ended());
  part2.start_part(d);
  part2.feed(json.data() + d, json.size() - d);
  REQUIRE(part2.part_ended());
  const std::string p1 = part1.take_part(), p2 = part2.take_part();
  first.feed(json.data(), b);
  REQUIRE(first.apply_part(p1.data(), p1.size()));
  CHECK(first.resume_offset() == d);
  REQUIRE(first.at_part_boundary());
  REQUIRE(first.apply_part(p2.data(), p2.size()));
  const size_t end = first.resume_offset();
  CHECK(json[end] == ']');
  first.feed(json.data() + end, json.size() - end);
  int taken = 0;
  CHECK(outcome(&first) == whole_import(json));
  CHECK(n_way_import(json, 4, &taken) == whole_import(json));
}
