// Where each slice's event lies in the input (SliceTable::source, src/model/source_spans.h):
// 7 bytes a slice packed (issue #19: 12 as two plain columns), the same values past 4 GiB and
// 64 KiB, widened past 256 distinct high parts, and moved with its slice by the sort and through
// a part sent between workers.
#include "model/source_spans.h"

#include <catch2/catch.hpp>

#include "helpers.h"
#include "model/trace_builder.h"
#include "model/trace_part.h"

namespace {

size_t per_slice_bytes(const ks::SourceSpans& s) {
  return s.offset_low.size() * sizeof(uint32_t) + s.length_low.size() * sizeof(uint16_t) +
         s.key.size() + s.wide_offset.size() * sizeof(uint64_t) +
         s.wide_length.size() * sizeof(uint32_t);
}

}  // namespace

TEST_CASE("Source spans: 7 bytes a slice, offsets past 4 GiB and lengths past 64 KiB kept",
          "[model][source_spans]") {
  ks::SourceSpans s;
  const uint64_t gib4 = uint64_t{1} << 32;
  // Runs of one high part, then back to an earlier one; an Nsight Systems export's table code in
  // the top byte (src/util/exact_id.h).
  const std::vector<std::pair<uint64_t, uint32_t>> spans = {{0, 10},
                                                            {17, 70000},
                                                            {gib4 - 1, 65535},
                                                            {gib4, 65536},
                                                            {gib4 + 5, 3},
                                                            {3 * gib4, 1},
                                                            {40, 2},
                                                            {uint64_t{7} << 56 | 12345, 0},
                                                            {UINT64_MAX, UINT32_MAX}};
  for (const auto& sp : spans) s.push_back(sp.first, sp.second);
  REQUIRE(s.size() == spans.size());
  CHECK_FALSE(s.wide);
  for (size_t i = 0; i < spans.size(); ++i) {
    CHECK(s.offset(i) == spans[i].first);
    CHECK(s.length(i) == spans[i].second);
  }
  CHECK(per_slice_bytes(s) == 7 * spans.size());
  CHECK(s.consistent());
}

TEST_CASE("Source spans: past 256 distinct high parts, widened, the same values",
          "[model][source_spans]") {
  ks::SourceSpans s, copy;
  const uint64_t gib4 = uint64_t{1} << 32;
  for (uint64_t i = 0; i < 300; ++i) s.push_back(i * gib4 + i, static_cast<uint32_t>(i));
  CHECK(s.wide);
  CHECK(s.consistent());
  for (uint64_t i = 0; i < 300; ++i) {
    CHECK(s.offset(i) == i * gib4 + i);
    CHECK(s.length(i) == i);
  }
  copy.push_back(5, 5);
  copy.append(s);
  REQUIRE(copy.size() == 301);
  CHECK(copy.offset(0) == 5);
  CHECK(copy.offset(300) == 299 * gib4 + 299);
}

TEST_CASE("Source spans: moved with their slices by the sort and through a part",
          "[model][source_spans]") {
  ks::Trace t;
  ks::TraceBuilder b(&t);
  ks::TrackId track = b.track("1", "1");
  const uint64_t gib4 = uint64_t{1} << 32;
  // File order is not time order: the sort moves the spans of the slices past 4 GiB.
  const struct {
    int64_t ts;
    const char* name;
    uint64_t offset;
    uint32_t length;
  } events[] = {{30, "late", 5 * gib4 + 9, 70000}, {10, "early", 7, 20}, {20, "mid", gib4, 3}};
  for (const auto& e : events) {
    b.observe_time(e.ts, e.ts + 5);
    b.add_complete(track, e.ts, 5, e.name, "cpu_op", ks::SliceArgs(),
                   ks::EventSource{e.offset, e.length});
  }
  ks::Trace decoded;
  ks::PartState state;
  const std::string bytes = ks::encode_trace_part(t, b.part_state());
  REQUIRE(ks::decode_trace_part(bytes.data(), bytes.size(), &decoded, &state));
  b.finalize();
  for (const ks::Trace* tr : {&t, &decoded})
    for (const auto& e : events) {
      const uint32_t i = ks_test::slice_named(*tr, e.name);
      CHECK(tr->slices.file_offset(i) == e.offset);
      CHECK(tr->slices.byte_len(i) == e.length);
    }
  CHECK(ks_test::slice_named(t, "early") == 0);  // sorted
}
