// The analyzer worker's message protocol: every message the page and the worker (and two workers
// on one file) send each other, named once, here. Both sides import it: the page (app.js,
// worker/load.js, worker/pool.js, timeline/client.js, ranks/stacked.js) and the worker
// (worker/main.js and the modules it imports). The strings are the wire format; no other file
// spells them (tests/wasm/protocol.mjs checks).
//
// Page -> worker (postMessage on the Worker):
//   open        {id, name, blob | url[, partPorts | unzipPort][, loadIndex][, diffDigest][, rankProcess]}
//               read a File/Blob (blob.stream()) or a same-origin URL (fetch); partPorts: one
//               MessagePort per helper reading a part of a large plain file (worker/split.js);
//               unzipPort: a helper decompressing a large gzip file (worker/unzip.js); loadIndex:
//               a rank of several files (its digest comes back); diffDigest: a side of a comparison;
//               rankProcess {pid, rank, count[, merged]}: only that process of an Nsight Systems
//               export, or (merged) only that rank of a JSON file holding several ranks
//   cancel      {id}                     stop reading load `id`
//   warm        {}                       load the module and warm it up (worker/warm.js)
//   part        {name, blob, port}       be a helper: read a part of `blob` for the loader on `port`
//   unzip       {name, blob, port}       be a helper: decompress `blob` for the loader on `port`
//   part-lost   {id, index?}             the helper `index` (all, without it) of load `id` died
//   tl          {id, req, op, args}      a timeline query on the kept trace (worker/timeline.js)
//   step-range  {id, name}               the kept trace analysed again, steps from ranges `name`
//   stats-report {id, report}            one more `nsys stats` report of the kept export (its
//                                        first STATS_ROWS rows)
//   combine     {id, digests, reports, markdowns}   the multi-rank report (worker/combine.js)
//   diff        {id, base, test}                    the trace diff of two diff digests
//
// Worker -> page:
//   progress      {id, stage, read, total, bytes, events}  at most every ~100 ms; stage 'reading',
//                 'building' or 'analysing'
//   report        {id, json, markdown, timings[, nsys][, gpuProcesses][, digest][, diffDigest]}
//                 gpuProcesses [{pid, device}]: an export opened alone or as one of several
//                 files holds 2+ GPU processes (read again as ranks, one per process);
//                 [{pid, merged: true}]: a JSON file holds 2+ ranks merged on one GPU pid
//                 (analysis/merged_ranks.h: read again as ranks, one per launching process)
//   stats         {id, json, ms[, report]}  after an Nsight Systems export's report: `nsys stats`;
//                 with `report`: the answer to stats-report (json: that report, or an error)
//   report-update {id, json, markdown}    the answer to step-range
//   combined      {id, json, markdown}    the answer to combine or diff
//   warm          {ms, pretouched}        warmed up (pretouched: heap bytes written), ready for a file
//   error         {id, error: {code, message, offset?}}
//   cancelled     {id}
//   tl            {id, req, result | error}
//
// Loader <-> part helper (the MessagePort of `part`, worker/split.js):
//   loader -> helper  start {offset, stop}   read the event array from `offset` up to the first
//                                            element at or past `stop` (-1: to the array's end)
//                     stop {}                no part is wanted any more
//   helper -> loader  progress {read, events}
//                     part {bytes, timings, error?}   the part (an ArrayBuffer), or bytes: null
// Loader <-> unzip helper (the MessagePort of `unzip`, worker/unzip.js):
//   helper -> loader  chunk {buffer, offset, length, read}   decoded JSON; read: compressed bytes
//                     end {read, ms?, gzipCut?, gzipTrailing? {at, ignored}, error?}
//   loader -> helper  ack {}   one chunk taken (a credit back);   stop {}
// The rows of a report the page asks for on request (the CLI writes them all).
export const STATS_ROWS = 5000;

export const Msg = Object.freeze({
  // page -> worker
  open: 'open',
  cancel: 'cancel',
  warm: 'warm',
  part: 'part',
  unzip: 'unzip',
  partLost: 'part-lost',
  timeline: 'tl',
  stepRange: 'step-range',
  statsReport: 'stats-report',
  combine: 'combine',
  diff: 'diff',
  // worker -> page
  progress: 'progress',
  report: 'report',
  stats: 'stats',
  reportUpdate: 'report-update',
  combined: 'combined',
  warmed: 'warm',
  error: 'error',
  cancelled: 'cancelled',
  timelineReply: 'tl',
});

// The timeline's queries: the `op` of a tl message, its `args` and the `result` it gets
// (worker/timeline.js answers, and says 'unknown timeline request' to an op not named here;
// web/timeline/ asks through timeline/client.js).
//   layout     {}                                        -> {layout}
//   query      {start, end, pixels, tracks, counters}    -> level-of-detail columns (transferred)
//   details    {slice}                                   -> {details} (with the event's args)
//   names      {}                                        -> {names}
//   search     {ids}                                     -> slice columns of those name ids
//   offsets    {offsets}                                 -> {slices}
//   brief      {slice}                                   -> {brief}
//   aggregate  {from, to, tracks}                        -> {aggregate}
//   flows      {slice}                                   -> {flows}
//   sliceAt    {track, depth, t, tolerance}              -> {slice}
export const TimelineOp = Object.freeze({
  layout: 'layout',
  query: 'query',
  details: 'details',
  names: 'names',
  search: 'search',
  offsets: 'offsets',
  brief: 'brief',
  aggregate: 'aggregate',
  flows: 'flows',
  sliceAt: 'sliceAt',
  slices: 'slices', // hit columns of given slice ids (the critical path's events)
  criticalPath: 'criticalPath', // the critical path with every edge (Session.criticalPathJson)
});

export const PortMsg = Object.freeze({
  start: 'start',
  stop: 'stop',
  progress: 'progress',
  part: 'part',
  chunk: 'chunk',
  end: 'end',
  ack: 'ack',
});

// The page's side.
export const openMsg = (id, fields) => ({ type: Msg.open, id, ...fields });
export const cancelMsg = (id) => ({ type: Msg.cancel, id });
export const warmMsg = () => ({ type: Msg.warm });
export const helperMsg = (type, name, blob, port) => ({ type, name, blob, port });
export const partLostMsg = (id, index) => ({ type: Msg.partLost, id, index });
export const timelineMsg = (id, req, op, args) => ({ type: Msg.timeline, id, req, op, args });
export const stepRangeMsg = (id, name) => ({ type: Msg.stepRange, id, name });
export const combineMsg = (digests, reports, markdowns) => ({ type: Msg.combine, digests, reports, markdowns });
export const diffMsg = (base, test) => ({ type: Msg.diff, base, test });

// The worker's side.
export const errorMsg = (id, error) => ({ type: Msg.error, id, error });
export const reportMsg = (id, fields) => ({ type: Msg.report, id, ...fields });

// An error object as the protocol carries it: {code, message, offset?} (offset only when known).
export function errorBody(code, message, offset) {
  const e = { code: code || 'unknown', message: String(message || 'unknown error') };
  if (offset !== undefined && offset !== null) e.offset = offset;
  return e;
}

// A protocol error ({code, message, offset?}) thrown as an Error with the same fields.
export class WorkerError extends Error {
  constructor(err, fallback = 'the analyzer failed') {
    super(err.message || fallback);
    this.code = err.code || 'unknown';
    if (err.offset !== undefined && err.offset !== null) this.offset = err.offset;
  }
}

// True for a message of this type (a guard for either side's onmessage).
export const isMsg = (m, type) => Boolean(m) && typeof m === 'object' && m.type === type;
