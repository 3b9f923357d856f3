// The CLI's memory on transparent huge pages (src/cli/huge_pages.cpp).
#pragma once

namespace ks::cli {

// Starts this program again, with the same arguments, with glibc's malloc putting its heap on
// transparent huge pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1), which glibc reads only at
// start. Returns (doing nothing) where that is not possible or already done; call it first thing
// in main(), before any output.
void reexec_with_huge_page_heap(char** argv);

}  // namespace ks::cli
