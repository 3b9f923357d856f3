#include "import/chrome_json/importer.h"

#include <algorithm>

#include <simdjson.h>

#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "import/chrome_json/event_reader.h"
#include "import/chrome_json/fast_event_reader.h"
#include "import/chrome_json/framer.h"
#include "import/chrome_json/top_level.h"
#include "model/math_op_names.h"
#include "model/trace_builder.h"
#include "model/trace_part.h"
#include "util/safe_text.h"

namespace ks {

namespace {

// What to do with JSON that another profiler wrote, known by its top-level keys.
std::string known_other_format(const std::vector<std::string>& keys) {
  auto has = [&keys](const char* k) {
    for (const std::string& key : keys)
      if (key == k) return true;
    return false;
  };
  if (has("rocprofiler-sdk-tool"))
    return ": this is rocprofv3's own JSON (--output-format json); open the same run's "
           "torch.profiler trace (export_chrome_trace) here, or rocprofv3's pftrace output in "
           "Perfetto";
  // nsys export --type json / jsonlines: one object per line, {"Type": N, "CudaEvent": {...}}
  // (TraceProcessEvent, NvtxEvent, ...): the same report's SQLite export is what this reads.
  for (const std::string& key : keys)
    if (has("Type") && key.size() > 5 && key.compare(key.size() - 5, 5, "Event") == 0)
      return ": this looks like an Nsight Systems JSON export (nsys export --type json or "
             "jsonlines); export the report to SQLite and open that: nsys export --type sqlite "
             "--output REPORT.sqlite REPORT.nsys-rep";
  if (has("nodes") && has("samples"))
    return ": this is a sampled CPU profile (.cpuprofile), not an event trace";
  // torch.profiler.ExecutionTraceObserver (Chakra): {"schema": "1.0.x-chakra...", "nodes": [...]},
  // written beside the Kineto trace of the same run when both are on.
  if (has("nodes") && has("schema"))
    return ": this looks like a PyTorch execution trace (ExecutionTraceObserver, Chakra): it "
           "holds the ops' graph, not their times; open the same run's torch.profiler trace "
           "(*.pt.trace.json) here";
  return "";
}

}  // namespace

// The counters of a std::map<std::string, uint64_t> last used, by key: a linear search of a few
// short keys costs less than the map's string compares on every event.
class CounterCache {
 public:
  uint64_t* counter(std::string_view key, std::map<std::string, uint64_t>* counts) {
    for (Entry& e : entries_)
      if (same_text(e.key, key)) return e.count;
    uint64_t* count = &(*counts)[std::string(key)];
    if (entries_.size() < kEntries)
      entries_.push_back({std::string(key), count});
    else
      entries_[next_++ % kEntries] = {std::string(key), count};
    return count;
  }

 private:
  struct Entry {
    std::string key;
    uint64_t* count;
  };
  // A byte loop: `==` is a memcmp call in WebAssembly, and these keys are a few bytes. The string
  // pool's TextEq would be an out-of-line call per entry: the ingest measured ~5% slower with it.
  static bool same_text(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i]) return false;
    return true;
  }
  static constexpr size_t kEntries = 16;
  std::vector<Entry> entries_;
  size_t next_ = 0;
};

// A part's model as a part importer built it, for apply_part_model (importer.h).
struct ChromeJsonImporter::PartModel {
  std::unique_ptr<Trace> trace;
  PartState state;
  uint64_t events = 0;
  Framer::PartEnd end;
};

class ChromeJsonImporter::Impl : public FramerSink {
 public:
  Impl() : trace_(new Trace), framer_(this, &trace_->diagnostics), builder_(trace_.get()) {}

