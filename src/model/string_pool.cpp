#include "model/string_pool.h"

#include <cstring>

namespace ks {

namespace {
uint64_t word_at(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}
uint64_t byte_at(const char* p) {
  return static_cast<unsigned char>(*p);
}
// The last 1-7 bytes, zero-filled, as memcpy into a zeroed word would give on a little-endian
// machine: in at most three loads of fixed size (a memcpy of variable size is a function call in
// WebAssembly, and showed in the profile).
uint64_t tail_of(const char* p, size_t n) {
  uint64_t w = 0;
  unsigned shift = 0;
  if (n & 4) {
    uint32_t four;
    std::memcpy(&four, p, 4);
    w = four;
    p += 4;
    shift = 32;
  }
  if (n & 2) {
    w |= (byte_at(p) | byte_at(p + 1) << 8) << shift;
    p += 2;
    shift += 16;
  }
  if (n & 1) w |= byte_at(p) << shift;
  return w;
}
uint64_t mix(uint64_t h, uint64_t w) {
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ULL;
  h = (h ^ w) * kMul;
  return h ^ (h >> 29);
}
}  // namespace

size_t TextHash::operator()(std::string_view s) const noexcept {
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ULL;
  uint64_t h = s.size() * kMul;
  const char* p = s.data();
  size_t n = s.size();
  // Long strings (Python call stacks run to ~600 bytes, most of a CPU op event) in four
  // independent lanes, so the multiplications overlap instead of waiting on each other.
  if (n >= 32) {
    uint64_t a = h, b = h + 1, c = h + 2, d = h + 3;
    for (; n >= 32; p += 32, n -= 32) {
      a = mix(a, word_at(p));
      b = mix(b, word_at(p + 8));
      c = mix(c, word_at(p + 16));
      d = mix(d, word_at(p + 24));
    }
    h = mix(mix(mix(a, b), c), d);
  }
  for (; n >= 8; p += 8, n -= 8) h = mix(h, word_at(p));
  if (n) h = mix(h, tail_of(p, n));
  h *= kMul;
  return static_cast<size_t>(h ^ (h >> 32));
}

bool TextEq::operator()(std::string_view a, std::string_view b) const noexcept {
  if (a.size() != b.size()) return false;
  const char* p = a.data();
  const char* q = b.data();
  size_t n = a.size();
  for (; n >= 16; p += 16, q += 16, n -= 16)
    if ((word_at(p) ^ word_at(q)) | (word_at(p + 8) ^ word_at(q + 8))) return false;
  if (n >= 8) {
    if (word_at(p) != word_at(q)) return false;
    p += 8, q += 8, n -= 8;
  }
  return n == 0 || tail_of(p, n) == tail_of(q, n);
}

StringPool::StringPool() : slots_(1024, 0) {
  intern("");
}

StringPool::StringPool(const StringPool& other) : StringPool() {
  *this = other;
}

StringPool& StringPool::operator=(const StringPool& other) {
  if (this == &other) return *this;
  strings_ = other.strings_;
  views_.assign(strings_.begin(), strings_.end());
  hashes_ = other.hashes_;
  slots_ = other.slots_;
  bytes_ = other.bytes_;
  return *this;
}

size_t StringPool::slot_of(std::string_view s, uint32_t hash) const {
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const StringId slot = slots_[i];
    if (slot == 0) return i;
    const StringId id = slot - 1;
    if (hashes_[id] == hash && TextEq()(views_[id], s)) return i;
  }
}

void StringPool::grow() {
  std::vector<StringId> bigger(slots_.size() * 2, 0);
  const size_t mask = bigger.size() - 1;
  for (StringId id = 0; id < views_.size(); ++id) {
    size_t i = hashes_[id] & mask;
    while (bigger[i] != 0) i = (i + 1) & mask;
    bigger[i] = id + 1;
  }
  slots_.swap(bigger);
}

StringId StringPool::intern(std::string_view s) {
  if (slots_.empty()) *this = StringPool();  // moved from
  const auto hash = static_cast<uint32_t>(TextHash()(s));
  size_t i = slot_of(s, hash);
  if (slots_[i] != 0) return slots_[i] - 1;
  auto id = static_cast<StringId>(views_.size());
  strings_.emplace_back(s);
  views_.push_back(strings_.back());
  hashes_.push_back(hash);
  bytes_ += s.size() + sizeof(std::string);
  slots_[i] = id + 1;
  if (views_.size() * 2 > slots_.size()) grow();
  return id;
}

StringId StringPool::find(std::string_view s) const {
  if (slots_.empty()) return kMissing;  // moved from
  const StringId slot = slots_[slot_of(s, static_cast<uint32_t>(TextHash()(s)))];
  return slot == 0 ? kMissing : slot - 1;
}

}  // namespace ks
