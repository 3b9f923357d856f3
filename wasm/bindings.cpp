// The WebAssembly boundary (Embind lives here and nowhere else). The worker owns one Session
// per file: it copies each chunk of decompressed JSON into the importer's buffer (feedBuffer,
// feedCommit); the report comes back as the same JSON text the CLI writes, so page and CLI cannot
// disagree.
#include <emscripten/bind.h>

#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "import/chrome_json/importer.h"
#include "import/chrome_json/split_point.h"
#include "report/diff_digest_json.h"
#include "report/multi_rank_report.h"
#include "report/rank_digest_json.h"
#include "report/report.h"
#include "report/trace_diff_report.h"
#include "timeline_session.h"

namespace {

// Running out of memory (hardening, docs/hardening.md "Limits"). The module may grow to 4 GB
// (-sMAXIMUM_MEMORY); past that malloc returns null, and with -fno-exceptions operator new would
// abort and the page would only see a crash. Instead each Session keeps a reserve; the first failed
// allocation gives it back (so the allocation is retried and succeeds), marks the session as out of
// memory, and feedBuffer()/feedCommit()/finish() stop it with a too_large error that suggests the
// CLI.
constexpr size_t kMemoryReserveBytes = size_t{32} << 20;
void* g_reserve = nullptr;
bool g_out_of_memory = false;

void on_out_of_memory() {
  g_out_of_memory = true;
  if (!g_reserve) std::abort();  // nothing left to give back: the worker reports a crash
  std::free(g_reserve);
  g_reserve = nullptr;
}

void arm_memory_reserve() {
  g_out_of_memory = false;
  if (!g_reserve) g_reserve = std::malloc(kMemoryReserveBytes);
  std::set_new_handler(on_out_of_memory);
}

class Session {
 public:
  Session() { arm_memory_reserve(); }

  void setSource(std::string name, bool gzip) {
    source_name_ = name;
    importer_.set_source(std::move(name), gzip);
  }
  void setStepRange(std::string name) {
    options_.step_range = std::move(name);
    report_.reset();  // as setDropLastStep: the next report*() call analyzes again
  }
  void setDropLastStep(bool drop) {
    options_.drop_last_step = drop;
    report_.reset();  // the next report*() call analyzes again with the new option
  }

  // Two workers on one file (importer.h; web/worker.js, "Two workers on one file"). The second
  // reads the event array from `offset` on into a model of its own ...
  void startPart(double offset) { importer_.start_part(static_cast<uint64_t>(offset)); }
  bool partEnded() const { return importer_.part_ended(); }
  bool partFailed() const { return g_out_of_memory || importer_.part_failed(); }
  // ... and hands it over as bytes: a view into WASM memory, valid until the Session is deleted
  // (the worker copies it out). Empty when the part cannot be merged.
  emscripten::val takePart() {
    part_ = importer_.take_part();
    return emscripten::val(emscripten::typed_memory_view(
        part_.size(), reinterpret_cast<const uint8_t*>(part_.data())));
  }
  // The first, fed the bytes before the part: merges it in, then reads on from resumeOffset().
  bool atPartBoundary() const { return importer_.at_part_boundary(); }
  bool applyPart(uintptr_t ptr, size_t len) {
    if (finished_ || g_out_of_memory) return false;
    bool ok = importer_.apply_part(reinterpret_cast<const char*>(ptr), len);
    return ok && !g_out_of_memory;
  }
  double resumeOffset() const { return static_cast<double>(importer_.resume_offset()); }

  // Input: the worker writes each chunk at the address feedBuffer() returns, straight into the
  // importer's buffer (0 when the session cannot take more), then calls feedCommit().
  uintptr_t feedBuffer(size_t len) {
    if (finished_ || g_out_of_memory) return 0;
    char* at = importer_.prepare_feed(len);
    return g_out_of_memory ? 0 : reinterpret_cast<uintptr_t>(at);
  }
  bool feedCommit(size_t len) {
    if (finished_ || g_out_of_memory) return false;
    return importer_.commit_feed(len) && !g_out_of_memory;
  }

  bool finish() {
    if (finished_) return ok_;
    finished_ = true;
    ok_ = !g_out_of_memory && importer_.error().ok() && importer_.finish() && !g_out_of_memory;
    if (ok_) trace_ = importer_.take();
    return ok_;
  }

  std::string errorJson() const {
    if (g_out_of_memory) return ks::import_error_json(out_of_memory_error());
    const ks::ImportError& e = importer_.error();
    return e.ok() ? std::string() : ks::import_error_json(e);
  }

