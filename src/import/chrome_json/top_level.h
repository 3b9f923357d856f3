// Reads the top-level members Kineto writes beside traceEvents: deviceProperties (or the
// legacy computeProperties), distributedInfo, baseTimeNanoseconds, schemaVersion, traceName and
// the capture settings (record_shapes, profile_memory, with_stack, with_flops, with_modules).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "model/trace.h"

namespace ks {

// `data` must have kFramerPadding readable bytes after len. Unknown keys are ignored.
void read_top_level_member(std::string_view key, const char* data, size_t len, uint64_t offset,
                           Trace* trace);

}  // namespace ks
