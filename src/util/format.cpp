#include "util/format.h"

#include <cstdarg>
#include <cstdio>

namespace ks {

std::string format_duration(int64_t ns) {
  char buf[64];
  double x = static_cast<double>(ns);
  int64_t a = ns < 0 ? -ns : ns;
  if (a >= 1000000000)
    std::snprintf(buf, sizeof(buf), "%.2f s", x / 1e9);
  else if (a >= 1000000)
    std::snprintf(buf, sizeof(buf), "%.2f ms", x / 1e6);
  else
    std::snprintf(buf, sizeof(buf), "%.1f \u00b5s", x / 1e3);
  return buf;
}

std::string format_bytes(int64_t bytes) {
  char buf[64];
  double x = static_cast<double>(bytes);
  if (bytes >= (int64_t{1} << 30))
    std::snprintf(buf, sizeof(buf), "%.2f GiB", x / (1 << 30));
  else if (bytes >= (1 << 20))
    std::snprintf(buf, sizeof(buf), "%.2f MiB", x / (1 << 20));
  else if (bytes >= (1 << 10))
    std::snprintf(buf, sizeof(buf), "%.1f KiB", x / (1 << 10));
  else
    std::snprintf(buf, sizeof(buf), "%lld B", static_cast<long long>(bytes));
  return buf;
}

// A share that is not all or nothing is never written as all or nothing: 99.99% GPU idle beside
// 16 µs of kernels read "GPU idle 100.0%", as if no kernel ran (the page writes it the same way).
std::string format_pct(double pct) {
  if (pct > 99.95 && pct < 100) return ">99.9%";
  if (pct > 0 && pct < 0.05) return "<0.1%";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f%%", pct);
  return buf;
}

void append_line(std::string* out, const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  out->append(buf);
  out->push_back('\n');
}

}  // namespace ks
