// A hash map from 64-bit keys to small values in flat arrays (open addressing, linear probing, at
// most 3/4 full). std::unordered_map allocates a node per entry and, in WebAssembly, hashes a
// 64-bit key through a 32-bit size_t: the nsys importer's launches by correlation id (one entry
// per CUDA API call) took 1.6 s of the 8.8 s that reading a 400 MB export took in WASM.
//
// Keys that differ only in their low 6 bits (64 consecutive correlation ids) go to neighbouring
// slots: the importer looks launches up nearly in id order, and a hash that scattered them made
// every lookup a cache miss (as slow as the node map). The rest of the key is hashed with a seed
// taken per map from the clock and the map's address, so a crafted file cannot choose keys that
// pile onto one run of slots beyond those 64 (which would make every lookup a long scan).
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ks {

template <typename V>
class FlatU64Map {
 public:
  FlatU64Map()
      : seed_(mix(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(this)) ^ clock_bits())) {}

  // The value of key, or nullptr.
  V* find(uint64_t key) {
    if (size_ == 0) return nullptr;
    for (size_t i = slot(key);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.key == key) return &s.value;
    }
  }
  const V* find(uint64_t key) const { return const_cast<FlatU64Map*>(this)->find(key); }
  bool contains(uint64_t key) const { return find(key) != nullptr; }

  // The value of key, added as V{} when absent.
  V& operator[](uint64_t key) {
    if ((size_ + 1) * 4 > slots_.size() * 3) grow();
    size_t i = slot(key);
    for (; slots_[i].used; i = (i + 1) & mask_)
      if (slots_[i].key == key) return slots_[i].value;
    slots_[i] = {key, V{}, true};
    ++size_;
    return slots_[i].value;
  }

  size_t size() const { return size_; }
  // Room for n keys without growing (growing briefly holds the old and the new table).
  void reserve(size_t n) {
    size_t slots = 64;
    while (slots * 3 < n * 4) slots *= 2;
    if (slots > slots_.size()) rehash(slots);
  }
  // Gives the memory back.
  void clear() { *this = FlatU64Map(); }

 private:
  static uint64_t mix(uint64_t x) {  // splitmix64's finalizer: every key bit moves every bit
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  }
  static uint64_t clock_bits() {
    return static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }
  static constexpr unsigned kNearBits = 6;
  size_t slot(uint64_t key) const {
    const uint64_t block = mix((key >> kNearBits) ^ seed_) << kNearBits;
    return static_cast<size_t>(block | (key & ((uint64_t{1} << kNearBits) - 1))) & mask_;
  }

  void grow() { rehash(slots_.empty() ? 64 : slots_.size() * 2); }
  void rehash(size_t n) {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(n, Slot{});
    mask_ = n - 1;
    size_ = 0;
    for (const Slot& s : old)
      if (s.used) (*this)[s.key] = s.value;
  }

  struct Slot {
    uint64_t key = 0;
    V value{};
    bool used = false;
  };
  std::vector<Slot> slots_;  // one slot holds key, value and use: one cache line per probe
  size_t size_ = 0;
  size_t mask_ = 0;
  uint64_t seed_;
};

}  // namespace ks
