#include "model/trace.h"

#include <string>

namespace ks {

const char* trace_format_name(TraceFormat f) {
  switch (f) {
    case TraceFormat::kUnknown:
      return "unknown";
    case TraceFormat::kChromeArray:
      return "chrome_trace_array";
    case TraceFormat::kChromeObject:
      return "chrome_trace_object";
    case TraceFormat::kNsysSqlite:
      return "nsys_sqlite";
  }
  return "unknown";
}

FlowId flow_id_of(std::string_view text, StringPool* strings) {
  const bool leading_zero = text.size() > 1 && text[0] == '0';
  if (!text.empty() && text.size() <= 18 && !leading_zero) {
    FlowId value = 0;
    size_t i = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i)
      value = value * 10 + static_cast<FlowId>(text[i] - '0');
    if (i == text.size()) return value;  // below 10^18 < 2^63: never tagged
  }
  return kFlowIdText | strings->intern(text);
}

FlowId flow_id_of(int64_t value, StringPool* strings) {
  constexpr int64_t kMaxValue = 999999999999999999;  // 18 digits, as the text rule keeps
  if (value >= 0 && value <= kMaxValue) return static_cast<FlowId>(value);
  const std::string text = std::to_string(value);
  return flow_id_of(std::string_view(text), strings);
}

}  // namespace ks
