#include "timeline_query/flow_links.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>
#include <utility>

#include "timeline_query/slice_query.h"
#include "util/json_writer.h"

namespace ks::timeline_query {

namespace {

// For each flow event, the slice it binds to (-1 when none): one sweep per track over the
// track's slices (contiguous and sorted by start in the model) with a stack of open slices.
std::vector<int64_t> bind_flow_events(const Trace& t) {
  const SliceTable& s = t.slices;
  const FlowTable& f = t.flows;
  std::vector<int64_t> bound(f.size(), -1);
  std::vector<size_t> track_begin(t.tracks.size() + 1, s.size());
  for (size_t i = s.size(); i-- > 0;) track_begin[s.track[i]] = i;
  for (size_t k = t.tracks.size(); k-- > 0;)
    track_begin[k] = std::min(track_begin[k], track_begin[k + 1]);
  std::vector<uint32_t> order(f.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&f](uint32_t a, uint32_t b) {
    return f.track[a] != f.track[b] ? f.track[a] < f.track[b] : f.ts[a] < f.ts[b];
  });
  std::vector<size_t> stack;
  size_t next = 0, end = 0;
  TrackId current = 0xffffffffu;
  for (uint32_t e : order) {
    const TrackId track = f.track[e];
    if (track != current) {
      current = track;
      next = track_begin[track];
      end = track_begin[track + 1];
      stack.clear();
    }
    const int64_t ts = f.ts[e];
    if (f.phase[e] == 'f' && !f.binds_enclosing[e]) {
      auto it = std::lower_bound(s.ts.begin() + static_cast<ptrdiff_t>(next),
                                 s.ts.begin() + static_cast<ptrdiff_t>(end), ts);
      // Slices before `next` started at or before ts; the first one starting exactly at ts may
      // already have been passed.
      size_t k = static_cast<size_t>(it - s.ts.begin());
      size_t back = next;
      while (back > track_begin[track] && s.ts[back - 1] >= ts) --back;
      if (back < next) k = back;
      if (k < end) bound[e] = static_cast<int64_t>(k);
      continue;
    }
    while (next < end && s.ts[next] <= ts) {
      while (!stack.empty() && s.end(stack.back()) < s.ts[next]) stack.pop_back();
      stack.push_back(next++);
    }
    while (!stack.empty() && s.end(stack.back()) < ts) stack.pop_back();
    if (!stack.empty()) bound[e] = static_cast<int64_t>(stack.back());
  }
  return bound;
}

}  // namespace

FlowLinks::FlowLinks(const ViewIndex& index) {
  const Trace& t = index.trace();
  const FlowTable& f = t.flows;
  std::vector<int64_t> bound = bind_flow_events(t);
  // Pair events by (category, id), in time order: s -> t -> ... -> f.
  std::vector<uint32_t> order(f.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&f](uint32_t a, uint32_t b) {
    if (f.cat[a] != f.cat[b]) return f.cat[a] < f.cat[b];
    if (f.id[a] != f.id[b]) return f.id[a] < f.id[b];
    return f.ts[a] < f.ts[b];
  });
  for (size_t k = 1; k < order.size(); ++k) {
    const uint32_t a = order[k - 1], b = order[k];
    if (f.cat[a] != f.cat[b] || f.id[a] != f.id[b]) continue;
    if (f.phase[a] == 'f' || f.phase[b] == 's') continue;  // a new flow with the same id
    if (bound[a] < 0 || bound[b] < 0 || bound[a] == bound[b]) continue;
    links_.push_back(
        {static_cast<uint32_t>(bound[a]), static_cast<uint32_t>(bound[b]), f.cat[a], false});
  }
  const LaunchJoin& j = index.join();
  for (uint32_t r : j.runtime_by_ts) {
    if (j.partner[r] < 0) continue;
    links_.push_back({r, static_cast<uint32_t>(j.partner[r]), 0, true});
  }
  // One arrow per pair of slices: the launch join and Kineto's ac2g flow say the same thing.
  std::stable_sort(links_.begin(), links_.end(), [](const FlowLink& a, const FlowLink& b) {
    if (a.from != b.from) return a.from < b.from;
    if (a.to != b.to) return a.to < b.to;
    return a.launch > b.launch;
  });
  links_.erase(std::unique(links_.begin(), links_.end(),
                           [](const FlowLink& a, const FlowLink& b) {
                             return a.from == b.from && a.to == b.to;
                           }),
               links_.end());
  by_to_.resize(links_.size());
  std::iota(by_to_.begin(), by_to_.end(), 0u);
  std::stable_sort(by_to_.begin(), by_to_.end(),
                   [this](uint32_t a, uint32_t b) { return links_[a].to < links_[b].to; });
}

std::vector<FlowLink> FlowLinks::for_slice(uint32_t slice) const {
  std::vector<FlowLink> out;
  auto lo = std::lower_bound(links_.begin(), links_.end(), slice,
                             [](const FlowLink& l, uint32_t v) { return l.from < v; });
  for (auto it = lo; it != links_.end() && it->from == slice; ++it) out.push_back(*it);
  auto lt = std::lower_bound(by_to_.begin(), by_to_.end(), slice,
                             [this](uint32_t k, uint32_t v) { return links_[k].to < v; });
  for (auto it = lt; it != by_to_.end() && links_[*it].to == slice; ++it)
    out.push_back(links_[*it]);
  return out;
}

std::string flows_json(const ViewIndex& index, const FlowLinks& links, uint32_t slice) {
  const Trace& t = index.trace();
  JsonWriter w;
  w.begin_object();
  std::vector<FlowLink> found =
      slice < t.slices.size() ? links.for_slice(slice) : std::vector<FlowLink>();
  // A slice that 10^6 flows end in (a crafted trace: every flow bound to one slice) gave a JSON
  // of 10^6 links and briefs, a link button each in the details panel and an arrow each.
  const size_t omitted = found.size() > kMaxFlowsShown ? found.size() - kMaxFlowsShown : 0;
  found.resize(found.size() - omitted);
  std::vector<uint32_t> ends;
  w.key("links").begin_array();
  for (const FlowLink& l : found) {
    w.begin_object();
    w.field("from", static_cast<uint64_t>(l.from));
    w.field("to", static_cast<uint64_t>(l.to));
    w.field("kind", l.launch ? std::string_view("launch") : t.str(l.cat));
    w.end_object();
    ends.push_back(l.from);
    ends.push_back(l.to);
  }
  w.end_array();
  std::sort(ends.begin(), ends.end());
  ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
  w.key("slices").begin_array();
  for (uint32_t i : ends) write_slice_brief(&w, index, i);
  w.end_array();
  if (omitted) w.field("omitted", static_cast<uint64_t>(omitted));
  w.end_object();
  return w.take();
}

}  // namespace ks::timeline_query
