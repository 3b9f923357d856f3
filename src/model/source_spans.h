#pragma once
// Where each slice's event lies in the input: its byte offset and length (an Nsight Systems
// export puts its table code and row there instead, src/util/exact_id.h). Every slice has one,
// so the two columns were 12 bytes a slice, ~20% of a slice row (issue #19: the model of a trace
// of tiny kernels was 0.357x its JSON after finish()). Here a slice takes 7 bytes: the offset's
// low 32 bits, the length's low 16, and a one-byte key into a table of the (offset >> 32,
// length >> 16) pairs seen. A JSON file under 4 GiB with events under 64 KiB has one pair; a
// 1 TB file has 256. Past 256 distinct pairs (a hostile export's rows far apart) the spans are
// widened to plain 8 + 4 bytes a slice: the same values, more memory.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ks {

struct SourceSpans {
  // Packed: one entry of each per slice, and the table the keys index (at most 256 entries).
  std::vector<uint32_t> offset_low;
  std::vector<uint16_t> length_low;
  std::vector<uint8_t> key;
  std::vector<uint32_t> high_offset;  // offset >> 32 of each key
  std::vector<uint16_t> high_length;  // length >> 16 of each key
  // Widened: plain columns, the packed ones empty.
  bool wide = false;
  std::vector<uint64_t> wide_offset;
  std::vector<uint32_t> wide_length;

  size_t size() const { return wide ? wide_offset.size() : offset_low.size(); }
  uint64_t offset(size_t i) const {
    return wide ? wide_offset[i]
                : (static_cast<uint64_t>(high_offset[key[i]]) << 32) | offset_low[i];
  }
  uint32_t length(size_t i) const {
    return wide ? wide_length[i]
                : (static_cast<uint32_t>(high_length[key[i]]) << 16) | length_low[i];
  }

  void reserve(size_t n) {
    if (wide) {
      wide_offset.reserve(n);
      wide_length.reserve(n);
      return;
    }
    offset_low.reserve(n);
    length_low.reserve(n);
    key.reserve(n);
  }

  void push_back(uint64_t offset, uint32_t length) {
    if (!wide) {
      const auto ho = static_cast<uint32_t>(offset >> 32);
      const auto hl = static_cast<uint16_t>(length >> 16);
      if (find_key(ho, hl)) {
        offset_low.push_back(static_cast<uint32_t>(offset));
        length_low.push_back(static_cast<uint16_t>(length));
        key.push_back(static_cast<uint8_t>(last_key_));
        return;
      }
      widen();
    }
    wide_offset.push_back(offset);
    wide_length.push_back(length);
  }

  // Appends another table's spans (a part read by another worker).
  void append(const SourceSpans& from) {
    const size_t n = from.size();
    reserve(size() + n);
    for (size_t i = 0; i < n; ++i) push_back(from.offset(i), from.length(i));
  }

  // Every offset, in slice order (tests, and the subset's lookups).
  std::vector<uint64_t> offsets() const {
    std::vector<uint64_t> out(size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = offset(i);
    return out;
  }

  // The packed form's invariants (a part decoded from another worker's bytes).
  bool consistent() const {
    if (high_offset.size() != high_length.size() || high_offset.size() > 256) return false;
    if (wide)
      return wide_offset.size() == wide_length.size() && offset_low.empty() && length_low.empty() &&
             key.empty();
    if (length_low.size() != offset_low.size() || key.size() != offset_low.size()) return false;
    for (uint8_t k : key)
      if (k >= high_offset.size()) return false;
    return wide_offset.empty() && wide_length.empty();
  }

 private:
  // Sets last_key_ to the key of (ho, hl), adding it to the table; false when the table is full.
  bool find_key(uint32_t ho, uint16_t hl) {
    if (last_key_ < high_offset.size() && high_offset[last_key_] == ho &&
        high_length[last_key_] == hl)
      return true;
    for (size_t k = 0; k < high_offset.size(); ++k)
      if (high_offset[k] == ho && high_length[k] == hl) {
        last_key_ = k;
        return true;
      }
    if (high_offset.size() == 256) return false;
    high_offset.push_back(ho);
    high_length.push_back(hl);
    last_key_ = high_offset.size() - 1;
    return true;
  }
  void widen() {
    const size_t n = offset_low.size();
    wide_offset.resize(n);
    wide_length.resize(n);
    for (size_t i = 0; i < n; ++i) {
      wide_offset[i] = offset(i);
      wide_length[i] = length(i);
    }
    wide = true;
    std::vector<uint32_t>().swap(offset_low);
    std::vector<uint16_t>().swap(length_low);
    std::vector<uint8_t>().swap(key);
  }
  size_t last_key_ = 0;  // the key of the last span added: events come in runs of one pair
};

}  // namespace ks
