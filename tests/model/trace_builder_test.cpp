// The trace builder (src/model/trace_builder.cpp): processes and tracks, per-track sorting,
// depth and parent, partial overlaps, GPU stream classification, names from metadata.
#include "model/trace_builder.h"

#include <catch2/catch.hpp>

#include "helpers.h"

using ks::Diag;
using ks::SliceArgs;
using ks::Trace;
using ks::TraceBuilder;

namespace {

// A complete slice in microseconds, for brevity.
void add(TraceBuilder& b, ks::TrackId track, int64_t ts_us, int64_t dur_us, const char* name,
         const char* cat = "cpu_op", SliceArgs args = SliceArgs()) {
  b.observe_time(ts_us * 1000, (ts_us + dur_us) * 1000);
  b.add_complete(track, ts_us * 1000, dur_us * 1000, name, cat, args,
                 ks::EventSource{static_cast<uint64_t>(ts_us), 1});
}

std::vector<std::string> names_on(const Trace& t, ks::TrackId track) {
  std::vector<std::string> out;
  for (size_t i = 0; i < t.slices.size(); ++i)
    if (t.slices.track[i] == track) out.emplace_back(t.str(t.slices.name[i]));
  return out;
}

}  // namespace

TEST_CASE("TraceBuilder finds or creates processes and tracks by their text", "[model]") {
  Trace t;
  TraceBuilder b(&t);
  ks::TrackId a = b.track("1", "10");
  ks::TrackId c = b.track("1", "11");
  ks::TrackId d = b.track("2", "10");
  CHECK(b.track("1", "10") == a);
  CHECK(a != c);
  CHECK(c != d);
  // "1" + "10" and "11" + "0" must not collide: the key separates pid and tid.
  ks::TrackId e = b.track("11", "0");
  CHECK(e != a);
  REQUIRE(t.processes.size() == 3);
  CHECK(t.tracks[a].process == t.tracks[c].process);
  CHECK(t.tracks[a].process != t.tracks[d].process);
  CHECK(t.str(t.processes[t.tracks[d].process].pid_text) == "2");
}

TEST_CASE("TraceBuilder sorts slices per track, parents before children", "[model]") {
  Trace t;
  TraceBuilder b(&t);
  ks::TrackId t1 = b.track("1", "1");
  ks::TrackId t2 = b.track("1", "2");
  // Input order is scrambled on purpose; two slices start at 0 on t1: the longer is the parent.
  add(b, t2, 5, 1, "t2.late");
  add(b, t1, 4, 2, "child2");
  add(b, t1, 0, 3, "child1");
  add(b, t1, 0, 10, "root");
  add(b, t2, 1, 1, "t2.early");
  add(b, t1, 1, 1, "grandchild");
  b.finalize();
  CHECK(names_on(t, t1) == std::vector<std::string>{"root", "child1", "grandchild", "child2"});
  CHECK(names_on(t, t2) == std::vector<std::string>{"t2.early", "t2.late"});
  // Track order: all of t1, then t2.
  CHECK(t.slices.track[0] == t1);
  CHECK(t.slices.track[4] == t2);

  uint32_t root = ks_test::slice_named(t, "root"), child1 = ks_test::slice_named(t, "child1"),
           child2 = ks_test::slice_named(t, "child2"),
           grandchild = ks_test::slice_named(t, "grandchild");
  CHECK(t.slices.depth[root] == 0);
  CHECK(t.slices.parent[root] == -1);
  CHECK(t.slices.depth[child1] == 1);
  CHECK(t.slices.parent[child1] == static_cast<int32_t>(root));
  CHECK(t.slices.depth[grandchild] == 2);
  CHECK(t.slices.parent[grandchild] == static_cast<int32_t>(child1));
  // child1 ends at 3, before child2 starts at 4: child2 is root's child, not child1's.
  CHECK(t.slices.depth[child2] == 1);
  CHECK(t.slices.parent[child2] == static_cast<int32_t>(root));
  // Every column moved together: the source offset still belongs to the slice.
  CHECK(t.slices.file_offset(child2) == 4);
  CHECK(t.diagnostics.count(Diag::kPartialOverlap) == 0);
  CHECK(t.diagnostics.count(Diag::kTimestampsOutOfOrder) == 1);  // the scrambled input
}

TEST_CASE("TraceBuilder keeps partial overlaps on an extra row and counts them", "[model]") {
  Trace t;
  TraceBuilder b(&t);
  ks::TrackId s = b.track("0", "7");
  // Two kernels on one stream that overlap without nesting: a [0, 10), b [5, 15).
  add(b, s, 0, 10, "a", "kernel");
  add(b, s, 5, 10, "b", "kernel");
  // c [20, 25) starts after both ended: back on the first row.
  add(b, s, 20, 5, "c", "kernel");
  b.finalize();
  uint32_t a = ks_test::slice_named(t, "a"), bb = ks_test::slice_named(t, "b"),
           c = ks_test::slice_named(t, "c");
  CHECK(t.slices.depth[a] == 0);
  CHECK(t.slices.depth[bb] == 1);    // one row deeper (depth + 1)...
  CHECK(t.slices.parent[bb] == -1);  // ...but a is not its parent
  CHECK(t.slices.depth[c] == 0);
  CHECK(t.diagnostics.count(Diag::kPartialOverlap) == 1);
  CHECK(t.diagnostics.get(Diag::kPartialOverlap).first_offset == 5);  // b's source offset
}

