#include "util/markdown.h"

#include "util/safe_text.h"

namespace ks {

// '<' and '>' are backslash-escaped (CommonMark: any ASCII punctuation), not written as HTML
// entities: the text stays readable where the Markdown is read as it is ("Device -> Pageable"
// read "Device -&gt; Pageable"), and no tag can come alive where it is rendered.
std::string markdown_text(std::string_view text, size_t max_bytes) {
  std::string out;
  for (char c : display_safe(text, max_bytes)) {
    if (c == '<')
      out += "\\<";
    else if (c == '>')
      out += "\\>";
    else if (c == '|')
      out += "\\|";
    else if (c == '`')
      out += "'";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out.push_back(c);
  }
  return out;
}

std::string markdown_cell(std::string_view raw, size_t max_len) {
  std::string out;
  for (char c : display_safe(raw)) {
    if (static_cast<unsigned char>(c) < 0x20) continue;
    if (c == '|')
      out += "\\|";
    else if (c == '`')
      out += "'";
    else if (c == '<')
      out += "\\<";
    else if (c == '>')
      out += "\\>";
    else
      out.push_back(c);
  }
  if (max_len && out.size() > max_len) {
    std::string cut(utf8_prefix(out, max_len - 3));
    size_t slashes = 0;
    while (slashes < cut.size() && cut[cut.size() - 1 - slashes] == '\\') ++slashes;
    if (slashes % 2) cut.pop_back();
    out = cut + "...";
  }
  return out;
}

std::string markdown_code_cell(std::string_view name, size_t max_bytes) {
  std::string safe = display_safe(name, max_bytes);
  if (safe.find('`') != std::string::npos) return markdown_text(safe);
  std::string out = "`";
  for (char c : safe) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out.push_back(c);
  }
  return out + "`";
}

}  // namespace ks
