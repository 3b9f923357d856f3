// The helper workers of a large file (the page's side): a gzip file gets one that decompresses it
// while the loader parses (worker/unzip.js); a large plain file gets one per core beyond the
// first, each reading a part of the file for the loader (worker/split.js). They talk to the loader
// through MessagePorts and end with the load.
import { Msg, helperMsg } from './protocol.js';
import { startAnalyzerWorker } from './start.js';

// A plain file of SPLIT_MIN..SPLIT_MAX bytes is read by several workers. Smaller files gain too
// little to pay for more modules; larger ones would hold several large models in memory at once,
// so they are read by the loader alone. Only on a machine with SPLIT_CORES logical cores or more:
// on the project's 2-core machine reading the file already keeps the second core partly busy, and
// two workers were no faster than one (docs/performance.md). Then one worker per core, at most
// MAX_READERS. URL parameters (tests, benchmarks): ?split=on (two workers, as before this was
// generalised), ?split=off (one), ?workers=N (N, whatever the cores, for any plain file up to
// SPLIT_MAX: tests/browser/workers.mjs compares the reports of 1..8).
const SPLIT_MIN = 32 * 2 ** 20;
const SPLIT_MAX = 1.5 * 2 ** 30;
const SPLIT_CORES = 4;
const MAX_READERS = 8;
// A gzip file of UNZIP_MIN bytes or more gets a helper that decompresses it while the loader parses:
// on any machine, since decompressing and parsing otherwise add up on one thread.
export const UNZIP_MIN = 2 * 2 ** 20;

// How many workers read one large plain file: {readers, forced}.
export function readersFor(search, cores) {
  const params = new URLSearchParams(search);
  const asked = Number(params.get('workers'));
  if (Number.isInteger(asked) && asked >= 1) return { readers: Math.min(asked, MAX_READERS), forced: true };
  const split = params.get('split');
  if (split === 'off') return { readers: 1, forced: false };
  if (split === 'on') return { readers: 2, forced: false };
  return { readers: cores >= SPLIT_CORES ? Math.min(cores, MAX_READERS) : 1, forced: false };
}

const plan = readersFor(location.search, Number(navigator.hardwareConcurrency) || 1);

// Whether a Blob starts with the gzip magic bytes.
export async function startsGzip(blob) {
  if (!blob || blob.size < 2) return false;
  try {
    const b = new Uint8Array(await blob.slice(0, 2).arrayBuffer());
    return b[0] === 0x1f && b[1] === 0x8b;
  } catch {
    return false; // the loader reads the file itself and says what is wrong
  }
}

// The helpers for a file, or null: {workers, fields} where fields go into the loader's open
// message (unzipPort, or partPorts) and transfer lists them. onLost(index) when helper index's
// script fails (the loader then reads its part itself).
export function startHelpers(fields, gzip, onLost) {
  const blob = fields.blob;
  if (!blob || typeof MessageChannel !== 'function') return null;
  let count;
  if (gzip) count = blob.size >= UNZIP_MIN ? 1 : 0;
  else count = (plan.forced || blob.size >= SPLIT_MIN) && blob.size <= SPLIT_MAX ? plan.readers - 1 : 0;
  if (!count) return null;
  const workers = [];
  const ports = [];
  for (let k = 0; k < count; k++) {
    const channel = new MessageChannel();
    const w = startAnalyzerWorker();
    w.onerror = (e) => {
      e.preventDefault(); // the helper's script failed: the loader reads on by itself
      w.terminate();
      onLost(k);
    };
    w.postMessage(helperMsg(gzip ? Msg.unzip : Msg.part, fields.name, blob, channel.port2), [channel.port2]);
    workers.push(w);
    ports.push(channel.port1);
  }
  const extra = gzip ? { unzipPort: ports[0] } : { partPorts: ports };
  return { workers, extra, transfer: ports };
}
