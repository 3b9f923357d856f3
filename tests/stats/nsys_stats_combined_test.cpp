// The `nsys stats` reports that combine or list what the single-kind summaries group:
// cuda_gpu_sum and cuda_api_gpu_sum (one table over kernels, memory operations and API calls),
// nvtx_pushpop_sum and nvtx_startend_sum (nvtx_sum split by style), cuda_api_trace (every API
// call) and cuda_kern_exec_trace (every kernel with its launch). On the real export
// (../shared/nsys, REAL data, skipped with a visible message when absent) each is checked against
// plain SQL and, for the API trace, row for row against the other reader's CSV of the same run;
// the NVTX reports on a tiny export BUILT here.
#include <set>
#include <tuple>

#include "stats/first_rows.h"
#include "stats/stats_checks.h"

namespace {

using ks_test::col;
using ks_test::Db;
using ks_test::run;

// Label -> (total, count) of a summary table, with its category prefixed when it has one.
std::map<std::string, std::pair<int64_t, int64_t>> totals(const ks::StatsTable& t,
                                                          const std::string& category) {
  std::map<std::string, std::pair<int64_t, int64_t>> out;
  for (const auto& r : t.rows) out[category + "|" + r.back().text] = {r[1].i, r[2].i};
  return out;
}

}  // namespace

TEST_CASE(
    "nsys stats: cuda_gpu_sum and cuda_api_gpu_sum are the single-kind summaries in one table",
    "[nsys_stats][real]") {
  Db d;
  if (!ks_test::open_real_export(&d)) return;
  auto t = run(d, {"cuda_gpu_sum", "cuda_api_gpu_sum", "cuda_gpu_kern_sum", "cuda_gpu_mem_time_sum",
                   "cuda_api_sum"});
  const ks::StatsTable &gpu = t[0], &all = t[1];
  CHECK(gpu.columns == std::vector<std::string>{"Time (%)", "Total Time (ns)", "Instances",
                                                "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)",
                                                "StdDev (ns)", "Category", "Operation"});
  CHECK(all.columns == gpu.columns);
  auto kernels = totals(t[2], "CUDA_KERNEL"), mem = totals(t[3], "MEMORY_OPER"),
       api = totals(t[4], "CUDA_API");
  std::map<std::string, std::pair<int64_t, int64_t>> want_gpu = kernels, want_all;
  want_gpu.insert(mem.begin(), mem.end());
  want_all = want_gpu;
  want_all.insert(api.begin(), api.end());
  REQUIRE(kernels.size() == 102);
  for (auto [table, want] : {std::make_pair(&gpu, &want_gpu), std::make_pair(&all, &want_all)}) {
    INFO(table->report);
    std::map<std::string, std::pair<int64_t, int64_t>> got;
    double share = 0;
    for (const auto& r : table->rows) {
      got[r[col(*table, "Category")].text + "|" + r[col(*table, "Operation")].text] = {r[1].i,
                                                                                       r[2].i};
      share += r[0].r;
    }
    CHECK(got == *want);
    CHECK(share == Approx(100).margin(0.1 * static_cast<double>(table->rows.size())));
    ks_test::check_total_order(*table, "Total Time (ns)");
  }
  // The share is of the whole table: cudaDeviceSynchronize waits out every kernel, so the API
  // rows outweigh the GPU ones and the top kernel's share drops.
  CHECK(all.rows[0][col(all, "Operation")].text == "cudaDeviceSynchronize");
  CHECK(all.rows[0][col(all, "Category")].text == "CUDA_API");
  const std::string top = gpu.rows[0][col(gpu, "Operation")].text;
  CHECK(ks_test::row_named(all, "Operation", top)[0].r < gpu.rows[0][0].r);
}

