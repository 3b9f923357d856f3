// Taking the page faults of a load's memory while the worker waits for the file (web/worker/
// prefault.js). The first write to each 4 KiB page of WebAssembly memory costs the system a page
// fault (16-17 us of CPU each on this project's machine, docs/performance.md session 32), and a
// load's model is written into fresh pages. The memory the allocator will hand out next lies
// above the heap's break (sbrk(0)), never used yet: writing zeros there now (the value fresh
// memory has, which the allocator may count on) takes those faults early, without allocating.
#pragma once

#include <emscripten/heap.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace ks_wasm {

// The end of the memory written so far above the break (0: none yet).
inline uintptr_t g_prefaulted_to = 0;

// Writes up to `bytes` more of the memory above the heap's break, a byte a page, growing the
// memory when needed; the bytes written (0 when the memory cannot grow). Each call goes on from
// where the last one ended, or from the break once the allocator has passed that point.
inline size_t prefault_heap(size_t bytes) {
  constexpr uintptr_t kPage = 4096;
  const uintptr_t brk = reinterpret_cast<uintptr_t>(sbrk(0));
  const uintptr_t from = (std::max(brk, g_prefaulted_to) + kPage - 1) & ~(kPage - 1);
  if (bytes > UINTPTR_MAX - from) return 0;  // past the 4 GB of a 32-bit address space
  const uintptr_t to = from + bytes;
  if (to > emscripten_get_heap_size() && !emscripten_resize_heap(to)) return 0;
  for (uintptr_t p = from; p < to; p += kPage) *reinterpret_cast<volatile char*>(p) = 0;
  g_prefaulted_to = to;
  return to - from;
}

// Bytes the allocator holds free (freed by earlier loads and the warm-up: already written once).
inline size_t heap_free_bytes() {
  return static_cast<size_t>(mallinfo().fordblks);
}

}  // namespace ks_wasm
