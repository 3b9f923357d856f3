// cuda_gpu_trace, "CUDA GPU Trace". NVIDIA's definition (Nsight Systems User Guide, "Report
// Scripts"): "This report displays a trace of CUDA kernels and memory operations. Items are
// sorted by start time."
//   Columns: Start (ns), Duration (ns), CorrId, GrdX, GrdY, GrdZ, BlkX, BlkY, BlkZ, Reg/Trd,
//   StcSMem (MB), DymSMem (MB), Bytes (MB), Throughput (MBps), SrcMemKd, DstMemKd, Device, Ctx,
//   [GreenCtx, where the export has greenContextId], Strm, Name. One row per GPU op: kernels
//   (CUPTI_ACTIVITY_KIND_KERNEL, named by the demangled name), memcpys ("[CUDA memcpy <label>]",
//   source/destination memory kinds from ENUM_CUDA_MEM_KIND) and memsets ("[CUDA memset]", the
//   memory kind as SrcMemKd). Device = "<TARGET_INFO_GPU.name> (<deviceId>)". Throughput is the
//   script's bytes * (1000000000 / duration), an integer division, so a copy shorter than 1 ns
//   has none; memory columns in MB (1,000,000 B) as `nsys stats` prints them by default. Rows
//   ordered by start; ops with the same start keep kernels, memcpys, memsets in that order.
#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <memory>

#include "stats/trace_rows.h"

