// libFuzzer target: the CLI's gzip member reader (src/import/gzip_reader.h) on any bytes, read in
// pieces whose size the input's first byte chooses. No crash; each read returns at most what was
// asked; and what it decodes is what zlib's gzread decodes from the same file, when both read it
// to the end without an error (the reader replaced gzread and must keep its members and its end).
#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "import/gzip_reader.h"

namespace {

constexpr size_t kMaxDecoded = 64u << 20;  // a gzip bomb is read this far, then left

// What gzread gives for `bytes` (written to an unlinked temporary file): the data, and whether it
// read to the end without an error.
bool gzread_all(const std::string& bytes, std::string* out) {
  char path[] = "/tmp/gzip_fuzzer_XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) std::abort();
  unlink(path);
  if (write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) std::abort();
  lseek(fd, 0, SEEK_SET);
  gzFile gz = gzdopen(fd, "rb");
  if (!gz) std::abort();
  char buf[65536];
  int n = 0;
  while (out->size() < kMaxDecoded && (n = gzread(gz, buf, sizeof buf)) > 0) out->append(buf, n);
  int err = Z_OK;
  gzerror(gz, &err);
  gzclose(gz);
  return n == 0 && err == Z_OK;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const unsigned piece = 1u + data[0] * 97u;  // 1 .. 24736 bytes per read
  const std::string file(reinterpret_cast<const char*>(data + 1), size - 1);
  std::FILE* memory = fmemopen(const_cast<char*>(file.data()), file.size() ? file.size() : 1, "rb");
  if (file.empty() && memory) std::fclose(memory), memory = std::fopen("/dev/null", "rb");
  ks::GzipReader reader;
  if (!reader.open(memory)) return 0;
  std::string decoded;
  std::vector<char> buf(piece);
  int n = 0;
  while (decoded.size() < kMaxDecoded && (n = reader.read(buf.data(), piece)) > 0) {
    if (static_cast<unsigned>(n) > piece) std::abort();
    decoded.append(buf.data(), n);
  }
  if (n < 0 && reader.reason().empty()) std::abort();  // damage always has zlib's reason
  if (n < 0 || reader.cut() || decoded.size() >= kMaxDecoded) return 0;
  if (reader.data_end() + reader.ignored_after() != file.size()) {
    std::fprintf(stderr, "gzip_fuzzer: data ends at %llu, %llu ignored, file %zu bytes\n",
                 static_cast<unsigned long long>(reader.data_end()),
                 static_cast<unsigned long long>(reader.ignored_after()), file.size());
    std::abort();
  }
  // gzread copies a file that is not gzip as it is; the reader takes gzip only.
  if (file.size() < 2 || static_cast<uint8_t>(file[0]) != 0x1f ||
      static_cast<uint8_t>(file[1]) != 0x8b)
    return 0;
  std::string expected;
  if (gzread_all(file, &expected) && expected != decoded) {
    std::fprintf(stderr, "gzip_fuzzer: %zu bytes decoded, gzread %zu\n", decoded.size(),
                 expected.size());
    std::abort();
  }
  return 0;
}
