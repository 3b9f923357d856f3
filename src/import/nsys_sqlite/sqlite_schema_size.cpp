#include "import/nsys_sqlite/sqlite_schema_size.h"

#include <unordered_set>
#include <vector>

namespace ks {

namespace {

// SQLite's file format (sqlite.org/fileformat2.html): the page size at byte 16 (1 = 65536); a
// b-tree page's header at byte 0 of its page (100 on page 1, after the file header): its type,
// its cell count at bytes 3-4, and on an interior page the right-most child at bytes 8-11; then
// the cells' 2-byte offsets. An interior table cell begins with its child's 4-byte page number.
constexpr uint8_t kInteriorTable = 0x05;
constexpr uint8_t kLeafTable = 0x0d;
constexpr int kMaxDepth = 20;  // SQLite's own b-tree depth limit (BTCURSOR_MAX_DEPTH)

uint32_t be16(const uint8_t* p) {
  return (uint32_t{p[0]} << 8) | p[1];
}
uint32_t be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

}  // namespace

SchemaSize count_schema_objects(ByteSource* source, uint64_t limit) {
  SchemaSize out;
  uint8_t head[18];
  if (source->read_at(0, head, sizeof(head)) != static_cast<int64_t>(sizeof(head))) return out;
  uint32_t page_size = be16(head + 16);
  if (page_size == 1) page_size = 65536;
  if (page_size < 512 || (page_size & (page_size - 1)) != 0) return out;  // SQLite refuses it
  const uint64_t pages = source->size() / page_size;
  // Each page is read once: a page reached again ends the walk (a tree pointing back into itself
  // would otherwise be read until a visit budget ran out: 20,000 pages of up to 64 KiB).
  std::unordered_set<uint32_t> seen;
  // A schema of `limit` objects fills at most `limit` leaves and fewer interior pages.
  const uint64_t max_visits = 2 * limit + 64;
  struct Visit {
    uint32_t page;
    int depth;
  };
  std::vector<Visit> todo{{1, 0}};
  std::vector<uint8_t> buf(page_size);
  uint64_t visits = 0;
  while (!todo.empty()) {
    const Visit v = todo.back();
    todo.pop_back();
    const uint64_t offset = uint64_t{v.page - 1} * page_size;
    if (!seen.insert(v.page).second) {
      out.loops = true;
      out.at = offset;
      return out;
    }
    if (++visits > max_visits) {
      out.over = true;
      out.at = offset;
      return out;
    }
    if (source->read_at(offset, buf.data(), page_size) != static_cast<int64_t>(page_size)) continue;
    const uint32_t hdr = v.page == 1 ? 100 : 0;
    const uint8_t type = buf[hdr];
    const uint32_t cells = be16(&buf[hdr + 3]);
    if (type == kLeafTable) {
      out.objects += cells;
      if (out.objects > limit) {
        out.over = true;
        out.at = offset;
        return out;
      }
    } else if (type == kInteriorTable && v.depth < kMaxDepth) {
      auto push = [&](uint32_t child) {
        if (child >= 1 && child <= pages && todo.size() < max_visits)
          todo.push_back({child, v.depth + 1});
      };
      push(be32(&buf[hdr + 8]));
      const uint32_t array = hdr + 12;
      for (uint32_t i = 0; i < cells && array + 2 * i + 2 <= page_size; ++i) {
        const uint32_t cell = be16(&buf[array + 2 * i]);
        if (cell + 4 <= page_size) push(be32(&buf[cell]));
      }
    }
  }
  return out;
}

}  // namespace ks
