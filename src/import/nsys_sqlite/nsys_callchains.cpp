// CUDA_CALLCHAINS (nsys profile --cudabacktrace=...): the native call stack of a CUDA API call,
// one row per frame (id, stackDepth; depth 0 the innermost), linked from
// CUPTI_ACTIVITY_KIND_RUNTIME.callchainId. What a user wants from it is where in the program a
// sync or a device-to-host copy was made: the innermost frame outside the CUDA libraries and the
// driver (the frames of cudaStreamSynchronize itself, libcudart's and libcuda's internals, say
// nothing), as the Kineto path names the Python line of a .item(). Kept as the call's call stack,
// one frame "symbol in module" (model/trace.h), read by analysis/python_source.h.
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "import/nsys_sqlite/nsys_rows.h"
#include "util/path_name.h"
#include "util/safe_text.h"
#include "util/text_match.h"

namespace ks::nsys_sqlite {

namespace {

// A shared object of the CUDA toolkit, the driver or the profiler itself (nsys injects its
// libraries into the process, and their frames sit above the API's).
bool cuda_library(std::string_view module) {
  const std::string_view name = path_base_name(module);
  static constexpr std::string_view kPrefixes[] = {
      "libcuda.",      "libcudart",   "libcublas", "libcudnn",          "libcufft",     "libcurand",
      "libcusparse",   "libcusolver", "libnccl",   "libnvrtc",          "libnvJitLink", "libcupti",
      "libnvToolsExt", "libnvidia-",  "libnvperf", "libToolsInjection", "libnvtx"};
  for (std::string_view p : kPrefixes)
    if (starts_with(name, p)) return true;
  return false;
}

// A CUDA runtime or driver function linked into the program itself (a static libcudart):
// cudaStreamSynchronize, cuMemcpyDtoH_v2, cudart::cudaApiMemcpy(...), __cudart1234.
bool cuda_symbol(std::string_view symbol) {
  if (starts_with(symbol, "cuda") || starts_with(symbol, "cudart::") ||
      starts_with(symbol, "__cudart"))
    return true;
  return symbol.size() > 2 && symbol[0] == 'c' && symbol[1] == 'u' && symbol[2] >= 'A' &&
         symbol[2] <= 'Z';
}

struct Candidate {
  int64_t depth = -1, symbol = 0, module = 0;
  bool resolved = false;
};

// Whether frame b is the better caller than a: a resolved frame (an unresolved one is an
// address, naming no function) before an unresolved one, then the innermost.
bool better(const Candidate& a, const Candidate& b) {
  if (a.depth < 0) return true;
  if (a.resolved != b.resolved) return b.resolved;
  return b.depth < a.depth;
}

}  // namespace

bool read_callchains(Context& c) {
  const char* table = "CUDA_CALLCHAINS";
  if (!c.db.has_table(table)) return true;  // captured without --cudabacktrace
  RowReader r;
  enum { kId, kSymbol, kModule, kDepth, kUnresolved };
  if (!r.prepare(c.db, table, {"id", "symbol", "module", "stackDepth", "?unresolved"},
                 &c.trace->diagnostics, c.error))
    return false;
  // Frames are many (every call's whole stack) and their names few: each module and symbol is
  // judged once.
  std::unordered_map<int64_t, bool> cuda_modules, cuda_symbols;
  auto judged = [](std::unordered_map<int64_t, bool>* cache, int64_t id, auto&& rule) {
    auto [at, fresh] = cache->try_emplace(id, false);
    if (fresh) at->second = rule();
    return at->second;
  };
  std::unordered_map<int64_t, Candidate> best;  // by chain id
  while (r.next()) {
    // A frame without a symbol names nothing to show; one without a depth has no place.
    if (r.null(kId) || r.null(kSymbol) || r.i64(kDepth, -1) < 0) continue;
    Candidate f{r.i64(kDepth), r.i64(kSymbol, -1), r.i64(kModule, -1), r.i64(kUnresolved, 0) == 0};
    if (judged(&cuda_modules, f.module,
               [&] { return f.module >= 0 && cuda_library(c.strings.get(f.module)); }) ||
        judged(&cuda_symbols, f.symbol, [&] { return cuda_symbol(c.strings.get(f.symbol)); }))
      continue;
    Candidate& b = best[r.i64(kId)];
    if (better(b, f)) b = f;
  }
  if (r.failed()) return false;
  // One text per distinct frame, interned once, however many chains end on it, and cut at
  // kMaxFrameBytes: a crafted export pointing a million chains at one 1 MB symbol asked for a
  // copy per chain (a terabyte) and a hash of it per API call.
  std::map<std::pair<int64_t, int64_t>, StringId> frames;
  for (const auto& kv : best) {
    auto [at, fresh] = frames.try_emplace({kv.second.symbol, kv.second.module}, 0);
    if (fresh) {
      std::string frame(utf8_prefix(c.strings.get(kv.second.symbol), kMaxFrameBytes));
      const std::string_view module = kv.second.module < 0
                                          ? std::string_view()
                                          : path_base_name(c.strings.get(kv.second.module));
      if (!module.empty()) frame += " in " + std::string(utf8_prefix(module, kMaxFrameBytes));
      at->second = c.trace->strings.intern(frame);
    }
    c.callers.emplace(kv.first, at->second);
  }
  return true;
}

}  // namespace ks::nsys_sqlite
