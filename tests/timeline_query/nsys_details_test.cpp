// The timeline's details for slices of a real Nsight Systems export (../shared/nsys/
// perlmutter-cloverleaf-cuda.sqlite): the drawer's "Args" come from the row the importer read (an
// export has no event text), and the slice's id, past 2^53, travels as an exact decimal string
// that finds the same slice again ("show on timeline" from a finding's events).
#include <algorithm>
#include <catch2/catch.hpp>
#include <climits>
#include <memory>
#include <string>

#include "corpus/shared_traces.h"
#include "import/nsys_sqlite/nsys_file.h"
#include "model/slice_kind.h"
#include "timeline_query/id_list.h"
#include "timeline_query/slice_query.h"
#include "timeline_query/track_layout.h"

namespace {

std::string field_text(const std::string& json, const std::string& key) {
  const std::string k = "\"" + key + "\": ";
  const size_t at = json.find(k);
  if (at == std::string::npos) return "";
  // One field a line (JsonWriter's layout): the value runs to the line's end, less its comma.
  std::string v = json.substr(at + k.size(), json.find('\n', at) - at - k.size());
  if (!v.empty() && v.back() == ',') v.pop_back();
  return v;
}

// The "args" object of a details JSON (its keys may repeat the facts': "grid" in "launch" too).
std::string args_of(const std::string& json) {
  const size_t at = json.find("\"args\": {");
  return at == std::string::npos ? "" : json.substr(at, json.find('}', at) - at);
}

int32_t first_of_kind(const ks::Trace& t, ks::SliceKind kind) {
  for (size_t i = 0; i < t.slices.size(); ++i)
    if (t.slices.kind[i] == kind) return static_cast<int32_t>(i);
  return -1;
}

// ../shared's real Nsight Systems export, read.
std::unique_ptr<ks::Trace> real_export() {
  const std::string path = ks_test::shared_dir() + "/nsys/perlmutter-cloverleaf-cuda.sqlite";
  ks::ImportError error;
  auto t = ks::import_nsys_file(path, &error);
  INFO(error.to_line());
  REQUIRE(t);
  return t;
}

}  // namespace

TEST_CASE("Timeline details of an nsys export: args from the row, exact ids",
          "[timeline_query][nsys]") {
  auto t = real_export();
  ks::timeline_query::ViewIndex index(*t);

  const int32_t kernel = first_of_kind(*t, ks::SliceKind::kKernel);
  REQUIRE(kernel >= 0);
  const std::string details =
      ks::timeline_query::slice_details_json(index, static_cast<uint32_t>(kernel));
  const std::string d = args_of(details);
  CHECK(field_text(d, "table") == "\"CUPTI_ACTIVITY_KIND_KERNEL\"");
  CHECK(field_text(d, "correlationId") == std::to_string(t->slices.correlation[kernel]));
  CHECK(field_text(d, "deviceId") == std::to_string(t->tracks[t->slices.track[kernel]].device));
  CHECK(field_text(d, "streamId") == std::to_string(t->tracks[t->slices.track[kernel]].stream));
  const auto& li = t->slices.launch_infos[static_cast<size_t>(t->slices.launch_info[kernel])];
  CHECK(field_text(d, "grid") == "\"[" + std::to_string(li.grid[0]) + ", " +
                                     std::to_string(li.grid[1]) + ", " +
                                     std::to_string(li.grid[2]) + "]\"");

  // The id: exact as text, and it finds this slice again; the JS number it would become does not.
  const uint64_t offset = t->slices.file_offset(kernel);
  REQUIRE(offset > (uint64_t{1} << 53));
  const std::string id = field_text(details, "event_id");
  CHECK(id == "\"" + std::to_string(offset) + "\"");
  ks::timeline_query::OffsetIndex offsets;
  CHECK(offsets.lookup(index, ks::timeline_query::parse_ids_as<uint64_t>("[" + id + "]")) ==
        std::vector<int32_t>{kernel});
  const auto as_double = static_cast<uint64_t>(static_cast<double>(offset));
  if (as_double != offset) CHECK(offsets.lookup(index, {as_double})[0] != kernel);

  const int32_t copy = first_of_kind(*t, ks::SliceKind::kMemcpy);
  REQUIRE(copy >= 0);
  const std::string c =
      args_of(ks::timeline_query::slice_details_json(index, static_cast<uint32_t>(copy)));
  CHECK(field_text(c, "table") == "\"CUPTI_ACTIVITY_KIND_MEMCPY\"");
  CHECK(field_text(c, "bytes") == std::to_string(t->slices.copy_size(copy)));
  // Kineto's copy kinds, from the name ("Memcpy HtoD (Pageable -> Device)").
  const std::string kind = field_text(c, "copyKind");
  CHECK((kind.rfind("\"HtoD", 0) == 0 || kind.rfind("\"DtoH", 0) == 0 ||
         kind.rfind("\"DtoD", 0) == 0 || kind.rfind("\"HtoH", 0) == 0));

  const int32_t api = first_of_kind(*t, ks::SliceKind::kRuntime);
  REQUIRE(api >= 0);
  const std::string a =
      args_of(ks::timeline_query::slice_details_json(index, static_cast<uint32_t>(api)));
  CHECK(field_text(a, "table") == "\"CUPTI_ACTIVITY_KIND_RUNTIME\"");
  CHECK(field_text(a, "streamId").empty());  // a CPU thread's row has no stream
}

TEST_CASE("The timeline of an nsys export counts from the session start, as Nsight Systems",
          "[timeline_query][nsys]") {
  auto t = real_export();
  ks::timeline_query::ViewIndex index(*t);
  // The first kernel where another reader of the same run puts it (../shared/nsys/
  // cloverleaf_gpu_trace.csv: par_ranged2d_kernel enters at 533338240 ns), not 56.6 ms earlier
  // (the first event, an OS runtime call, is at 78291151 ns; nsys' own row on thread id 0 at
  // 56574271 ns is no call of the program).
  int64_t first_kernel = INT64_MAX;
  for (uint32_t i = 0; i < t->slices.size(); ++i)
    if (t->slices.kind[i] == ks::SliceKind::kKernel)
      first_kernel = std::min(first_kernel, index.rel_start(i));
  CHECK(first_kernel == 533338240);
  const std::string layout = ks::timeline_query::track_layout_json(index);
  CHECK(field_text(layout, "time_zero") == "\"session start\"");
  CHECK(field_text(layout, "start_ns") == "78291151");
  CHECK(field_text(layout, "span_ns") == std::to_string(t->span_ns()));
  // cudaDeviceSynchronize's sync records have no stream: the row is named as Kineto names its
  // device-wide lane, not "stream -1".
  int no_stream_rows = 0;
  for (const ks::Track& tr : t->tracks)
    if (tr.kind == ks::TrackKind::kGpuStream && tr.stream == -1) {
      ++no_stream_rows;
      CHECK(tr.name == "Device 0");
    }
  CHECK(no_stream_rows == 1);
}
