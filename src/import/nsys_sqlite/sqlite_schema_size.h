// How many objects (tables, indexes, views, triggers) a SQLite file's schema lists, counted from
// its bytes before SQLite reads it. SQLite parses the whole schema at the first statement, into
// hash tables of at most 64 buckets (SQLITE_MALLOC_SOFT_LIMIT), so its time grows with the square
// of the object count: 40,000 tables took 1.4 s, 200,000 more than a minute, and no progress
// handler runs while it parses. An Nsight Systems export lists a few hundred.
#pragma once
#include <cstdint>

#include "import/byte_source.h"

namespace ks {

struct SchemaSize {
  // The leaf cells of sqlite_schema's b-tree seen, up to the first count above the limit.
  uint64_t objects = 0;
  // More than `limit` objects: SQLite must not be asked to read it.
  bool over = false;
  // A page reached twice: a b-tree gives each page one parent, so the tree points back into
  // itself (crafted or damaged), and SQLite must not be asked to read it either.
  bool loops = false;
  // Where the count passed the limit, or the page reached twice: the byte offset of that page.
  uint64_t at = 0;
};

// Walks sqlite_schema's b-tree (its root is page 1) in `source`, a file that starts with SQLite's
// header. Pages that are not table b-tree pages, or lie past the end, are left for SQLite to
// report as damage.
SchemaSize count_schema_objects(ByteSource* source, uint64_t limit);

}  // namespace ks
