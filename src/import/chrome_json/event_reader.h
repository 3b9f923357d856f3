// Reads one event object (bytes handed out by the Framer) with simdjson On Demand into a
// RawEvent: only the fields and args the model uses are decoded; the rest are skipped.
#pragma once
#include <cstddef>
#include <memory>
#include <string>

#include "import/chrome_json/raw_event.h"

namespace ks {

enum class ReadStatus { kOk, kMalformed, kControlChars, kInvalidUtf8 };

class EventReader {
 public:
  EventReader();
  ~EventReader();
  // `data` must have kFramerPadding readable bytes after len.
  ReadStatus read(const char* data, size_t len, RawEvent* out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ks
