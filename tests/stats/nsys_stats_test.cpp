// The `nsys stats` reports (src/stats/). Each is checked against numbers computed here
// independently: plain SQL over the same tables plus a full sort for medians and a two-pass sample
// standard deviation, on the real export (../shared/nsys/perlmutter-cloverleaf-cuda.sqlite: REAL
// data, skipped with a visible message when absent), whose per-kernel, per-copy-kind and per-API
// totals must also equal the independent CSVs of the same run; and by hand on tiny exports BUILT
// here (NVTX, OS runtime, memsets, which the real file lacks) following the real file's schema.
#include "stats/stats_checks.h"

namespace {

using ks_test::check_summary_row;
using ks_test::check_total_order;
using ks_test::col;
using ks_test::csv_durations;
using ks_test::Db;
using ks_test::Expect;
using ks_test::expect_of;
using ks_test::group_sql;
using ks_test::row_named;
using ks_test::run;
using ks_test::sum;

}  // namespace

TEST_CASE("nsys stats: cuda_gpu_kern_sum on the real export equals SQL and the other reader's CSV",
          "[nsys_stats][real]") {
  Db d;
  if (!ks_test::open_real_export(&d)) return;
  auto t = run(d, {"cuda_gpu_kern_sum"})[0];
  CHECK(t.columns == std::vector<std::string>{"Time (%)", "Total Time (ns)", "Instances",
                                              "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)",
                                              "StdDev (ns)", "Name"});
  auto by_name = group_sql(d,
                           "SELECT s.value, k.end - k.start FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                           "JOIN StringIds s ON s.id = k.demangledName");
  REQUIRE(t.rows.size() == by_name.size());
  REQUIRE(t.rows.size() == 102);
  int64_t grand = 0, instances = 0;
  for (auto& kv : by_name) grand += sum(kv.second);
  for (auto& kv : by_name) {
    const auto& r = row_named(t, "Name", kv.first);
    check_summary_row(t, r, "Instances", expect_of(kv.second));
    CHECK(r[0].r == Approx(sum(kv.second) * 100.0 / grand).margin(0.05 + 1e-9));
    instances += r[col(t, "Instances")].i;
  }
  CHECK(instances == 1312);
  check_total_order(t, "Total Time (ns)");
  // Ties on total are ordered by instances, then name (the script's ORDER BY 2 DESC, 3, "Name").
  for (size_t i = 1; i < t.rows.size(); ++i)
    if (t.rows[i - 1][1].i == t.rows[i][1].i)
      CHECK(std::make_pair(t.rows[i - 1][2].i, t.rows[i - 1][8].text) <=
            std::make_pair(t.rows[i][2].i, t.rows[i][8].text));

  // The other reader names kernels by their short name: sum our rows per short name.
  const std::string csv = ks_test::shared_nsys_path("cloverleaf_gpu_trace.csv");
  if (!ks_test::file_exists(csv)) {
    WARN("SKIPPED: ../shared/nsys/cloverleaf_gpu_trace.csv is absent");
    return;
  }
  auto short_of = group_sql(d,
                            "SELECT DISTINCT d.value || char(9) || s.value, 0 FROM "
                            "CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds d ON d.id = "
                            "k.demangledName JOIN StringIds s ON s.id = k.shortName");
  std::map<std::string, std::string> demangled_to_short;
  for (auto& kv : short_of) {
    size_t tab = kv.first.find('\t');
    demangled_to_short[kv.first.substr(0, tab)] = kv.first.substr(tab + 1);
  }
  std::map<std::string, int64_t> ours_total, ours_count;
  for (const auto& r : t.rows) {
    ours_total[demangled_to_short.at(r[8].text)] += r[1].i;
    ours_count[demangled_to_short.at(r[8].text)] += r[2].i;
  }
  auto theirs = csv_durations(csv, 2, "kernel");
  REQUIRE(theirs.size() == ours_total.size());
  for (auto& kv : theirs) {
    INFO(kv.first);
    CHECK(ours_total[kv.first] == sum(kv.second));
    CHECK(ours_count[kv.first] == static_cast<int64_t>(kv.second.size()));
  }
}

TEST_CASE("nsys stats: memcpy summaries on the real export equal SQL and the other reader's CSV",
          "[nsys_stats][real]") {
  Db d;
  if (!ks_test::open_real_export(&d)) return;
  auto tables = run(d, {"cuda_gpu_mem_time_sum", "cuda_gpu_mem_size_sum"});
  const auto& time = tables[0];
  const auto& size = tables[1];
  auto durs = group_sql(d,
                        "SELECT '[CUDA memcpy ' || e.label || ']', m.end - m.start FROM "
                        "CUPTI_ACTIVITY_KIND_MEMCPY m JOIN ENUM_CUDA_MEMCPY_OPER e ON e.id = "
                        "m.copyKind");
  auto bytes = group_sql(d,
                         "SELECT '[CUDA memcpy ' || e.label || ']', m.bytes FROM "
                         "CUPTI_ACTIVITY_KIND_MEMCPY m JOIN ENUM_CUDA_MEMCPY_OPER e ON e.id = "
                         "m.copyKind");
  REQUIRE(time.rows.size() == 2);
  REQUIRE(size.rows.size() == 2);
  CHECK(time.rows[0][col(time, "Operation")].text == "[CUDA memcpy Host-to-Device]");
  for (auto& kv : durs)
    check_summary_row(time, row_named(time, "Operation", kv.first), "Count", expect_of(kv.second));
  for (auto& kv : bytes) {
    const auto& r = row_named(size, "Operation", kv.first);
    Expect e = expect_of(kv.second);
    CHECK(r[col(size, "Total (MB)")].r == Approx(e.total / 1e6));
    CHECK(r[col(size, "Count")].i == e.count);
    CHECK(r[col(size, "Med (MB)")].r == Approx(e.med / 1e6));
    CHECK(r[col(size, "StdDev (MB)")].r == Approx(e.stddev / 1e6));
  }
  check_total_order(time, "Total Time (ns)");
  check_total_order(size, "Total (MB)");
  const std::string csv = ks_test::shared_nsys_path("cloverleaf_gpu_trace.csv");
  if (!ks_test::file_exists(csv)) return;
  auto htod = csv_durations(csv, 2, "CUDA_MEMCPY_KIND_HTOD");
  auto dtoh = csv_durations(csv, 2, "CUDA_MEMCPY_KIND_DTOH");
  const auto& h = row_named(time, "Operation", "[CUDA memcpy Host-to-Device]");
  const auto& g = row_named(time, "Operation", "[CUDA memcpy Device-to-Host]");
  CHECK(h[1].i == sum(htod["CUDA_MEMCPY_KIND_HTOD"]));
  CHECK(h[2].i == 254);
  CHECK(g[1].i == sum(dtoh["CUDA_MEMCPY_KIND_DTOH"]));
  CHECK(g[2].i == 25);
}

TEST_CASE("nsys stats: cuda_api_sum on the real export equals SQL and the other reader's CSV",
          "[nsys_stats][real]") {
  Db d;
  if (!ks_test::open_real_export(&d)) return;
  auto t = run(d, {"cuda_api_sum"})[0];
  CHECK(t.columns[2] == "Num Calls");
  auto by_name = group_sql(d,
                           "SELECT s.value, r.end - r.start FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
                           "JOIN StringIds s ON s.id = r.nameId");
  REQUIRE(t.rows.size() == by_name.size());
  for (auto& kv : by_name) {
    // Names without nsys's version suffix, as the GUI and the script show them.
    std::string shown = kv.first;
    if (shown.size() > 6 && shown.compare(shown.size() - 6, 2, "_v") == 0)
      shown.resize(shown.size() - 6);
    check_summary_row(t, row_named(t, "Name", shown), "Num Calls", expect_of(kv.second));
  }
  CHECK(t.rows[0][col(t, "Name")].text == "cudaDeviceSynchronize");
  CHECK(t.rows[0][col(t, "Num Calls")].i == 1312);
  check_total_order(t, "Total Time (ns)");
  const std::string csv = ks_test::shared_nsys_path("cloverleaf-cuda_api_trace.csv");
  if (!ks_test::file_exists(csv)) return;
  auto theirs = csv_durations(csv, -1, "");
  REQUIRE(theirs.size() == t.rows.size());
  for (auto& kv : theirs) {
    INFO(kv.first);
    const auto& r = row_named(t, "Name", ks::strip_nsys_api_version(kv.first));
    CHECK(r[1].i == sum(kv.second));
    CHECK(r[2].i == static_cast<int64_t>(kv.second.size()));
  }
}

TEST_CASE(
    "nsys stats: osrt_sum and cuda_gpu_trace on the real export; nvtx_sum says why it is "
    "empty",
    "[nsys_stats][real]") {
  Db d;
  if (!ks_test::open_real_export(&d)) return;
  auto tables = run(d, {"osrt_sum", "cuda_gpu_trace", "nvtx_sum"});
  const auto& osrt = tables[0];
  auto by_name = group_sql(d,
                           "SELECT s.value, o.end - o.start FROM OSRT_API o JOIN StringIds s ON "
                           "s.id = o.nameId WHERE o.eventClass = 27");
  REQUIRE(osrt.rows.size() == by_name.size());
  int64_t calls = 0;
  for (auto& kv : by_name) {
    check_summary_row(osrt, row_named(osrt, "Name", kv.first), "Num Calls", expect_of(kv.second));
    calls += static_cast<int64_t>(kv.second.size());
  }
  CHECK(calls == 1828);  // the 3 start/finish markers (eventClass 31, 32) are not calls
  check_total_order(osrt, "Total Time (ns)");

  const auto& trace = tables[1];
  REQUIRE(trace.rows.size() == 1312 + 279);
  for (size_t i = 1; i < trace.rows.size(); ++i)
    CHECK(trace.rows[i - 1][0].i <= trace.rows[i][0].i);
  const size_t name = col(trace, "Name"), dev = col(trace, "Device"),
               bytes = col(trace, "Bytes (MB)");
  size_t copies = 0;
  for (const auto& r : trace.rows) {
    if (r[name].text.rfind("[CUDA memcpy", 0) == 0) {
      ++copies;
      CHECK(r[bytes].kind == ks::StatsCell::Kind::kReal);
    }
  }
  CHECK(copies == 279);
  CHECK(trace.rows[0][dev].text == "NVIDIA A100-SXM4-80GB (0)");

  const auto& nvtx = tables[2];
  CHECK(nvtx.rows.empty());
  CHECK(nvtx.note.find("--trace=nvtx") != std::string::npos);
  CHECK(nvtx.note.find("torch.cuda.nvtx.range") != std::string::npos);
}

// The five statistics of one phase column group ("T", "A", "Q", "K") equal `e`.
void check_phase(const ks::StatsTable& t, const std::vector<ks::StatsCell>& r, const std::string& p,
                 const Expect& e) {
  CHECK(r[col(t, p + "Min (ns)")].i == e.min);
  CHECK(r[col(t, p + "Max (ns)")].i == e.max);
  CHECK(r[col(t, p + "Avg (ns)")].r == Approx(e.avg).margin(0.05 + 1e-9));
  CHECK(r[col(t, p + "Med (ns)")].r == Approx(e.med).margin(0.05 + 1e-9));
  CHECK(r[col(t, p + "StdDev (ns)")].r == Approx(e.stddev).margin(0.05 + 1e-6));
}

TEST_CASE("nsys stats: cuda_kern_exec_sum and nvtx_kern_sum on the real export equal SQL",
          "[nsys_stats][real]") {
  Db d;
  if (!ks_test::open_real_export(&d)) return;
  const ks::StatsTable t = run(d, {"cuda_kern_exec_sum"})[0];
  // Each kernel with the cudaLaunchKernel of its correlation id; one thread, one GPU.
  const std::string from =
      " FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = "
      "k.correlationId JOIN StringIds s ON s.id = k.demangledName";
  auto total = group_sql(d, "SELECT s.value, max(r.end, k.end) - r.start" + from);
  auto api = group_sql(d, "SELECT s.value, r.end - r.start" + from);
  auto queue = group_sql(d, "SELECT s.value, k.start - r.end" + from + " WHERE k.start >= r.end");
  auto kernel = group_sql(d, "SELECT s.value, k.end - k.start" + from);
  REQUIRE(t.rows.size() == 102);  // the kernel names of cuda_gpu_kern_sum
  REQUIRE(kernel.size() == 102);
  int64_t count = 0;
  for (auto& kv : kernel) {
    INFO(kv.first);
    const auto& r = row_named(t, "Kernel Name", kv.first);
    CHECK(r[col(t, "API Name")].text == "cudaLaunchKernel");
    CHECK(r[col(t, "DevId")].i == 0);
    CHECK(r[col(t, "Count")].i == static_cast<int64_t>(kv.second.size()));
    count += r[col(t, "Count")].i;
    check_phase(t, r, "T", expect_of(total[kv.first]));
    check_phase(t, r, "A", expect_of(api[kv.first]));
    check_phase(t, r, "K", expect_of(kv.second));
    const auto q = queue.find(kv.first);
    CHECK(r[col(t, "QCount")].i == (q == queue.end() ? 0 : static_cast<int64_t>(q->second.size())));
    if (q != queue.end())
      check_phase(t, r, "Q", expect_of(q->second));
    else
      CHECK(r[col(t, "QAvg (ns)")].kind == ks::StatsCell::Kind::kNull);
  }
  CHECK(count == 1312);
  check_total_order(t, "TAvg (ns)");
  // No NVTX in this capture: nvtx_kern_sum is skipped, as nsys skips it, saying why.
  const ks::StatsTable k = run(d, {"nvtx_kern_sum"})[0];
  CHECK(k.rows.empty());
  CHECK(k.note.find("--trace=nvtx") != std::string::npos);
}

TEST_CASE("nsys stats: nvtx_kern_sum on a built export (nesting, styles, domains, no range)",
          "[nsys_stats][built]") {
  Db d;
  ks_test::open_nvtx_export(&d);
  // BUILT data. Process 100, threads 100 (T1 = 0x64000064) and 101 (T2 = 0x64000065). On T1:
  // "step" [0, 1000] in domain "app", ":fwd" [100, 500] holding a second ":fwd" [150, 300], a
  // start/end "io" [50, 950] that ends on T2 (left out), a start/end "phase" [600, 2000] and an
  // unclosed "open" from 900 (to the last NVTX time, 2000). Calls on T1 at [200, 210] (gemm,
  // 50 ns), [700, 710] (gemm, 30 ns), [1500, 1510] (late, 7 ns); on T2 at [200, 210] (relu,
  // 10 ns); a kernel whose call is missing (orphan, 5 ns).
  d.exec(R"(
INSERT INTO StringIds VALUES (1, 'gemm'), (2, 'late'), (3, 'relu'), (4, 'orphan'),
  (5, 'cudaLaunchKernel_v7000');
INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, endGlobalTid, domainId) VALUES
  (0, NULL, 75, 'app', 1677721700, NULL, 1),
  (0, 1000, 59, 'step', 1677721700, NULL, 1),
  (100, 500, 59, 'fwd', 1677721700, NULL, 0),
  (150, 300, 59, 'fwd', 1677721700, NULL, 0),
  (50, 950, 60, 'io', 1677721700, 1677721701, 0),
  (600, 2000, 60, 'phase', 1677721700, NULL, 0),
  (900, NULL, 59, 'open', 1677721700, NULL, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (200, 210, 1, 1677721700, 1, 5, 0, NULL),
  (700, 710, 1, 1677721700, 2, 5, 0, NULL), (1500, 1510, 1, 1677721700, 5, 5, 0, NULL),
  (200, 210, 1, 1677721701, 3, 5, 0, NULL);
)");
  ks_test::insert_kernel(&d, 300, 350, 1, 1677721600, 1);
  ks_test::insert_kernel(&d, 800, 830, 2, 1677721600, 1);
  ks_test::insert_kernel(&d, 1600, 1607, 5, 1677721600, 2);
  ks_test::insert_kernel(&d, 300, 310, 3, 1677721600, 3);
  ks_test::insert_kernel(&d, 400, 405, 99, 1677721600, 4);
  const ks::StatsTable t = run(d, {"nvtx_kern_sum"})[0];
  // (range, style, pid, tid, NVTX Inst, Kern Inst, Total, kernel), in the script's order: no
  // range first (a missing PID before 100), then by name (':' sorts before 'a').
  struct Want {
    const char* range;
    const char* style;
    int64_t pid, tid, nvtx, kern, total;
    const char* kernel;
  };
  const Want want[] = {
      {nullptr, nullptr, -1, -1, 0, 1, 5, "orphan"},
      {nullptr, nullptr, 100, 101, 0, 1, 10, "relu"},
      {":fwd", "PushPop", 100, 100, 2, 1, 100, "gemm"},  // one kernel, two nested ranges
      {":open", "PushPop", 100, 100, 1, 1, 7, "late"},
      {":phase", "StartEnd", 100, 100, 1, 1, 30, "gemm"},
      {":phase", "StartEnd", 100, 100, 1, 1, 7, "late"},
      {"app:step", "PushPop", 100, 100, 1, 2, 80, "gemm"},
  };
  REQUIRE(t.rows.size() == std::size(want));
  for (size_t i = 0; i < t.rows.size(); ++i) {
    INFO("row " << i);
    const auto& r = t.rows[i];
    const Want& w = want[i];
    if (w.range) {
      CHECK(r[0].text == w.range);
      CHECK(r[1].text == w.style);
    } else {
      CHECK(r[0].kind == ks::StatsCell::Kind::kNull);
    }
    if (w.pid < 0) {
      CHECK(r[2].kind == ks::StatsCell::Kind::kNull);
    } else {
      CHECK(r[2].i == w.pid);
      CHECK(r[3].i == w.tid);
    }
    CHECK(r[4].i == w.nvtx);
    CHECK(r[5].i == w.kern);
    CHECK(r[6].i == w.total);
    CHECK(r[12].text == w.kernel);
  }
  CHECK(t.rows[6][7].r == Approx(40.0));  // app:step: gemm 50 and 30
  CHECK(t.note.empty());
}

TEST_CASE("nsys stats: nvtx_kern_sum bounds the ranges one launch counts in",
          "[nsys_stats][built]") {
  Db d;
  ks_test::open_nvtx_export(&d);
  // BUILT data: 300 nested push/pop ranges r0 (outermost) .. r299 (innermost) around one launch.
  ks_test::insert_nested_ranges(&d, 300, 1677721700);
  d.exec(R"(
INSERT INTO StringIds VALUES (1, 'gemm'), (5, 'cudaLaunchKernel_v7000');
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (5000, 5010, 1, 1677721700, 1, 5, 0, NULL);
)");
  ks_test::insert_kernel(&d, 5100, 5150, 1, 1677721600, 1);
  const ks::StatsTable t = run(d, {"nvtx_kern_sum"})[0];
  REQUIRE(t.rows.size() == 256);  // the innermost 256: r44 .. r299
  for (const auto& r : t.rows) CHECK(std::stoi(r[0].text.substr(2)) >= 44);
  CHECK(t.note.find("launches inside more than 256 ranges: 1 ") == 0);
}

TEST_CASE("nsys stats: nvtx_sum on a built export (push/pop, start/end, domains, textId)",
          "[nsys_stats][built]") {
  Db d;
  ks_test::open_nvtx_export(&d);
  // BUILT data: train_step 10, 20, 40 ns; io:read 7; load (start/end) 5, 15; a mark; unclosed.
  ks_test::insert_nvtx_styles(&d);
  auto t = run(d, {"nvtx_sum"})[0];
  CHECK(t.columns.back() == "Range");
  CHECK(t.columns[t.columns.size() - 2] == "Style");
  REQUIRE(t.rows.size() == 3);
  // By hand: train_step total 70, avg 23.3, median 20, sample stddev sqrt(233.33) = 15.3.
  const auto& ts = t.rows[0];
  CHECK(ts[9].text == "train_step");
  CHECK(ts[8].text == "PushPop");
  CHECK(ts[1].i == 70);
  CHECK(ts[2].i == 3);
  CHECK(ts[3].r == Approx(23.3));
  CHECK(ts[4].r == Approx(20.0));
  CHECK(ts[7].r == Approx(15.3));
  CHECK(ts[0].r == Approx(72.2));  // 70 / 97
  const auto& load = row_named(t, "Range", "load");
  CHECK(load[8].text == "StartEnd");
  CHECK(load[4].r == Approx(10.0));  // median of an even count: (5 + 15) / 2
  CHECK(load[7].r == Approx(7.1));   // sqrt(50) = 7.07
  CHECK(row_named(t, "Range", "io:read")[1].i == 7);
}

TEST_CASE("nsys stats: nvtx_sum names a domain by its id in the range's own process",
          "[nsys_stats][built]") {
  Db d;
  ks_test::open_nvtx_export(&d);
  // BUILT data: two processes of one export (torchrun-like) whose domain handles collide: in pid
  // 42 (globalTid 42 << 24 | 7) domain 1 is NCCL and 2 is trainer, in pid 43 the other way round.
  // Each process has one train_step (trainer) and one ncclAllReduce (NCCL) range.
  d.exec(R"(
INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) VALUES
  (0, NULL, 75, 'NCCL', 704643079, 1), (0, NULL, 75, 'trainer', 704643079, 2),
  (0, NULL, 75, 'trainer', 721420295, 1), (0, NULL, 75, 'NCCL', 721420295, 2),
  (10, 110, 59, 'train_step', 704643079, 2), (20, 50, 59, 'ncclAllReduce', 704643079, 1),
  (10, 130, 59, 'train_step', 721420295, 1), (20, 60, 59, 'ncclAllReduce', 721420295, 2);
)");
  for (const char* report : {"nvtx_sum", "nvtx_pushpop_sum"}) {
    const ks::StatsTable t = run(d, {report})[0];
    // Was NCCL:train_step and trainer:train_step (the last name row of each id won everywhere).
    REQUIRE(t.rows.size() == 2);
    const auto& step = row_named(t, "Range", "trainer:train_step");
    CHECK(step[col(t, "Instances")].i == 2);
    CHECK(step[col(t, "Total Time (ns)")].i == 220);
    CHECK(row_named(t, "Range", "NCCL:ncclAllReduce")[col(t, "Instances")].i == 2);
  }
  // nvtx_gpu_proj_sum and nvtx_pushpop_trace read the same names (NvtxDomains).
  const ks::StatsTable trace = run(d, {"nvtx_pushpop_trace"})[0];
  size_t steps = 0;
  for (const auto& r : trace.rows) steps += r[col(trace, "Name")].text == "trainer:train_step";
  CHECK(steps == 2);
}

