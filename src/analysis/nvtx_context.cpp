#include "analysis/nvtx_context.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <utility>

#include "model/export_row.h"

namespace ks {

std::string_view export_thread_of_row(std::string_view tid_text, std::string_view row) {
  if (tid_text.size() <= row.size() + 1 ||
      tid_text.compare(tid_text.size() - row.size(), row.size(), row) != 0 ||
      tid_text[tid_text.size() - row.size() - 1] != ' ')
    return {};
  return tid_text.substr(0, tid_text.size() - row.size() - 1);
}

std::string_view export_thread_of(std::string_view tid_text) {
  for (std::string_view row : kExportThreadRows) {
    std::string_view thread = export_thread_of_row(tid_text, row);
    if (!thread.empty()) return thread;
  }
  return {};
}

EnclosingNvtxRanges::EnclosingNvtxRanges(const Trace& t, const StepsResult& steps, size_t max_depth)
    : t_(t), max_depth_(max_depth) {
  if (t.facts.format != TraceFormat::kNsysSqlite) return;
  std::map<std::pair<uint32_t, std::string_view>, TrackId> nvtx_by_thread;
  for (TrackId k = 0; k < t.tracks.size(); ++k) {
    std::string_view thread = export_thread_of_row(t.str(t.tracks[k].tid_text), "NVTX");
    if (!thread.empty()) nvtx_by_thread[{t.tracks[k].process, thread}] = k;
  }
  if (nvtx_by_thread.empty()) return;
  for (TrackId k = 0; k < t.tracks.size(); ++k) {
    std::string_view thread = export_thread_of_row(t.str(t.tracks[k].tid_text), "CUDA API");
    auto it =
        thread.empty() ? nvtx_by_thread.end() : nvtx_by_thread.find({t.tracks[k].process, thread});
    if (it != nvtx_by_thread.end()) nvtx_track_of_[k] = it->second;
  }
  const SliceTable& s = t.slices;
  for (uint32_t i = 0; i < s.size(); ++i)
    if (s.kind[i] == SliceKind::kUserAnnotation) ranges_[s.track[i]].push_back(i);
  for (auto& kv : ranges_)
    std::stable_sort(kv.second.begin(), kv.second.end(),
                     [&s](uint32_t a, uint32_t b) { return s.ts[a] < s.ts[b]; });
  for (const Step& st : steps.steps)
    if (st.has_slice()) step_slices_.insert(st.slice);
}

std::vector<StringId> EnclosingNvtxRanges::of(uint32_t slice) const {
  std::vector<StringId> chain;
  walk_out(slice, [&chain](StringId name) {
    chain.push_back(name);
    return true;
  });
  std::reverse(chain.begin(), chain.end());
  if (chain.size() > max_depth_) chain.resize(max_depth_);
  return chain;
}

std::string EnclosingNvtxRanges::text_of(uint32_t slice) const {
  std::string out;
  for (StringId id : of(slice)) out += (out.empty() ? "" : " > ") + std::string(t_.str(id));
  return out.empty() ? out : out + " (NVTX)";
}

}  // namespace ks
