// The Chrome Trace Event Format importer (JSON, object or bare-array form), as PyTorch/Kineto,
// the legacy autograd profiler and Chrome DevTools write it. Streaming: feed() takes chunks of
// any size, in order; finish() completes the model. The result does not depend on chunking.
//
//   bytes --Framer--> one event object at a time --EventReader (simdjson)--> RawEvent
//         --TraceBuilder--> columnar Trace
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
