#include "import/split_file_read.h"

#include <pthread.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "import/chrome_json/split_point.h"

namespace ks {

namespace {

constexpr size_t kChunk = size_t{1} << 20;
constexpr size_t kProbe = size_t{1} << 20;  // as web/worker/split.js SPLIT_PROBE
constexpr uint64_t kBytesPerThread = uint64_t{32} << 20;

struct Helper {
  std::string path;
  uint64_t start = 0, stop = 0;
  // Null: the part could not be read or merged (the caller reads it itself).
  std::shared_ptr<ChromeJsonImporter::PartModel> part;
  pthread_t thread{};
  bool started = false;
};

void* read_part(void* arg) {
  Helper& h = *static_cast<Helper*>(arg);
  FILE* f = std::fopen(h.path.c_str(), "rb");
  if (!f) return nullptr;
  if (fseeko(f, static_cast<off_t>(h.start), SEEK_SET) == 0) {
    ChromeJsonImporter part;
    part.start_part(h.start, h.stop);
    std::vector<char> buffer(kChunk);
    while (!part.part_ended() && !part.part_failed()) {
      const size_t n = std::fread(buffer.data(), 1, kChunk, f);
      if (n == 0 || !part.feed(buffer.data(), n)) break;
    }
    h.part = part.take_part_model();
  }
  std::fclose(f);
  return nullptr;
}

// After this much JSON of its own the loader knows the events per byte well enough to reserve
// the model for the whole file (file_reader.cpp does the same).
constexpr uint64_t kReserveAfterBytes = uint64_t{16} << 20;

struct Loader {
  FILE* f;
  uint64_t bytes;  // the file's size
  ChromeJsonImporter* importer;
  bool reserved = false;
  bool io_error = false;

  // Reads [from, to) of the file (positioned at `from`), or to its end, into the importer.
  bool feed_range(uint64_t from, uint64_t to) {
    for (uint64_t pos = from; pos < to;) {
      const size_t want = static_cast<size_t>(std::min<uint64_t>(kChunk, to - pos));
      char* at = importer->prepare_feed(want);
      if (!at) return false;
      const size_t n = std::fread(at, 1, want, f);
      if (n == 0) {
        io_error = std::ferror(f) != 0;
        return !io_error;
      }
      if (!importer->commit_feed(n)) return false;
      pos += n;
      if (!reserved && importer->bytes_read() >= kReserveAfterBytes) {
        importer->reserve_for_total(bytes);
        reserved = true;
      }
    }
    return true;
  }
  bool seek(uint64_t pos) {
    io_error = fseeko(f, static_cast<off_t>(pos), SEEK_SET) != 0;
    return !io_error;
  }
};

// Element starts near k/N of the file, increasing; fewer when a probe finds none.
std::vector<uint64_t> find_starts(FILE* f, uint64_t bytes, int threads) {
  std::vector<uint64_t> starts;
  std::vector<char> probe(kProbe);
  for (int k = 1; k < threads; ++k) {
    const uint64_t from = bytes * static_cast<uint64_t>(k) / static_cast<uint64_t>(threads);
    if (!starts.empty() && from <= starts.back()) continue;
    if (fseeko(f, static_cast<off_t>(from), SEEK_SET) != 0) break;
    const size_t n = std::fread(probe.data(), 1, kProbe, f);
    const size_t at = find_part_start(probe.data(), n);
    if (at != std::string::npos && (starts.empty() || from + at > starts.back()))
      starts.push_back(from + at);
  }
  return starts;
}

}  // namespace

int read_threads_allowed() {
  if (const char* env = std::getenv("KINETOSCOPE_READ_THREADS"))
    return std::max(1, std::min(256, std::atoi(env)));
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int read_threads_for(uint64_t bytes) {
  // 8 at most, as the page's workers: past that, merging the parts on one thread dominates
  // (docs/performance.md, session 21).
  const uint64_t threads = std::min<uint64_t>(8, static_cast<uint64_t>(read_threads_allowed()));
  return static_cast<int>(std::min<uint64_t>(threads, bytes / kBytesPerThread));
}

bool feed_file_split(const std::string& path, uint64_t bytes, int threads,
                     ChromeJsonImporter* importer, bool* io_error) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    *io_error = true;
    return false;
  }
  const std::vector<uint64_t> starts = find_starts(f, bytes, threads);
  std::vector<Helper> helpers(starts.size());
  for (size_t k = 0; k < starts.size(); ++k) {
    helpers[k].path = path;
    helpers[k].start = starts[k];
    helpers[k].stop = k + 1 < starts.size() ? starts[k + 1] : UINT64_MAX;
    helpers[k].started = pthread_create(&helpers[k].thread, nullptr, read_part, &helpers[k]) == 0;
  }
  Loader l{f, bytes, importer};
  bool ok = l.seek(0);
  uint64_t pos = 0;
  for (Helper& h : helpers) {
    if (ok && pos <= h.start) {
      ok = l.feed_range(pos, h.start);
      pos = h.start;
    }
    if (h.started) pthread_join(h.thread, nullptr);
    if (!ok || pos != h.start) continue;  // failed, or read past this guess already
    if (importer->at_part_boundary() && h.part && importer->apply_part_model(*h.part)) {
      pos = importer->resume_offset();
      ok = l.seek(pos);
    }
    h.part.reset();  // its memory back before the next part is merged
  }
  // To the end, past `bytes` too when the file grew meanwhile, as one reader would.
  if (ok) ok = l.feed_range(pos, UINT64_MAX);
  std::fclose(f);
  *io_error = l.io_error;
  return ok;
}

}  // namespace ks
