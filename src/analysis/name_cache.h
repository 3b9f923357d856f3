// A per-name answer (a small code, 0..127) computed once per distinct name: traces repeat a few
// thousand names over hundreds of thousands of slices, so classifying by string id instead of
// scanning each slice's name keeps the analyses cheap.
#pragma once
#include <cstdint>
#include <vector>

#include "model/trace.h"

namespace ks {

template <typename Classify>
class NameCache {
 public:
  NameCache(const Trace& trace, Classify classify)
      : trace_(trace), classify_(classify), codes_(trace.strings.size(), -1) {}
  int operator()(StringId id) {
    int8_t& code = codes_[id];
    if (code < 0) code = static_cast<int8_t>(classify_(trace_.str(id)));
    return code;
  }

 private:
  const Trace& trace_;
  Classify classify_;
  std::vector<int8_t> codes_;
};

template <typename Classify>
NameCache<Classify> make_name_cache(const Trace& trace, Classify classify) {
  return NameCache<Classify>(trace, classify);
}

}  // namespace ks
