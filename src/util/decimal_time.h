// Parses decimal microsecond text ("1666149715033200", "12.345", "-3", "1.5e3") into integer
// nanoseconds without passing through a double, so epoch-microsecond timestamps (~1.7e15 us,
// ~1.7e18 ns) keep every digit. The Chrome trace format gives ts/dur in microseconds.
#pragma once
#include <cstdint>
#include <string_view>

namespace ks {

// The largest time magnitude accepted, in ns: any two such times add or subtract inside int64.
constexpr int64_t kMaxAbsTimeNs = 4'000'000'000'000'000'000;

// Returns false when the text is not a number or overflows int64 nanoseconds.
// Fraction digits beyond nanoseconds are rounded half away from zero.
bool parse_us_text_to_ns(std::string_view text, int64_t* out_ns);

}  // namespace ks
