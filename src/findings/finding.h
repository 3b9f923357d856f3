// A finding: what is wrong with the run (or the capture), with the numbers behind it, the time
// ranges and events to look at, and the fix to try. Rules create them; the report shows them
// most severe first, in the reading order of the catalogue.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ks {

enum class Severity { kCritical = 0, kWarning = 1, kInfo = 2 };
const char* severity_name(Severity s);

struct Evidence {
  std::string key;
  bool is_number = true;
  double number = 0;
  int digits = 0;    // decimals shown
  std::string unit;  // "us", "%", "B", "" ...
  std::string text;
};

struct TimeRange {
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
  std::string label;
};

struct Finding {
  std::string id;
  Severity severity = Severity::kInfo;
  std::string title;     // one line, with the key number
  std::string meaning;   // one sentence: what it means for the run
  std::string fix;       // what to try
  std::string fix_code;  // a short code hint, may be empty
  std::vector<Evidence> evidence;
  std::vector<TimeRange> ranges;
  std::vector<uint32_t> events;  // slice indices to jump to

  Finding& number(std::string key, double value, int digits = 0, std::string unit = "");
  Finding& text(std::string key, std::string value);
  Finding& range(int64_t begin, int64_t end, std::string label = "");
};

}  // namespace ks
