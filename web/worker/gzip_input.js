// Where web/worker/gunzip.js reads compressed bytes from: the input once, with what a member left
// unused put back (feedOf); chunks already in memory (memoryReader); and the same bytes again from
// any position, sliced from a File or kept from a fetched body as they passed (blobSource,
// keptSource).
export const GZIP_PIECE = 64 * 1024;
// A fetched body (?url=) is read once, so its compressed bytes are kept as they pass (Blobs of
// KEEP_PART bytes, which the browser may hold on disk) for a member to be decoded again after a
// refused write; past KEEP_COMPRESSED bytes they are not, and a refusal ends the read as damage
// does. A gzip trace holds 5-20 times its size in JSON: 1 GiB of it is more than a page can analyse.
const KEEP_COMPRESSED = 2 ** 30;
const KEEP_PART = 8 << 20;

// The input, read once: its chunks in order, with what a member left unused put back in front
// (unread) for the next member, so that no byte is read from the file twice.
export function feedOf(reader) {
  const back = [];
  return {
    read: async () => (back.length ? { value: back.shift(), done: false } : reader.read()),
    unread(bytes) {
      if (bytes.length) back.unshift(bytes);
    },
    // The next `n` bytes (fewer at the end of the input), left to be read.
    async peek(n) {
      let have = back.reduce((k, b) => k + b.length, 0);
      while (have < n) {
        const { value, done } = await reader.read();
        if (done) break;
        back.push(value);
        have += value.length;
      }
      const out = new Uint8Array(Math.min(n, have));
      let k = 0;
      for (const b of back) {
        if (k >= out.length) break;
        const take = b.subarray(0, out.length - k);
        out.set(take, k);
        k += take.length;
      }
      return out;
    },
    // Drops the next `n` bytes (peeked before).
    skip(n) {
      while (n > 0 && back.length) {
        const take = Math.min(n, back[0].length);
        if (take === back[0].length) back.shift();
        else back[0] = back[0].subarray(take);
        n -= take;
      }
    },
    cancel: (why) => reader.cancel(why),
  };
}

// A reader of the chunks `parts`, in memory.
export function memoryReader(parts) {
  let k = 0;
  return {
    read: async () => (k < parts.length ? { value: parts[k++], done: false } : { value: undefined, done: true }),
    cancel: async () => {},
  };
}

// The compressed bytes again, from any position: {reader(pos), bytes(from, to), size()}. A File or
// Blob is sliced; a fetched body is the bytes kept from `live` (the reader of the first pass, which
// records what it reads) followed by what is still to come from it.
export function blobSource(blob) {
  return {
    reader: (pos) => blob.slice(pos).stream().getReader(),
    bytes: async (from, to) => new Uint8Array(await blob.slice(from, to).arrayBuffer()),
    size: async () => blob.size,
  };
}

export function keptSource(input) {
  const live = input.getReader();
  let parts = [];
  let pending = [];
  let pendingBytes = 0;
  let total = 0; // bytes read from `live`
  let ended = false;
  let over = false; // more than KEEP_COMPRESSED: nothing kept
  const flush = () => {
    if (pending.length) parts = [new Blob([...parts, ...pending])];
    pending = [];
    pendingBytes = 0;
  };
  const kept = () => {
    if (over) throw new Error(`the gzip data was refused after more than ${KEEP_COMPRESSED} bytes of a fetched file, too many to read again: open the file itself`);
    flush();
    return parts[0] || new Blob([]);
  };
  const readLive = async () => {
    const r = await live.read();
    if (r.done) ended = true;
    else {
      total += r.value.length;
      if (total > KEEP_COMPRESSED) {
        over = true;
        parts = [];
        pending = [];
      } else if (!over) {
        pending.push(r.value);
        pendingBytes += r.value.length;
        if (pendingBytes >= KEEP_PART) flush();
      }
    }
    return r;
  };
  const source = {
    first: { read: readLive, cancel: (why) => live.cancel(why) },
    // The bytes from `pos`: those kept, in pieces, then the live ones (kept as they pass).
    reader(pos) {
      let at = pos;
      return {
        async read() {
          if (at < total) {
            const piece = await kept().slice(at, Math.min(total, at + GZIP_PIECE)).arrayBuffer();
            at += piece.byteLength;
            return { value: new Uint8Array(piece), done: false };
          }
          if (ended) return { value: undefined, done: true };
          const r = await readLive();
          if (!r.done) at += r.value.length;
          return r;
        },
        cancel: async () => {}, // the live body is read on by the next reader
      };
    },
    async bytes(from, to) {
      while (total < to && !ended) await readLive();
      return new Uint8Array(await kept().slice(from, to).arrayBuffer());
    },
    async size() {
      while (!ended) await readLive();
      return total;
    },
    cancel: (why) => live.cancel(why).catch(() => {}),
  };
  return source;
}
