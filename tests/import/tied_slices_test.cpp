// Slices that tie on (ts, dur) on one thread: an op and the op it calls, both within one clock
// tick (aten::to / aten::_to_copy in real Kineto traces). Which one is the parent must not depend
// on the order of the file's events: Kineto's "External id" (call order, parent first) decides,
// then the name.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "helpers.h"

using ks_test::load;
using ks_test::report_of;
using ks_test::slice_named;

namespace {

std::string trace_of(const std::vector<std::string>& events) {
  std::string json = R"({"traceEvents":[)";
  for (size_t i = 0; i < events.size(); ++i) json += (i ? "," : "") + events[i];
  return json + "]}";
}

std::string op(const char* name, int ts, int dur, const char* args) {
  return std::string(R"({"ph":"X","cat":"cpu_op","pid":1,"tid":1,"name":")") + name + R"(","ts":)" +
         std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) + R"(,"args":{)" + args + "}}";
}

}  // namespace

TEST_CASE("Tied slices nest by External id, whatever the file's order", "[import][ties]") {
  const std::string to = op("aten::to", 10, 5, R"("External id":33)");
  const std::string to_copy = op("aten::_to_copy", 10, 5, R"("External id":34)");
  const std::string copy = op("aten::copy_", 11, 2, R"("External id":35)");
  const std::string parent_first = trace_of({to, to_copy, copy});
  // Still in time order (an out-of-order file gets a diagnostic of its own): only the tie swaps.
  const std::string child_first = trace_of({to_copy, to, copy});
  for (const std::string& json : {parent_first, child_first}) {
    auto t = load(json);
    const uint32_t outer = slice_named(*t, "aten::to"), inner = slice_named(*t, "aten::_to_copy");
    CHECK(t->slices.parent[inner] == static_cast<int32_t>(outer));
    CHECK(t->slices.parent[slice_named(*t, "aten::copy_")] == static_cast<int32_t>(inner));
    CHECK(t->slices.depth[inner] == 1);
  }
  CHECK(report_of(*load(parent_first)) == report_of(*load(child_first)));
}

TEST_CASE("Tied slices: the 2021 spelling 'external id', and no id at all", "[import][ties]") {
  SECTION("'external id' orders as 'External id' does") {
    const std::string a = op("outer", 10, 5, R"("external id":7)");
    const std::string b = op("inner", 10, 5, R"("external id":8)");
    for (const std::string& json : {trace_of({a, b}), trace_of({b, a})}) {
      auto t = load(json);
      CHECK(t->slices.parent[slice_named(*t, "inner")] ==
            static_cast<int32_t>(slice_named(*t, "outer")));
    }
  }
  SECTION("without ids, the name decides, not the file's order") {
    const std::string a = op("alpha", 10, 5, "");
    const std::string b = op("beta", 10, 5, "");
    for (const std::string& json : {trace_of({a, b}), trace_of({b, a})}) {
      auto t = load(json);
      CHECK(t->slices.parent[slice_named(*t, "beta")] ==
            static_cast<int32_t>(slice_named(*t, "alpha")));
    }
  }
}
