// Native only: a gzip file decoded on a second thread while the caller parses what was decoded
// before, so reading a .json.gz costs the slower of the two, not their sum (zlib decodes a
// trace at ~400 MB/s, about as fast as the importer parses it: on the 87 MB MTIA trace the
// decoding alone took 0.22 s of the CLI's 0.31 s).
#pragma once
#include <cstddef>
#include <functional>

namespace ks {

// What reads the next decoded bytes (GzipReader::read): the count, 0 at the end, negative on
// an error.
using DecodedRead = std::function<int(char* out, unsigned n)>;

// Calls `read` to the end in chunks of up to `chunk` bytes on a helper thread, `slots` chunks
// ahead at most, and hands each chunk to `consume` in order on the calling thread; `consume`
// returning false stops the read. Returns read's last result: 0 at the end, negative on a
// read error, or 1 when `consume` stopped it. When no thread can be started the file is read on
// the calling thread, with the same results.
int read_gzip_pipelined(const DecodedRead& read, size_t chunk, int slots,
                        const std::function<bool(const char*, size_t)>& consume);

}  // namespace ks
