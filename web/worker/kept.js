// The trace on screen: the Session of the last trace that loaded stays alive (until the next one
// loads) and answers the timeline's queries (worker/timeline.js) and step-range; its report is the
// one on screen.
//
// Args for the details panel are read back from the event's own bytes (the model keeps each slice's
// file_offset and byte_len in the decompressed JSON): for a plain File or Blob, a slice of it; for
// gzip (no random access) and fetched (?url=) input, the decoded bytes are kept as they stream by, in
// Blobs of a few MB (the browser may keep large Blobs on disk), up to KEEP_BUDGET bytes; past that the
// panel says the args are not available.
import { Msg, STATS_ROWS, errorBody, errorMsg } from './protocol.js';

const KEEP_BUDGET = 2 ** 31;
const KEEP_SESSION_HEAP = 1.5 * 2 ** 30;
const KEEP_PART = 8 << 20;

export class ByteKeeper {
  constructor(blob, none = '') {
    this.blob = blob; // a File/Blob that is the JSON itself: nothing to copy
    this.none = none; // why there are no event bytes to keep (an Nsight Systems export)
    this.parts = [];
    this.pending = [];
    this.pendingBytes = 0;
    this.total = 0;
    this.over = false;
  }
  add(chunk) {
    if (this.blob || this.over || this.none) return;
    this.total += chunk.length;
    if (this.total > KEEP_BUDGET) {
      this.over = true;
      this.parts = [];
      this.pending = [];
      return;
    }
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes >= KEEP_PART) this.flush();
  }
  flush() {
    if (this.pending.length) this.parts.push(new Blob(this.pending));
    this.pending = [];
    this.pendingBytes = 0;
  }
  result() {
    if (this.blob) return { bytes: this.blob, note: '' };
    if (this.none) return { bytes: null, note: this.none };
    if (this.over) return { bytes: null, note: `the decoded trace is larger than ${KEEP_BUDGET >> 20} MB, so event args are not kept` };
    this.flush();
    return { bytes: new Blob(this.parts), note: '' };
  }
}

let kept = null; // {id, session, bytes, note, names: Set of name ids the page has}

// The kept trace of load `id`, or null.
export const keptFor = (id) => (kept && kept.id === id ? kept : null);

// A Session's end: an Nsight Systems export's read function goes with it (worker/nsys.js).
export function deleteSession(session) {
  if (session.dropFile) session.dropFile();
  session.delete();
}

export function adoptSession(id, session, keeper) {
  if (kept) deleteSession(kept.session);
  const { bytes, note } = keeper.result();
  kept = { id, session, bytes, note, names: new Set() };
}

// A new file loads: the kept Session stays while it loads, unless the module is already big:
// then its memory goes to the new file (WASM memory is limited to 4 GB).
export function makeRoomFor(M) {
  if (kept && M.HEAPU8.length > KEEP_SESSION_HEAP) {
    deleteSession(kept.session);
    kept = null;
  }
}

// The module died: the kept Session lived in it.
export function forgetKept() {
  kept = null;
}

export const staleError = (id) => errorMsg(id, errorBody('stale', 'that trace is no longer loaded'));

// One more `nsys stats` report of the kept export (the page's "More reports"), its first
// STATS_ROWS rows: {stats-report, id, report} -> {stats, id, json, ms, report}, or an error.
export function statsReport(msg) {
  const k = keptFor(msg.id);
  if (!k || typeof k.session.statsJsonFirstRows !== 'function') {
    self.postMessage(staleError(msg.id));
    return;
  }
  const t = performance.now();
  const json = k.session.statsJsonFirstRows(String(msg.report || ''), STATS_ROWS);
  self.postMessage({ type: Msg.stats, id: msg.id, json, ms: Math.round(performance.now() - t), report: msg.report });
}

// The report on screen analyzed again with its steps taken from the ranges named msg.name ("" for
// the default detection): `kinetoscope report --step-range NAME`. {step-range, id, name} ->
// {report-update, id, json, markdown}, or an error.
export function stepRange(msg) {
  const k = keptFor(msg.id);
  if (!k || typeof k.session.setStepRange !== 'function') {
    self.postMessage(staleError(msg.id));
    return;
  }
  try {
    k.session.setStepRange(String(msg.name || ''));
    const json = k.session.reportJson();
    if (!json) throw new Error('the report could not be written');
    self.postMessage({ type: Msg.reportUpdate, id: msg.id, json, markdown: k.session.reportMarkdown() });
  } catch (e) {
    self.postMessage(errorMsg(msg.id, errorBody('analyzer_crashed', String((e && e.message) || e))));
  }
}
