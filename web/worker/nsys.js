// --- Nsight Systems exports (SQLite) ----------------------------------------------------------------
// `nsys export --type sqlite` writes an SQLite database, which is read where it lies: SQLite (compiled
// into the module) asks for pages, the Session's block cache (src/import/block_cache_source.h) turns
// them into reads of 1 MiB, and those are served from synchronous 16 MiB slices of the File
// (FileReaderSync, which workers have), kept outside WASM memory up to a budget while the export
// is read (worker/file_chunks.js). Only the model lives in WASM memory. The Session keeps the
// database open (the Stats view reads it), so its read function stays registered, by the file's
// id, until the Session is deleted (kept.js deleteSession()).
// An export opened by ?url= is fetched whole into a Blob first (worker/job.js), then read so.
import { Msg, errorMsg, reportMsg } from './protocol.js';
import { ByteKeeper, adoptSession } from './kept.js';
import { PROGRESS_MS, parseJson } from './module.js';
import { combinable } from './combine.js';
import { FileChunks, KEEP_AFTER } from './file_chunks.js';

const SQLITE_HEAD = 'SQLite format 3\0';
const SQLITE_NO_ARGS = 'an Nsight Systems export has no event text: the slice details come from its tables';

export function isSqliteHead(head) {
  if (head.length < 16) return false;
  for (let i = 0; i < 16; i++) if (head[i] !== SQLITE_HEAD.charCodeAt(i)) return false;
  return true;
}

// An export, whatever its name; a file named *.sqlite that is not SQLite gets the SQLite reader's
// error, as in the CLI.
export const isExport = (name, head) => name.endsWith('.sqlite') || isSqliteHead(head);

let nextFileId = 1;
function importSqlite(M, session, blob, onRead) {
  const id = nextFileId++;
  const file = new FileChunks(blob);
  if (!M.ksFiles) M.ksFiles = {};
  M.ksFiles[id] = (offset, n) => {
    const bytes = file.read(offset, n);
    onRead(Math.min(file.bytesRead, blob.size));
    return bytes;
  };
  session.dropFile = () => delete M.ksFiles[id]; // when the Session goes (deleteSession)
  session.fileChunks = file;
  return session.importSqlite(blob.size, id);
}

// Reads the export `blob` for `job` (worker/job.js): the report, then its `nsys stats` tables.
export function readExport(job, blob) {
  const { M, msg, timings } = job;
  const session = (job.session = new M.Session());
  session.setSource(msg.name, false);
  // One process of an export of several, read as one rank (ranks/mode.js openExport).
  const proc = msg.rankProcess;
  if (proc && typeof session.setNsysProcess === 'function') session.setNsysProcess(proc.pid, proc.rank, proc.count);
  job.total = blob.size;
  // Progress from inside importSqlite (one WASM call): the bytes of the File read so far. Posted
  // from here, without calling back into the Session, which is busy.
  let lastPost = 0;
  const ok = importSqlite(M, session, blob, (n) => {
    job.read = n;
    const now = performance.now();
    if (now - lastPost >= PROGRESS_MS) {
      lastPost = now;
      self.postMessage({ type: Msg.progress, id: job.id, read: job.read, total: job.total, bytes: job.read, events: 0 });
    }
  });
  job.mark('finished');
  timings.sqlite_reads = parseJson(session.sqliteReadsJson(), {});
  timings.file_read_ms = Math.round(session.fileChunks.readMs);
  timings.file_bytes_read = session.fileChunks.bytesRead;
  timings.wasm_heap_bytes = M.HEAPU8.length; // the model (and SQLite's cache); never the file
  job.read = job.total;
  job.progress();
  const json = ok ? session.reportJson() : '';
  job.mark('report_json');
  if (!json) {
    self.postMessage(errorMsg(job.id, parseJson(session.errorJson(), null) || { code: 'unknown', message: 'the export could not be read' }));
    return;
  }
  const markdown = session.reportMarkdown();
  job.mark('markdown');
  // A rank of a job (loadIndex), a side of a comparison, or one process of an export opened
  // alone from its ranks (rankProcess): no stats tables, and never read again as ranks.
  const withStats = typeof msg.loadIndex !== 'number' && !msg.diffDigest && !proc;
  // An export that holds two or more processes with GPU work (nsys profile torchrun
  // --nproc_per_node=N), opened alone or among several files: the page reads it again as ranks,
  // one per process, as `kinetoscope report` does; this whole-file report is `--separate`'s.
  const probe = !msg.diffDigest && !proc;
  const gpu = probe && typeof session.gpuProcessesJson === 'function' ? parseJson(session.gpuProcessesJson(), []) : [];
  const gpuProcesses = gpu.length >= 2 ? gpu : undefined;
  self.postMessage(reportMsg(job.id, { json, markdown, timings, nsys: withStats, gpuProcesses, ...combinable(session, msg) }));
  adoptSession(job.id, session, new ByteKeeper(null, SQLITE_NO_ARGS));
  job.session = null;
  // The `nsys stats` tables come after the report (on a 1 GB export they take longer than the
  // report itself): {stats, id, json, ms}. Not for a rank of several files or a side of a
  // comparison, whose page shows no stats, nor for an export the page reads again as ranks.
  if (withStats && !gpuProcesses) {
    const t = performance.now();
    const stats = session.statsJson('');
    self.postMessage({ type: Msg.stats, id: job.id, json: stats, ms: Math.round(performance.now() - t) });
  }
  session.fileChunks.trim(KEEP_AFTER); // what the Stats view asks later is a few pages
}
