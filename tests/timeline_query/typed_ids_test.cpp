// Id lists a person types (src/timeline_query/id_list.h parse_typed_ids, the CLI's --tracks):
// decimal ids within the type, or an error naming the first bad one. parse_id_list, for the
// page's own lists, read "-1" and "1x" as 1 and wrapped 4294967296 to track 0.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "timeline_query/id_list.h"

using ks::timeline_query::parse_typed_ids;

TEST_CASE("Typed id lists: commas, spaces and brackets; each id within its type",
          "[timeline_query]") {
  std::vector<uint32_t> ids;
  std::string error;
  CHECK(parse_typed_ids<uint32_t>("1,2,3", &ids, &error));
  CHECK(ids == std::vector<uint32_t>{1, 2, 3});
  CHECK(parse_typed_ids<uint32_t>("[0, 7 ,4294967295]", &ids, &error));
  CHECK(ids == std::vector<uint32_t>{0, 7, 4294967295u});
}

TEST_CASE("Typed id lists: negative, trailing junk, empty items and overflow are errors",
          "[timeline_query]") {
  std::vector<uint32_t> ids;
  std::string error;
  CHECK_FALSE(parse_typed_ids<uint32_t>("4294967296", &ids, &error));
  CHECK(error == "id out of range: 4294967296 (at most 4294967295)");
  CHECK_FALSE(parse_typed_ids<uint32_t>("18446744073709551616", &ids, &error));
  CHECK(error == "id out of range: 18446744073709551616 (at most 4294967295)");
  std::vector<uint64_t> wide;
  CHECK_FALSE(parse_typed_ids<uint64_t>("18446744073709551616", &wide, &error));
  CHECK(parse_typed_ids<uint64_t>("18446744073709551615", &wide, &error));
  CHECK(wide == std::vector<uint64_t>{18446744073709551615ull});
  CHECK_FALSE(parse_typed_ids<uint32_t>("-1", &ids, &error));
  CHECK(error == "not an id: '-1' (ids are numbers >= 0)");
  CHECK_FALSE(parse_typed_ids<uint32_t>("1x", &ids, &error));
  CHECK(error == "not an id: '1x' (ids are numbers >= 0)");
  CHECK_FALSE(parse_typed_ids<uint32_t>("1,,2", &ids, &error));
  CHECK_FALSE(parse_typed_ids<uint32_t>("", &ids, &error));
  CHECK_FALSE(parse_typed_ids<uint32_t>("1.5", &ids, &error));
}