  void on_event(const char* data, size_t len, uint64_t offset) override {
    ++events_;
    const std::string_view original(data, len);
    ReadStatus st = reader_.read(data, len, &ev_);
    if (st == ReadStatus::kMalformed && replace_lone_surrogates(data, len)) {
      // Same length: "\ud800" and "\ufffd" are six bytes each, so offsets stay true.
      const ReadStatus again = reader_.read(surrogates_.data(), len, &ev_);
      if (again != ReadStatus::kMalformed) {
        trace_->diagnostics.add(Diag::kLoneSurrogate, offset, original);
        st = again;
        data = surrogates_.data();
      }
    }
    if (st == ReadStatus::kControlChars || st == ReadStatus::kInvalidUtf8) {
      st = read_repaired(data, len, offset, st);
    }
    if (st != ReadStatus::kOk) {
      trace_->diagnostics.add(Diag::kMalformedEvent, offset, original);
      return;
    }
    cap_strings(offset, std::string_view(data, len));
    add_event(EventSource{offset, static_cast<uint32_t>(len)}, std::string_view(data, len));
  }

  // A "\ud800" escape (half of a UTF-16 surrogate pair, without the other half) makes simdjson
  // refuse the whole event; JavaScript's JSON.stringify writes them for lone surrogates in
  // strings. Copies the event into surrogates_ with each lone half written as "\ufffd" (U+FFFD)
  // and says whether there was one.
  bool replace_lone_surrogates(const char* data, size_t len) {
    auto hex4 = [data, len](size_t at, uint32_t* v) {
      if (at + 4 > len) return false;
      uint32_t x = 0;
      for (size_t k = at; k < at + 4; ++k) {
        const char c = data[k];
        const int d = c >= '0' && c <= '9'   ? c - '0'
                      : c >= 'a' && c <= 'f' ? c - 'a' + 10
                      : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                             : -1;
        if (d < 0) return false;
        x = x * 16 + static_cast<uint32_t>(d);
      }
      *v = x;
      return true;
    };
    bool found = false;
    for (size_t i = 0; i + 1 < len; ++i) {
      if (data[i] != '\\') continue;
      uint32_t v = 0;
      if (data[i + 1] != 'u' || !hex4(i + 2, &v)) {
        ++i;  // any other escape, "\\" included: skip its second character
        continue;
      }
      uint32_t low = 0;
      const bool high = v >= 0xD800 && v <= 0xDBFF;
      if (high && i + 7 < len && data[i + 6] == '\\' && data[i + 7] == 'u' && hex4(i + 8, &low) &&
          low >= 0xDC00 && low <= 0xDFFF) {
        i += 11;  // a whole pair
        continue;
      }
      if (high || (v >= 0xDC00 && v <= 0xDFFF)) {
        if (!found) {
          surrogates_.assign(data, len);
          surrogates_.append(kFramerPadding, ' ');
          found = true;
        }
        surrogates_.replace(i + 2, 4, "fffd");
      }
      i += 5;
    }
    return found;
  }

  size_t on_event_fast(const char* data, size_t avail, uint64_t offset) override {
    if (!fast_path_) return 0;
    const size_t len = fast_read_event(data, avail, &ev_);
    if (len == 0) return 0;
    ++events_;
    cap_strings(offset, std::string_view(data, len));
    add_event(EventSource{offset, static_cast<uint32_t>(len)}, std::string_view(data, len));
    return len;
  }

  // Two importers on one file (importer.h). The part: its framer starts inside the array.
  void start_part(uint64_t offset, uint64_t stop) {
    is_part_ = true;
    framer_.start_inside_array(offset, stop);
  }

  // The part as bytes: a header (the events read, where the array ended), then its model and
  // what its builder knows (trace_part.h). Empty unless the part ended and can be merged.
  std::string take_part() {
    if (!is_part_ || !framer_.part_ended()) return {};
    const PartState state = builder_.part_state();
    if (state.paired_events) return {};
    const Framer::PartEnd end = framer_.part_end();
    std::string out(kPartHeaderBytes, '\0');
    std::memcpy(&out[0], &events_, 8);
    std::memcpy(&out[8], &end.offset, 8);
    out[16] = end.after_element;
    out[17] = end.after_comma;
    append_trace_part(*trace_, state, &out);  // behind the header, not copied there
    return out;
  }

