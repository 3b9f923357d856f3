// libFuzzer target: the kernel-name demangler of older Nsight Systems exports
// (src/import/nsys_sqlite/kernel_demangle.h). Any bytes: no crash, no stack overflow, and a
// demangling never longer than the scan's bound on what it prints (the bound is what keeps a
// hostile name from running for minutes; a name that prints more than it says is a hole in it).
// same_spelling() must be idempotent, as the page applies it to what the CLI would not change.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "import/nsys_sqlite/kernel_demangle.h"

namespace nd = ks::nsys_sqlite;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The fuzzer mostly writes "_Z" names: start every input so, and try it as given too.
  const std::string_view raw(reinterpret_cast<const char*>(data), size);
  for (const std::string& name : {std::string(raw), "_Z" + std::string(raw)}) {
    const nd::MangledShape shape = nd::mangled_shape(name);
    const std::string text = nd::demangled_kernel_name(name);
    if (!text.empty() && static_cast<double>(text.size()) > shape.printed) {
      std::fprintf(stderr, "demangle_fuzzer: %zu bytes printed, bound %.0f: %s\n", text.size(),
                   shape.printed, name.c_str());
      std::abort();
    }
    if (nd::same_spelling(text) != text) {
      std::fprintf(stderr, "demangle_fuzzer: same_spelling changed its own output: %s\n",
                   text.c_str());
      std::abort();
    }
  }
  return 0;
}
