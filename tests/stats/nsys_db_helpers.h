// Test helpers for Nsight Systems exports: open the real export read-only, or build a small one in
// memory with CREATE TABLE / INSERT following the real file's schema (the tables and columns of
// ../shared/nsys/perlmutter-cloverleaf-cuda.sqlite, Nsight Systems 2024.5, schema 3.13.2).
// Header-only: CMake builds only tests/**/*_test.cpp.
#pragma once
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include "import/nsys_sqlite/nsys_file.h"
#include "model/trace.h"
#include "source_dir.h"

namespace ks_test {

inline std::string shared_nsys_path(const std::string& file) {
  return ks_test::source_dir() + "/../shared/nsys/" + file;
}

inline bool file_exists(const std::string& path) {
  return std::ifstream(path).good();
}

// Owns a sqlite3* for one test.
struct Db {
  sqlite3* db = nullptr;
  Db() = default;
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  ~Db() { sqlite3_close(db); }
  void exec(const std::string& sql) {
    char* err = nullptr;
    int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    INFO(sql << ": " << (err ? err : ""));
    sqlite3_free(err);
    REQUIRE(rc == SQLITE_OK);
  }
};

// An empty in-memory database.
inline void open_memory(Db* d) {
  REQUIRE(sqlite3_open(":memory:", &d->db) == SQLITE_OK);
}

// The real export, read-only; false (after a visible WARN) when ../shared/nsys lacks it.
inline bool open_real_export(Db* d) {
  const std::string path = shared_nsys_path("perlmutter-cloverleaf-cuda.sqlite");
  if (!file_exists(path)) {
    WARN("SKIPPED: ../shared/nsys/perlmutter-cloverleaf-cuda.sqlite is absent");
    return false;
  }
  REQUIRE(sqlite3_open_v2(path.c_str(), &d->db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  return true;
}

// The tables of the real export's schema that the reports read (columns as in the real file;
// NVTX_EVENTS and CUPTI_ACTIVITY_KIND_MEMSET, absent there, as NVIDIA's export schema documents
// them), and the enum rows they join.
inline void create_nsys_schema(Db* d) {
  d->exec(R"(
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (0,'CUDA_MEMCPY_KIND_UNKNOWN','Unknown'),
  (1,'CUDA_MEMCPY_KIND_HTOD','Host-to-Device'),(2,'CUDA_MEMCPY_KIND_DTOH','Device-to-Host'),
  (8,'CUDA_MEMCPY_KIND_DTOD','Device-to-Device'),(10,'CUDA_MEMCPY_KIND_PTOP','Peer-to-Peer');
CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
INSERT INTO ENUM_CUDA_MEM_KIND VALUES (0,'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE','Pageable'),
  (1,'CUDA_MEMOPR_MEMORY_KIND_PINNED','Pinned'),(2,'CUDA_MEMOPR_MEMORY_KIND_DEVICE','Device');
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT);
INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'NVIDIA H100 80GB HBM3');
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,
  returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,
  launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL,
  gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL,
  blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
  staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
  localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL,
  gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER, graphNodeId INTEGER,
  sharedMemoryLimitConfig INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL,
  copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER,
  srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER,
  migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER);
)");
}

inline void create_memset_table(Db* d) {
  d->exec(R"(CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL,
  end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,
  greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);)");
}

inline void create_nvtx_table(Db* d) {
  d->exec(R"(CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER,
  eventType INTEGER NOT NULL, rangeId INTEGER, category INTEGER, color INTEGER, text TEXT,
  globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER,
  uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
  int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT);)");
}

inline void create_osrt_table(Db* d) {
  d->exec(R"(CREATE TABLE OSRT_API (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, nameId INTEGER NOT NULL,
  returnValue INTEGER NOT NULL, nestingLevel INTEGER, callchainId INTEGER NOT NULL);)");
}

// An in-memory export with the schema and an NVTX_EVENTS table, for the NVTX reports' tests.
inline void open_nvtx_export(Db* d) {
  open_memory(d);
  create_nsys_schema(d);
  create_nvtx_table(d);
}

// BUILT NVTX rows of both styles: train_step pushed three times (10, 20, 40 ns), "read" in domain
// "io" (7 ns), "load" as a start/end range (textId) twice (5, 15 ns), an unclosed push and a mark.
inline void insert_nvtx_styles(Db* d) {
  d->exec(R"(
INSERT INTO StringIds VALUES (1, 'load');
INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) VALUES
  (100, 110, 59, 'train_step', 1, 0), (200, 220, 59, 'train_step', 1, 0),
  (300, 340, 59, 'train_step', 1, 0), (400, NULL, 59, 'unclosed', 1, 0),
  (50, NULL, 34, 'a mark', 1, 0), (0, NULL, 75, 'io', 1, 5), (500, 507, 59, 'read', 1, 5);
INSERT INTO NVTX_EVENTS (start, end, eventType, textId, globalTid, domainId) VALUES
  (10, 15, 60, 1, 1, 0), (20, 35, 60, 1, 2, 0);
)");
}

// BUILT data: `n` nested push/pop ranges on thread `global_tid`, r0 (outermost, [0, 10000],
// rowid 1) .. r<n-1> (innermost, [n-1, 10000-(n-1)]).
inline void insert_nested_ranges(Db* d, int n, int64_t global_tid) {
  std::string nvtx = "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES ";
  for (int i = 0; i < n; ++i)
    nvtx += (i ? ", (" : "(") + std::to_string(i) + ", " + std::to_string(10000 - i) + ", 59, 'r" +
            std::to_string(i) + "', " + std::to_string(global_tid) + ")";
  d->exec(nvtx);
}

// One kernel row with what the reports read (times, correlation id, process, name id); the other
// NOT NULL columns hold 0 or 1.
inline void insert_kernel(Db* d, int64_t start, int64_t end, int64_t correlation,
                          int64_t global_pid, int64_t name_id) {
  d->exec(
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, "
      "correlationId, globalPid, demangledName, shortName, registersPerThread, gridX, gridY, "
      "gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory, "
      "localMemoryPerThread, localMemoryTotal, gridId) VALUES (" +
      std::to_string(start) + ", " + std::to_string(end) + ", 0, 1, 7, " +
      std::to_string(correlation) + ", " + std::to_string(global_pid) + ", " +
      std::to_string(name_id) + ", " + std::to_string(name_id) +
      ", 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, " + std::to_string(correlation) + ")");
}

// Writes `sql` into a fresh SQLite file build/NAME (the reader opens files, not memory), imports
// it as the CLI does and removes the file.
inline std::unique_ptr<ks::Trace> import_sql_rows(const std::string& name, const std::string& sql) {
  const std::string path = ks_test::source_dir() + "/build/" + name;
  std::remove(path.c_str());
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  char* message = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
  INFO((message ? message : ""));
  sqlite3_free(message);
  sqlite3_close(db);
  REQUIRE(rc == SQLITE_OK);
  ks::ImportError error;
  auto t = ks::import_nsys_file(path, &error);
  INFO(error.to_line());
  REQUIRE(t);
  std::remove(path.c_str());
  return t;
}

}  // namespace ks_test
