#include "analysis/python_source.h"
#include "util/text_match.h"

namespace ks {

namespace {

bool is_library_path(std::string_view path) {
  return contains(path, "site-packages") || contains(path, "dist-packages") ||
         contains(path, "/torch/") || path.substr(0, 6) == "torch/" ||
         contains(path, "<built-in") || contains(path, "/lib/python") || path.empty() ||
         path[0] == '<';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string user_frame(std::string_view frame) {
  frame = trim(frame);
  // "path(123): function"
  size_t open = frame.find('(');
  size_t close = open == std::string_view::npos ? open : frame.find(')', open);
  if (open == std::string_view::npos || close == std::string_view::npos) return "";
  std::string_view path = frame.substr(0, open);
  std::string_view line = frame.substr(open + 1, close - open - 1);
  if (line.empty() || line.find_first_not_of("0123456789") != std::string_view::npos) return "";
  if (is_library_path(path)) return "";
  std::string_view fn =
      close + 1 < frame.size() ? trim(frame.substr(close + 1)) : std::string_view();
  if (!fn.empty() && fn.front() == ':') fn = trim(fn.substr(1));
  std::string out = std::string(path) + ":" + std::string(line);
  if (!fn.empty()) out += " (" + std::string(fn) + ")";
  return out;
}

std::string python_source_of(const Trace& t, uint32_t slice) {
  const SliceTable& s = t.slices;
  for (int32_t i = static_cast<int32_t>(slice); i >= 0; i = s.parent[static_cast<size_t>(i)]) {
    const uint32_t u = static_cast<uint32_t>(i);
    if (s.kind[u] == SliceKind::kPythonFunction) {
      std::string f = user_frame(t.str(s.name[u]));
      if (!f.empty()) return f;
      continue;
    }
    StringId cs = s.call_stack(u);
    if (cs == 0) continue;
    std::string_view stack = t.str(cs);
    while (!stack.empty()) {
      size_t semi = stack.find(';');
      std::string f = user_frame(stack.substr(0, semi));
      if (!f.empty()) return f;
      if (semi == std::string_view::npos) break;
      stack.remove_prefix(semi + 1);
    }
  }
  return "";
}

std::string native_caller_of(const Trace& t, uint32_t slice) {
  if (t.facts.format != TraceFormat::kNsysSqlite) return "";
  const StringId cs = t.slices.call_stack(slice);
  return cs == 0 ? "" : std::string(t.str(cs));
}

}  // namespace ks
