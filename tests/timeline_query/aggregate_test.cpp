// The area-selection table (src/timeline_query/aggregate.cpp), the timeline's track order
// (track_layout.cpp), flow links (flow_links.cpp) and single-slice queries (slice_query.cpp).
#include "timeline_query/aggregate.h"

#include <catch2/catch.hpp>

#include "helpers.h"
#include "timeline_query/flow_links.h"
#include "timeline_query/slice_query.h"
#include "timeline_query/track_layout.h"

using ks::timeline_query::ViewIndex;

namespace {

const char* kNested = R"({"traceEvents":[
  {"ph":"X","cat":"user_annotation","name":"step","pid":1,"tid":1,"ts":0,"dur":100},
  {"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":10,"dur":20},
  {"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":40,"dur":30},
  {"ph":"X","cat":"cpu_op","name":"k","pid":1,"tid":1,"ts":50,"dur":10},
  {"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":150,"dur":10},
  {"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":2,"ts":20,"dur":5}
]})";

const ks::timeline_query::AggregateRow* row_named(const ks::Trace& t,
                                                  const ks::timeline_query::Aggregate& a,
                                                  const char* name) {
  for (const auto& r : a.rows)
    if (t.str(r.name) == name) return &r;
  return nullptr;
}

}  // namespace

// A recursive function: f inside f inside f on one thread, and f on another thread at once.
const char* kRecursive = R"({"traceEvents":[
  {"ph":"X","cat":"cpu_op","name":"f","pid":1,"tid":1,"ts":0,"dur":100},
  {"ph":"X","cat":"cpu_op","name":"f","pid":1,"tid":1,"ts":10,"dur":80},
  {"ph":"X","cat":"cpu_op","name":"f","pid":1,"tid":1,"ts":20,"dur":60},
  {"ph":"X","cat":"cpu_op","name":"f","pid":1,"tid":1,"ts":120,"dur":10},
  {"ph":"X","cat":"cpu_op","name":"f","pid":1,"tid":2,"ts":0,"dur":50}
]})";

TEST_CASE("Aggregate: in_range counts nested slices of one name once per track",
          "[timeline_query][aggregate]") {
  auto t = ks_test::load(kRecursive);
  ViewIndex index(*t);
  REQUIRE(index.tracks().size() == 2);
  // [5, 125): the three nested f cover [5,100) once (95), the later f [120,125) (5).
  ks::timeline_query::Aggregate one = ks::timeline_query::aggregate_range(index, 5000, 125000, {0});
  const auto* f = row_named(*t, one, "f");
  REQUIRE(f != nullptr);
  CHECK(f->count == 4);
  CHECK(f->total_ns == 250000);     // whole durations: 100 + 80 + 60 + 10
  CHECK(f->in_range_ns == 100000);  // not 95 + 80 + 60 + 5 = 240, more than the 120 of the range
  CHECK(f->in_range_ns <= 120000);
  // Two threads: each track's union, summed (f ran on both at once for [5,50)).
  ks::timeline_query::Aggregate both =
      ks::timeline_query::aggregate_range(index, 5000, 125000, {0, 1});
  CHECK(row_named(*t, both, "f")->in_range_ns == 100000 + 45000);
}