  std::shared_ptr<ChromeJsonImporter::PartModel> take_part_model() {
    if (!is_part_ || !framer_.part_ended()) return nullptr;
    auto m = std::make_shared<ChromeJsonImporter::PartModel>();
    m->state = builder_.part_state();
    if (m->state.paired_events) return nullptr;
    m->events = events_;
    m->end = framer_.part_end();
    m->trace = std::move(trace_);
    return m;
  }

  bool apply_part_model(const ChromeJsonImporter::PartModel& m) {
    if (is_part_ || !m.trace || !framer_.at_element_boundary()) return false;
    if (m.end.offset < framer_.bytes_fed()) return false;
    builder_.merge_part(*m.trace, m.state);
    events_ += m.events;
    framer_.resume_at(m.end);
    part_applied_ = true;
    return true;
  }

  // The first importer: merges a part in, as if it had read the part's events itself, and
  // continues after them.
  bool apply_part(const char* data, size_t len) {
    if (is_part_ || len < kPartHeaderBytes) return false;
    if (!framer_.at_element_boundary()) return false;
    Trace part;
    PartState state;
    if (!decode_trace_part(data + kPartHeaderBytes, len - kPartHeaderBytes, &part, &state))
      return false;
    if (state.paired_events) return false;
    uint64_t events = 0;
    Framer::PartEnd end;
    std::memcpy(&events, data, 8);
    std::memcpy(&end.offset, data + 8, 8);
    end.after_element = data[16] != 0;
    end.after_comma = data[17] != 0;
    if (end.offset < framer_.bytes_fed()) return false;
    builder_.merge_part(part, state);
    events_ += events;
    framer_.resume_at(end);
    part_applied_ = true;
    return true;
  }
  static constexpr size_t kPartHeaderBytes = 18;

  void on_top_level_member(std::string_view key, const char* data, size_t len,
                           uint64_t offset) override {
    read_top_level_member(key, data, len, offset, trace_.get());
  }

  // Hardening (tests/bad_inputs/, string_10mb): every name, category and id is interned and
  // compared by the analyses (kernel classes search each name for ~25 patterns), so a 10 MB name
  // made the report take minutes. Real names stay under 6 KB (the longest in ../shared/traces is
  // 5,160 bytes); longer ones are cut, on a UTF-8 boundary, and counted.
  static constexpr size_t kMaxTextBytes = size_t{64} << 10;
  static bool cap(std::string_view* s) {
    if (s->size() <= kMaxTextBytes) return false;
    *s = utf8_prefix(*s, kMaxTextBytes);
    return true;
  }
  void cap_strings(uint64_t offset, std::string_view text) {
    RawEvent& e = ev_;
    bool cut = false;
    for (std::string_view* s : {&e.name, &e.cat, &e.ph_text, &e.pid.text, &e.tid.text, &e.id,
                                &e.meta_name, &e.meta_labels})
      cut = cap(s) || cut;
    for (auto& cv : e.counter_values) cut = cap(&cv.key) || cut;
    if (cut) trace_->diagnostics.add(Diag::kLongStringTruncated, offset, text);
    if (e.text_was_json) trace_->diagnostics.add(Diag::kNameNotString, offset, text);
  }

  // Raw control characters or bad UTF-8 inside strings: replace them and read again.
  // simdjson reports one problem per read, control characters first, so an event with both
  // needs two repairs (the old code only handled the opposite order and dropped such events).
  ReadStatus read_repaired(const char* data, size_t len, uint64_t offset, ReadStatus st) {
    repaired_.assign(data, len);
    repaired_.append(kFramerPadding, ' ');
    bool fixed_control = false, fixed_utf8 = false;
    while ((st == ReadStatus::kControlChars && !fixed_control) ||
           (st == ReadStatus::kInvalidUtf8 && !fixed_utf8)) {
      const bool control = st == ReadStatus::kControlChars;
      for (size_t i = 0; i < len; ++i) {
        auto u = static_cast<unsigned char>(repaired_[i]);
        if (control && u < 0x20) repaired_[i] = ' ';
        if (!control && u >= 0x80) repaired_[i] = '?';
      }
      (control ? fixed_control : fixed_utf8) = true;
      st = reader_.read(repaired_.data(), len, &ev_);
    }
    if (st == ReadStatus::kOk) {
      if (fixed_control)
        trace_->diagnostics.add(Diag::kControlCharsInString, offset, std::string_view(data, len));
      if (fixed_utf8)
        trace_->diagnostics.add(Diag::kInvalidUtf8, offset, std::string_view(data, len));
    }
    return st;
  }

