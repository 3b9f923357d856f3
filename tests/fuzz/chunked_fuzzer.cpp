// libFuzzer target: the chunked import path with chunk sizes taken from the input's first bytes;
// aborts when the chunked report differs from the one-piece report.
#include "fuzz_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ks_fuzz::import_chunked(data, size);
  return 0;
}
