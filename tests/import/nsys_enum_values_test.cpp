// Enum columns of an Nsight Systems export (NVTX_EVENTS.eventType, the copies' copyKind, the
// synchronizations' syncType) as a newer nsys may write them: codes named by the export's own
// ENUM_* tables in a form this reader knows are read; codes no enum names are counted with their
// table, column, value and first row (nsys_unknown_enum_value), never dropped or miscounted
// quietly. Hand-built rows: SQLite itself writes the file.
#include <catch2/catch.hpp>
#include <cstdio>
#include <map>
#include <string>

#include "import/nsys_sqlite/nsys_file.h"
#include "model/diagnostics.h"
#include "model/trace.h"

#include <sqlite3.h>
#include "source_dir.h"
#include "stats/nsys_db_helpers.h"

namespace {

// A kernel and its launch, so the file is an export with CUDA work (thread 4242/4242).
const char* kOneKernel =
    "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
    "INSERT INTO StringIds VALUES (0, 'cudaLaunchKernel_v7000'), (1, 'gemm'), (2, 'step 0'),"
    " (3, 'step 1'), (4, 'cudaMemcpyAsync_v3020'), (5, 'cudaStreamSynchronize_v3020');"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER,"
    " globalTid INTEGER, correlationId INTEGER, nameId INTEGER);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1000, 1010, 0, 71168954514, 1, 0),"
    " (1020, 1030, 0, 71168954514, 2, 4), (1040, 3000, 0, 71168954514, 3, 5);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,"
    " streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER,"
    " shortName INTEGER);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1100, 2000, 0, 7, 1, 71168950272, 1, 1);";

std::map<std::string, int> nvtx_names(const ks::Trace& t) {
  std::map<std::string, int> n;
  for (size_t i = 0; i < t.slices.size(); ++i)
    if (t.slices.kind[i] == ks::SliceKind::kUserAnnotation)
      ++n[std::string(t.str(t.slices.name[i]))];
  return n;
}

}  // namespace

TEST_CASE("nsys enum values: NVTX kinds by their names' form; codes no enum names are counted",
          "[nsys][enum]") {
  // The enum names a third family of push/pop ranges (as NVTXT's "NvtxtPushPopRange" is one
  // beside "NvtxPushPopRange"); code 5000 is in no enum at all.
  std::string sql = kOneKernel;
  sql +=
      "CREATE TABLE ENUM_NSYS_EVENT_TYPE (id INTEGER PRIMARY KEY, name TEXT, label TEXT);"
      "INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES (59, 'NvtxPushPopRange', ''),"
      " (75, 'NvtxDomainCreate', ''), (120, 'NvtxPayloadPushPopRange', '');"
      "CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, text TEXT,"
      " textId INTEGER, globalTid INTEGER);"
      "INSERT INTO NVTX_EVENTS VALUES (900, 2100, 59, NULL, 2, 71168954514),"
      " (2100, 3100, 120, NULL, 3, 71168954514),"    // read by the name's form
      " (10, NULL, 75, 'NCCL', NULL, 71168954514),"  // a domain: no range, quietly
      " (950, 1500, 5000, 'mystery', NULL, 71168954514),"
      " (960, 1400, 5000, 'mystery', NULL, 71168954514);";
  auto t = ks_test::import_sql_rows("enum_nvtx.sqlite", sql);
  auto names = nvtx_names(*t);
  CHECK(names["step 0"] == 1);
  CHECK(names["step 1"] == 1);  // was dropped: code 120 was no kind this reader knew
  CHECK(names.count("NCCL") == 0);
  CHECK(names.count("mystery") == 0);  // not guessed at
  CHECK(t->diagnostics.count(ks::Diag::kNsysUnknownEnumValue) == 2);
  CHECK(t->diagnostics.message(ks::Diag::kNsysUnknownEnumValue)
            .find("Unknown: NVTX_EVENTS.eventType = 5000 (first in row 4).") != std::string::npos);
}

TEST_CASE("nsys enum values: without ENUM_NSYS_EVENT_TYPE, schema 3.x's codes are known",
          "[nsys][enum]") {
  std::string sql = kOneKernel;
  sql +=
      "CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, text TEXT,"
      " textId INTEGER, globalTid INTEGER);"
      "INSERT INTO NVTX_EVENTS VALUES (900, 2100, 59, 'step 0', NULL, 71168954514),"
      " (10, NULL, 75, 'NCCL', NULL, 71168954514), (20, NULL, 39, 'main', NULL, 71168954514),"
      " (950, 1500, 200, 'mystery', NULL, 71168954514);";
  auto t = ks_test::import_sql_rows("enum_nvtx_3x.sqlite", sql);
  CHECK(nvtx_names(*t)["step 0"] == 1);
  CHECK(t->diagnostics.count(ks::Diag::kNsysUnknownEnumValue) == 1);  // 200 only
}

TEST_CASE("nsys enum values: a copy or sync kind the export's enum does not name is said",
          "[nsys][enum]") {
  std::string sql = kOneKernel;
  sql +=
      "CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER PRIMARY KEY, name TEXT, label TEXT);"
      "INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (0, 'CUDA_MEMCPY_KIND_UNKNOWN', 'Unknown'),"
      " (1, 'CUDA_MEMCPY_KIND_HTOD', 'HtoD'), (2, 'CUDA_MEMCPY_KIND_DTOH', 'DtoH');"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, deviceId INTEGER,"
      " streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER,"
      " copyKind INTEGER, srcKind INTEGER, dstKind INTEGER);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (2010, 2020, 0, 7, 2, 71168950272, 64, 2, 2,"
      " 1), (2030, 2040, 0, 7, 2, 71168950272, 64, 14, 2, 1);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER, end INTEGER,"
      " deviceId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER,"
      " syncType INTEGER, eventId INTEGER);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (2050, 2990, 0, 7, 3, 71168950272,"
      " 3, 4294967295), (2050, 2990, 0, 7, 3, 71168950272, 9, 4294967295);";
  auto t = ks_test::import_sql_rows("enum_copy_sync.sqlite", sql);
  CHECK(t->diagnostics.count(ks::Diag::kNsysUnknownEnumValue) == 2);
  const std::string m = t->diagnostics.message(ks::Diag::kNsysUnknownEnumValue);
  CHECK(m.find("CUPTI_ACTIVITY_KIND_MEMCPY.copyKind = 14 (first in row 2)") != std::string::npos);
  CHECK(m.find("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION.syncType = 9 (first in row 2)") !=
        std::string::npos);
}
