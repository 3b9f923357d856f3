// Synchronous reads of a File for SQLite in WASM (worker/nsys.js), in large slices kept for reuse.
// A FileReaderSync call costs far more than its bytes: in Chromium here ~6 ms a call plus ~3.5 ms a
// MiB, so the 400 MB benchmark export took 4.1 s in 1 MiB slices and 1.5 s in 16 MiB ones. And an
// import reads much of a file more than once: a table's pages lie among other tables' (nsys writes
// them as the run goes), so every table's scan reads them all again, and the `nsys stats` tables
// read the file once more. So the File is read in 16 MiB slices, and they are kept (as plain
// ArrayBuffers, outside WASM memory): a file of up to 512 MiB whole while it is read, a larger
// one's last 64 MiB, least recently used first out. (Keeping 512 MiB of the 1 GB benchmark export
// read 1.2 GB instead of 1.8 GB but took as long to its report, with 430 MB more memory: a scan
// of more than the cache holds finds little in it.) After the import and its stats the owner
// trims them to a few (the Stats view's later queries are small).
export const CHUNK_BYTES = 16 << 20;
export const KEEP_WHOLE_UP_TO = 512 << 20;
export const KEEP_WHEN_LARGER = 4 * CHUNK_BYTES;
export const KEEP_AFTER = 4 * CHUNK_BYTES;

export class FileChunks {
  constructor(blob, reader = new FileReaderSync()) {
    this.blob = blob;
    this.reader = reader;
    this.chunks = new Map(); // chunk index -> Uint8Array, oldest use first (Map keeps order)
    this.kept = 0;
    this.limit = blob.size <= KEEP_WHOLE_UP_TO ? blob.size : KEEP_WHEN_LARGER;
    this.readMs = 0; // time in FileReaderSync, for the timings
    this.bytesRead = 0;
  }

  // Up to `n` bytes at `offset`: a view into one chunk (a short read at a chunk's end; the caller,
  // the WASM block cache, asks again for the rest).
  read(offset, n) {
    const index = Math.floor(offset / CHUNK_BYTES);
    const chunk = this.chunk(index);
    const at = offset - index * CHUNK_BYTES;
    return chunk.subarray(at, Math.min(chunk.length, at + n));
  }

  chunk(index) {
    let c = this.chunks.get(index);
    if (c) {
      this.chunks.delete(index); // to the end: the most recently used
      this.chunks.set(index, c);
      return c;
    }
    const start = index * CHUNK_BYTES;
    const t = performance.now();
    c = new Uint8Array(this.reader.readAsArrayBuffer(this.blob.slice(start, start + CHUNK_BYTES)));
    this.readMs += performance.now() - t;
    this.bytesRead += c.length;
    this.chunks.set(index, c);
    this.kept += c.length;
    this.trim(this.limit);
    return c;
  }

  // Keeps at most `limit` bytes of chunks (and no more from now on), the most recently used.
  trim(limit) {
    this.limit = limit;
    for (const [index, c] of this.chunks) {
      if (this.kept <= limit || this.chunks.size <= 1) break;
      this.chunks.delete(index);
      this.kept -= c.length;
    }
  }
}