TEST_CASE("TraceBuilder classifies GPU stream tracks", "[model]") {
  Trace t;
  TraceBuilder b(&t);
  ks::TrackId cpu = b.track("1", "1");
  ks::TrackId stream7 = b.track("0", "7");
  ks::TrackId stream_no_arg = b.track("0", "stream 9");
  ks::TrackId annot = b.track("0", "8");
  SliceArgs on7;
  on7.stream = 7;
  on7.device = 0;
  add(b, cpu, 0, 5, "cudaLaunchKernel", "cuda_runtime");
  add(b, stream7, 6, 3, "k", "kernel", on7);
  add(b, stream_no_arg, 6, 3, "Memset (Device)", "gpu_memset");
  add(b, annot, 6, 3, "range", "gpu_user_annotation");
  b.finalize();
  CHECK(t.tracks[cpu].kind == ks::TrackKind::kCpuThread);
  CHECK(t.tracks[stream7].kind == ks::TrackKind::kGpuStream);
  CHECK(t.tracks[stream7].stream == 7);
  CHECK(t.tracks[stream7].device == 0);
  CHECK(t.tracks[stream7].name == "stream 7");
  // Without a stream arg the name comes from the tid.
  CHECK(t.tracks[stream_no_arg].kind == ks::TrackKind::kGpuStream);
  CHECK(t.tracks[stream_no_arg].name == "stream stream 9");
  // GPU-side annotations put the track on the GPU side too, but only GPU ops mark the process.
  CHECK(t.tracks[annot].kind == ks::TrackKind::kGpuStream);
  CHECK(t.processes[t.tracks[stream7].process].has_gpu_ops);
  CHECK_FALSE(t.processes[t.tracks[cpu].process].has_gpu_ops);
}

TEST_CASE("TraceBuilder takes names and sort indices from metadata", "[model]") {
  Trace t;
  TraceBuilder b(&t);
  b.set_process_name("1", "python3", 10);
  b.set_thread_name("1", "42", "MainThread", 20);
  b.set_thread_sort_index("1", "42", -5);
  b.set_process_sort_index("1", 2);
  ks::TrackId main = b.track("1", "42");
  add(b, main, 0, 1, "op");
  // A named GPU stream keeps its metadata name.
  b.set_thread_name("0", "7", "stream 7 (compute)", 30);
  SliceArgs on7;
  on7.stream = 7;
  add(b, b.track("0", "7"), 0, 1, "k", "kernel", on7);
  // The same name again is fine; a different one replaces it and is counted.
  b.set_process_name("1", "python3", 40);
  CHECK(t.diagnostics.count(Diag::kDuplicateMetadata) == 0);
  b.set_process_name("1", "trainer", 50);
  b.finalize();
  CHECK(t.processes[t.tracks[main].process].name == "trainer");
  CHECK(t.processes[t.tracks[main].process].sort_index == 2);
  CHECK(t.tracks[main].name == "MainThread");
  CHECK(t.tracks[main].sort_index == -5);
  CHECK(t.tracks[main].has_sort_index);
  CHECK(t.tracks[b.track("0", "7")].name == "stream 7 (compute)");
  CHECK(t.diagnostics.count(Diag::kDuplicateMetadata) == 1);
  CHECK(t.diagnostics.get(Diag::kDuplicateMetadata).first_offset == 50);
}

TEST_CASE("TraceBuilder records the trace span", "[model]") {
  Trace t;
  TraceBuilder b(&t);
  ks::TrackId tr = b.track("1", "1");
  add(b, tr, 50, 10, "b");
  add(b, tr, 20, 5, "a");  // earlier start; ends before b
  b.finalize();
  CHECK(t.facts.start_ns == 20000);
  CHECK(t.facts.end_ns == 60000);
  CHECK(t.span_ns() == 40000);
  CHECK(t.diagnostics.count(Diag::kTimestampsOutOfOrder) == 1);
}

TEST_CASE("Flow ids: decimal integers kept as values, other text interned, as written", "[model]") {
  Trace t;
  CHECK(ks::flow_id_of("0", &t.strings) == 0);
  CHECK(ks::flow_id_of("100001", &t.strings) == 100001);
  CHECK(ks::flow_id_of("999999999999999999", &t.strings) == 999999999999999999ull);
  const size_t before = t.strings.size();
  // Not the same text as 7, or too long for the value: interned, so never equal to a value.
  for (const char* text : {"07", "0x7", "-7", "7.0", "", "1234567890123456789"}) {
    ks::FlowId id = ks::flow_id_of(text, &t.strings);
    CHECK((id & ks::kFlowIdText) != 0);
    CHECK(t.str(static_cast<ks::StringId>(id & ~ks::kFlowIdText)) == text);
  }
  CHECK(t.strings.size() == before + 5);  // "" was there already
  // An integer id gives what its decimal text gives.
  for (int64_t v : {int64_t{0}, int64_t{7}, int64_t{999999999999999999},
                    int64_t{1000000000000000000}, int64_t{-7}, INT64_MIN, INT64_MAX})
    CHECK(ks::flow_id_of(v, &t.strings) == ks::flow_id_of(std::to_string(v), &t.strings));

  // A start "7" and a finish "07" are two flows, each without its other end.
  TraceBuilder b(&t);
  ks::TrackId tr = b.track("1", "1");
  add(b, tr, 10, 5, "launch");
  b.add_flow(tr, 's', 10000, "7", "ac2g", false);
  b.add_flow(tr, 'f', 12000, "07", "ac2g", true);
  b.add_flow(tr, 's', 10000, "8", "ac2g", false);
  b.add_flow(tr, 'f', 12000, "8", "ac2g", true);
  b.finalize();
  CHECK(t.diagnostics.count(Diag::kFlowWithoutEnd) == 2);
}
