#include "findings/finding.h"

#include "util/json_writer.h"

namespace ks {

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::kCritical:
      return "critical";
    case Severity::kWarning:
      return "warning";
    case Severity::kInfo:
      return "info";
  }
  return "info";
}

Finding& Finding::number(std::string key, double value, int digits, std::string unit) {
  Evidence e;
  e.key = std::move(key);
  e.number = value;
  e.digits = digits;
  e.unit = std::move(unit);
  // A share inside (0, 100) keeps the digits that show it is not all or nothing (99.99, not
  // 100.0): the page writes it as the title does (">99.9%"), which it could not tell from 100.
  if (e.unit == "%") e.digits = share_digits(value, e.digits);
  evidence.push_back(std::move(e));
  return *this;
}

Finding& Finding::text(std::string key, std::string value) {
  Evidence e;
  e.key = std::move(key);
  e.is_number = false;
  e.text = std::move(value);
  evidence.push_back(std::move(e));
  return *this;
}

Finding& Finding::range(int64_t begin, int64_t end, std::string label) {
  ranges.push_back({begin, end, std::move(label)});
  return *this;
}

}  // namespace ks