  // Per-phase and per-category counts: a trace has a handful of each, interleaved event by
  // event, so their counters (std::map values do not move) are found in a short list first.
  void count_event(const RawEvent& e) {
    std::string_view phase = e.ph_text.empty() ? std::string_view("?") : e.ph_text;
    ++*phase_counts_.counter(phase, &trace_->facts.events_by_phase);
    if (e.ph != 'M') ++*cat_counts_.counter(e.cat, &trace_->facts.categories);
  }

  // The track of a pid/tid pair: consecutive events mostly share one thread, so the last answer
  // is kept and the builder's hash lookup is skipped then (track ids never change).
  TrackId track(std::string_view pid, std::string_view tid) {
    if (!has_last_track_ || pid != last_pid_ || tid != last_tid_) {
      last_track_ = builder_.track(pid, tid);
      last_pid_.assign(pid);
      last_tid_.assign(tid);
      has_last_track_ = true;
    }
    return last_track_;
  }

  void add_event(EventSource src, std::string_view text) {
    RawEvent& e = ev_;
    ++trace_->facts.events_total;
    if (!e.ph) {
      trace_->diagnostics.add(Diag::kMissingPhase, src.offset, text);
      return;
    }
    count_event(e);
    if (e.bad_number) trace_->diagnostics.add(Diag::kBadNumber, src.offset, text);
    if (e.has_call_stack) trace_->facts.saw_call_stack = true;
    if (e.has_input_dims) trace_->facts.saw_input_dims = true;
    if (e.has_flops) trace_->facts.saw_flops = true;
    std::string_view pid = e.pid.present ? e.pid.text : std::string_view("0");
    std::string_view tid = e.tid.present ? e.tid.text : pid;
    if (e.ph == 'M') {
      add_metadata(e, pid, tid, src.offset);
      return;
    }
    if (!e.has_ts) {
      // Chrome's own samples/metadata-ish events without ts are counted only.
      trace_->diagnostics.add(Diag::kMissingTimestamp, src.offset, text);
      return;
    }
    switch (e.ph) {
      case 'X': {
        int64_t dur = e.dur_ns;
        if (!e.has_dur) {
          trace_->diagnostics.add(Diag::kCompleteWithoutDur, src.offset, text);
          dur = 0;
        } else if (dur < 0) {
          trace_->diagnostics.add(Diag::kNegativeDuration, src.offset, text);
          dur = 0;
        }
        builder_.observe_time(e.ts_ns, e.ts_ns + dur);
        builder_.add_complete(track(pid, tid), e.ts_ns, dur, e.name, e.cat, slice_args(e), src);
        break;
      }
      case 'B':
        builder_.observe_time(e.ts_ns, e.ts_ns);
        builder_.add_begin(track(pid, tid), e.ts_ns, e.name, e.cat, slice_args(e), src);
        break;
      case 'E':
        builder_.observe_time(e.ts_ns, e.ts_ns);
        builder_.add_end(track(pid, tid), e.ts_ns, e.name, src);
        break;
      case 'b':
      case 'e':
      case 'n':
        builder_.observe_time(e.ts_ns, e.ts_ns);
        builder_.add_async(e.ph, pid, e.ts_ns, e.name, e.cat, e.id, src);
        break;
      case 's':
      case 't':
      case 'f':
        builder_.add_flow(track(pid, tid), e.ph, e.ts_ns, e.id, e.cat, e.binds_enclosing);
        break;
      case 'C':
        builder_.observe_time(e.ts_ns, e.ts_ns);
        for (const auto& cv : e.counter_values) {
          series_.assign(e.name);
          if (e.counter_values.size() > 1) series_.append(".").append(cv.key);
          builder_.add_counter(pid, e.ts_ns, series_, cv.value);
        }
        break;
      case 'i':
      case 'I':
        builder_.observe_time(e.ts_ns, e.ts_ns);
        builder_.add_instant(track(pid, tid), e.ts_ns, e.name, e.cat, e.scope, e.mem_bytes,
                             e.mem_total_allocated, e.mem_total_reserved, e.mem_device);
        break;
      default:
        // DevTools-only phases (P, O, N, D, R, S, T, F, ...) and anything else: counted above.
        if (!is_known_other_phase(e.ph))
          trace_->diagnostics.add(Diag::kUnknownPhase, src.offset, text);
        break;
    }
  }

