#include "import/nsys_sqlite/nsys_file.h"

#include "import/file_byte_source.h"
#include "import/file_reader.h"
#include "import/nsys_sqlite/nsys_database.h"
#include "import/nsys_sqlite/nsys_importer.h"

namespace ks {

bool file_is_sqlite(const std::string& path) {
  char head[16];
  int64_t got = read_file_head(path, head, sizeof(head));
  return got == 16 && is_sqlite_header(head, 16);
}

std::unique_ptr<Trace> import_nsys_file(const std::string& path, ImportError* error,
                                        std::vector<NsysGpuProcess>* gpu_processes) {
  auto source = FileByteSource::open(path, error);
  if (!source) return nullptr;
  auto db = NsysDatabase::open(source.get(), error);
  if (!db) return nullptr;
  NsysImportOptions options;
  options.source_name = base_name(path);
  options.gpu_processes = gpu_processes;
  return import_nsys(*db, options, error);
}

std::vector<std::unique_ptr<Trace>> import_nsys_file_by_process(const std::string& path,
                                                                ImportError* error) {
  auto source = FileByteSource::open(path, error);
  if (!source) return {};
  auto db = NsysDatabase::open(source.get(), error);
  if (!db) return {};
  return import_nsys_file_by_process(path, nsys_gpu_processes(*db), error);
}

std::vector<std::unique_ptr<Trace>> import_nsys_file_by_process(
    const std::string& path, const std::vector<NsysGpuProcess>& procs, ImportError* error) {
  std::vector<std::unique_ptr<Trace>> out;
  const NsysRankPlan plan = nsys_rank_plan(procs);
  if (!plan.split()) return out;
  auto source = FileByteSource::open(path, error);
  if (!source) return out;
  auto db = NsysDatabase::open(source.get(), error);
  if (!db) return out;
  for (size_t i = 0; i < plan.ranks.size(); ++i) {
    NsysImportOptions options;
    options.only_pid = plan.ranks[i].pid;
    options.plan = &plan;
    options.source_name = base_name(path) + " pid " + std::to_string(plan.ranks[i].pid);
    std::unique_ptr<Trace> t = import_nsys(*db, options, error);
    if (!t) return {};
    DistributedInfo& d = t->distributed;
    d.present = true;
    d.from_environment = true;  // not Kineto's distributedInfo: a place in the export
    d.rank = static_cast<int64_t>(i);
    d.world_size = static_cast<int64_t>(plan.ranks.size());
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace ks
