// libFuzzer target: the public import entry (whole input) through every report writer.
#include "fuzz_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ks_fuzz::import_whole(data, size);
  return 0;
}
