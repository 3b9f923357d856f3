// The CLI's column-sized allocations go on transparent huge pages.
//
// Why: a report allocates, fills and frees many column-sized vectors (the model's columns, the
// slice sort's permutations, the analyses' per-slice temporaries). glibc maps each one in fresh
// 4 KiB pages and unmaps it when freed, so every one is faulted in again page by page, and the
// walks over them miss the TLB. Where transparent huge pages are "madvise" (Ubuntu's default and
// this project's machines'), asking for them on those blocks takes 512x fewer faults: the 400 MB
// Nsight Systems export's report went from 14.6 s (4.8 s of it in the kernel, 768 k faults) to
// 5.3-5.5 s, the 200 MB JSON shapes' from 0.48-0.84 s to 0.33-0.60 s, peak RSS +4-11%
// (docs/performance.md).
//
// The smaller blocks (strings, hash nodes, the analyses' short vectors) stay in glibc's heap, in
// 4 KiB pages. glibc's own switch for its heap (GLIBC_TUNABLES=glibc.malloc.hugetlb=1) is read
// only when a process starts, so reexec_with_huge_page_heap() starts the CLI once more with it.
//
// Replacing operator new/delete is the standard's way to change how a program allocates; both
// stay malloc/free, so nothing else changes. Not under the sanitizers, which bring their own.
#include "cli/huge_pages.h"

#if defined(__linux__) && !defined(__SANITIZE_ADDRESS__)
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <new>
#include <string>

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

namespace ks::cli {

// glibc 2.35 and later read the tunable; the kernel must not have huge pages turned off
// ("[never]"), or the second start would buy nothing. GLIBC_TUNABLES that already names the
// tunable (set by the first start, or by a user who wants it off: hugetlb=0) is left as it is,
// so this runs at most once. If the exec fails (no /proc), the CLI goes on in this process.
// Measured on the five 210-232 MB shapes of make bench: 9-21% less time, peak RSS +7-19%; at
// 1 GB no change beyond the noise (docs/performance.md, session 24).
void reexec_with_huge_page_heap(char** argv) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables && std::strstr(tunables, "glibc.malloc.hugetlb")) return;
  std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
  const std::string mode((std::istreambuf_iterator<char>(thp)), std::istreambuf_iterator<char>());
  if (mode.empty() || mode.find("[never]") != std::string::npos) return;
  const std::string before = tunables ? tunables : "";
  const std::string with =
      before.empty() ? "glibc.malloc.hugetlb=1" : before + ":glibc.malloc.hugetlb=1";
  if (setenv("GLIBC_TUNABLES", with.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
  if (tunables)
    setenv("GLIBC_TUNABLES", before.c_str(), 1);
  else
    unsetenv("GLIBC_TUNABLES");
#else
  (void)argv;
#endif
}

}  // namespace ks::cli

#else

namespace ks::cli {
void reexec_with_huge_page_heap(char**) {}
}  // namespace ks::cli

#endif
