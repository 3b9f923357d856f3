#include "model/string_pool.h"

namespace ks {

StringPool::StringPool() {
  intern("");
}

StringId StringPool::intern(std::string_view s) {
  auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  auto id = static_cast<StringId>(strings_.size());
  strings_.emplace_back(s);
  bytes_ += s.size() + sizeof(std::string);
  index_.emplace(strings_.back(), id);
  return id;
}

StringId StringPool::find(std::string_view s) const {
  auto it = index_.find(s);
  return it == index_.end() ? kMissing : it->second;
}

}  // namespace ks
