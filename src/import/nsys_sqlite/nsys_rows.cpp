#include "import/nsys_sqlite/nsys_rows.h"

#include <climits>
#include <string>

#include "analysis/kernel_class.h"

namespace ks::nsys_sqlite {

RowReader::~RowReader() {
  sqlite3_finalize(st_);
}

bool RowReader::prepare(const NsysDatabase& db, const char* table,
                        std::initializer_list<const char*> cols, Diagnostics* diag,
                        ImportError* error, bool required_note) {
  db_ = &db;
  error_ = error;
  table_ = table;
  std::string sql = "SELECT ";
  int n = 0;
  for (const char* col : cols) {
    // "?name": a column some versions lack and whose absence is no news (not noted).
    const bool optional = col[0] == '?';
    if (optional) ++col;
    // "rowid": the table's rowid, which no column lists (the caller knows the table has one).
    if (db.has_column(table, col) || std::string_view(col) == "rowid") {
      if (n) sql += ", ";
      sql.append("\"").append(col).append("\"");
      index_.push_back(n++);
    } else {
      index_.push_back(-1);
      if (required_note && !optional) {
        diag->add(Diag::kNsysColumnMissing, 0, table_ + "." + col);
        diag->list_in_detail(Diag::kNsysColumnMissing, "Absent", table_ + "." + col);
      }
    }
  }
  if (n == 0) sql += "NULL";
  sql.append(" FROM \"").append(table).append("\"");
  db.begin_query();
  int rc = sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &st_, nullptr);
  if (rc != SQLITE_OK) {
    *error = db.error_from(rc, "reading " + table_);
    failed_ = true;
    return false;
  }
  return true;
}

bool RowReader::next() {
  if (failed_ || !st_) return false;
  int rc = sqlite3_step(st_);
  if (rc == SQLITE_ROW) {
    ++row_;
    return true;
  }
  if (rc != SQLITE_DONE) {
    *error_ = db_->error_from(rc, "reading " + table_ + " (row " + std::to_string(row_ + 1) + ")");
    failed_ = true;
  }
  return false;
}

std::string_view RowReader::text(int k) const {
  if (null(k)) return {};
  const unsigned char* p = sqlite3_column_text(st_, index_[k]);
  int len = sqlite3_column_bytes(st_, index_[k]);
  return p ? std::string_view(reinterpret_cast<const char*>(p), static_cast<size_t>(len))
           : std::string_view();
}

StringCache::~StringCache() {
  sqlite3_finalize(by_rowid_);
}

// The caller has checked that StringIds exists.
bool StringCache::load(const NsysDatabase& db, Diagnostics* diag, ImportError* error) {
  db_ = &db;
  // Long texts are left in the file and read again by rowid; a table without rowids (crafted:
  // nsys writes none) keeps every text.
  // (A column named rowid would hide the rowid.)
  db.begin_query();
  const bool by_rowid =
      !db.has_column("StringIds", "rowid") &&
      sqlite3_prepare_v2(db.handle(), "SELECT value FROM StringIds WHERE rowid = ?", -1, &by_rowid_,
                         nullptr) == SQLITE_OK;
  RowReader r;
  if (!r.prepare(db, "StringIds", {"id", "value", by_rowid ? "rowid" : "?rowid"}, diag, error))
    return false;
  while (r.next()) {
    if (r.null(0)) continue;
    int64_t id = r.i64(0);
    std::string_view v = r.text(1);
    Text* slot;
    // Dense while ids stay near the count of rows read (nsys numbers them 0..N): the vector
    // never outgrows 4 slots per row, whatever ids a crafted file holds.
    if (id >= 0 && static_cast<uint64_t>(id) < 4 * (r.row() + 1024)) {
      if (static_cast<size_t>(id) >= dense_.size()) {
        dense_.resize(static_cast<size_t>(id) + 1);
        present_.resize(static_cast<size_t>(id) + 1);
      }
      slot = &dense_[static_cast<size_t>(id)];
      present_[static_cast<size_t>(id)] = true;
    } else {
      slot = &sparse_[id];
    }
    const int64_t rowid = by_rowid && !r.null(2) ? r.i64(2, -1) : -1;
    if (v.size() > kHeldBytes && rowid >= 0) {
      slot->text.clear();
      slot->text.shrink_to_fit();
      slot->rowid = rowid;
    } else {
      slot->text.assign(v);
      slot->rowid = -1;
    }
  }
  return !r.failed();
}

