// Human-readable numbers for titles, the text report and Markdown: "12.3 ms", "4.0 MB".
#pragma once
#include <cstdint>
#include <string>

namespace ks {

std::string format_duration(int64_t ns);
std::string format_bytes(int64_t bytes);
std::string format_pct(double pct);
// printf into a report: appends one formatted line (at most 1023 bytes) and a newline.
void append_line(std::string* out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

}  // namespace ks