  static bool is_known_other_phase(char ph) { return std::strchr("PONDRSTFvVac()", ph) != nullptr; }

  SliceArgs slice_args(const RawEvent& e) {
    SliceArgs a;
    a.correlation = e.correlation;
    a.external_id = e.external_id;
    a.bytes = e.bytes;
    a.stream = e.stream;
    a.device = e.device;
    a.call_stack = e.call_stack;
    if (!e.input_dims_json.empty() && is_math_op_name(e.name)) {
      a.has_shapes = true;
      a.input_dims = e.input_dims_json;
      a.input_types = e.input_types_json;
      a.concrete_inputs = e.concrete_inputs_json;
    }
    // "dtype" alone is not a collective (other ops may carry it); a name or a size is.
    a.has_collective =
        e.has_collective && (!e.collective.empty() || e.in_nelems >= 0 || e.out_nelems >= 0);
    a.in_nelems = e.in_nelems;
    a.out_nelems = e.out_nelems;
    a.group_size = e.group_size;
    a.peer = e.peer;
    a.collective = e.collective;
    a.dtype = e.dtype;
    a.process_group = e.process_group;
    a.process_group_ranks = e.process_group_ranks;
    a.wait_on_stream = e.wait_on_stream;
    a.wait_on_record_correlation = e.wait_on_record_corr;
    if (!a.has_collective && e.legacy_nelems >= 0) {  // "nccl:all_reduce" with Input Dims
      a.has_collective = true;
      a.collective = e.name.substr(5);
      a.in_nelems = e.legacy_nelems;
      a.dtype = e.legacy_dtype;
    }
    if (e.has_grid || e.has_block || e.occupancy_pct >= 0 || e.blocks_per_sm >= 0 ||
        e.bandwidth_gbps >= 0) {
      launch_ = KernelLaunchInfo();
      std::memcpy(launch_.grid, e.grid, sizeof(e.grid));
      std::memcpy(launch_.block, e.block, sizeof(e.block));
      launch_.blocks_per_sm = e.blocks_per_sm;
      launch_.warps_per_sm = e.warps_per_sm;
      launch_.occupancy_pct = e.occupancy_pct;
      launch_.bandwidth_gbps = e.bandwidth_gbps;
      a.launch = &launch_;
    }
    return a;
  }

  void add_metadata(const RawEvent& e, std::string_view pid, std::string_view tid,
                    uint64_t offset) {
    if (e.name == "process_name") {
      builder_.set_process_name(pid, e.meta_name, offset);
    } else if (e.name == "thread_name") {
      builder_.set_thread_name(pid, tid, e.meta_name, offset);
    } else if (e.name == "process_sort_index" && e.has_sort_index) {
      builder_.set_process_sort_index(pid, e.sort_index);
    } else if (e.name == "thread_sort_index" && e.has_sort_index) {
      builder_.set_thread_sort_index(pid, tid, e.sort_index);
    } else if (e.name == "process_labels") {
      builder_.set_process_labels(pid, e.meta_labels);
    } else {
      return;  // a name this reader does not model: no process made for it
    }
    // Counted by pid, so a trace cut down to some processes counts its own (trace_subset).
    ++trace_->processes[builder_.process(pid)].metadata_events;
  }