std::string_view StringCache::held(Text* t) {
  if (t->rowid < 0) return t->text;
  const int64_t rowid = t->rowid;
  t->rowid = -1;
  // No begin_query(): this may run inside another table's read, whose budget it must not renew
  // (a lookup is a few steps of it).
  sqlite3_reset(by_rowid_);
  sqlite3_bind_int64(by_rowid_, 1, rowid);
  // It was read once already: a failure now (the file changed under us) reads as empty text.
  if (sqlite3_step(by_rowid_) == SQLITE_ROW) {
    const unsigned char* p = sqlite3_column_text(by_rowid_, 0);
    const int len = sqlite3_column_bytes(by_rowid_, 0);
    if (p) t->text.assign(reinterpret_cast<const char*>(p), static_cast<size_t>(len));
  }
  sqlite3_reset(by_rowid_);
  return t->text;
}

std::string_view StringCache::get(int64_t id) {
  if (id >= 0 && static_cast<uint64_t>(id) < dense_.size() && present_[static_cast<size_t>(id)])
    return held(&dense_[static_cast<size_t>(id)]);
  auto it = sparse_.find(id);
  if (it != sparse_.end()) return held(&it->second);
  if (unknown_++ == 0) first_unknown_ = id;
  return "<unknown>";
}

StringId StringCache::interned(int64_t id, StringPool* pool, bool strip_version) {
  const int k = strip_version ? 1 : 0;
  const bool dense = id >= 0 && static_cast<uint64_t>(id) < dense_.size();
  if (dense) {
    auto& v = interned_[k];
    if (v.size() < dense_.size()) v.resize(dense_.size(), 0);
    StringId& slot = v[static_cast<size_t>(id)];
    if (slot == 0) {
      std::string_view text = get(id);
      slot = pool->intern(strip_version ? strip_version_suffix(text) : text);
      // An empty name interns to 0 (""): then it is simply looked up again next time.
    }
    return slot;
  }
  auto it = interned_sparse_[k].find(id);
  if (it != interned_sparse_[k].end()) return it->second;
  std::string_view text = get(id);
  StringId sid = pool->intern(strip_version ? strip_version_suffix(text) : text);
  interned_sparse_[k].emplace(id, sid);
  return sid;
}

size_t StringCache::held_bytes() const {
  size_t n = 0;
  for (const Text& t : dense_) n += t.text.size();
  for (const auto& kv : sparse_) n += kv.second.text.size();
  return n;
}

void StringCache::report(Diagnostics* diag) const {
  if (unknown_)
    diag->add(Diag::kNsysUnknownStringId, 0, "id " + std::to_string(first_unknown_), unknown_);
}

std::string Context::process_text(int64_t global) {
  std::string pid = std::to_string(pid_of(global));
  uint32_t before = static_cast<uint32_t>(trace->processes.size());
  uint32_t p = b.process(pid);
  if (p == before) {  // new: name it from PROCESSES
    auto it = process_names.find(global & ~int64_t{0xFFFFFF});
    if (it != process_names.end() && !it->second.empty()) b.set_process_name(pid, it->second, 0);
  }
  return pid;
}

