// The Chrome Trace Event Format importer (JSON, object or bare-array form), as PyTorch/Kineto,
// the legacy autograd profiler and Chrome DevTools write it. Streaming: feed() takes chunks of
// any size, in order; finish() completes the model. The result does not depend on chunking.
//
//   bytes --Framer--> one event object at a time --EventReader (simdjson)--> RawEvent
//         --TraceBuilder--> columnar Trace
// Most events take the fast path instead: fast_read_event reads them in one pass straight from
// the framer's buffer into the same RawEvent; it leaves anything unusual to the path above.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "import/import_error.h"
#include "model/trace.h"

namespace ks {

class ChromeJsonImporter {
 public:
  ChromeJsonImporter();
  ~ChromeJsonImporter();

  void set_source(std::string name, bool gzip);
  // Tests only: turn off the single-pass event reader (fast_event_reader.h), so every event goes
  // through the framer and simdjson, the reference the fast path is compared with. Call before
  // the first feed().
  void set_fast_path(bool on);
  // Returns false once a fatal error is known (see error()).
  bool feed(const char* data, size_t len);
  // feed() in two steps (Framer::prepare/commit): where to write `len` bytes, then take them.
  char* prepare_feed(size_t len);
  bool commit_feed(size_t len);
  // The input was a gzip stream that ends early (cut off) after `compressed_bytes` bytes: every
  // byte decoded before the cut has been fed. Call before finish(): the trace is then what those
  // bytes hold, with a gzip_truncated diagnostic that says where the file was cut; when they hold
  // no trace, finish() fails with gzip_corrupt (the cut file, not the empty JSON, is the story).
  void set_gzip_cut(uint64_t compressed_bytes);
  // The gzip data ends at byte `at` of the compressed file and `ignored` bytes that are not gzip
  // follow it (zero padding, text appended): they are left out, with a gzip_trailing_data
  // diagnostic that says where and how many. Call before finish().
  void set_gzip_trailing(uint64_t at, uint64_t ignored);
  // Returns false when the input is not a usable trace.
  bool finish();

  // Two importers on one file (docs/performance.md, "Two workers on one file"). The second reads
  // a part: the event array from `offset` on, where an element begins after a comma, into a model
  // of its own. Call before the first feed(), then feed the bytes from `offset` on until
  // part_ended(); take_part() then gives the part as bytes (trace_part.h), or nothing when it
  // cannot be merged (it holds B/E or async events, which pair across the file). With `stop`,
  // the part ends before the first element at or past it: the next part's start, when more than
  // two importers read the file (web/worker/split.js). The first importer takes such parts in
  // order: after one is applied it is at the part's end, again an element boundary, where the
  // next part starts when the guesses were right.
  void start_part(uint64_t offset, uint64_t stop = UINT64_MAX);
  bool part_ended() const;
  bool part_failed() const;
  std::string take_part();

  // The first importer, fed exactly the bytes before the part's offset: at_part_boundary() says
  // whether they end at an element boundary, as the part assumed; apply_part() then merges the
  // part in, as if this importer had read its events, and feed() continues from resume_offset(),
  // the byte where the part ended. False when the bytes are not such a part or this importer is
  // not at the boundary: then nothing changed, and feed() continues from the part's offset.
  bool at_part_boundary() const;
  bool apply_part(const char* data, size_t len);
  bool part_applied() const;

  // Threads of one process (import/split_file_read.cpp): the same hand-over without the bytes.
  // take_part_model() gives the part's model itself (null where take_part() gives nothing; the
  // part importer is then spent), and apply_part_model() merges it as apply_part() merges the
  // bytes: no copy of the part, no encoding. The page's workers share no memory: they need the
  // bytes.
  struct PartModel;
  std::shared_ptr<PartModel> take_part_model();
  bool apply_part_model(const PartModel& part);
  uint64_t resume_offset() const;

  // The JSON's whole size, once some of it has been read (the CLI after 16 MiB, the page after
  // its first projection, web/worker/job.js): the model's columns are reserved for the events the
  // rest will hold at the rate so far, plus a tenth, instead of doubling as they grow (each
  // doubling copies every column into memory touched for the first time: the CLI read the 200 MB
  // shapes 5-12% faster with 4-8% less peak memory, WASM in Node 0-30% faster). A hint: a wrong
  // size costs only address space (an untouched reservation, given back when finish() sorts the
  // slices) or the doublings it would have saved.
  void reserve_for_total(uint64_t total_bytes);

  const ImportError& error() const;
  uint64_t bytes_read() const;
  uint64_t events_read() const;

  // The model; valid after finish() returned true. take() hands it over.
  const Trace& trace() const;
  std::unique_ptr<Trace> take();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ks
