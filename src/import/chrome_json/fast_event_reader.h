// The fast path for one Chrome-trace event object: a hand-written, single-pass reader that
// parses the event straight from the framer's buffer and finds its end itself, so the event's
// bytes are visited once instead of twice (framer, then simdjson).
//
// Why it exists: in WebAssembly simdjson 3.0.1 has no SIMD kernel, and the framer + simdjson
// design measured at most ~230 MB/s there (bench/simdjson_walk, the bare walk; our ingest ran at
// 0.73-0.9 of it), short of the 250 MB/s target (docs/performance.md). simdjson stays the
// reference and the fallback: this reader accepts only strictly valid JSON of the usual shape and
// gives up (returns 0) on anything it does not fully handle -- escapes in kept strings, control
// characters, invalid UTF-8, unexpected types, numbers it cannot convert exactly, counter events,
// args before ph, deep nesting, an event running past the bytes at hand. The framer then hands
// the event to EventReader (simdjson) as before, so diagnostics and tolerances do not change.
// Whatever it accepts, it must read into exactly the RawEvent EventReader would produce
// (tests/import/fast_path_differential_test.cpp checks this on every shared trace).
#pragma once
#include <cstddef>

#include "import/chrome_json/raw_event.h"

namespace ks {

// `data` starts with '{'; `avail` bytes may belong to the event, and at least 8 more bytes are
// readable after them (the framer's padding). Returns the event's length ('{' through its '}')
// with *out filled, or 0 when the event must go through the simdjson path (*out is then garbage).
size_t fast_read_event(const char* data, size_t avail, RawEvent* out);

}  // namespace ks
