#include "model/string_pool.h"

#include <cstring>

namespace ks {

namespace {
uint64_t word_at(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}
// The last 1-7 bytes, zero-filled.
uint64_t tail_of(const char* p, size_t n) {
  uint64_t w = 0;
  std::memcpy(&w, p, n);
  return w;
}
}  // namespace

size_t TextHash::operator()(std::string_view s) const noexcept {
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ULL;
  uint64_t h = s.size() * kMul;
  const char* p = s.data();
  size_t n = s.size();
  for (; n >= 8; p += 8, n -= 8) {
    h = (h ^ word_at(p)) * kMul;
    h ^= h >> 29;
  }
  if (n) {
    h = (h ^ tail_of(p, n)) * kMul;
    h ^= h >> 29;
  }
  h *= kMul;
  return static_cast<size_t>(h ^ (h >> 32));
}

bool TextEq::operator()(std::string_view a, std::string_view b) const noexcept {
  if (a.size() != b.size()) return false;
  const char* p = a.data();
  const char* q = b.data();
  size_t n = a.size();
  for (; n >= 8; p += 8, q += 8, n -= 8)
    if (word_at(p) != word_at(q)) return false;
  return n == 0 || tail_of(p, n) == tail_of(q, n);
}

StringPool::StringPool() {
  intern("");
}

StringId StringPool::intern(std::string_view s) {
  auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  auto id = static_cast<StringId>(strings_.size());
  strings_.emplace_back(s);
  bytes_ += s.size() + sizeof(std::string);
  index_.emplace(strings_.back(), id);
  return id;
}

StringId StringPool::find(std::string_view s) const {
  auto it = index_.find(s);
  return it == index_.end() ? kMissing : it->second;
}

}  // namespace ks