  ks::ImportError out_of_memory_error() const {
    ks::ImportError e;
    e.code = ks::ImportErrorCode::kTooLarge;
    e.offset = importer_.bytes_read();
    e.message = "the trace does not fit in the 4 GB of memory a web page can use: " +
                std::to_string(importer_.bytes_read()) + " bytes of JSON (" +
                std::to_string(importer_.events_read()) +
                " events) were read before it ran out. The command line has no such limit: "
                "kinetoscope report " +
                (source_name_.empty() ? std::string("FILE") : source_name_);
    return e;
  }

  std::string progressJson() const {
    return "{\"bytes\":" + std::to_string(importer_.bytes_read()) +
           ",\"events\":" + std::to_string(importer_.events_read()) + "}";
  }

  std::string reportJson() {
    const ks::Report* r = report();
    std::string json = r ? ks::report_json(*r) : std::string();
    return g_out_of_memory ? std::string() : json;  // then errorJson() says why
  }

  // The CLI's `--format md` text for the same report (the page's Markdown export and "copy
  // findings" use it, so a pasted report is the CLI's byte for byte).
  std::string reportMarkdown() {
    const ks::Report* r = report();
    return r ? ks::report_markdown(*r) : std::string();
  }

  // What the multi-rank comparison needs from this rank (see combineRanks below). `loadIndex`
  // is the file's position among those dropped together: the rank when nothing better is known.
  std::string digestJson(size_t loadIndex) {
    const ks::Report* r = report();
    if (!r) return std::string();
    const std::string& file = trace_->facts.source_name;
    return ks::rank_digest_json(ks::make_rank_digest(*trace_, r->analyses, file,
                                                     ks::identify_rank(*trace_, file, loadIndex)));
  }

  // What the trace diff needs from this trace (see diffTraces below).
  std::string diffDigestJson() {
    const ks::Report* r = report();
    if (!r) return std::string();
    return ks::diff_digest_json(
        ks::make_diff_digest(*trace_, r->analyses, trace_->facts.source_name));
  }

  // The timeline (wasm/timeline_session.h), built on the first of these calls. Times are ns
  // relative to the trace's first event; id lists are "[1,2,3]" text.
  std::string trackLayoutJson() { return tl() ? tl()->trackLayoutJson() : std::string(); }
  emscripten::val queryViewport(double start, double end, double pixels, std::string tracks,
                                std::string counters) {
    return tl() ? tl()->queryViewport(start, end, pixels, tracks, counters)
                : emscripten::val::null();
  }
  std::string namesJson(std::string ids) { return tl() ? tl()->namesJson(ids) : "{}"; }
  std::string sliceDetailsJson(double slice) { return tl() ? tl()->sliceDetailsJson(slice) : "{}"; }
  std::string sliceNamesJson() { return tl() ? tl()->sliceNamesJson() : "[]"; }
  emscripten::val slicesWithNames(std::string ids) {
    return tl() ? tl()->slicesWithNames(ids) : emscripten::val::null();
  }
  std::string slicesAtOffsetsJson(std::string offsets) {
    return tl() ? tl()->slicesAtOffsetsJson(offsets) : "[]";
  }
  std::string sliceBriefJson(double slice) { return tl() ? tl()->briefJson(slice) : "null"; }
  std::string aggregateJson(double from, double to, std::string tracks) {
    return tl() ? tl()->aggregateJson(from, to, tracks) : "{}";
  }
  std::string flowsForSlice(double slice) { return tl() ? tl()->flowsForSlice(slice) : "{}"; }
  int sliceAt(double track, double depth, double t, double tolerance) {
    return tl() ? tl()->sliceAt(track, depth, t, tolerance) : -1;
  }

 private:
  const ks::Report* report() {
    if (!trace_) return nullptr;
    if (!report_) report_ = std::make_unique<ks::Report>(ks::build_report(*trace_, options_));
    return report_.get();
  }