TEST_CASE("nsys stats: osrt_sum and memsets on a built export", "[nsys_stats][built]") {
  Db d;
  ks_test::open_memory(&d);
  ks_test::create_nsys_schema(&d);
  ks_test::create_osrt_table(&d);
  ks_test::create_memset_table(&d);
  // BUILT data: 2 poll calls (100, 300 ns), 1 ioctl (1000 ns), and a start marker (class 31)
  // that is no call; memsets of 4096 and 8192 B, and one HtoD copy of 1,000,000 B.
  d.exec(R"(
INSERT INTO StringIds VALUES (1, 'poll'), (2, 'ioctl'), (3, 'marker');
INSERT INTO OSRT_API VALUES (0, 100, 27, 1, 1, 0, 0, 0), (200, 500, 27, 1, 1, 0, 0, 0),
  (600, 1600, 27, 1, 2, 0, 0, 0), (0, 99999, 31, 1, 3, 0, 0, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (1000, 1010, 0, 1, NULL, 7, 11, 1, 0, 4096, NULL, 2),
  (2000, 2030, 0, 1, NULL, 7, 12, 1, 0, 8192, NULL, 2);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, streamId, correlationId,
  bytes, copyKind, srcKind, dstKind) VALUES (1500, 1600, 0, 1, 7, 13, 1000000, 1, 0, 2);
)");
  auto tables =
      run(d, {"osrt_sum", "cuda_gpu_mem_time_sum", "cuda_gpu_mem_size_sum", "cuda_gpu_trace"});
  const auto& osrt = tables[0];
  REQUIRE(osrt.rows.size() == 2);
  CHECK(osrt.rows[0][8].text == "ioctl");  // 1000 ns > 400 ns
  CHECK(osrt.rows[0][0].r == Approx(71.4));
  const auto& poll = osrt.rows[1];
  CHECK(poll[1].i == 400);
  CHECK(poll[4].r == Approx(200.0));
  CHECK(poll[7].r == Approx(141.4));  // |300 - 100| / sqrt(2)
  const auto& mt = tables[1];
  REQUIRE(mt.rows.size() == 2);
  CHECK(mt.rows[0][8].text == "[CUDA memcpy Host-to-Device]");  // 100 ns > 40 ns
  CHECK(mt.rows[1][8].text == "[CUDA memset]");
  CHECK(mt.rows[1][1].i == 40);
  const auto& ms = tables[2];
  CHECK(ms.rows[0][7].text == "[CUDA memcpy Host-to-Device]");
  CHECK(ms.rows[0][0].r == Approx(1.0));
  CHECK(row_named(ms, "Operation", "[CUDA memset]")[0].r == Approx(0.012288));
  const auto& tr = tables[3];
  REQUIRE(tr.rows.size() == 3);
  CHECK(tr.rows[1][col(tr, "Name")].text == "[CUDA memcpy Host-to-Device]");
  CHECK(tr.rows[1][col(tr, "SrcMemKd")].text == "Pageable");
  CHECK(tr.rows[1][col(tr, "DstMemKd")].text == "Device");
  // bytes * (1e9 / 100 ns) = 1e13 B/s = 1e7 MB/s.
  CHECK(tr.rows[1][col(tr, "Throughput (MBps)")].r == Approx(1e7));
  CHECK(tr.rows[0][col(tr, "SrcMemKd")].text == "Device");  // the memset's memory kind
  CHECK(tr.rows[0][col(tr, "Device")].text == "NVIDIA H100 80GB HBM3 (0)");
  CHECK(tr.rows[0][col(tr, "GreenCtx")].kind == ks::StatsCell::Kind::kNull);
}