bool Context::thread_name_shared(int64_t global_tid, const std::string& name) {
  auto key = [](int64_t global, const std::string& n) {
    return std::to_string(pid_of(global)) + '\0' + n;
  };
  if (thread_name_uses.empty()) {
    for (const auto& [global, n] : thread_names)
      if (!n.empty()) ++thread_name_uses[key(global, n)];
  }
  auto it = thread_name_uses.find(key(global_tid, name));
  return it != thread_name_uses.end() && it->second > 1;
}

TrackId Context::cpu_track(int64_t global_tid, Row row) {
  auto& cache = cpu_tracks[static_cast<int>(row)];
  auto it = cache.find(global_tid);
  if (it != cache.end()) return it->second;
  const std::string row_name(kExportThreadRows[static_cast<int>(row)]);
  std::string pid = process_text(global_tid);
  const int64_t tid = tid_of(global_tid);
  std::string tid_text = std::to_string(tid) + " " + row_name;
  TrackId id = b.track(pid, tid_text);
  auto name = thread_names.find(global_tid);
  std::string thread = name != thread_names.end() && !name->second.empty()
                           ? name->second
                           : "thread " + std::to_string(tid);
  // Two "cuda-EvtHandlr OS runtime" rows (or eight pt_data_worker ones) could not be told apart.
  if (name != thread_names.end() && !name->second.empty() &&
      thread_name_shared(global_tid, name->second))
    thread += " [" + std::to_string(tid) + "]";
  b.set_thread_name(pid, tid_text, thread + " " + row_name, 0);
  // Nsight's order within a thread: NVTX, then CUDA API, then OS runtime, ...
  b.set_thread_sort_index(pid, tid_text,
                          tid * static_cast<int>(Row::kRowCount) + static_cast<int>(row));
  cache.emplace(global_tid, id);
  return id;
}

TrackId Context::nvtx_async_track(int64_t global_tid) {
  const int64_t global_pid = global_tid & ~int64_t{0xFFFFFF};
  auto it = nvtx_async_tracks.find(global_pid);
  if (it != nvtx_async_tracks.end()) return it->second;
  std::string pid = process_text(global_tid);
  TrackId id = b.track(pid, "NVTX start/end");
  b.set_thread_name(pid, "NVTX start/end", "NVTX start/end ranges", 0);
  trace->tracks[id].kind = TrackKind::kAsync;
  nvtx_async_tracks.emplace(global_pid, id);
  return id;
}

TrackId Context::gpu_track(int64_t device, int64_t stream) {
  const uint64_t key = (static_cast<uint64_t>(device) << 32) ^ static_cast<uint64_t>(stream);
  auto it = gpu_tracks.find(key);
  if (it != gpu_tracks.end()) return it->second;
  // As Kineto writes them: pid = the device, tid = the stream.
  std::string pid = gpu_process(device);
  const std::string tid = std::to_string(stream);
  TrackId id = b.track(pid, tid);
  // No stream (context-wide syncs): Kineto's device-wide lane, which it names "Device N".
  if (stream < 0) b.set_thread_name(pid, tid, "Device " + pid, 0);
  Track& tr = trace->tracks[id];
  tr.device = device;
  tr.stream = stream;
  gpu_tracks.emplace(key, id);
  return id;
}

std::string Context::gpu_process(int64_t device) {
  std::string pid = std::to_string(device);
  uint32_t before = static_cast<uint32_t>(trace->processes.size());
  if (b.process(pid) == before) {
    auto label = device_labels.find(device);
    b.set_process_name(
        pid, "GPU " + pid + (label == device_labels.end() ? "" : ": " + label->second), 0);
  }
  return pid;
}

StringId Context::cat(Cat c) {
  // cuda_graph: a graph launch traced as a whole (nsys --cuda-graph-trace=graph); a kernel to
  // the analyses (SliceKind), its own category so the findings can tell it apart.
  static const char* const kNames[] = {
      "cuda_runtime", "cuda_driver", "kernel",     "gpu_memcpy", "gpu_memset",
      "cuda_sync",    "os_runtime",  "cuda_graph", "cpu_state",  "profiler_overhead",
      "cudnn",        "cublas",      "mpi"};
  StringId& id = cat_ids[c];
  if (id == 0) id = trace->strings.intern(kNames[c]);
  return id;
}