TEST_CASE("nsys stats: cuda_api_trace on the real export is the other reader's API trace",
          "[nsys_stats][real]") {
  Db d;
  if (!ks_test::open_real_export(&d)) return;
  const ks::StatsTable t = run(d, {"cuda_api_trace"})[0];
  CHECK(t.columns == std::vector<std::string>{"Start (ns)", "Duration (ns)", "Name", "Result",
                                              "CorrID", "Pid", "Tid", "T-Pri", "Thread Name"});
  REQUIRE(t.rows.size() == 3048);
  for (size_t i = 1; i < t.rows.size(); ++i) CHECK(t.rows[i - 1][0].i <= t.rows[i][0].i);
  // Every call a launch's correlation id names is in the trace with that id.
  auto launches =
      ks_test::group_sql(d, "SELECT 'x', correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL");
  std::set<int64_t> ids;
  for (const auto& r : t.rows) ids.insert(r[col(t, "CorrID")].i);
  for (int64_t id : launches["x"]) CHECK(ids.count(id) == 1);
  CHECK(t.rows[0][col(t, "Thread Name")].kind == ks::StatsCell::Kind::kText);
  CHECK(t.rows[0][col(t, "Result")].i == 0);

  const std::string csv = ks_test::shared_nsys_path("cloverleaf-cuda_api_trace.csv");
  if (!ks_test::file_exists(csv)) {
    WARN("SKIPPED: ../shared/nsys/cloverleaf-cuda_api_trace.csv is absent");
    return;
  }
  // (start, end, name, pid, tid) of each call, both sides sorted the same way.
  using Call = std::tuple<int64_t, int64_t, std::string, int64_t, int64_t>;
  std::vector<Call> ours, theirs;
  for (const auto& r : t.rows)
    ours.emplace_back(r[0].i, r[0].i + r[1].i, r[2].text, r[5].i, r[6].i);
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);  // Name,Process,Thread,Trace Type,Event Type,Timestamp (ns),...
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string x;
    while (std::getline(ss, x, ',')) f.push_back(x);
    if (f.size() < 8 || f[4] != "Enter") continue;
    theirs.emplace_back(std::stoll(f[5]), std::stoll(f[7]), f[0], std::stoll(f[1]),
                        std::stoll(f[2]));
  }
  std::sort(ours.begin(), ours.end());
  std::sort(theirs.begin(), theirs.end());
  CHECK(ours == theirs);
}

TEST_CASE("nsys stats: cuda_api_trace lists a call once when its thread was named twice",
          "[nsys_stats][built]") {
  Db d;
  ks_test::open_nvtx_export(&d);
  // BUILT data: one call on a thread that ThreadNames names twice (renamed while traced).
  d.exec(R"(
CREATE TABLE IF NOT EXISTS ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'python'), (3, 'pt_main_thread');
INSERT INTO ThreadNames VALUES (2, 10, 704643079), (3, 20, 704643079);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, correlationId, nameId,
  returnValue) VALUES (100, 110, 1, 704643079, 1, 1, 0);
)");
  const ks::StatsTable t = run(d, {"cuda_api_trace"})[0];
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0][col(t, "Thread Name")].text == "pt_main_thread");
  CHECK(t.rows[0][col(t, "T-Pri")].i == 20);
  CHECK(t.rows[0][col(t, "Pid")].i == 42);
  CHECK(t.rows[0][col(t, "Tid")].i == 7);
  CHECK(t.rows[0][col(t, "Name")].text == "cudaLaunchKernel_v7000");
}

