// The flat 64-bit-keyed map (src/util/flat_u64_map.h) the nsys importer keeps launches in: it
// must answer as std::unordered_map does, across growth, for keys of any bits.
#include "util/flat_u64_map.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <unordered_map>

TEST_CASE("FlatU64Map finds, adds and overwrites as std::unordered_map does", "[util]") {
  ks::FlatU64Map<int64_t> flat;
  std::unordered_map<uint64_t, int64_t> reference;
  CHECK(flat.find(0) == nullptr);  // empty: no table yet
  uint64_t x = 12345;
  for (int i = 0; i < 200000; ++i) {
    x = x * 6364136223846033005ULL + 1442695040888963407ULL;
    // Keys shaped like the importer's (pid << 40 ^ correlation), extremes and repeats.
    const uint64_t key = i % 3 == 0   ? (uint64_t{7} << 40) ^ static_cast<uint64_t>(i / 3)
                         : i % 3 == 1 ? x
                                      : x % 1000;
    flat[key] = i;
    reference[key] = i;
  }
  flat[0] = -1, reference[0] = -1;
  flat[~uint64_t{0}] = -2, reference[~uint64_t{0}] = -2;
  REQUIRE(flat.size() == reference.size());
  for (const auto& kv : reference) {
    const int64_t* v = flat.find(kv.first);
    REQUIRE(v != nullptr);
    CHECK(*v == kv.second);
  }
  CHECK_FALSE(flat.contains(uint64_t{8} << 40));
  CHECK(flat.find(1001) == nullptr);  // x % 1000 never reaches it, and it is not a correlation
  flat.clear();
  CHECK(flat.size() == 0);
  CHECK(flat.find(0) == nullptr);
}
