#include "import/gzip_reader.h"

#include <cstring>

namespace ks {

namespace {
constexpr size_t kInputBytes = 256 * 1024;  // as the gzbuffer() the CLI gave zlib
constexpr int kGzipOnly = 15 + 16;          // windowBits: a 32 KiB window, gzip header only
}  // namespace

GzipReader::~GzipReader() {
  if (inflating_) inflateEnd(&zs_);
  if (file_) std::fclose(file_);
}

bool GzipReader::open(const std::string& path) {
  return open(std::fopen(path.c_str(), "rb"));
}

bool GzipReader::open(std::FILE* file) {
  file_ = file;
  if (!file_) return false;
  input_.resize(kInputBytes);
  if (inflateInit2(&zs_, kGzipOnly) != Z_OK) return false;
  inflating_ = true;
  return true;
}

bool GzipReader::refill() {
  if (eof_) return false;
  // Keep what is left (at most one byte, when a member boundary needs two to decide).
  const size_t keep = zs_.avail_in;
  if (keep) std::memmove(input_.data(), zs_.next_in, keep);
  const size_t got = std::fread(input_.data() + keep, 1, input_.size() - keep, file_);
  file_read_ += got;
  if (got == 0) eof_ = true;
  zs_.next_in = input_.data();
  zs_.avail_in = static_cast<uInt>(keep + got);
  return got > 0;
}

void GzipReader::end_of_members() {
  // Another member begins with the gzip magic (0x1f 0x8b), as zlib's gz_look() decides; anything
  // else ends the data, and the rest of the file is ignored (as gzread ignores it), but counted.
  while (zs_.avail_in < 2 && refill()) {
  }
  if (zs_.avail_in >= 2 && zs_.next_in[0] == 0x1f && zs_.next_in[1] == 0x8b) {
    inflateReset(&zs_);
    in_member_ = true;
    return;
  }
  done_ = true;
  data_end_ = file_read_ - zs_.avail_in;
  ignored_after_ = zs_.avail_in;
  while (refill()) ignored_after_ += zs_.avail_in, zs_.avail_in = 0;
}

int GzipReader::read(char* out, unsigned n) {
  zs_.next_out = reinterpret_cast<Bytef*>(out);
  zs_.avail_out = n;
  while (zs_.avail_out > 0 && !done_) {
    if (!in_member_) {
      end_of_members();
      continue;
    }
    if (zs_.avail_in == 0 && !refill()) {
      // The file ends inside a member: cut off (gzread's Z_BUF_ERROR).
      cut_ = true;
      done_ = true;
      break;
    }
    const int ret = inflate(&zs_, Z_NO_FLUSH);
    if (ret == Z_STREAM_END) {
      in_member_ = false;
    } else if (ret != Z_OK && ret != Z_BUF_ERROR) {
      reason_ = zs_.msg ? zs_.msg : ret == Z_MEM_ERROR ? "out of memory" : "invalid data";
      return -1;
    }
  }
  return static_cast<int>(n - zs_.avail_out);
}

}  // namespace ks
