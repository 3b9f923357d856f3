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
  // Returns false when the input is not a usable trace.
  bool finish();

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