TEST_CASE(
    "nsys stats: cuda_kern_exec_trace on the real export: each launch, as the summary "
    "groups it",
    "[nsys_stats][real]") {
  Db d;
  if (!ks_test::open_real_export(&d)) return;
  auto tables = run(d, {"cuda_kern_exec_trace", "cuda_kern_exec_sum"});
  const ks::StatsTable &t = tables[0], &sum = tables[1];
  REQUIRE(t.rows.size() == 1312);
  const size_t api_start = col(t, "API Start (ns)"), api_dur = col(t, "API Dur (ns)"),
               q_start = col(t, "Queue Start (ns)"), q_dur = col(t, "Queue Dur (ns)"),
               k_start = col(t, "Kernel Start (ns)"), k_dur = col(t, "Kernel Dur (ns)"),
               total = col(t, "Total Dur (ns)"), name = col(t, "Kernel Name"),
               grid = col(t, "GridXYZ");
  // Plain SQL, row for row in the trace's order.
  std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t, std::string>> want;
  sqlite3_stmt* st = nullptr;
  REQUIRE(sqlite3_prepare_v2(d.db,
                             "SELECT r.start, r.end, k.start, k.end, printf('%4d %4d %4d', "
                             "k.gridX, k.gridY, k.gridZ) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN "
                             "CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId "
                             "ORDER BY r.start, k.start",
                             -1, &st, nullptr) == SQLITE_OK);
  while (sqlite3_step(st) == SQLITE_ROW)
    want.emplace_back(sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                      sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3),
                      reinterpret_cast<const char*>(sqlite3_column_text(st, 4)));
  sqlite3_finalize(st);
  REQUIRE(want.size() == t.rows.size());
  std::map<std::string, int64_t> count, queued;
  int64_t with_queue = 0;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const auto& r = t.rows[i];
    const auto& [call_start, call_end, start, end, dims] = want[i];
    INFO("row " << i);
    CHECK(r[api_start].i == call_start);
    CHECK(r[api_dur].i == call_end - call_start);
    CHECK(r[k_start].i == start);
    CHECK(r[k_dur].i == end - start);
    CHECK(r[total].i == std::max(call_end, end) - call_start);
    CHECK(r[grid].text == dims);
    const bool q = start >= call_end;
    CHECK((r[q_start].kind == ks::StatsCell::Kind::kNull) == !q);
    if (q) {
      CHECK(r[q_start].i == call_end);
      CHECK(r[q_dur].i == start - call_end);
    }
    ++count[r[name].text];
    queued[r[name].text] += q;
    with_queue += q;
    CHECK(r[col(t, "API Function")].text == "cudaLaunchKernel");
  }
  CHECK(with_queue > 0);
  CHECK(with_queue < 1312);  // launches that returned after their kernel started have none
  for (const auto& r : sum.rows) {
    const std::string k = r[col(sum, "Kernel Name")].text;
    CHECK(count[k] == r[col(sum, "Count")].i);
    CHECK(queued[k] == r[col(sum, "QCount")].i);
  }
}

TEST_CASE("nsys stats: nvtx_pushpop_sum and nvtx_startend_sum split nvtx_sum by style",
          "[nsys_stats][built]") {
  Db d;
  ks_test::open_nvtx_export(&d);
  // BUILT data: train_step 10, 20, 40 ns; io:read 7; load (start/end) 5, 15; a mark; unclosed.
  ks_test::insert_nvtx_styles(&d);
  auto t = run(d, {"nvtx_pushpop_sum", "nvtx_startend_sum"});
  const ks::StatsTable &pp = t[0], &se = t[1];
  for (const auto* x : {&pp, &se}) {
    CHECK(x->columns.back() == "Range");
    CHECK(std::find(x->columns.begin(), x->columns.end(), "Style") == x->columns.end());
  }
  REQUIRE(pp.rows.size() == 2);
  CHECK(pp.rows[0].back().text == "train_step");
  CHECK(pp.rows[0][1].i == 70);
  CHECK(pp.rows[0][2].i == 3);
  CHECK(pp.rows[0][0].r == Approx(90.9));  // 70 / 77: the share is of push/pop time only
  CHECK(pp.rows[1].back().text == "io:read");
  REQUIRE(se.rows.size() == 1);
  CHECK(se.rows[0].back().text == "load");
  CHECK(se.rows[0][1].i == 20);
  CHECK(se.rows[0][0].r == Approx(100.0));
  CHECK(se.rows[0][4].r == Approx(10.0));

  // Only push/pop ranges: the start/end report is empty and says what is missing.
  Db only;
  ks_test::open_nvtx_export(&only);
  only.exec(
      "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) VALUES "
      "(1, 2, 59, 'x', 1, 0)");
  const ks::StatsTable none = run(only, {"nvtx_startend_sum"})[0];
  CHECK(none.rows.empty());
  CHECK(none.note.find("start/end ranges") != std::string::npos);
}