  bool finish() {
    if (gzip_trailing_ignored_) {
      trace_->diagnostics.add(Diag::kGzipTrailingData, framer_.bytes_fed());
      trace_->diagnostics.set_detail(Diag::kGzipTrailingData,
                                     "The gzip data ends at byte " + std::to_string(gzip_end_) +
                                         " of the compressed file; the " +
                                         std::to_string(gzip_trailing_ignored_) +
                                         " bytes after it were ignored.");
    }
    if (gzip_cut_) {
      std::string at = std::to_string(*gzip_cut_);
      std::string json = std::to_string(framer_.bytes_fed());
      trace_->diagnostics.add(Diag::kGzipTruncated, framer_.bytes_fed());
      trace_->diagnostics.set_detail(
          Diag::kGzipTruncated, "Cut off at byte " + at + " of the compressed file; the " + json +
                                    " bytes of JSON decoded before the cut were kept.");
      if (finish_json()) return true;
      // Nothing usable before the cut: the cut is what the user must hear about.
      const ImportError& why = framer_.error().ok() ? error_ : framer_.error();
      cut_error_.code = ImportErrorCode::kGzipCorrupt;
      cut_error_.offset = framer_.bytes_fed();
      cut_error_.message = "the gzip stream ends early (file cut off at byte " + at + "); the " +
                           json + " bytes of JSON decoded before the cut hold no trace (" +
                           why.message + ")";
      return false;
    }
    return finish_json();
  }

  bool finish_json() {
    if (!framer_.finish()) return false;
    TraceFacts& f = trace_->facts;
    f.json_bytes = framer_.bytes_fed();
    f.top_level_keys = framer_.top_level_keys();
    f.format = framer_.container() == TraceContainer::kArray ? TraceFormat::kChromeArray
                                                             : TraceFormat::kChromeObject;
    if (!framer_.saw_event_array()) {
      std::string keys;
      for (const auto& k : f.top_level_keys) {
        if (keys.size() > 80) break;
        // A key is the file's text: cut and made safe (a 10 MB key made a 10 MB message).
        keys += (keys.empty() ? "" : ", ") + display_safe(k, 40);
      }
      error_.code = ImportErrorCode::kNotATrace;
      error_.offset = 0;
      const bool has_key = framer_.saw_trace_events_key();
      // Said as what a user can act on: a key of the wrong kind, or a file cut off before its
      // events (Kineto writes deviceProperties first, then traceEvents).
      const std::string why =
          has_key ? "its traceEvents is not an array"
          : trace_->diagnostics.count(Diag::kMissingObjectClose)
              ? "the file ends before any traceEvents array: it looks cut off (the top-level "
                "object is not closed)"
              : "the top-level object has no traceEvents array";
      error_.message = "JSON, but not a Chrome trace: " + why +
                       " (keys: " + (keys.empty() ? std::string("none") : keys) + ")" +
                       known_other_format(f.top_level_keys);
      if (!has_key && trace_->diagnostics.count(Diag::kMissingObjectClose))
        error_.offset = f.json_bytes;
      return false;
    }
    // No event object was read, only other values ("[1, 2, 3]"): not a trace. (The old test
    // also required an event object, so an array of numbers was accepted as an empty trace.)
    if (f.events_total == 0 && trace_->diagnostics.count(Diag::kNonObjectEvent)) {
      error_.code = ImportErrorCode::kNotATrace;
      error_.message = "JSON array, but its elements are not trace event objects";
      return false;
    }
    builder_.finalize();
    finished_ = true;
    return true;
  }

  std::unique_ptr<Trace> trace_;
  bool is_part_ = false;  // start_part(): this importer reads a part for another
  bool part_applied_ = false;
  Framer framer_;
  TraceBuilder builder_;
  EventReader reader_;
  RawEvent ev_;
  KernelLaunchInfo launch_;
  ImportError error_;
  std::optional<uint64_t> gzip_cut_;  // set_gzip_cut(): compressed bytes before the cut
  uint64_t gzip_end_ = 0, gzip_trailing_ignored_ = 0;  // set_gzip_trailing()
  ImportError cut_error_;                              // finish() after a cut that left no trace
  std::string repaired_, surrogates_, series_, last_pid_, last_tid_;
  CounterCache phase_counts_, cat_counts_;
  TrackId last_track_ = 0;
  bool has_last_track_ = false;
  uint64_t events_ = 0;
  bool finished_ = false;
  bool fast_path_ = true;
};

