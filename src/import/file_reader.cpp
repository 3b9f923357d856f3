#include "import/file_reader.h"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <functional>

#include "import/gzip_pipe.h"
#include "import/split_file_read.h"

namespace ks {

std::string base_name(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
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

// zlib's reason for a failed read, as the CLI's line wants it.
void gzip_read_error(gzFile in, const std::string& path, const ChromeJsonImporter& importer,
                     ImportError* error) {
  int errnum = 0;
  const char* msg = gzerror(in, &errnum);
  // zlib's message starts with the path ("x.json.gz: incorrect data check"), which the CLI's
  // line already names: keep only the reason.
  std::string reason = msg ? msg : "?";
  if (reason.compare(0, path.size() + 2, path + ": ") == 0) reason.erase(0, path.size() + 2);
  error->code = ImportErrorCode::kGzipCorrupt;
  error->offset = importer.bytes_read();
  error->message = "the gzip stream is damaged (" + reason + "); " +
                   std::to_string(importer.bytes_read()) + " bytes of JSON were read before it";
}

// A plain file (or gzip on one core): read straight into the framer's buffer (one copy of the
// whole file fewer: 4% of the CLI's time on a 50 MB trace); zlib reads a plain file's large
// reads directly into it. gzread's last result, or 1 when the importer stopped.
int read_in_place(gzFile in, ChromeJsonImporter* importer, const std::function<void()>& after) {
  for (;;) {
    char* at = importer->prepare_feed(kReadChunkBytes);
    if (!at) return 1;
    const int n = gzread(in, at, static_cast<unsigned>(kReadChunkBytes));
    if (n <= 0) return n;
    if (!importer->commit_feed(static_cast<size_t>(n))) return 1;
    after();
  }
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
  // zlib reads plain files transparently, so one loop serves both.
  gzFile in = gzopen(path.c_str(), "rb");
  if (!in) {
    error->code = ImportErrorCode::kIoError;
    error->message = "cannot open " + path;
    return false;
  }
  gzbuffer(in, 256 * 1024);
  auto reserve = [&]() {
    if (json_bytes && importer->bytes_read() >= kReserveAfterBytes) {
      importer->reserve_for_total(json_bytes);
      json_bytes = 0;  // once
    }
  };
  // gzip on two cores or more: decoded on a second thread while this one parses.
  const int last = gzip && allowed >= 2 ? read_gzip_pipelined(in, kReadChunkBytes, 4,
                                                              [&](const char* data, size_t n) {
                                                                if (!importer->feed(data, n))
                                                                  return false;
                                                                reserve();
                                                                return true;
                                                              })
                                        : read_in_place(in, importer, reserve);
  if (last == 1) {
    *error = importer->error();
    gzclose(in);
    return false;
  }
  if (last < 0) {
    gzip_read_error(in, path, *importer, error);
    gzclose(in);
    return false;
  }
  // gzread returns 0 at a truncated gzip end; zlib reports it as Z_BUF_ERROR. What was decoded
  // before the cut is kept, as a plain JSON file cut off while writing is (the importer's
  // diagnostics say where the file ends and what was read).
  int errnum = 0;
  gzerror(in, &errnum);
  gzclose(in);
  if (gzip && errnum == Z_BUF_ERROR) {
    struct stat st;
    importer->set_gzip_cut(::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0);
  }
  if (!importer->finish()) {
    *error = importer->error();
    return false;
  }
  return true;
}

}  // namespace ks
