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

std::unique_ptr<Trace> import_nsys_file(const std::string& path, ImportError* error) {
  auto source = FileByteSource::open(path, error);
  if (!source) return nullptr;
  auto db = NsysDatabase::open(source.get(), error);
  if (!db) return nullptr;
  NsysImportOptions options;
  options.source_name = base_name(path);
  return import_nsys(*db, options, error);
}

}  // namespace ks