TEST_CASE("nsys stats: with a row limit the traces keep their first rows and count the rest",
          "[nsys_stats][real]") {
  Db d;
  if (!ks_test::open_real_export(&d)) return;
  const std::vector<std::string> traces = {"cuda_gpu_trace", "cuda_api_trace",
                                           "cuda_kern_exec_trace", "cuda_gpu_kern_sum"};
  const auto all = run(d, traces);
  for (size_t limit : {size_t{1}, size_t{100}, size_t{5000}}) {
    std::vector<ks::StatsTable> cut;
    std::string err;
    REQUIRE(ks::run_nsys_stats_on_handle(d.db, traces, &cut, &err, limit));
    for (size_t k = 0; k < traces.size(); ++k) {
      INFO(traces[k] << " limit " << limit);
      const auto& full = all[k].rows;
      if (traces[k] == "cuda_gpu_kern_sum") {  // a summary: its rows are not cut here
        CHECK(cut[k].rows.size() == full.size());
        continue;
      }
      const size_t kept = std::min(limit, full.size());
      REQUIRE(cut[k].rows.size() == kept);
      CHECK(cut[k].omitted_rows == full.size() - kept);
      for (size_t i = 0; i < kept; ++i) {
        for (size_t c = 0; c < full[i].size(); ++c) {
          CHECK(cut[k].rows[i][c].i == full[i][c].i);
          CHECK(cut[k].rows[i][c].text == full[i][c].text);
        }
      }
    }
  }
}

TEST_CASE("nsys stats: into a sink the traces stream every row and the writers print the same",
          "[nsys_stats][real]") {
  Db d;
  if (!ks_test::open_real_export(&d)) return;
  const std::vector<std::string> reports = {"cuda_gpu_trace", "cuda_gpu_kern_sum", "cuda_api_trace",
                                            "cuda_api_sum", "cuda_kern_exec_trace"};
  const auto kept = run(d, reports);
  // Records what arrives: the streamed rows of each table and what its end() holds.
  struct Recorder : ks::StatsSink {
    std::vector<std::vector<std::vector<ks::StatsCell>>> streamed{1};
    std::vector<ks::StatsTable> ended;
    void row(const ks::StatsTable&, const std::vector<ks::StatsCell>& cells) override {
      streamed.back().push_back(cells);
    }
    void end(const ks::StatsTable& t) override {
      ended.push_back(t);
      streamed.emplace_back();
    }
  } rec;
  std::string err;
  REQUIRE(ks::run_nsys_stats_on_handle(d.db, reports, &rec, &err));
  REQUIRE(rec.ended.size() == reports.size());
  for (size_t k = 0; k < reports.size(); ++k) {
    INFO(reports[k]);
    const bool trace = reports[k].find("_trace") != std::string::npos;
    const auto& got = trace ? rec.streamed[k] : rec.ended[k].rows;
    CHECK(rec.ended[k].rows.empty() == trace);  // a trace holds no rows: they went by one at a time
    REQUIRE(got.size() == kept[k].rows.size());
    REQUIRE(!got.empty());
    for (size_t i = 0; i < got.size(); ++i) {
      REQUIRE(got[i].size() == kept[k].rows[i].size());
      for (size_t c = 0; c < got[i].size(); ++c) {
        CHECK(got[i][c].i == kept[k].rows[i][c].i);
        CHECK(got[i][c].text == kept[k].rows[i][c].text);
      }
    }
  }
  // Each writer streamed prints byte for byte what it prints from the kept tables.
  const std::pair<const char*, std::string> expected[] = {{"text", ks::nsys_stats_text(kept)},
                                                          {"csv", ks::nsys_stats_csv(kept)},
                                                          {"json", ks::nsys_stats_json(kept)}};
  for (const auto& e : expected) {
    INFO(e.first);
    std::string out;
    size_t pieces = 0;
    auto w = ks::make_stats_writer(e.first, [&](std::string_view s) {
      out.append(s);
      ++pieces;
    });
    REQUIRE(w);
    REQUIRE(ks::run_nsys_stats_on_handle(d.db, reports, w.get(), &err));
    w->finish();
    CHECK(out == e.second);
    CHECK(pieces >= 1);
  }
  CHECK(ks::make_stats_writer("xml", [](std::string_view) {}) == nullptr);
}

