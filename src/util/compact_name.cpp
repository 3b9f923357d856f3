#include "util/compact_name.h"

#include <algorithm>
#include <vector>

namespace ks {

namespace {

constexpr size_t kMaxScannedBytes = 64 * 1024;
constexpr std::string_view kCollapsed = "(...)";

struct Group {
  size_t open;   // index of '('
  size_t close;  // index of the matching ')'
  size_t inner() const { return close - open - 1; }
};

// A parameter list follows a name or a template's '>' ("kernel(int, ...)", "<...>(T1)"); a
// group after a space, a "::" or at the start is a label the demangler writes, "(instance 11)",
// "at::native::(anonymous namespace)", and is what tells lambdas and local kernels apart: it
// stays. So does a short list of one item ("(T1)", "enumerate(DataLoader)"): it costs little.
bool is_parameter_list(std::string_view name, size_t open, size_t close) {
  if (open == 0) return false;
  const char before = name[open - 1];
  if (before == ' ' || before == ':' || before == '(') return false;
  std::string_view inner = name.substr(open + 1, close - open - 1);
  return inner.find(',') != std::string_view::npos || inner.size() > 16;
}

// Every balanced (...) parameter list of the name, outer and nested.
std::vector<Group> paren_groups(std::string_view name) {
  std::vector<Group> groups;
  std::vector<size_t> open;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '(') {
      open.push_back(i);
    } else if (name[i] == ')' && !open.empty()) {
      if (is_parameter_list(name, open.back(), i)) groups.push_back({open.back(), i});
      open.pop_back();
    }
  }
  return groups;
}

}  // namespace

std::string compact_name(std::string_view name, size_t max_bytes) {
  if (max_bytes == 0 || name.size() <= max_bytes || name.size() > kMaxScannedBytes)
    return std::string(name);
  std::vector<Group> groups = paren_groups(name);
  // Longest first: a group comes before every group nested in it, so a nested group is either
  // inside one already collapsed (skipped) or collapsed itself, and the savings simply add up.
  std::stable_sort(groups.begin(), groups.end(),
                   [](const Group& a, const Group& b) { return a.inner() > b.inner(); });
  std::vector<Group> collapsed;
  std::vector<bool> hidden(name.size(), false);  // inside a collapsed group; they are disjoint,
                                                 // so marking them costs the name's length
  size_t length = name.size();
  for (const Group& g : groups) {
    if (length <= max_bytes || g.inner() <= kCollapsed.size() - 2) break;
    if (hidden[g.open]) continue;
    collapsed.push_back(g);
    std::fill(hidden.begin() + g.open, hidden.begin() + g.close + 1, true);
    length -= g.inner() - (kCollapsed.size() - 2);
  }
  if (collapsed.empty()) return std::string(name);
  std::sort(collapsed.begin(), collapsed.end(),
            [](const Group& a, const Group& b) { return a.open < b.open; });
  std::string out;
  out.reserve(length);
  size_t at = 0;
  for (const Group& g : collapsed) {
    out.append(name.substr(at, g.open - at));
    out.append(kCollapsed);
    at = g.close + 1;
  }
  out.append(name.substr(at));
  return out;
}

}  // namespace ks