std::map<std::pair<int64_t, int64_t>, int64_t> cuda_device_gpus(const NsysDatabase& db) {
  std::map<std::pair<int64_t, int64_t>, int64_t> out;
  const char* table = "TARGET_INFO_CUDA_DEVICE";
  if (!db.has_table(table) || !db.has_column(table, "gpuId") || !db.has_column(table, "cudaId") ||
      !db.has_column(table, "pid"))
    return out;
  sqlite3_stmt* st = nullptr;
  db.begin_query();
  std::map<int64_t, int64_t> gpu_of_ordinal;  // the first GPU seen for each ordinal
  bool differs = false;
  if (sqlite3_prepare_v2(db.handle(),
                         "SELECT pid, cudaId, gpuId FROM TARGET_INFO_CUDA_DEVICE WHERE pid IS "
                         "NOT NULL AND cudaId IS NOT NULL AND gpuId IS NOT NULL",
                         -1, &st, nullptr) == SQLITE_OK) {
    while (sqlite3_step(st) == SQLITE_ROW) {
      int64_t pid = sqlite3_column_int64(st, 0);
      if (pid > 0xFFFFFF) pid = Context::pid_of(pid);  // a serialized globalPid, not a pid
      const int64_t ordinal = sqlite3_column_int64(st, 1), gpu = sqlite3_column_int64(st, 2);
      out[{pid, ordinal}] = gpu;
      auto [it, added] = gpu_of_ordinal.try_emplace(ordinal, gpu);
      differs = differs || (!added && it->second != gpu);
    }
  }
  sqlite3_finalize(st);  // a damaged table leaves the ordinals as they are
  if (!differs) out.clear();
  return out;
}

void Context::note_gpu_op(int64_t global_pid, int64_t device) {
  if (global_pid == RowReader::kNull) return;
  auto [it, added] = gpu_process_devices.try_emplace(pid_of(global_pid));
  if (added) it->second.pid = pid_of(global_pid);
  if (device != RowReader::kNull) gpu_process_device_ns[pid_of(global_pid)].try_emplace(device, 0);
}

void Context::note_gpu_time(int64_t global_pid, int64_t device, int64_t start, int64_t end,
                            bool collective) {
  if (global_pid == RowReader::kNull) return;
  auto it = gpu_process_devices.find(pid_of(global_pid));
  if (it == gpu_process_devices.end()) return;  // note_gpu_op saw every row first
  NsysGpuProcess& p = it->second;
  if (p.op_ns == 0 && p.first_ns == 0 && p.last_ns == 0) {
    p.first_ns = start, p.last_ns = end;
  } else {
    p.first_ns = std::min(p.first_ns, start), p.last_ns = std::max(p.last_ns, end);
  }
  if (__builtin_add_overflow(p.op_ns, end - start, &p.op_ns)) p.op_ns = INT64_MAX;
  if (device != RowReader::kNull) {
    int64_t& ns = gpu_process_device_ns[pid_of(global_pid)][device];
    if (__builtin_add_overflow(ns, end - start, &ns)) ns = INT64_MAX;
  }
  p.collective = p.collective || collective;
}

void Context::note_other_work(int64_t device, int64_t begin, int64_t end) {
  if (!shared_devices.empty() &&
      std::binary_search(shared_devices.begin(), shared_devices.end(), device))
    other_work.push_back({device, begin, end});
}

bool Context::works_on(int64_t device) const {
  auto it = used_devices.find(device);
  if (it == used_devices.end()) return false;
  int64_t most = 0;
  for (const auto& kv : used_devices) most = std::max(most, kv.second);
  return static_cast<double>(it->second) >= kStrayDeviceShare * static_cast<double>(most);
}