TEST_CASE("FirstRows keeps the first rows in (a, b) order, ties in arrival order", "[nsys_stats]") {
  // Rows in a scrambled order with ties on (a, b); the payload is the arrival index.
  const std::vector<std::pair<int64_t, int64_t>> keys = {{5, 0}, {1, 2}, {3, 0}, {1, 2}, {0, 9},
                                                         {3, 0}, {1, 1}, {7, 0}, {1, 2}, {2, 0}};
  std::vector<int> want(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) want[i] = static_cast<int>(i);
  std::stable_sort(want.begin(), want.end(), [&](int x, int y) { return keys[x] < keys[y]; });
  for (size_t limit = 0; limit <= keys.size() + 1; ++limit) {
    ks::FirstRows<int> rows(limit);
    int built = 0;
    for (size_t i = 0; i < keys.size(); ++i)
      rows.offer(keys[i].first, keys[i].second, [&] {
        ++built;
        return static_cast<int>(i);
      });
    const std::vector<int> got = rows.take();
    const size_t n = limit == 0 ? keys.size() : std::min(limit, keys.size());
    CHECK(got == std::vector<int>(want.begin(), want.begin() + static_cast<long>(n)));
    CHECK(rows.seen() == keys.size());
    if (limit == 1) CHECK(built < static_cast<int>(keys.size()));  // rows past the limit not built
  }
}