TEST_CASE("Aggregate: count, total, self, min and max per name over a range",
          "[timeline_query][aggregate]") {
  auto t = ks_test::load(kNested);
  ViewIndex index(*t);
  REQUIRE(index.tracks().size() == 2);
  // Times are relative to the first event (0 here), in ns.
  ks::timeline_query::Aggregate a = ks::timeline_query::aggregate_range(index, 25000, 155000, {0});
  REQUIRE(a.rows.size() == 3);
  CHECK(t->str(a.rows[0].name) == "step");  // by total descending
  CHECK(t->str(a.rows[1].name) == "op");
  CHECK(t->str(a.rows[2].name) == "k");
  const auto* step = row_named(*t, a, "step");
  CHECK(step->count == 1);
  CHECK(step->total_ns == 100000);
  CHECK(step->self_ns == 50000);      // 100 - 20 - 30
  CHECK(step->in_range_ns == 75000);  // [0,100) clipped to [25,155): the time in the selection
  const auto* op = row_named(*t, a, "op");
  CHECK(op->count == 3);  // [10,30) ends after 25; [150,160) starts before 155
  CHECK(op->total_ns == 60000);
  CHECK(op->self_ns == 50000);  // 20 + (30 - 10) + 10
  CHECK(op->min_ns == 10000);
  CHECK(op->max_ns == 30000);
  CHECK(op->in_range_ns == 40000);  // 5 of [10,30), all 30 of [40,70), 5 of [150,160)
  CHECK(row_named(*t, a, "k")->in_range_ns == 10000);
  CHECK(a.slices == 5);

  SECTION("self, average, min and max of the slices clipped to the range") {
    // step [0,100) clipped to [25,100): 75, less its children's time in the range (5 and 30).
    CHECK(step->clipped_self_ns == 40000);
    CHECK(step->clipped_min_ns == 75000);
    CHECK(step->clipped_max_ns == 75000);
    // op: 5 of [10,30), 30 of [40,70) (10 of it k's), 5 of [150,160).
    CHECK(op->clipped_ns == 40000);
    CHECK(op->clipped_self_ns == 30000);
    CHECK(op->clipped_min_ns == 5000);
    CHECK(op->clipped_max_ns == 30000);
    std::string json = ks::timeline_query::aggregate_json(index, a);
    CHECK(json.find("\"in_range_self_us\": 30.000,\n      \"in_range_avg_us\": 13.333,\n"
                    "      \"in_range_min_us\": 5.000,\n      \"in_range_max_us\": 30.000") !=
          std::string::npos);
  }

  SECTION("a slice that ends exactly where the range starts is outside it") {
    ks::timeline_query::Aggregate both =
        ks::timeline_query::aggregate_range(index, 25000, 155000, {0, 1});
    CHECK(row_named(*t, both, "op")->count == 3);
    ks::timeline_query::Aggregate wider =
        ks::timeline_query::aggregate_range(index, 24000, 155000, {1, 0});
    CHECK(row_named(*t, wider, "op")->count == 4);
    CHECK(wider.tracks == std::vector<ks::TrackId>{0, 1});
  }

  SECTION("the JSON the page and the CLI write") {
    std::string json = ks::timeline_query::aggregate_json(index, a);
    CHECK(json.find("\"from_us\": 25.000") != std::string::npos);
    CHECK(json.find("\"name\": \"op\",\n      \"count\": 3,\n      \"total_us\": 60.000,\n"
                    "      \"in_range_us\": 40.000,\n      \"self_us\": 50.000,\n      \"avg_us\": "
                    "20.000,\n"
                    "      \"min_us\": 10.000,\n      \"max_us\": 30.000,\n"
                    "      \"kind\": \"cpu_op\"") != std::string::npos);
  }
}

TEST_CASE("Track layout: processes and threads by sort index, names from metadata",
          "[timeline_query]") {
  auto t = ks_test::load(R"({"traceEvents":[
    {"ph":"M","name":"process_name","pid":10,"args":{"name":"python"}},
    {"ph":"M","name":"process_sort_index","pid":10,"args":{"sort_index":5}},
    {"ph":"M","name":"process_name","pid":0,"args":{"name":"GPU 0"}},
    {"ph":"M","name":"process_sort_index","pid":0,"args":{"sort_index":16777216}},
    {"ph":"M","name":"thread_name","pid":10,"tid":3,"args":{"name":"main"}},
    {"ph":"M","name":"thread_sort_index","pid":10,"tid":3,"args":{"sort_index":1}},
    {"ph":"M","name":"thread_sort_index","pid":10,"tid":2,"args":{"sort_index":2}},
    {"ph":"M","name":"process_name","pid":99,"args":{"name":"empty"}},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":5,"dur":1,"args":{"stream":7}},
    {"ph":"X","cat":"cpu_op","name":"b","pid":10,"tid":2,"ts":0,"dur":1},
    {"ph":"X","cat":"cpu_op","name":"a","pid":10,"tid":3,"ts":0,"dur":1},
    {"ph":"C","name":"mem","pid":10,"ts":1,"args":{"v":3}}
  ]})");
  ViewIndex index(*t);
  auto groups = ks::timeline_query::track_layout(index);
  REQUIRE(groups.size() == 2);  // the process without events is left out
  CHECK(groups[0].name == "python (10)");
  CHECK_FALSE(groups[0].gpu);
  REQUIRE(groups[0].tracks.size() == 2);
  CHECK(groups[0].tracks[0].name == "main");  // sort index 1 before 2
  CHECK(groups[0].tracks[1].name == "thread 2");
  REQUIRE(groups[0].counters.size() == 1);
  CHECK(groups[0].counters[0].name == "mem");
  CHECK(groups[1].name == "GPU 0");  // not "GPU 0 (0)": the pid is its number
  CHECK(groups[1].gpu);
  CHECK(groups[1].tracks[0].kind == "stream");
  CHECK(groups[1].tracks[0].name == "stream 7");
}

