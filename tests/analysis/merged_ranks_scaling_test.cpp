// Splitting a merged file into ranks (src/analysis/merged_ranks.cpp) on its worst shape: one
// correlation id on every launch and every kernel of two processes (a converter that writes one
// id), at N and 4N; the bound and the timing are in tests/scaling.h. Each kernel was compared
// with every call of its id: ops x calls, 0.86 s for 20,000 of each, ~90 s for 200,000.
#include <string>

#include "analysis/merged_ranks.h"
#include "helpers.h"
#include "scaling.h"

namespace {

// n launches alternating between pids 10 and 20, each kernel 5 us after its launch, all id 1.
std::string one_id(size_t n) {
  std::string ev;
  for (size_t k = 0; k < n; ++k) {
    const std::string pid = k % 2 ? "20" : "10", t = std::to_string(10 * k);
    ev += R"(,{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":)" + pid +
          R"(,"tid":1,"ts":)" + t + R"(,"dur":4,"args":{"correlation":1}})";
    ev += R"(,{"ph":"X","cat":"kernel","name":"k)" + pid + R"(","pid":0,"tid":7,"ts":)" + t +
          R"(.005,"dur":1,"args":{"stream":7,"device":0,"correlation":1}})";
  }
  return "[" + ev.substr(1) + "]";
}

size_t kernels_named(const ks::Trace& t, const std::string& name) {
  size_t n = 0;
  for (uint32_t i = 0; i < t.slices.size(); ++i)
    if (t.slices.kind[i] == ks::SliceKind::kKernel && t.str(t.slices.name[i]) == name) ++n;
  return n;
}

ks_test::ScalingRun split(const std::string& json) {
  ks_test::ScalingRun run;
  const auto t = ks_test::load(json);
  const auto parts = ks::split_merged_ranks(*t);
  // Each kernel goes to the latest launch before it: its own process's.
  run.ok = parts.size() == 2 && kernels_named(*parts[0], "k10") > 0 &&
           kernels_named(*parts[0], "k20") == 0 && kernels_named(*parts[1], "k10") == 0;
  return run;
}

// n ranks merged into one file, all on GPU pid 0 with the same correlation ids (each rank's CUPTI
// counts from 1), 200 launches each with a kernel and an ac2g flow, and a DataLoader process that
// launched nothing (in every part): each part's work must be its own, not the whole file's.
std::string many_ranks(size_t n) {
  std::string ev;
  constexpr int kLaunches = 200;
  for (size_t r = 0; r < n; ++r) {
    const std::string pid = std::to_string(1000 + r);
    for (int j = 1; j <= kLaunches; ++j) {
      const std::string t = std::to_string(1000 * j + 5 * static_cast<int>(r));
      const std::string k = std::to_string(1000 * j + 5 * static_cast<int>(r) + 2);
      const std::string id = std::to_string(j);
      ev += R"(,{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":)" + pid +
            R"(,"tid":1,"ts":)" + t + R"(,"dur":1,"args":{"correlation":)" + id + "}}";
      ev += R"(,{"ph":"s","cat":"ac2g","name":"ac2g","id":)" + id + R"(,"pid":)" + pid +
            R"(,"tid":1,"ts":)" + t + "}";
      ev += R"(,{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":)" + k +
            R"(,"dur":1,"args":{"stream":7,"device":0,"correlation":)" + id + "}}";
      ev += R"(,{"ph":"f","bp":"e","cat":"ac2g","name":"ac2g","id":)" + id +
            R"(,"pid":0,"tid":7,"ts":)" + k + "}";
    }
  }
  ev += R"(,{"ph":"X","cat":"cpu_op","name":"dataloader","pid":9,"tid":9,"ts":0,"dur":5})";
  return "[" + ev.substr(1) + "]";
}

ks_test::ScalingRun split_ranks(size_t ranks, const std::string& json) {
  ks_test::ScalingRun run;
  const auto t = ks_test::load(json);
  const auto parts = ks::split_merged_ranks(*t);
  run.ok = parts.size() == ranks;
  for (const auto& p : parts) run.ok = run.ok && kernels_named(*p, "gemm") == 200;
  return run;
}

}  // namespace

TEST_CASE("merged ranks: many ranks in one file split in linear time", "[scaling][merged_ranks]") {
  // Each part cut from lists made in one pass: before, every part scanned (and sorted) the whole
  // file, ranks x events (256 ranks of one file: ~10 s).
  constexpr size_t kRanks = 32;
  const std::string small = many_ranks(kRanks), large = many_ranks(4 * kRanks);
  ks_test::check_scaling([&](size_t n) { return n == kRanks ? small : large; }, kRanks,
                         [&](const std::string& json) {
                           return split_ranks(json.size() == small.size() ? kRanks : 4 * kRanks,
                                              json);
                         });
}

TEST_CASE("merged ranks: one correlation id on every launch splits in N log N",
          "[scaling][merged_ranks]") {
  ks_test::check_scaling(one_id, 20000, split);
}
