// The arrows of the timeline: which slices point at which. Two sources:
//   - the launch join (analysis/launch_join.h): a runtime call and the GPU op it launched,
//     matched by `correlation` (what Kineto's ac2g flows also say);
//   - flow events (s/t/f) paired by (category, id) in time order, each bound to a slice on its
//     track as Chrome's trace viewer binds them: `s`, `t` and `f` with bp:"e" to the deepest
//     slice enclosing the flow's time, `f` without it to the next slice starting at or after it.
// Built once, on the first request (one sweep per track: O(n + f log f)).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "timeline_query/view_index.h"

namespace ks::timeline_query {

struct FlowLink {
  uint32_t from = 0, to = 0;  // model slice indices
  StringId cat = 0;           // the flow's category; 0 for a launch-join link
  bool launch = false;        // a runtime call -> GPU op link
};

class FlowLinks {
 public:
  explicit FlowLinks(const ViewIndex& index);
  // Links that start or end at `slice`, in the order they were built.
  std::vector<FlowLink> for_slice(uint32_t slice) const;
  size_t size() const { return links_.size(); }

 private:
  std::vector<FlowLink> links_;  // sorted by (from, to)
  std::vector<uint32_t> by_to_;  // indices into links_, sorted by to
};

// At most this many links of one slice are sent to the page (drawn as arrows, listed in the
// details panel); the rest are counted.
constexpr size_t kMaxFlowsShown = 500;

// {"links": [{from, to, kind}], "slices": [brief...]}: kind "launch" or the flow category; the
// first kMaxFlowsShown links of the slice, then "omitted": N when there were more.
std::string flows_json(const ViewIndex& index, const FlowLinks& links, uint32_t slice);

}  // namespace ks::timeline_query
