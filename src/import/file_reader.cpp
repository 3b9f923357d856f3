#include "import/file_reader.h"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <functional>

#include "import/gzip_pipe.h"
#include "import/gzip_reader.h"
#include "import/split_file_read.h"
#include "util/path_name.h"

namespace ks {

std::string base_name(const std::string& path) {
  return std::string(path_base_name(path));
}

namespace {

// Whether the file is gzip, and how many bytes of JSON it holds: its size, or what a gzip
// trailer says (the size modulo 4 GiB: only a hint, for reserve_for_total).
bool is_gzip_file(const std::string& path, bool* gzip, uint64_t* json_bytes) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  unsigned char magic[2] = {0, 0};
  size_t n = std::fread(magic, 1, 2, f);
  *gzip = n == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  *json_bytes = static_cast<uint64_t>(st.st_size);
  unsigned char trailer[4];
  if (*gzip && st.st_size >= 22 && std::fseek(f, -4, SEEK_END) == 0 &&
      std::fread(trailer, 1, 4, f) == 4)
    *json_bytes = trailer[0] | trailer[1] << 8 | trailer[2] << 16 | uint64_t{trailer[3]} << 24;
  std::fclose(f);
  return true;
}

// After this much JSON the rate of events per byte is known well enough to reserve the model.
constexpr uint64_t kReserveAfterBytes = uint64_t{16} << 20;

// The line for a damaged gzip stream: zlib's reason, and how much JSON was read before it.
void gzip_read_error(const std::string& reason, const ChromeJsonImporter& importer,
                     ImportError* error) {
  error->code = ImportErrorCode::kGzipCorrupt;
  error->offset = importer.bytes_read();
  error->message = "the gzip stream is damaged (" + reason + "); " +
                   std::to_string(importer.bytes_read()) + " bytes of JSON were read before it";
}

// Reads into the framer's buffer directly (one copy of the whole file fewer: 4% of the CLI's
// time on a 50 MB trace); zlib reads a plain file's large reads directly into it. `read`'s last
// result, or 1 when the importer stopped.
int read_in_place(const DecodedRead& read, ChromeJsonImporter* importer,
                  const std::function<void()>& after) {
  for (;;) {
    char* at = importer->prepare_feed(kReadChunkBytes);
    if (!at) return 1;
    const int n = read(at, static_cast<unsigned>(kReadChunkBytes));
    if (n <= 0) return n;
    if (!importer->commit_feed(static_cast<size_t>(n))) return 1;
    after();
  }
}

// A plain file on one thread: zlib's gzread, which reads a file that is not gzip as it is.
bool import_plain(const std::string& path, ChromeJsonImporter* importer, ImportError* error,
                  const std::function<void()>& after) {
  gzFile in = gzopen(path.c_str(), "rb");
  if (!in) {
    error->code = ImportErrorCode::kIoError;
    error->message = "cannot open " + path;
    return false;
  }
  gzbuffer(in, 256 * 1024);
  const int last =
      read_in_place([in](char* out, unsigned n) { return gzread(in, out, n); }, importer, after);
  gzclose(in);
  if (last == 1) {
    *error = importer->error();
    return false;
  }
  if (last < 0) {
    error->code = ImportErrorCode::kIoError;
    error->offset = importer->bytes_read();
    error->message = "cannot read " + path;
    return false;
  }
  return true;
}

// A gzip file: decoded on a second thread while this one parses when two cores are allowed.
// Every member is read; a cut-off end keeps what was decoded before it, and bytes after the gzip
// data that are not gzip are ignored and counted (both as diagnostics, as the page does).
bool import_gzip(const std::string& path, int allowed, ChromeJsonImporter* importer,
                 ImportError* error, const std::function<void()>& after) {
  GzipReader gz;
  if (!gz.open(path)) {
    error->code = ImportErrorCode::kIoError;
    error->message = "cannot open " + path;
    return false;
  }
  const DecodedRead read = [&gz](char* out, unsigned n) { return gz.read(out, n); };
  const int last = allowed >= 2 ? read_gzip_pipelined(read, kReadChunkBytes, 4,
                                                      [&](const char* data, size_t n) {
                                                        if (!importer->feed(data, n)) return false;
                                                        after();
                                                        return true;
                                                      })
                                : read_in_place(read, importer, after);
  if (last == 1) {
    *error = importer->error();
    return false;
  }
  if (last < 0) {
    gzip_read_error(gz.reason(), *importer, error);
    return false;
  }
  // What was decoded before a cut is kept, as a plain JSON file cut off while writing is (the
  // importer's diagnostics say where the file ends and what was read).
  if (gz.cut()) {
    struct stat st;
    importer->set_gzip_cut(::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0);
  }
  if (gz.ignored_after()) importer->set_gzip_trailing(gz.data_end(), gz.ignored_after());
  return true;
}

}  // namespace

bool import_file(const std::string& path, ChromeJsonImporter* importer, ImportError* error,
                 int max_threads) {
  const int allowed =
      max_threads > 0 ? std::min(max_threads, read_threads_allowed()) : read_threads_allowed();
  bool gzip = false;
  uint64_t json_bytes = 0;
  if (!is_gzip_file(path, &gzip, &json_bytes)) {
    error->code = ImportErrorCode::kIoError;
    error->message = "cannot open " + path + " (no such file, or not a regular file)";
    return false;
  }
  importer->set_source(base_name(path), gzip);
  // A large plain file on several cores: read by several threads (split_file_read.h).
  if (!gzip) {
    const int threads = std::min(allowed, read_threads_for(json_bytes));
    if (threads >= 2) {
      bool io_error = false;
      if (feed_file_split(path, json_bytes, threads, importer, &io_error) && importer->finish())
        return true;
      if (io_error) {
        error->code = ImportErrorCode::kIoError;
        error->offset = importer->bytes_read();
        error->message = "cannot read " + path;
      } else {
        *error = importer->error();
      }
      return false;
    }
  }
  auto reserve = [&]() {
    if (json_bytes && importer->bytes_read() >= kReserveAfterBytes) {
      importer->reserve_for_total(json_bytes);
      json_bytes = 0;  // once
    }
  };
  const bool read = gzip ? import_gzip(path, allowed, importer, error, reserve)
                         : import_plain(path, importer, error, reserve);
  if (!read) return false;
  if (!importer->finish()) {
    *error = importer->error();
    return false;
  }
  return true;
}

}  // namespace ks