TEST_CASE("Flow links: launch to kernel by correlation, and flow events by id",
          "[timeline_query]") {
  auto t = ks_test::load(R"({"traceEvents":[
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":50},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":5,"args":{"correlation":42}},
    {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":30,"dur":20,"args":{"correlation":42,"stream":7}},
    {"ph":"s","cat":"ac2g","name":"ac2g","id":42,"pid":1,"tid":1,"ts":10},
    {"ph":"f","cat":"ac2g","name":"ac2g","id":42,"pid":0,"tid":7,"ts":30,"bp":"e"},
    {"ph":"X","cat":"cpu_op","name":"MmBackward","pid":1,"tid":2,"ts":100,"dur":20},
    {"ph":"s","cat":"fwdbwd","name":"fwdbwd","id":1,"pid":1,"tid":1,"ts":0},
    {"ph":"f","cat":"fwdbwd","name":"fwdbwd","id":1,"pid":1,"tid":2,"ts":100,"bp":"e"}
  ]})");
  ViewIndex index(*t);
  ks::timeline_query::FlowLinks links(index);
  const uint32_t launch = ks_test::slice_named(*t, "cudaLaunchKernel");
  const uint32_t kernel = ks_test::slice_named(*t, "gemm");
  const uint32_t mm = ks_test::slice_named(*t, "aten::mm");
  const uint32_t bwd = ks_test::slice_named(*t, "MmBackward");
  CHECK(links.size() == 2);  // the ac2g flow and the correlation join are one arrow
  auto from_kernel = links.for_slice(kernel);
  REQUIRE(from_kernel.size() == 1);
  CHECK(from_kernel[0].from == launch);
  CHECK(from_kernel[0].to == kernel);
  CHECK(from_kernel[0].launch);
  auto from_mm = links.for_slice(mm);
  REQUIRE(from_mm.size() == 1);  // bound to the deepest enclosing slice at ts 0: aten::mm
  CHECK(from_mm[0].to == bwd);
  CHECK(t->str(from_mm[0].cat) == "fwdbwd");
  std::string json = ks::timeline_query::flows_json(index, links, kernel);
  CHECK(json.find("\"kind\": \"launch\"") != std::string::npos);

  SECTION("details of a kernel name its launch as partner; offsets find slices") {
    std::string d = ks::timeline_query::slice_details_json(index, kernel);
    CHECK(d.find("\"name\": \"gemm\"") != std::string::npos);
    CHECK(d.find("\"correlation\": 42") != std::string::npos);
    CHECK(d.find("\"name\": \"cudaLaunchKernel\"") != std::string::npos);  // partner brief
    ks::timeline_query::OffsetIndex offsets;
    auto found = offsets.lookup(index, {t->slices.file_offset(kernel), 3});
    CHECK(found == std::vector<int32_t>{static_cast<int32_t>(kernel), -1});
    CHECK(ks::timeline_query::slice_at(index, t->slices.track[kernel], 0, 25000, 10000) ==
          static_cast<int32_t>(kernel));
    CHECK(ks::timeline_query::slice_at(index, t->slices.track[kernel], 0, 0, 10000) == -1);
  }
}

