#include "model/trace.h"

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

}  // namespace ks
