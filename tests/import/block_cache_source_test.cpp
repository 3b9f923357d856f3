// BlockCacheSource (src/import/block_cache_source.h): the page reads Nsight Systems exports through
// it, page by page, so every read must return exactly the bytes of the source, at any offset and
// length, across block edges and at the end, while the source itself is asked rarely.
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "import/block_cache_source.h"
#include "source_dir.h"

namespace {

// Bytes in memory that count the reads made of them; `max_read` caps each read (a source may
// return fewer bytes than asked); `fail_at` makes reads that touch that offset fail.
class CountingSource : public ks::ByteSource {
 public:
  explicit CountingSource(std::string bytes) : bytes_(std::move(bytes)) {}
  uint64_t size() const override { return bytes_.size(); }
  int64_t read_at(uint64_t offset, void* out, size_t n) override {
    ++reads;
    if (offset <= fail_at && fail_at < offset + n) return -1;
    if (offset >= bytes_.size()) return 0;
    size_t take = std::min<size_t>({n, bytes_.size() - offset, max_read});
    std::memcpy(out, bytes_.data() + offset, take);
    return static_cast<int64_t>(take);
  }
  int reads = 0;
  size_t max_read = SIZE_MAX;
  uint64_t fail_at = UINT64_MAX;

 private:
  std::string bytes_;
};

std::string pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + i / 251) & 0xFF);
  return s;
}

std::string read(ks::ByteSource& src, uint64_t offset, size_t n, int64_t* got = nullptr) {
  std::string out(n, '\x55');
  int64_t r = src.read_at(offset, &out[0], n);
  if (got) *got = r;
  out.resize(r < 0 ? 0 : static_cast<size_t>(r));
  return out;
}

}  // namespace

TEST_CASE("block cache: every offset and length reads the source's bytes", "[block_cache]") {
  const std::string bytes = pattern(10'000);
  CountingSource inner(bytes);
  inner.max_read = 700;  // short reads from the source are completed, not taken for the end
  ks::BlockCacheSource cache(&inner, 1024, 3);
  REQUIRE(cache.size() == bytes.size());
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    uint64_t offset = rng() % 10'100;  // some past the end
    size_t n = rng() % 3000;
    size_t expect = offset >= bytes.size() ? 0 : std::min<size_t>(n, bytes.size() - offset);
    INFO("offset " << offset << " n " << n);
    int64_t got = 0;
    std::string r = read(cache, offset, n, &got);
    REQUIRE(got == static_cast<int64_t>(expect));
    REQUIRE(r == bytes.substr(std::min<size_t>(offset, bytes.size()), expect));
  }
}

TEST_CASE("block cache: page reads inside a block cost one read of the source", "[block_cache]") {
  const std::string bytes = pattern(8 * 4096);
  CountingSource inner(bytes);
  ks::BlockCacheSource cache(&inner, 4 * 4096, 2);
  for (uint64_t page = 0; page < 8; ++page) CHECK(read(cache, page * 4096, 4096).size() == 4096);
  CHECK(cache.reads() == 8);
  CHECK(inner.reads == 2);  // two blocks of four pages
  CHECK(cache.inner_reads() == 2);
  CHECK(cache.inner_bytes() == bytes.size());
  // A read across the block edge touches both blocks, both cached.
  CHECK(read(cache, 4 * 4096 - 10, 20) == bytes.substr(4 * 4096 - 10, 20));
  CHECK(inner.reads == 2);
}

TEST_CASE("block cache: the least recently used block is the one dropped", "[block_cache]") {
  const std::string bytes = pattern(4 * 100);
  CountingSource inner(bytes);
  ks::BlockCacheSource cache(&inner, 100, 2);
  read(cache, 0, 1);    // block 0
  read(cache, 100, 1);  // block 1
  read(cache, 0, 1);    // block 0 again: now block 1 is the oldest
  CHECK(inner.reads == 2);
  read(cache, 200, 1);  // block 2 replaces block 1
  CHECK(inner.reads == 3);
  read(cache, 0, 1);  // still cached
  CHECK(inner.reads == 3);
  read(cache, 100, 1);  // was dropped
  CHECK(inner.reads == 4);
}

TEST_CASE("block cache: an I/O error is -1, and a later read retries", "[block_cache]") {
  const std::string bytes = pattern(1000);
  CountingSource inner(bytes);
  ks::BlockCacheSource cache(&inner, 256, 2);
  inner.fail_at = 300;
  int64_t got = 0;
  read(cache, 290, 4, &got);
  CHECK(got == -1);
  CHECK(read(cache, 10, 5) == bytes.substr(10, 5));  // other blocks still read
  inner.fail_at = UINT64_MAX;
  CHECK(read(cache, 290, 20) == bytes.substr(290, 20));  // the failed block was not kept
}

TEST_CASE("block cache: an empty source and a source that ends early", "[block_cache]") {
  CountingSource empty("");
  ks::BlockCacheSource cache(&empty, 64, 2);
  int64_t got = -2;
  read(cache, 0, 10, &got);
  CHECK(got == 0);
  CHECK(empty.reads == 0);

  // size() said 100 bytes, but the source has only 70 now (the file was cut while open).
  class Shrunk : public CountingSource {
   public:
    Shrunk() : CountingSource(pattern(70)) {}
    uint64_t size() const override { return 100; }
  } shrunk;
  ks::BlockCacheSource c2(&shrunk, 64, 2);
  read(c2, 60, 40, &got);
  CHECK(got == 10);
}

TEST_CASE("block cache: the real Nsight Systems export reads back byte for byte", "[block_cache]") {
  std::ifstream f(ks_test::source_dir() + "/../shared/nsys/perlmutter-cloverleaf-cuda.sqlite",
                  std::ios::binary);
  REQUIRE(f);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() > 2'000'000);
  REQUIRE(bytes.compare(0, 16, std::string("SQLite format 3\0", 16)) == 0);
  CountingSource inner(bytes);
  ks::BlockCacheSource cache(&inner);  // the page's sizes: 1 MiB blocks
  // SQLite reads the header, then whole pages (the page size is at offset 16, big-endian).
  const size_t page =
      (static_cast<unsigned char>(bytes[16]) << 8) | static_cast<unsigned char>(bytes[17]);
  REQUIRE(page == 4096);
  std::string all;
  for (uint64_t at = 0; at < bytes.size(); at += page) all += read(cache, at, page);
  CHECK(all == bytes);
  CHECK(inner.reads == static_cast<int>((bytes.size() + (1 << 20) - 1) >> 20));
}
