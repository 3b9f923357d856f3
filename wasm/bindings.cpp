// The WebAssembly boundary (Embind lives here and nowhere else). The worker owns one Session
// per file: it copies each chunk of decompressed JSON into the importer's buffer (feedBuffer,
// feedCommit), or, for an Nsight Systems SQLite export, lets SQLite pull the pages it needs from
// the browser's File (importSqlite, file_source.h); the report comes back as the same JSON text
// the CLI writes, so page and CLI cannot disagree.
#include <emscripten/bind.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "analysis/merged_ranks.h"
#include "analysis/rank_identity.h"
#include "file_source.h"
#include "heap_prefault.h"
#include "import/block_cache_source.h"
#include "import/chrome_json/importer.h"
#include "import/chrome_json/split_point.h"
#include "import/foreign_file.h"
#include "import/nsys_sqlite/nsys_database.h"
#include "import/nsys_sqlite/nsys_importer.h"
#include "report/critical_path_report.h"
#include "report/diff_digest_json.h"
#include "report/multi_rank_report.h"
#include "report/rank_digest_json.h"
#include "report/report.h"
#include "report/trace_diff_report.h"
#include "stats/nsys_stats.h"
#include "timeline_session.h"
#include "util/json_writer.h"

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
  // The gzip stream ended early after `compressed` bytes (web/worker.js, gunzip()): the trace is
  // what was decoded before the cut, with a diagnostic, as in the CLI (importer.h).
  void setGzipCut(double compressed) { importer_.set_gzip_cut(static_cast<uint64_t>(compressed)); }
  // The gzip data ends at byte `at` and `ignored` bytes that are not gzip follow (gunzip()).
  void setGzipTrailing(double at, double ignored) {
    importer_.set_gzip_trailing(static_cast<uint64_t>(at), static_cast<uint64_t>(ignored));
  }
  // The JSON's whole size, after the page's first projection (web/worker/job.js): the model's
  // columns reserved for the rest (ChromeJsonImporter::reserve_for_total).
  void reserveForTotal(double json_bytes) {
    importer_.reserve_for_total(static_cast<uint64_t>(json_bytes));
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
  // stop < 0: the part reads to the end of the event array; else up to the next part's start.
  void startPart(double offset, double stop) {
    importer_.start_part(static_cast<uint64_t>(offset),
                         stop < 0 ? UINT64_MAX : static_cast<uint64_t>(stop));
  }
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
    if (ok_ && merged_rank_ >= 0) {
      // One rank of a file holding several (setMergedRank): its part, as the CLI splits it. The
      // page named the trace "FILE pid P" (web/ranks/mode.js); the part's notes name the file as
      // the CLI's do ("Counted over the whole file FILE"), so the split sees FILE alone.
      const std::string named = trace_->facts.source_name;
      const size_t pid_at = named.rfind(" pid ");
      if (pid_at != std::string::npos) trace_->facts.source_name = named.substr(0, pid_at);
      std::unique_ptr<ks::Trace> part = ks::merged_rank_part(*trace_, merged_rank_);
      if (part) {
        part->facts.source_name = named;
        trace_ = std::move(part);
      }
      ok_ = !g_out_of_memory;
    }
    return ok_;
  }
  // Before finish(): keep only rank `rank` of the ranks merged into this JSON file (two nodes'
  // traces on one GPU pid: analysis/merged_ranks.h), in gpuProcessesJson's order.
  void setMergedRank(int rank) { merged_rank_ = rank; }

  // An Nsight Systems export (`nsys export --type sqlite`) of `size` bytes, read through the
  // worker's read function for `fileId` (file_source.h) instead of feedBuffer/feedCommit. After it
  // succeeds every method below works as for a JSON trace, and statsJson() too. The database stays
  // open (statsJson reads it), so the worker keeps the File readable while the Session lives.
  bool importSqlite(double size, int fileId) {
    if (finished_) return ok_;
    finished_ = true;
    file_ = std::make_unique<ks_wasm::JsFileSource>(static_cast<uint64_t>(size), fileId);
    cache_ = std::make_unique<ks::BlockCacheSource>(file_.get());
    db_ = ks::NsysDatabase::open(cache_.get(), &sqlite_error_);
    if (db_ && !g_out_of_memory && too_large_export()) return ok_ = false;
    if (db_ && !g_out_of_memory) {
      ks::NsysImportOptions options;
      options.source_name = source_name_;
      options.only_pid = only_pid_;
      options.gpu_processes = &gpu_processes_;
      // A rank: the plan tells its helpers and the GPUs it shares (one scan of the GPU tables,
      // as the CLI's plan comes from its whole-export read, which this Session did not make).
      ks::NsysRankPlan plan;
      if (only_pid_ >= 0) {
        plan = ks::nsys_rank_plan(ks::nsys_gpu_processes(*db_));
        options.plan = &plan;
      }
      trace_ = ks::import_nsys(*db_, options, &sqlite_error_);
      gpu_processes_read_ = trace_ && only_pid_ < 0;
    }
    ok_ = trace_ && !g_out_of_memory;
    if (!ok_) trace_.reset();
    if (ok_ && only_pid_ >= 0) {
      // One process of several, as import_nsys_file_by_process (nsys_file.cpp) marks it for the
      // CLI: its place among the export's GPU processes is its rank.
      ks::DistributedInfo& d = trace_->distributed;
      d.present = true;
      d.from_environment = true;
      d.rank = process_rank_;
      d.world_size = process_count_;
    }
    return ok_;
  }
  // Before importSqlite: read only process `pid`, rank `rank` of `count` GPU processes (the
  // order gpuProcessesJson gives), as `kinetoscope report FILE.sqlite` reads each rank.
  void setNsysProcess(double pid, int rank, int count) {
    only_pid_ = static_cast<int64_t>(pid);
    process_rank_ = rank;
    process_count_ = count;
  }
  // After importSqlite: the export's ranks (nsys_rank_plan: helpers folded into the rank of their
  // GPU), lowest GPU first (the CLI's rank order): [{"pid": P, "device": D}, ...]; two or more
  // are read as ranks, each with setNsysProcess(P, its place, their count). Fewer than two, or
  // more than kMaxExportRanks: none, and the export is one trace.
  // A JSON file: the ranks merged into it, [{"pid": "P", "merged": true}, ...] (none: one trace).
  std::string gpuProcessesJson() const {
    if (!db_) return mergedRanksJson();
    const ks::NsysRankPlan plan =
        ks::nsys_rank_plan(gpu_processes_read_ ? gpu_processes_ : ks::nsys_gpu_processes(*db_));
    std::string out = "[";
    for (const ks::NsysRank& r : plan.ranks) {
      if (out.size() > 1) out += ",";
      out += "{\"pid\":" + std::to_string(r.pid) + ",\"device\":" + std::to_string(r.device) + "}";
    }
    return out + "]";
  }
  std::string mergedRanksJson() const {
    if (!trace_ || merged_rank_ >= 0) return "[]";
    const std::vector<std::string> pids = ks::merged_rank_pids(*trace_);
    std::string out = "[";
    for (const std::string& pid : pids) {
      if (out.size() > 1) out += ",";
      out += "{\"pid\":";
      ks::append_json_escaped(&out, pid);
      out += ",\"merged\":true}";
    }
    return out + "]";
  }
  // An export whose model cannot fit the 4 GB a page's WASM may use is refused before it is read
  // (as worker.js projects a JSON trace's events after its first 16 MB), not minutes later when
  // memory runs out. The events are estimated from the event tables' largest rowid (exports are
  // written once, so rowids are 1..rows; max(rowid) is one B-tree descent, not a scan) at
  // kModelBytesPerNsysEvent each: measured 2.75 GB of WASM heap (127 bytes per event) for
  // 21,602,832 events of the real CloverLeaf mix, report and stats tables (docs/performance.md,
  // "Nsight Systems exports"), with ~10% to spare; 220 before the import reserved its columns.
  static constexpr uint64_t kModelBytesPerNsysEvent = 140;
  static constexpr uint64_t kWasmMaxBytes = uint64_t{4} << 30;
  // Only files of kProbeFromBytes or more are probed: a smaller one cannot hold that many rows
  // (~20 bytes a row at the least), and the probe fills SQLite's page cache, which would change
  // the "last page read" a damaged file's error names (the CLI's, byte for byte, below that size).
  static constexpr uint64_t kProbeFromBytes = uint64_t{256} << 20;
  bool too_large_export() {
    if (file_->size() < kProbeFromBytes) return false;
    // Every table the importer turns into rows of the model, with the share of an event's cost
    // its row takes: GPU metrics samples are counters (~35 bytes, a quarter), CUDA event records
    // only a lookup while reading (a quarter too); the others are slices or instants.
    static const struct {
      const char* table;
      uint64_t quarters;
    } kTables[] = {{"CUPTI_ACTIVITY_KIND_RUNTIME", 4},
                   {"CUPTI_ACTIVITY_KIND_KERNEL", 4},
                   {"CUPTI_ACTIVITY_KIND_GRAPH_TRACE", 4},
                   {"CUPTI_ACTIVITY_KIND_MEMCPY", 4},
                   {"CUPTI_ACTIVITY_KIND_MEMSET", 4},
                   {"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", 4},
                   {"CUDA_GPU_MEMORY_USAGE_EVENTS", 4},
                   {"NVTX_EVENTS", 4},
                   {"OSRT_API", 4},
                   {"PROFILER_OVERHEAD", 4},
                   {"CUDNN_EVENTS", 4},
                   {"CUBLAS_EVENTS", 4},
                   {"MPI_P2P_EVENTS", 4},
                   {"MPI_COLLECTIVES_EVENTS", 4},
                   {"MPI_START_WAIT_EVENTS", 4},
                   {"MPI_OTHER_EVENTS", 4},
                   {"GPU_METRICS", 1},
                   {"CUPTI_ACTIVITY_KIND_CUDA_EVENT", 1}};
    uint64_t rows = 0, quarters = 0;
    for (const auto& t : kTables) {
      if (!db_->has_table(t.table)) continue;
      sqlite3_stmt* st = nullptr;
      const std::string sql = std::string("SELECT max(rowid) FROM \"") + t.table + "\"";
      if (sqlite3_prepare_v2(db_->handle(), sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
          sqlite3_step(st) == SQLITE_ROW) {
        const auto n =
            static_cast<uint64_t>(std::max<sqlite3_int64>(0, sqlite3_column_int64(st, 0)));
        const uint64_t bounded = std::min<uint64_t>(n, file_->size());  // a hostile rowid
        rows += bounded;
        quarters += bounded * t.quarters;
      }
      sqlite3_finalize(st);  // a failure here is the importer's to report, with its context
    }
    const uint64_t need = quarters / 4 * kModelBytesPerNsysEvent;
    if (need <= kWasmMaxBytes) return false;
    sqlite_error_.code = ks::ImportErrorCode::kTooLarge;
    sqlite_error_.offset = 0;
    char gb[32];
    std::snprintf(gb, sizeof gb, "%.1f", static_cast<double>(need) / (uint64_t{1} << 30));
    sqlite_error_.message =
        "the export holds about " + std::to_string((rows + 500000) / 1000000) +
        " million events (its event tables' row counts), whose analysis would need about " + gb +
        " GB: more than the 4 GB of memory a web page can use. The command line has no such "
        "limit: kinetoscope report " +
        (source_name_.empty() ? std::string("FILE") : source_name_);
    return true;
  }

  // Reads of the file so far: {"calls": reads of the File, "bytes": their bytes, "reads": SQLite's
  // reads (pages)}. What the block cache saves is reads/calls.
  std::string sqliteReadsJson() const {
    if (!cache_) return "{}";
    return "{\"calls\":" + std::to_string(cache_->inner_reads()) +
           ",\"bytes\":" + std::to_string(cache_->inner_bytes()) +
           ",\"reads\":" + std::to_string(cache_->reads()) + "}";
  }

  // The `nsys stats` reports (src/stats/nsys_stats.h) of the export, as `kinetoscope stats
  // --format json` writes them: `reports` is a comma-separated list of names, empty for nsys's
  // default set. An unknown name gives {"error":{"code":"unknown_report","message":...}}.
  std::string statsJson(std::string reports) { return statsJsonFirstRows(reports, 0); }

  // The same with each table's first `max_rows` rows (0: all) and `omitted_rows` for the rest:
  // the page's tables (cuda_gpu_trace has a row per GPU op, millions in a long capture).
  std::string statsJsonFirstRows(std::string reports, double max_rows) {
    if (!db_) return error_object("not_nsys", "stats need an Nsight Systems export");
    std::vector<std::string> names;
    for (size_t at = 0; at <= reports.size() && !reports.empty();) {
      size_t comma = reports.find(',', at);
      if (comma == std::string::npos) comma = reports.size();
      if (comma > at) names.push_back(reports.substr(at, comma - at));
      at = comma + 1;
    }
    if (names.empty()) names = ks::nsys_stats_default_reports();
    std::vector<ks::StatsTable> tables;
    std::string error;
    const auto cap = static_cast<size_t>(std::max(0.0, max_rows));
    // The traces keep only their first `cap` rows while they read (a row per GPU op or call:
    // millions, gigabytes as cells); the other tables are cut here.
    if (!ks::run_nsys_stats(*db_, names, &tables, &error, cap))
      return error_object("unknown_report", error);
    for (ks::StatsTable& t : tables) {
      if (cap == 0 || t.rows.size() <= cap) continue;
      t.omitted_rows = t.rows.size() - cap;
      t.rows.resize(cap);
    }
    std::string json = ks::nsys_stats_json(tables);
    return g_out_of_memory ? error_object("too_large", "the stats ran out of memory") : json;
  }

  std::string errorJson() const {
    if (g_out_of_memory && sqlite_error_.ok()) return ks::import_error_json(out_of_memory_error());
    ks::ImportError e = sqlite_error_.ok() ? importer_.error() : sqlite_error_;
    if (e.ok()) return std::string();
    ks::explain_foreign_file(source_name_, &e);  // a .nsys-rep says how to export it, as the CLI
    return ks::import_error_json(e);
  }

  static std::string error_object(const char* code, const std::string& message) {
    ks::JsonWriter w;
    w.begin_object().key("error").begin_object();
    w.field("code", code).field("message", std::string_view(message));
    w.end_object().end_object();
    return w.take();
  }

  ks::ImportError out_of_memory_error() const {
    ks::ImportError e;
    e.code = ks::ImportErrorCode::kTooLarge;
    if (db_) {
      e.message =
          "the Nsight Systems export's model does not fit in the 4 GB of memory a web page "
          "can use. The command line has no such limit: kinetoscope report " +
          (source_name_.empty() ? std::string("FILE") : source_name_);
      return e;
    }
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
    const ks::RankIdentity id =
        only_pid_ >= 0      ? ks::RankIdentity{process_rank_, ks::RankSource::kExportProcess}
        : merged_rank_ >= 0 ? ks::RankIdentity{merged_rank_, ks::RankSource::kFileProcess}
                            : ks::identify_rank(*trace_, file, loadIndex);
    return ks::rank_digest_json(ks::make_rank_digest(*trace_, r->analyses, file, id));
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
  emscripten::val slicesWithIds(std::string ids) {
    return tl() ? tl()->slicesWithIds(ids) : emscripten::val::null();
  }
  // The critical path (src/analysis/critical_path.h) as `kinetoscope critical-path --format json`
  // writes it, with every edge: of the report's window when `annotation` is "" and `whole` false
  // (computed once, with the report), else of that window.
  std::string criticalPathJson(std::string annotation, double instance, bool whole) {
    const ks::Report* r = report();
    if (!r) return "{}";
    if (annotation.empty() && !whole)
      return ks::critical_path_json(*trace_, r->analyses.critical_path);
    ks::CriticalPathOptions o;
    o.annotation = annotation;
    o.instance = instance >= 0 ? static_cast<int64_t>(instance) : 0;
    o.whole_trace = whole;
    return ks::critical_path_json(*trace_, ks::critical_path(*trace_, r->analyses.join, o));
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
  int64_t only_pid_ = -1;  // setNsysProcess: one process of an export, else all
  int merged_rank_ = -1;   // setMergedRank: one rank of a JSON file holding several, else all
  // The GPU processes the import saw, when it read them all (gpuProcessesJson needs no scan then).
  std::vector<ks::NsysGpuProcess> gpu_processes_;
  bool gpu_processes_read_ = false;
  int64_t process_rank_ = 0;
  int64_t process_count_ = 0;
  std::string part_;
  // An Nsight Systems export: the File, the block cache over it, the open database (in this
  // order: each refers to the one before it, and is destroyed first).
  std::unique_ptr<ks_wasm::JsFileSource> file_;
  std::unique_ptr<ks::BlockCacheSource> cache_;
  std::unique_ptr<ks::NsysDatabase> db_;
  ks::ImportError sqlite_error_;
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

// Whether `len` bytes at `ptr` start an SQLite database ("SQLite format 3\0").
bool isSqliteHeader(uintptr_t ptr, size_t len) {
  return ks::is_sqlite_header(reinterpret_cast<const char*>(ptr), len);
}

// web/worker/prefault.js: the page faults of the memory the allocator hands out next, taken while
// the worker waits for the file (heap_prefault.h); doubles, as the heap may pass 2 GB.
double prefaultHeap(double bytes) {
  return static_cast<double>(ks_wasm::prefault_heap(static_cast<size_t>(bytes)));
}
double heapFreeBytes() {
  return static_cast<double>(ks_wasm::heap_free_bytes());
}

}  // namespace

EMSCRIPTEN_BINDINGS(kinetoscope) {
  emscripten::function("prefaultHeap", &prefaultHeap);
  emscripten::function("heapFreeBytes", &heapFreeBytes);
  emscripten::function("findPartStart", &findPartStart);
  emscripten::function("isSqliteHeader", &isSqliteHeader);
  emscripten::register_vector<std::string>("StringList");
  emscripten::function("combineRanks", &combineRanks);
  emscripten::function("combineRanksMarkdown", &combineRanksMarkdown);
  emscripten::function("diffTraces", &diffTraces);
  emscripten::class_<Session>("Session")
      .constructor<>()
      .function("setSource", &Session::setSource)
      .function("setDropLastStep", &Session::setDropLastStep)
      .function("setGzipCut", &Session::setGzipCut)
      .function("setGzipTrailing", &Session::setGzipTrailing)
      .function("reserveForTotal", &Session::reserveForTotal)
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
      .function("importSqlite", &Session::importSqlite)
      .function("setMergedRank", &Session::setMergedRank)
      .function("setNsysProcess", &Session::setNsysProcess)
      .function("gpuProcessesJson", &Session::gpuProcessesJson)
      .function("sqliteReadsJson", &Session::sqliteReadsJson)
      .function("statsJson", &Session::statsJson)
      .function("statsJsonFirstRows", &Session::statsJsonFirstRows)
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
      .function("slicesWithIds", &Session::slicesWithIds)
      .function("criticalPathJson", &Session::criticalPathJson)
      .function("slicesAtOffsetsJson", &Session::slicesAtOffsetsJson)
      .function("sliceBriefJson", &Session::sliceBriefJson)
      .function("aggregateJson", &Session::aggregateJson)
      .function("flowsForSlice", &Session::flowsForSlice)
      .function("sliceAt", &Session::sliceAt);
  emscripten::constant("version", std::string(ks::kVersion));
}
