#include "import/file_byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ks {

std::unique_ptr<FileByteSource> FileByteSource::open(const std::string& path, ImportError* error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    error->code = ImportErrorCode::kIoError;
    error->message = fd < 0 ? std::string("cannot open the file: ") + std::strerror(errno)
                            : std::string("not a regular file");
    error->offset = 0;
    if (fd >= 0) ::close(fd);
    return nullptr;
  }
  return std::unique_ptr<FileByteSource>(new FileByteSource(fd, static_cast<uint64_t>(st.st_size)));
}

FileByteSource::~FileByteSource() {
  ::close(fd_);
}

int64_t FileByteSource::read_at(uint64_t offset, void* out, size_t n) {
  size_t done = 0;
  while (done < n) {
    ssize_t got =
        ::pread(fd_, static_cast<char*>(out) + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (got == 0) break;  // end of file
    done += static_cast<size_t>(got);
  }
  return static_cast<int64_t>(done);
}

int64_t read_file_head(const std::string& path, char* out, size_t n) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t got = ::pread(fd, out, n, 0);
  ::close(fd);
  return got;
}

}  // namespace ks
