// nvtx_pushpop_trace: every push/pop NVTX range with its place in its thread's stack, in the
// columns and layout nsys prints (an nsys 2026.3 row reads
// "1499980066,1502730617,2750551,0,2750551,:copy_in,53,53,1,0,6,5,:5:6,--:copy_in"). BUILT data:
// a step with two children and a grandchild, a second thread, a start/end range and a mark (both
// left out); and 300 nested ranges for the bound on RangeStack and NameTree.
#include "stats/stats_checks.h"

namespace {

using ks_test::col;
using ks_test::Db;
using ks_test::run;

const std::vector<ks::StatsCell>& row_of(const ks::StatsTable& t, int64_t range_id) {
  for (const auto& r : t.rows)
    if (r[col(t, "RangeId")].i == range_id) return r;
  FAIL("no range " << range_id);
  return t.rows.front();
}

}  // namespace

TEST_CASE("nsys stats: nvtx_pushpop_trace nests each thread's push/pop ranges as nsys prints them",
          "[nsys_stats][built]") {
  Db d;
  ks_test::open_nvtx_export(&d);
  // Thread 42/7 (globalTid 42 << 24 | 7): step [0, 100] > fwd [10, 40] > gemm [20, 30], and
  // bwd [50, 90]; rows stored as nsys stores them, each when it ends (the child first).
  d.exec(R"(
INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) VALUES
  (20, 30, 59, 'gemm', 704643079, 0), (10, 40, 59, 'fwd', 704643079, 0),
  (50, 90, 59, 'bwd', 704643079, 0), (0, 100, 59, 'step', 704643079, 0),
  (5, 8, 59, 'load', 704643080, 0), (0, 60, 60, 'epoch', 704643079, 0),
  (15, NULL, 34, 'a mark', 704643079, 0);
)");
  const ks::StatsTable t = run(d, {"nvtx_pushpop_trace"})[0];
  CHECK(t.title == "NVTX Push/Pop Range Trace");
  CHECK(t.columns == std::vector<std::string>{"Start (ns)", "End (ns)", "Duration (ns)",
                                              "DurChild (ns)", "DurNonChild (ns)", "Name", "PID",
                                              "TID", "Lvl", "NumChild", "RangeId", "ParentId",
                                              "RangeStack", "NameTree"});
  REQUIRE(t.rows.size() == 5);  // the start/end range and the mark are not push/pop ranges
  // By start, the enclosing range first at one start.
  std::vector<std::string> order;
  for (const auto& r : t.rows) order.push_back(r[col(t, "Name")].text);
  CHECK(order == std::vector<std::string>{":step", ":load", ":fwd", ":gemm", ":bwd"});
  const auto& step = row_of(t, 4);
  CHECK(step[col(t, "Duration (ns)")].i == 100);
  CHECK(step[col(t, "DurChild (ns)")].i == 70);  // fwd 30 + bwd 40: direct children only
  CHECK(step[col(t, "DurNonChild (ns)")].i == 30);
  CHECK(step[col(t, "NumChild")].i == 2);
  CHECK(step[col(t, "Lvl")].i == 0);
  CHECK(step[col(t, "ParentId")].kind == ks::StatsCell::Kind::kNull);
  CHECK(step[col(t, "RangeStack")].text == ":4");
  CHECK(step[col(t, "PID")].i == 42);
  CHECK(step[col(t, "TID")].i == 7);
  const auto& gemm = row_of(t, 1);
  CHECK(gemm[col(t, "Lvl")].i == 2);
  CHECK(gemm[col(t, "ParentId")].i == 2);
  CHECK(gemm[col(t, "RangeStack")].text == ":4:2:1");
  CHECK(gemm[col(t, "NameTree")].text == "----:gemm");
  CHECK(gemm[col(t, "DurNonChild (ns)")].i == 10);
  const auto& fwd = row_of(t, 2);
  CHECK(fwd[col(t, "DurChild (ns)")].i == 10);
  CHECK(fwd[col(t, "NameTree")].text == "--:fwd");
  const auto& load = row_of(t, 5);  // another thread: its own stack
  CHECK(load[col(t, "Lvl")].i == 0);
  CHECK(load[col(t, "TID")].i == 8);
  CHECK(t.note.empty());
}

TEST_CASE("nsys stats: nvtx_pushpop_trace bounds the stack it prints for deep nesting",
          "[nsys_stats][built]") {
  Db d;
  ks_test::open_nvtx_export(&d);
  // BUILT data: 300 nested ranges r0 (outermost, rowid 1) .. r299 (innermost, rowid 300).
  ks_test::insert_nested_ranges(&d, 300, 1677721700);
  const ks::StatsTable t = run(d, {"nvtx_pushpop_trace"})[0];
  REQUIRE(t.rows.size() == 300);
  const auto& inner = row_of(t, 300);
  CHECK(inner[col(t, "Lvl")].i == 299);  // exact
  const std::string stack = inner[col(t, "RangeStack")].text;
  CHECK(stack.rfind("...:45:46:", 0) == 0);  // the 256 innermost: rowids 45 .. 300
  CHECK(stack.size() > 300);
  CHECK(inner[col(t, "NameTree")].text == std::string(512, '-') + ":r299");
  CHECK(row_of(t, 256)[col(t, "RangeStack")].text.rfind(":1:2:", 0) == 0);  // level 255: whole
  CHECK(t.note.find("ranges more than 256 deep: 44 ") == 0);
}

TEST_CASE("nsys stats: nvtx_pushpop_trace of an export without NVTX says which flag records it",
          "[nsys_stats][built]") {
  Db d;
  ks_test::open_memory(&d);
  ks_test::create_nsys_schema(&d);
  const ks::StatsTable t = run(d, {"nvtx_pushpop_trace"})[0];
  CHECK(t.rows.empty());
  CHECK(t.note.find("--trace=nvtx") != std::string::npos);
}
