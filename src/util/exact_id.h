// Ids past 2^53 (an Nsight Systems export's file_offset: the table in the top byte) are not exact
// as JSON numbers in JavaScript: such an id is also written as a decimal string under `key`, which
// the page passes back as it is (the worker's id lists read digits, view/id_list.h). Smaller ids
// write nothing: their number is exact.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "util/json_writer.h"

namespace ks {

inline void write_exact_id(JsonWriter* w, std::string_view key, uint64_t id) {
  if (id > (uint64_t{1} << 53) - 1) w->field(key, std::string_view(std::to_string(id)));
}

}  // namespace ks
