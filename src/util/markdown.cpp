#include "util/markdown.h"

#include <algorithm>

#include "util/safe_text.h"

namespace ks {

namespace {

// The characters that can start Markdown syntax inside a line: links and images ([ ] ( ) !),
// HTML and autolinks (< >), entities (&), code spans (`), emphasis (* _ ~), table cells (|),
// a heading's closing #s, and the backslash itself. Others ('-', ':', '.', ...) stay as they are
// so names read naturally ("aten::mm", "Device -> Pageable"), except where they would make a
// GFM autolink (below).
bool needs_escape(char c) {
  switch (c) {
    case '\\':
    case '`':
    case '*':
    case '_':
    case '~':
    case '[':
    case ']':
    case '(':
    case ')':
    case '!':
    case '<':
    case '>':
    case '&':
    case '|':
    case '#':
      return true;
    default:
      return false;
  }
}

bool ends_with_www(const std::string& out) {
  if (out.size() < 3) return false;
  for (size_t k = out.size() - 3; k < out.size(); ++k)
    if (out[k] != 'w' && out[k] != 'W') return false;
  return true;
}

// The longest run of backticks in `s`.
size_t longest_backtick_run(std::string_view s) {
  size_t best = 0, run = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    best = std::max(best, run);
  }
  return best;
}

}  // namespace

std::string markdown_text(std::string_view text, size_t max_bytes) {
  const std::string safe = display_safe(text, max_bytes);
  std::string out;
  for (size_t i = 0; i < safe.size(); ++i) {
    const char c = safe[i];
    if (c == '\n' || c == '\r') {
      out += ' ';
    } else if (c == '@') {
      // GFM links "user@host.tld" even when the '@' is escaped (and GitHub turns "@name" into a
      // mention): a one-character code span splits the text node the autolinker looks at.
      out += "`@`";
    } else if (needs_escape(c) || (c == ':' && safe.compare(i + 1, 2, "//") == 0) ||
               (c == '.' && ends_with_www(out))) {
      // CommonMark: an escaped ASCII punctuation character means itself. An escaped ':' in
      // "http://" or '.' in "www." also stops GFM's extended autolinks.
      out += '\\';
      out += c;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string markdown_cell(std::string_view raw, size_t max_len) {
  // Cut the text first, then escape, so no cut lands inside an escape.
  return markdown_text(raw, max_len);
}

std::string markdown_code_cell(std::string_view name, size_t max_bytes) {
  std::string safe = display_safe(name, max_bytes);
  for (char& c : safe)
    if (c == '\n' || c == '\r') c = ' ';
  // A code span shows its text literally (no link, image, HTML, entity or autolink) when its
  // fence is longer than any backtick run inside it; spaces keep a leading or trailing backtick
  // off the fence (CommonMark strips one space from each side).
  const std::string fence(longest_backtick_run(safe) + 1, '`');
  const bool pad = !safe.empty() && (safe.front() == '`' || safe.back() == '`' ||
                                     (safe.front() == ' ' && safe.back() == ' '));
  std::string out = fence + (pad ? " " : "");
  if (safe.empty()) out += ' ';  // "``" alone is not a code span
  for (char c : safe) {
    if (c == '|')
      out += "\\|";  // GFM splits table cells before code spans; its escaped pipe is a pipe
    else
      out.push_back(c);
  }
  return out + (pad ? " " : "") + fence;
}

}  // namespace ks