  std::string source_name_;
  std::string part_;
  ks::ChromeJsonImporter importer_;
  ks::AnalysisOptions options_;
  std::unique_ptr<ks::Trace> trace_;
  std::unique_ptr<ks::Report> report_;  // built once, on the first report*() call
  bool finished_ = false;
  bool ok_ = false;
  // After trace_, so it is destroyed first (it refers to the trace).
  std::unique_ptr<ks_wasm::TimelineSession> timeline_;
  ks_wasm::TimelineSession* tl() {
    if (!trace_) return nullptr;
    if (!timeline_) timeline_ = std::make_unique<ks_wasm::TimelineSession>(*trace_);
    return timeline_.get();
  }
};

// Several ranks dropped together: each worker sends its rank's digest and report; one call
// combines them into the multi-rank report the CLI writes for the same files. Empty string when
// a digest cannot be read.
std::string combineRanks(const std::vector<std::string>& digests,
                         const std::vector<std::string>& reports) {
  std::vector<ks::RankDigest> parsed(digests.size());
  for (size_t i = 0; i < digests.size(); ++i)
    if (!ks::parse_rank_digest_json(digests[i], &parsed[i])) return std::string();
  return ks::multi_rank_json(ks::combine_ranks(parsed), reports);
}

// The same, as the CLI's `--format md` writes it: `reports` are the ranks' reportMarkdown().
std::string combineRanksMarkdown(const std::vector<std::string>& digests,
                                 const std::vector<std::string>& reports) {
  std::vector<ks::RankDigest> parsed(digests.size());
  for (size_t i = 0; i < digests.size(); ++i)
    if (!ks::parse_rank_digest_json(digests[i], &parsed[i])) return std::string();
  return ks::multi_rank_markdown(ks::combine_ranks(parsed), reports);
}

// Two traces compared (BASE, TEST): each worker sends its trace's diffDigestJson(); this writes
// the report `kinetoscope diff BASE TEST --format FORMAT` writes ("json", "md" or "text").
// Empty string when a digest cannot be read.
std::string diffTraces(const std::string& base, const std::string& test,
                       const std::string& format) {
  ks::DiffDigest b, t;
  if (!ks::parse_diff_digest_json(base, &b) || !ks::parse_diff_digest_json(test, &t))
    return std::string();
  ks::TraceDiff d = ks::diff_traces(b, t);
  return format == "md"     ? ks::trace_diff_markdown(d)
         : format == "text" ? ks::trace_diff_text(d)
                            : ks::trace_diff_json(d);
}

// Where a second worker may start reading the event array (split_point.h): the offset of the
// guess within the `len` bytes at `ptr`, or -1.
double findPartStart(uintptr_t ptr, size_t len) {
  size_t at = ks::find_part_start(reinterpret_cast<const char*>(ptr), len);
  return at == std::string::npos ? -1 : static_cast<double>(at);
}

}  // namespace

EMSCRIPTEN_BINDINGS(kinetoscope) {
  emscripten::function("findPartStart", &findPartStart);
  emscripten::register_vector<std::string>("StringList");
  emscripten::function("combineRanks", &combineRanks);
  emscripten::function("combineRanksMarkdown", &combineRanksMarkdown);
  emscripten::function("diffTraces", &diffTraces);
  emscripten::class_<Session>("Session")
      .constructor<>()
      .function("setSource", &Session::setSource)
      .function("setDropLastStep", &Session::setDropLastStep)
      .function("setStepRange", &Session::setStepRange)
      .function("feedBuffer", &Session::feedBuffer)
      .function("feedCommit", &Session::feedCommit)
      .function("startPart", &Session::startPart)
      .function("partEnded", &Session::partEnded)
      .function("partFailed", &Session::partFailed)
      .function("takePart", &Session::takePart)
      .function("atPartBoundary", &Session::atPartBoundary)
      .function("applyPart", &Session::applyPart)
      .function("resumeOffset", &Session::resumeOffset)
      .function("finish", &Session::finish)
      .function("errorJson", &Session::errorJson)
      .function("progressJson", &Session::progressJson)
      .function("reportJson", &Session::reportJson)
      .function("reportMarkdown", &Session::reportMarkdown)
      .function("digestJson", &Session::digestJson)
      .function("diffDigestJson", &Session::diffDigestJson)
      .function("trackLayoutJson", &Session::trackLayoutJson)
      .function("queryViewport", &Session::queryViewport)
      .function("namesJson", &Session::namesJson)
      .function("sliceDetailsJson", &Session::sliceDetailsJson)
      .function("sliceNamesJson", &Session::sliceNamesJson)
      .function("slicesWithNames", &Session::slicesWithNames)
      .function("slicesAtOffsetsJson", &Session::slicesAtOffsetsJson)
      .function("sliceBriefJson", &Session::sliceBriefJson)
      .function("aggregateJson", &Session::aggregateJson)
      .function("flowsForSlice", &Session::flowsForSlice)
      .function("sliceAt", &Session::sliceAt);
  emscripten::constant("version", std::string(ks::kVersion));
}