TEST_CASE("Flows of one slice: the page gets the first 500 and a count of the rest",
          "[timeline_query][flows]") {
  // Every flow bound to one slice (a crafted trace): 10^6 of them gave the page a JSON of 10^6
  // links and briefs, a button each in the details panel and an arrow each.
  const int n = 1200;
  std::string json = R"({"traceEvents":[{"ph":"X","name":"sink","pid":1,"tid":1,"ts":0,"dur":)" +
                     std::to_string(10 * n + 10) + "}";
  for (int i = 0; i < n; ++i) {
    const std::string ts = std::to_string(10 * i);
    json += R"(,{"ph":"X","name":"src","pid":1,"tid":2,"ts":)" + ts + R"(,"dur":1})";
    json += R"(,{"ph":"s","cat":"c","name":"f","id":)" + std::to_string(i) +
            R"(,"pid":1,"tid":2,"ts":)" + ts + "}";
    json += R"(,{"ph":"f","cat":"c","name":"f","bp":"e","id":)" + std::to_string(i) +
            R"(,"pid":1,"tid":1,"ts":)" + std::to_string(10 * i + 5) + "}";
  }
  json += "]}";
  auto t = ks_test::load(json);
  ViewIndex index(*t);
  ks::timeline_query::FlowLinks links(index);
  const uint32_t sink = ks_test::slice_named(*t, "sink");
  CHECK(links.for_slice(sink).size() == static_cast<size_t>(n));
  const std::string out = ks::timeline_query::flows_json(index, links, sink);
  size_t shown = 0;
  for (size_t at = out.find("\"from\""); at != std::string::npos; at = out.find("\"from\"", at + 1))
    ++shown;
  CHECK(shown == ks::timeline_query::kMaxFlowsShown);
  CHECK(out.find("\"omitted\": " + std::to_string(n - 500)) != std::string::npos);
  CHECK(out.size() < 200000);
  // A source slice's one flow: no count.
  const std::string one =
      ks::timeline_query::flows_json(index, links, ks_test::slices_named(*t, "src").front());
  CHECK(one.find("omitted") == std::string::npos);
}

TEST_CASE("Track layout: bookkeeping lanes are marked sparse from the data, not the name",
          "[timeline_query][sparse]") {
  auto t = ks_test::load(R"J({"traceEvents":[
    {"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":0,"dur":10},
    {"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":980,"dur":20},
    {"ph":"X","cat":"Trace","name":"PyTorch Profiler (0)","pid":"Spans","tid":"Profiler","ts":2,"dur":995},
    {"ph":"i","s":"t","name":"Iteration Start","pid":"Traces","tid":"Trace 0","ts":3},
    {"ph":"X","cat":"user_annotation","name":"whole","pid":2,"tid":1,"ts":0,"dur":1000},
    {"ph":"X","cat":"cpu_op","name":"inside","pid":2,"tid":1,"ts":5,"dur":5},
    {"ph":"X","cat":"cpu_op","name":"short","pid":3,"tid":1,"ts":100,"dur":5},
    {"ph":"i","s":"t","name":"m","pid":4,"tid":1,"ts":1},
    {"ph":"i","s":"t","name":"m","pid":4,"tid":1,"ts":2},
    {"ph":"i","s":"t","name":"m","pid":4,"tid":1,"ts":3}
  ]})J");
  ViewIndex index(*t);
  auto sparse_of = [&](const char* pid) {
    for (const auto& g : ks::timeline_query::track_layout(index))
      if (g.pid == pid) {
        REQUIRE(g.tracks.size() == 1);
        return g.tracks[0].sparse;
      }
    FAIL("no process " << pid);
    return false;
  };
  CHECK(sparse_of("Spans"));    // one slice over 99.5% of the trace, nothing nested
  CHECK(sparse_of("Traces"));   // one instant, no slices
  CHECK_FALSE(sparse_of("1"));  // real work
  CHECK_FALSE(sparse_of("2"));  // a whole-trace slice with something inside it
  CHECK_FALSE(sparse_of("3"));  // one short slice: drawn
  CHECK_FALSE(sparse_of("4"));  // three instants: drawn
  CHECK(ks::timeline_query::track_layout_json(index).find("\"sparse\": true") != std::string::npos);
}