TEST_CASE("nsys stats: absent tables give empty tables with the capture flag to use",
          "[nsys_stats][built]") {
  Db d;
  ks_test::open_memory(&d);
  d.exec("CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);");
  auto tables = run(d, ks::nsys_stats_report_names());
  for (const auto& t : tables) {
    INFO(t.report);
    CHECK(t.rows.empty());
    CHECK(!t.note.empty());
    CHECK(!t.columns.empty());
  }
  CHECK(tables[1].note.find("--trace=osrt") != std::string::npos);
  CHECK(tables[3].note.find("--trace=cuda") != std::string::npos);
  std::string text = ks::nsys_stats_text(tables);
  CHECK(text.find("SKIPPED: no OSRT_API table") != std::string::npos);
}

TEST_CASE("nsys stats: unknown report names are an error that lists the known ones",
          "[nsys_stats][built]") {
  Db d;
  ks_test::open_memory(&d);
  std::vector<ks::StatsTable> out;
  std::string err;
  CHECK_FALSE(ks::run_nsys_stats_on_handle(d.db, {"cuda_gpu_kern_sum", "kern_sum"}, &out, &err));
  CHECK(err.find("unknown report 'kern_sum'") != std::string::npos);
  CHECK(err.find("cuda_gpu_trace") != std::string::npos);
  CHECK(ks::nsys_stats_default_reports() ==
        std::vector<std::string>{"nvtx_sum", "osrt_sum", "cuda_api_sum", "cuda_gpu_kern_sum",
                                 "cuda_gpu_mem_time_sum", "cuda_gpu_mem_size_sum"});
}

