#include "util/markdown.h"

#include "util/safe_text.h"

namespace ks {

std::string markdown_text(std::string_view text, size_t max_bytes) {
  std::string out;
  for (char c : display_safe(text, max_bytes)) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '|') out += "\\|";
    else if (c == '`') out += "'";
    else if (c == '\n' || c == '\r') out += ' ';
    else out.push_back(c);
  }
  return out;
}

std::string markdown_code_cell(std::string_view name, size_t max_bytes) {
  std::string safe = display_safe(name, max_bytes);
  if (safe.find('`') != std::string::npos) return markdown_text(safe);
  std::string out = "`";
  for (char c : safe) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else out.push_back(c);
  }
  return out + "`";
}

}  // namespace ks
