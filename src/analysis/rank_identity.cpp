#include "analysis/rank_identity.h"

#include <cctype>

namespace ks {

const char* rank_source_name(RankSource s) {
  switch (s) {
    case RankSource::kDistributedInfo:
      return "distributedInfo";
    case RankSource::kFileName:
      return "file name";
    case RankSource::kLoadOrder:
      return "load order";
    case RankSource::kEnvironment:
      return "process environment";
    case RankSource::kExportProcess:
      return "process in the export (by GPU, then pid)";
    case RankSource::kFileProcess:
      return "launching process in the file";
  }
  return "load order";
}

int64_t rank_from_file_name(std::string_view name) {
  int64_t found = -1;
  auto lower_at = [&name](size_t i) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
  };
  for (std::string_view word : {std::string_view("rank"), std::string_view("worker")}) {
    for (size_t i = 0; i + word.size() <= name.size(); ++i) {
      size_t j = 0;
      while (j < word.size() && lower_at(i + j) == word[j]) ++j;
      if (j < word.size()) continue;
      size_t k = i + word.size();
      if (k < name.size() && (name[k] == '-' || name[k] == '_')) ++k;
      if (k >= name.size() || !std::isdigit(static_cast<unsigned char>(name[k]))) continue;
      int64_t n = 0;
      while (k < name.size() && std::isdigit(static_cast<unsigned char>(name[k])) && n < 1000000)
        n = n * 10 + (name[k++] - '0');
      found = n;
    }
    if (found >= 0) return found;
  }
  return found;
}

RankIdentity identify_rank(const Trace& t, std::string_view file_name, size_t load_index) {
  RankIdentity id;
  if (t.distributed.present && t.distributed.rank != kNoValue && !t.distributed.from_environment) {
    id.rank = t.distributed.rank;
    id.source = RankSource::kDistributedInfo;
    return id;
  }
  int64_t from_name = rank_from_file_name(file_name);
  const bool recorded = t.distributed.present && t.distributed.rank != kNoValue;
  if (from_name >= 0 && recorded && from_name == t.distributed.rank) {
    // The export recorded the rank its name says (report_rank%q{RANK}): recorded, not guessed.
    id.rank = from_name;
    id.source = RankSource::kEnvironment;
    return id;
  }
  if (from_name >= 0) {
    id.rank = from_name;
    id.source = RankSource::kFileName;
    return id;
  }
  if (recorded) {
    id.rank = t.distributed.rank;
    id.source = RankSource::kEnvironment;
    return id;
  }
  id.rank = static_cast<int64_t>(load_index);
  id.source = RankSource::kLoadOrder;
  return id;
}

}  // namespace ks