TEST_CASE("nsys stats: the writers (nsys's column layout, quoted CSV, kinetoscope.stats/1)",
          "[nsys_stats][built]") {
  ks::StatsTable t;
  t.report = "osrt_sum";
  t.title = "OS Runtime Summary";
  t.columns = {"Time (%)", "Total Time (ns)", "Num Calls", "Avg (ns)", "Name"};
  t.rows.push_back({ks::cell_real(67.3), ks::cell_int(335987431), ks::cell_int(2),
                    ks::cell_real(167993715.5), ks::cell_text("sem_wait")});
  t.rows.push_back({ks::cell_real(0.0), ks::cell_int(0), ks::cell_int(1), ks::cell_real(0),
                    ks::cell_text("say \"hi\"")});
  CHECK(ks::nsys_stats_text({t}) ==
        "\n ** OS Runtime Summary (osrt_sum):\n\n"
        " Time (%)  Total Time (ns)  Num Calls    Avg (ns)       Name  \n"
        " --------  ---------------  ---------  -------------  --------\n"
        "     67.3      335,987,431          2  167,993,715.5  sem_wait\n"
        "      0.0                0          1            0.0  say \"hi\"\n\n");
  CHECK(ks::nsys_stats_csv({t}) ==
        "\"Time (%)\",\"Total Time (ns)\",\"Num Calls\",\"Avg (ns)\",\"Name\"\n"
        "\"67.3\",\"335987431\",\"2\",\"167993715.5\",\"sem_wait\"\n"
        "\"0.0\",\"0\",\"1\",\"0.0\",\"say \"\"hi\"\"\"\n");
  std::string json = ks::nsys_stats_json({t});
  CHECK(json.find("\"schema\": \"kinetoscope.stats/1\"") != std::string::npos);
  CHECK(json.find("335987431") != std::string::npos);
  CHECK(json.find("\"note\": null") != std::string::npos);
}