TEST_CASE("nsys stats: nvtx_gpu_proj_sum on a built export (nesting, styles, ops of each kind)",
          "[nsys_stats][built]") {
  Db d;
  ks_test::open_nvtx_export(&d);
  // BUILT data, one thread (pid 42, tid 7). Push/pop "step" [0, 1000] holds "fwd" [100, 400] and
  // "bwd" [500, 900]; a start/end "epoch" [0, 2000]; "idle" [1500, 1600] launches nothing. Calls:
  // A [150, 160] launches a kernel [300, 700], B [550, 560] a memcpy [800, 900], C [1200, 1210]
  // a kernel [1300, 1400]; D on another thread [150, 160] a kernel [100, 5000] (not this
  // thread's: in no range).
  const int64_t tid = (int64_t{42} << 24) + 7, pid = int64_t{42} << 24;
  d.exec("INSERT INTO StringIds VALUES (1, 'k'), (2, 'cudaLaunchKernel_v7000');");
  d.exec(R"(
INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES
  (0, 1000, 59, 'step', )" +
         std::to_string(tid) + "), (100, 400, 59, 'fwd', " + std::to_string(tid) +
         "), (500, 900, 59, 'bwd', " + std::to_string(tid) + "), (0, 2000, 60, 'epoch', " +
         std::to_string(tid) + "), (1500, 1600, 59, 'idle', " + std::to_string(tid) + ");");
  auto call = [&](int64_t start, int64_t end, int64_t corr, int64_t thread) {
    d.exec(
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, "
        "correlationId, nameId, returnValue) VALUES (" +
        std::to_string(start) + ", " + std::to_string(end) + ", 1, " + std::to_string(thread) +
        ", " + std::to_string(corr) + ", 2, 0)");
  };
  call(150, 160, 1, tid);
  ks_test::insert_kernel(&d, 300, 700, 1, pid, 1);
  call(550, 560, 2, tid);
  d.exec(
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, streamId, "
      "correlationId, globalPid, bytes, copyKind) VALUES (800, 900, 0, 1, 7, 2, " +
      std::to_string(pid) + ", 64, 1)");
  call(1200, 1210, 3, tid);
  ks_test::insert_kernel(&d, 1300, 1400, 3, pid, 1);
  call(150, 160, 4, tid + 1);
  ks_test::insert_kernel(&d, 100, 5000, 4, pid, 1);

  const ks::StatsTable t = run(d, {"nvtx_gpu_proj_sum"})[0];
  CHECK(t.columns.front() == "Range");
  CHECK(t.columns.back() == "Avg Num Child");
  REQUIRE(t.rows.size() == 4);  // "idle" projects nothing
  // Range, Style, proj total, range total, instances, ops, level, children, by proj descending.
  using Want =
      std::tuple<std::string, std::string, int64_t, int64_t, int64_t, int64_t, double, double>;
  const std::vector<Want> want = {{":epoch", "StartEnd", 1100, 2000, 1, 3, 0.0, 0.0},
                                  {":step", "PushPop", 600, 1000, 1, 2, 0.0, 2.0},
                                  {":fwd", "PushPop", 400, 300, 1, 1, 1.0, 0.0},
                                  {":bwd", "PushPop", 100, 400, 1, 1, 1.0, 0.0}};
  for (size_t i = 0; i < want.size(); ++i) {
    const auto& r = t.rows[i];
    INFO(std::get<0>(want[i]));
    CHECK(r[0].text == std::get<0>(want[i]));
    CHECK(r[1].text == std::get<1>(want[i]));
    CHECK(r[col(t, "Total Proj Time (ns)")].i == std::get<2>(want[i]));
    CHECK(r[col(t, "Total Range Time (ns)")].i == std::get<3>(want[i]));
    CHECK(r[col(t, "Range Instances")].i == std::get<4>(want[i]));
    CHECK(r[col(t, "Total GPU Ops")].i == std::get<5>(want[i]));
    CHECK(r[col(t, "Avg Range Lvl")].r == Approx(std::get<6>(want[i])));
    CHECK(r[col(t, "Avg Num Child")].r == Approx(std::get<7>(want[i])));
  }

  // Two more "fwd" instances (projections 50 and 150): the statistics are over the instances.
  d.exec(
      "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES (3000, 3100, "
      "59, 'fwd', " +
      std::to_string(tid) + "), (4000, 4100, 59, 'fwd', " + std::to_string(tid) + ");");
  call(3010, 3020, 5, tid);
  ks_test::insert_kernel(&d, 3050, 3100, 5, pid, 1);
  call(4010, 4020, 6, tid);
  ks_test::insert_kernel(&d, 4050, 4150, 6, pid, 1);
  call(4030, 4040, 7, tid);
  ks_test::insert_kernel(&d, 4160, 4200, 7, pid, 1);
  const ks::StatsTable more = run(d, {"nvtx_gpu_proj_sum"})[0];
  const auto& fwd = ks_test::row_named(more, "Range", ":fwd");
  CHECK(fwd[col(more, "Range Instances")].i == 3);
  CHECK(fwd[col(more, "Total Proj Time (ns)")].i == 400 + 50 + 150);
  CHECK(fwd[col(more, "Proj Med (ns)")].r == Approx(150));
  CHECK(fwd[col(more, "Proj Min (ns)")].i == 50);
  CHECK(fwd[col(more, "Total GPU Ops")].i == 4);
  CHECK(fwd[col(more, "Avg GPU Ops")].r == Approx(1.3));
  CHECK(fwd[col(more, "Avg Range Lvl")].r == Approx(0.3));  // (1 + 0 + 0) / 3

  // Without NVTX the report says which capture flag records it.
  Db bare;
  ks_test::open_memory(&bare);
  const ks::StatsTable none = run(bare, {"nvtx_gpu_proj_sum"})[0];
  CHECK(none.rows.empty());
  CHECK(none.note.find("--trace=nvtx") != std::string::npos);
}