ChromeJsonImporter::ChromeJsonImporter() : impl_(new Impl) {}
ChromeJsonImporter::~ChromeJsonImporter() = default;

void ChromeJsonImporter::set_source(std::string name, bool gzip) {
  impl_->trace_->facts.source_name = std::move(name);
  impl_->trace_->facts.source_gzip = gzip;
}

void ChromeJsonImporter::start_part(uint64_t offset, uint64_t stop) {
  impl_->start_part(offset, stop);
}
bool ChromeJsonImporter::part_ended() const {
  return impl_->framer_.part_ended();
}
bool ChromeJsonImporter::part_failed() const {
  return !impl_->framer_.error().ok();
}
std::string ChromeJsonImporter::take_part() {
  return impl_->take_part();
}
bool ChromeJsonImporter::at_part_boundary() const {
  return impl_->framer_.at_element_boundary();
}
bool ChromeJsonImporter::apply_part(const char* data, size_t len) {
  return impl_->apply_part(data, len);
}
std::shared_ptr<ChromeJsonImporter::PartModel> ChromeJsonImporter::take_part_model() {
  return impl_->take_part_model();
}
bool ChromeJsonImporter::apply_part_model(const PartModel& part) {
  return impl_->apply_part_model(part);
}
bool ChromeJsonImporter::part_applied() const {
  return impl_->part_applied_;
}
uint64_t ChromeJsonImporter::resume_offset() const {
  return impl_->framer_.bytes_fed();
}

void ChromeJsonImporter::set_fast_path(bool on) {
  impl_->fast_path_ = on;
}

bool ChromeJsonImporter::feed(const char* data, size_t len) {
  return impl_->framer_.feed(data, len);
}

char* ChromeJsonImporter::prepare_feed(size_t len) {
  return impl_->framer_.prepare(len);
}
bool ChromeJsonImporter::commit_feed(size_t len) {
  return impl_->framer_.commit(len);
}

void ChromeJsonImporter::set_gzip_cut(uint64_t compressed_bytes) {
  impl_->gzip_cut_ = compressed_bytes;
}

void ChromeJsonImporter::set_gzip_trailing(uint64_t at, uint64_t ignored) {
  impl_->gzip_end_ = at;
  impl_->gzip_trailing_ignored_ = ignored;
}

bool ChromeJsonImporter::finish() {
  return impl_->finish();
}

const ImportError& ChromeJsonImporter::error() const {
  if (!impl_->cut_error_.ok()) return impl_->cut_error_;
  return impl_->framer_.error().ok() ? impl_->error_ : impl_->framer_.error();
}

void ChromeJsonImporter::reserve_for_total(uint64_t total_bytes) {
  const uint64_t read = bytes_read();
  // Nothing to gain at the end, and a size past 1024 times what was read is not believed.
  if (read == 0 || total_bytes <= read || total_bytes / read > 1024 || !impl_->trace_) return;
  const double scale = static_cast<double>(total_bytes) / static_cast<double>(read) * 1.1;
  // No row is smaller than 16 bytes of JSON: a size far off the file's own cannot reserve more.
  const double most = static_cast<double>(total_bytes / 16);
  const Trace& t = *impl_->trace_;
  auto more = [scale, most](size_t now) {
    const double want = std::min(static_cast<double>(now) * scale, most);
    return want > static_cast<double>(now) ? static_cast<size_t>(want) - now : size_t{0};
  };
  impl_->builder_.reserve(more(t.slices.size()), more(t.flows.size()),
                          more(t.slices.launch_infos.size()));
}

uint64_t ChromeJsonImporter::bytes_read() const {
  return impl_->framer_.bytes_fed();
}
uint64_t ChromeJsonImporter::events_read() const {
  return impl_->events_;
}

const Trace& ChromeJsonImporter::trace() const {
  return *impl_->trace_;
}
std::unique_ptr<Trace> ChromeJsonImporter::take() {
  return std::move(impl_->trace_);
}

}  // namespace ks
