// Native only: a gzip file read as zlib's gzread() reads it (every member of a multi-member
// file, in order; a cut-off end gives what was decoded before it), which also says what gzread
// keeps to itself: where the gzip data ends when bytes that are not gzip follow it. gzread
// ignores such bytes without a word, while the page's DecompressionStream refuses the file
// ("Junk found after end of compressed data"); both now read it and say how many were ignored.
#pragma once
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace ks {

class GzipReader {
 public:
  GzipReader() = default;
  GzipReader(const GzipReader&) = delete;
  GzipReader& operator=(const GzipReader&) = delete;
  ~GzipReader();

  // False when the file cannot be opened.
  bool open(const std::string& path);
  // Reads `file` (taken: closed by the reader), from where it stands; false when it is null.
  // The fuzz target reads memory this way (fmemopen).
  bool open(std::FILE* file);
  // Up to `n` bytes of the decoded data: the count, 0 at the end (whole or cut()), or -1 when the
  // data is damaged (reason()).
  int read(char* out, unsigned n);

  // The file ends inside a member (cut off): what was decoded before the cut was returned.
  bool cut() const { return cut_; }
  // Where the gzip data ends (a byte offset of the file) and how many bytes after it, not gzip,
  // were ignored: 0 when none.
  uint64_t data_end() const { return data_end_; }
  uint64_t ignored_after() const { return ignored_after_; }
  // zlib's reason for a damaged stream ("incorrect data check").
  const std::string& reason() const { return reason_; }

 private:
  bool refill();          // more input; false at the end of the file
  void end_of_members();  // after a member: another one, or the end (and what follows it)

  FILE* file_ = nullptr;
  z_stream zs_{};
  bool inflating_ = false;  // inflateInit2 done
  bool in_member_ = true;   // inside a member (false: between members)
  bool done_ = false, cut_ = false, eof_ = false;
  uint64_t file_read_ = 0;  // bytes read from the file so far
  uint64_t data_end_ = 0, ignored_after_ = 0;
  std::string reason_;
  std::vector<unsigned char> input_;
};

}  // namespace ks
