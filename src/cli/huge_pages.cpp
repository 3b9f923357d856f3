// The CLI's column-sized allocations go on transparent huge pages.
//
// Why: a report allocates, fills and frees many column-sized vectors (the model's columns, the
// slice sort's permutations, the analyses' per-slice temporaries). glibc maps each one in fresh
// 4 KiB pages and unmaps it when freed, so every one is faulted in again page by page, and the
// walks over them miss the TLB. Where transparent huge pages are "madvise" (Ubuntu's default and
// this project's machines'), asking for them on those blocks takes 512x fewer faults: the 400 MB
// Nsight Systems export's report went from 14.6 s (4.8 s of it in the kernel, 768 k faults) to
// 5.3-5.5 s, the 200 MB JSON shapes' from 0.48-0.84 s to 0.33-0.60 s, peak RSS +4-11%
// (docs/performance.md). glibc's own switch for the same (GLIBC_TUNABLES=glibc.malloc.hugetlb=1)
// is read only when a process starts.
//
// Replacing operator new/delete is the standard's way to change how a program allocates; both
// stay malloc/free, so nothing else changes. Not under the sanitizers, which bring their own.
#if defined(__linux__) && !defined(__SANITIZE_ADDRESS__)
#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;

// A block of at least one huge page starts on a huge page boundary, and its whole huge pages
// are advised: only its own, so no other block changes. The tail past its last whole huge page
// stays in small pages. (Advising from 8 MB instead kept peak RSS as it was, +0-2% rather than
// +4-11%, but gave back half the time won on the 200 MB JSON shapes.)
void* allocate(std::size_t n) {
  if (n < kHugePage) return std::malloc(n ? n : 1);
  void* p = nullptr;
  if (posix_memalign(&p, kHugePage, n) != 0) return nullptr;
  madvise(p, n & ~(kHugePage - 1), MADV_HUGEPAGE);
  return p;
}

}  // namespace

void* operator new(std::size_t n) {
  for (;;) {
    if (void* p = allocate(n)) return p;
    // The standard's loop: a new handler may free memory and let the allocation be tried again.
    // Without one, the CLI (built without exceptions) stops, saying why.
    std::new_handler handler = std::get_new_handler();
    if (!handler) {
      std::fprintf(stderr, "kinetoscope: out of memory (%zu bytes asked for)\n", n);
      std::abort();
    }
    handler();
  }
}

// The nothrow forms answer null, as before: simdjson asks with them and reports a failure.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return allocate(n);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return allocate(n);
}

void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

#endif