bool Context::collective(StringId name) {
  if (name >= collective_names.size()) collective_names.resize(name + 1, 0);
  int8_t& known = collective_names[name];
  if (!known)
    known =
        hta_category(SliceKind::kKernel, trace->str(name)) == HtaCategory::kCommunication ? 2 : 1;
  return known == 2;
}

uint32_t Context::add(TrackId track, int64_t ts, int64_t end, StringId name, Cat c, SliceKind kind,
                      const SliceArgs& args, EventSource src) {
  const uint32_t slice = b.add_complete_ids(track, ts, end - ts, name, cat(c), kind, args, src);
  ++cat_counts[c];
  b.observe_time(ts, end);
  return slice;
}

void Context::flush_counts() {
  TraceFacts& f = trace->facts;
  for (int c = 0; c < kCatCount; ++c) {
    if (!cat_counts[c]) continue;
    f.categories[std::string(trace->str(cat_ids[c]))] += cat_counts[c];
    f.events_total += cat_counts[c];
    f.events_by_phase["X"] += cat_counts[c];
    cat_counts[c] = 0;
  }
  if (flows) {
    f.events_by_phase["s"] += flows;
    f.events_by_phase["f"] += flows;
    flows = 0;
  }
}

void Context::count(std::string_view cat, int64_t ts, int64_t end, const char* phase) {
  TraceFacts& f = trace->facts;
  ++f.events_total;
  ++f.events_by_phase[phase];
  scratch.assign(cat);
  ++f.categories[scratch];
  b.observe_time(ts, end);
}

// An ENUM_* table as id -> `column` (name or label); empty when the table or column is absent.
std::unordered_map<int64_t, std::string> read_enum(Context& c, const char* table,
                                                   const char* column) {
  std::unordered_map<int64_t, std::string> out;
  if (!c.db.has_table(table)) return out;
  RowReader r;
  if (!r.prepare(c.db, table, {"id", column}, &c.trace->diagnostics, c.error, false)) return out;
  while (r.next())
    if (!r.null(0)) out[r.i64(0)] = std::string(r.text(1));
  return out;
}

bool Context::usable_times(int64_t start, int64_t end, Table t, uint64_t row) {
  // Both present, in order, and a duration that fits (a crafted row must not overflow end-start).
  int64_t dur;
  if (start != RowReader::kNull && end != RowReader::kNull && end >= start &&
      !__builtin_sub_overflow(end, start, &dur))
    return true;
  trace->diagnostics.add(Diag::kNsysBadRow, row_source(t, row).offset);
  return false;
}

std::string_view strip_version_suffix(std::string_view name) {
  size_t at = name.rfind("_v");
  if (at == std::string_view::npos || at + 2 >= name.size()) return name;
  for (size_t i = at + 2; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return name;
  return name.substr(0, at);
}

void Context::unknown_enum(Table t, const char* table, const char* column, int64_t value,
                           uint64_t row) {
  trace->diagnostics.add(Diag::kNsysUnknownEnumValue, row_source(t, row).offset);
  // A few distinct values are news; a crafted file's thousands are not (the count says them).
  constexpr size_t kNamedAtMost = 8;
  std::string item = std::string(table) + "." + column + " = " + std::to_string(value);
  if (unknown_enum_named.size() >= kNamedAtMost || !unknown_enum_named.insert(item).second) return;
  item += " (first in row " + std::to_string(row) + ")";
  trace->diagnostics.list_in_detail(Diag::kNsysUnknownEnumValue, "Unknown", item);
}

void Context::table_missing(const char* table) {
  trace->diagnostics.add(Diag::kNsysTableMissing, 0, table);
  trace->diagnostics.list_in_detail(Diag::kNsysTableMissing, "Absent", table);
}

}  // namespace ks::nsys_sqlite