namespace ks {

namespace {

StatsCell mb_or_null(sqlite3_stmt* st, int col) {
  return col_null(st, col) ? cell_null() : cell_real(static_cast<double>(col_int(st, col)) / 1e6);
}

}  // namespace

bool report_cuda_gpu_trace(const StatsDb& db, StatsTable* t, std::string* error) {
  t->report = "cuda_gpu_trace";
  t->title = "CUDA GPU Trace";
  const bool kern = db.has_table("CUPTI_ACTIVITY_KIND_KERNEL");
  const bool mcpy = db.has_table("CUPTI_ACTIVITY_KIND_MEMCPY");
  const bool mset = db.has_table("CUPTI_ACTIVITY_KIND_MEMSET");
  // GreenCtx only where every present table has the column (exports before 2024 lack it).
  bool green = kern || mcpy || mset;
  if (kern) green = green && db.has_column("CUPTI_ACTIVITY_KIND_KERNEL", "greenContextId");
  if (mcpy) green = green && db.has_column("CUPTI_ACTIVITY_KIND_MEMCPY", "greenContextId");
  if (mset) green = green && db.has_column("CUPTI_ACTIVITY_KIND_MEMSET", "greenContextId");
  t->columns = {"Start (ns)",   "Duration (ns)",
                "CorrId",       "GrdX",
                "GrdY",         "GrdZ",
                "BlkX",         "BlkY",
                "BlkZ",         "Reg/Trd",
                "StcSMem (MB)", "DymSMem (MB)",
                "Bytes (MB)",   "Throughput (MBps)",
                "SrcMemKd",     "DstMemKd",
                "Device",       "Ctx"};
  if (green) t->columns.push_back("GreenCtx");
  t->columns.push_back("Strm");
  t->columns.push_back("Name");
  if (!kern && !mcpy && !mset) {
    t->note =
        "no CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY or _MEMSET table: no GPU work was traced "
        "(capture with --trace=cuda)";
    return true;
  }
  std::map<int64_t, std::string> gpus;
  // TARGET_INFO_CUDA_GPU (keyed by deviceId): the GPUs' table of exports before mid-2021.
  const char* gpu_query = db.has_table("TARGET_INFO_GPU") ? "SELECT id, name FROM TARGET_INFO_GPU"
                          : db.has_table("TARGET_INFO_CUDA_GPU")
                              ? "SELECT deviceId, name FROM TARGET_INFO_CUDA_GPU"
                              : nullptr;
  if (gpu_query &&
      !db.query(
          gpu_query, [&](sqlite3_stmt* st) { gpus.emplace(col_int(st, 0), col_text(st, 1)); },
          error))
    return false;
  auto device = [&](int64_t id) {
    auto it = gpus.find(id);
    return cell_text((it == gpus.end() ? std::string() : it->second) + " (" + std::to_string(id) +
                     ")");
  };
  const bool has_names = db.has_table("StringIds");
  const bool kinds = db.has_table("ENUM_CUDA_MEM_KIND");
  const std::string g = green ? ", greenContextId" : "";
  // The order: kernels, then memcpys, then memsets, each in table order; at one start time they
  // keep that order.
  const char* tables[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                          "CUPTI_ACTIVITY_KIND_MEMSET"};
  const bool present[] = {kern, mcpy, mset};
  TraceRows rows(db);
  for (int source = 0; source < 3; ++source) {
    if (!present[source]) continue;
    if (!db.query(
            std::string("SELECT start, rowid FROM ") + tables[source] + " ORDER BY rowid",
            [&](sqlite3_stmt* st) {
              rows.offer(col_int(st, 0), 0, {source, col_int(st, 1), 0});
            },
            error))
      return false;
  }
  // The common tail: device, ctx, [green], stream, name. Columns from `base` on in the result.
  auto tail = [&](sqlite3_stmt* st, int base, std::string name, std::vector<StatsCell>* c) {
    c->push_back(device(col_int(st, base)));
    c->push_back(int_or_null(st, base + 1));
    int next = base + 2;
    if (green) {
      // The script shows NULLIF(greenContext, 0): no green context is an empty cell.
      c->push_back(col_null(st, next) || col_int(st, next) == 0 ? cell_null()
                                                                : cell_int(col_int(st, next)));
      ++next;
    }
    c->push_back(int_or_null(st, next));
    c->push_back(cell_text(std::move(name)));
  };
  // The second pass: each kept row fetched by rowid from its table, names and labels joined.
  std::string sql[3];
  if (kern) {
    sql[0] =
        "SELECT k.start, k.end, k.correlationId, k.gridX, k.gridY, k.gridZ, k.blockX, k.blockY, "
        "k.blockZ, k.registersPerThread, k.staticSharedMemory, k.dynamicSharedMemory, " +
        std::string(has_names ? "s.value" : "NULL") + ", k.deviceId, k.contextId" +
        (green ? ", k.greenContextId" : "") + ", k.streamId FROM CUPTI_ACTIVITY_KIND_KERNEL AS k" +
        (has_names ? " LEFT JOIN StringIds AS s ON s.id = " + kernel_name_expr(db, "k") : "") +
        " WHERE k.rowid = ?1";
  }
  if (mcpy) {
    const bool ops = db.has_table("ENUM_CUDA_MEMCPY_OPER");
    sql[1] = "SELECT m.start, m.end, m.correlationId, m.bytes, " +
             std::string(ops ? "o.label" : "NULL") + ", m.copyKind, " +
             (kinds ? "sk.label, dk.label" : "NULL, NULL") + ", m.deviceId, m.contextId" +
             (green ? ", m.greenContextId" : "") +
             ", m.streamId FROM CUPTI_ACTIVITY_KIND_MEMCPY AS m" +
             (ops ? " LEFT JOIN ENUM_CUDA_MEMCPY_OPER AS o ON o.id = m.copyKind" : "") +
             (kinds ? " LEFT JOIN ENUM_CUDA_MEM_KIND AS sk ON sk.id = m.srcKind"
                      " LEFT JOIN ENUM_CUDA_MEM_KIND AS dk ON dk.id = m.dstKind"
                    : "") +
             " WHERE m.rowid = ?1";
  }
  if (mset) {
    const bool mk = kinds && db.has_column("CUPTI_ACTIVITY_KIND_MEMSET", "memKind");
    sql[2] = "SELECT m.start, m.end, m.correlationId, m.bytes, " +
             std::string(mk ? "k.label" : "NULL") + ", m.deviceId, m.contextId" +
             (green ? ", m.greenContextId" : "") +
             ", m.streamId FROM CUPTI_ACTIVITY_KIND_MEMSET AS m" +
             (mk ? " LEFT JOIN ENUM_CUDA_MEM_KIND AS k ON k.id = m.memKind" : "") +
             " WHERE m.rowid = ?1";
  }
  std::unique_ptr<StatsStatement> fetch[3];
  for (int source = 0; source < 3; ++source) {
    if (!present[source]) continue;
    fetch[source] = std::make_unique<StatsStatement>(db, sql[source], error);
    if (!fetch[source]->ok()) return false;
  }
  auto mem_cells = [&](sqlite3_stmt* st, int64_t bytes, StatsCell src, StatsCell dst,
                       std::vector<StatsCell>* c) {
    const int64_t start = col_int(st, 0), dur = col_int(st, 1) - start;
    c->push_back(cell_int(start));
    c->push_back(cell_int(dur));
    c->push_back(int_or_null(st, 2));
    for (int k = 0; k < 9; ++k) c->push_back(cell_null());  // grid, block, regs, smem
    c->push_back(cell_real(static_cast<double>(bytes) / 1e6));
    c->push_back(dur > 0 ? cell_real(static_cast<double>(bytes * (1000000000 / dur)) / 1e6)
                         : cell_null());
    c->push_back(std::move(src));
    c->push_back(std::move(dst));
  };
  auto text_or_null = [](sqlite3_stmt* st, int k) {
    return col_null(st, k) ? cell_null() : cell_text(col_text(st, k));
  };
  auto build = [&](const TraceRowRef& ref, std::vector<StatsCell>* c, std::string* err) {
    sqlite3_stmt* st = fetch_trace_row(*fetch[ref.source], ref, err);
    if (!st) return false;
    if (ref.source == 0) {
      const int64_t start = col_int(st, 0);
      c->push_back(cell_int(start));
      c->push_back(cell_int(col_int(st, 1) - start));
      c->push_back(int_or_null(st, 2));
      for (int k = 3; k <= 9; ++k) c->push_back(int_or_null(st, k));
      c->push_back(mb_or_null(st, 10));
      c->push_back(mb_or_null(st, 11));
      for (int k = 0; k < 4; ++k) c->push_back(cell_null());  // bytes, throughput, memory kinds
      tail(st, 13, col_text(st, 12), c);
    } else if (ref.source == 1) {
      mem_cells(st, col_int(st, 3), text_or_null(st, 6), text_or_null(st, 7), c);
      std::string label =
          col_null(st, 4) ? "kind " + std::to_string(col_int(st, 5)) : col_text(st, 4);
      tail(st, 8, "[CUDA memcpy " + label + "]", c);
    } else {
      mem_cells(st, col_int(st, 3), text_or_null(st, 4), cell_null(), c);
      tail(st, 5, "[CUDA memset]", c);
    }
    return true;
  };
  if (!rows.emit(t, build, error)) return false;
  if (rows.count() == 0) t->note = "no GPU operations in the capture window";
  return true;
}

}  // namespace ks
