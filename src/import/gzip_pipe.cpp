#include "import/gzip_pipe.h"

#include <pthread.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <vector>

namespace ks {

namespace {

// The chunks: `free_slots` to decode into, `full` decoded (with read's result) in file order.
struct Pipe {
  const DecodedRead* read;
  size_t chunk;
  std::vector<std::vector<char>> buffers;
  std::vector<int> results;
  std::deque<int> free_slots, full;
  bool stop = false;  // the consumer is done: the decoder ends at its next chunk
  std::mutex mu;
  std::condition_variable changed;
};

void* decode(void* arg) {
  Pipe& p = *static_cast<Pipe*>(arg);
  for (;;) {
    int slot;
    {
      std::unique_lock<std::mutex> lock(p.mu);
      p.changed.wait(lock, [&p] { return p.stop || !p.free_slots.empty(); });
      if (p.stop) return nullptr;
      slot = p.free_slots.front();
      p.free_slots.pop_front();
    }
    const int n =
        (*p.read)(p.buffers[static_cast<size_t>(slot)].data(), static_cast<unsigned>(p.chunk));
    {
      std::lock_guard<std::mutex> lock(p.mu);
      p.results[static_cast<size_t>(slot)] = n;
      p.full.push_back(slot);
    }
    p.changed.notify_all();
    if (n <= 0) return nullptr;  // the end, or an error: the consumer reads it from the queue
  }
}

int read_on_this_thread(const DecodedRead& read, size_t chunk,
                        const std::function<bool(const char*, size_t)>& consume) {
  std::vector<char> buffer(chunk);
  for (;;) {
    const int n = read(buffer.data(), static_cast<unsigned>(chunk));
    if (n <= 0) return n;
    if (!consume(buffer.data(), static_cast<size_t>(n))) return 1;
  }
}

}  // namespace

int read_gzip_pipelined(const DecodedRead& read, size_t chunk, int slots,
                        const std::function<bool(const char*, size_t)>& consume) {
  Pipe p;
  p.read = &read;
  p.chunk = chunk;
  p.buffers.assign(static_cast<size_t>(slots), std::vector<char>(chunk));
  p.results.assign(static_cast<size_t>(slots), 0);
  for (int k = 0; k < slots; ++k) p.free_slots.push_back(k);
  pthread_t decoder;
  if (pthread_create(&decoder, nullptr, decode, &p) != 0)
    return read_on_this_thread(read, chunk, consume);
  int last = 0;
  for (;;) {
    int slot;
    {
      std::unique_lock<std::mutex> lock(p.mu);
      p.changed.wait(lock, [&p] { return !p.full.empty(); });
      slot = p.full.front();
      p.full.pop_front();
    }
    last = p.results[static_cast<size_t>(slot)];
    if (last <= 0) break;
    if (!consume(p.buffers[static_cast<size_t>(slot)].data(), static_cast<size_t>(last))) {
      last = 1;
      break;
    }
    {
      std::lock_guard<std::mutex> lock(p.mu);
      p.free_slots.push_back(slot);
    }
    p.changed.notify_all();
  }
  {
    std::lock_guard<std::mutex> lock(p.mu);
    p.stop = true;
  }
  p.changed.notify_all();
  pthread_join(decoder, nullptr);
  return last;
}

}  // namespace ks