TEST_CASE("nsys stats: the text table cuts a 1 MB name and shows names inert; CSV/JSON exact",
          "[nsys_stats][built]") {
  ks::StatsTable t;
  t.report = "cuda_gpu_kern_sum";
  t.title = "CUDA GPU Kernel Summary";
  t.columns = {"Instances", "Name"};
  const std::string huge = "void k<" + std::string(size_t{1} << 20, 'x') + ">()";
  t.rows.push_back({ks::cell_int(1), ks::cell_text(huge)});
  t.rows.push_back({ks::cell_int(2), ks::cell_text("gemm_\xE2\x80\xAEtxt.exe\x1b[31m")});
  for (int r = 0; r < 100; ++r) t.rows.push_back({ks::cell_int(3), ks::cell_text("small")});
  const std::string text = ks::nsys_stats_text({t});
  // Before: the name whole, and the column as wide: 102 rows of a megabyte each (107 MB).
  CHECK(text.size() < 102 * 4300);
  CHECK(text.find(std::string(4000, 'x') + "... (1,048,586 bytes)") != std::string::npos);
  // Terminal-safe as the report's names: no ESC, no bidi override.
  CHECK(text.find("gemm_?txt.exe?[31m") != std::string::npos);
  CHECK(text.find('\x1b') == std::string::npos);
  CHECK(text.find("\xE2\x80\xAE") == std::string::npos);
  // CSV and JSON are data for programs: the name exactly.
  CHECK(ks::nsys_stats_csv({t}).find(huge) != std::string::npos);
  CHECK(ks::nsys_stats_json({t}).find(huge) != std::string::npos);
}
