// The timeline's queries (web/timeline/client.js) on the kept trace (worker/kept.js). Columns
// come back from WASM as views into its memory, which the next call may grow and detach, so each
// is copied (.slice()) at once, and the copies are transferred to the page.
import { Msg, TimelineOp, errorBody } from './protocol.js';
import { forgetKept, keptFor } from './kept.js';
import { resetModule } from './module.js';

const LOD_COLUMNS = ['start', 'end', 'slice', 'count', 'name', 'track', 'depth', 'cSeries', 'cTs', 'cMin', 'cMax', 'cLast', 'iTrack', 'iTs', 'iCount', 'iInstant', 'iName'];
const HIT_COLUMNS = ['slice', 'start', 'end', 'track', 'depth'];

function copyColumns(result, keys) {
  const out = {};
  for (const k of keys) out[k] = result[k].slice(); // copies: the view into WASM memory may die
  return out;
}

// Names (string ids) in `ids` the page has not been sent yet, as {id: name}.
function newNames(k, ...columns) {
  const want = [];
  for (const col of columns) {
    for (const id of col) {
      if (!k.names.has(id)) {
        k.names.add(id);
        want.push(id);
      }
    }
  }
  return want.length ? JSON.parse(k.session.namesJson(JSON.stringify(want))) : {};
}

async function eventArgs(k, d) {
  if (!k.bytes) return { note: k.note || 'the event bytes are not kept for this input' };
  if (!d.byte_len) return { note: 'this slice has no event bytes' };
  const text = await k.bytes.slice(d.file_offset, d.file_offset + d.byte_len).text();
  try {
    const ev = JSON.parse(text);
    return { args: ev && typeof ev === 'object' && ev.args && typeof ev.args === 'object' ? ev.args : {}, text };
  } catch {
    return { text, note: 'the event is not strict JSON (the importer repaired it); its text is shown' };
  }
}

async function timelineAnswer(k, op, a) {
  const s = k.session;
  switch (op) {
    case TimelineOp.layout:
      return { layout: JSON.parse(s.trackLayoutJson()) };
    case TimelineOp.query: {
      const t0 = performance.now();
      const r = s.queryViewport(a.start, a.end, a.pixels, JSON.stringify(a.tracks), JSON.stringify(a.counters));
      const cols = copyColumns(r, LOD_COLUMNS);
      const cost = { searches: r.searches, pixelNs: r.pixelNs, ms: performance.now() - t0 };
      return { ...cols, ...cost, names: newNames(k, cols.name, cols.iName), transfer: LOD_COLUMNS.map((c) => cols[c].buffer) };
    }
    case TimelineOp.details: {
      const d = JSON.parse(s.sliceDetailsJson(a.slice));
      if (d.slice === undefined) return { details: null };
      return { details: { ...d, ...(await eventArgs(k, d)) } };
    }
    case TimelineOp.names:
      return { names: JSON.parse(s.sliceNamesJson()) };
    case TimelineOp.search: {
      const cols = copyColumns(s.slicesWithNames(JSON.stringify(a.ids)), HIT_COLUMNS);
      return { ...cols, transfer: HIT_COLUMNS.map((c) => cols[c].buffer) };
    }
    case TimelineOp.slices: {
      const cols = copyColumns(s.slicesWithIds(JSON.stringify(a.slices)), HIT_COLUMNS);
      return { ...cols, transfer: HIT_COLUMNS.map((c) => cols[c].buffer) };
    }
    case TimelineOp.criticalPath:
      return { criticalPath: JSON.parse(s.criticalPathJson(a.annotation || '', Number.isFinite(a.instance) ? a.instance : 0, !!a.whole)) };
    case TimelineOp.offsets:
      return { slices: JSON.parse(s.slicesAtOffsetsJson(JSON.stringify(a.offsets))) };
    case TimelineOp.brief:
      return { brief: JSON.parse(s.sliceBriefJson(a.slice)) };
    case TimelineOp.aggregate:
      return { aggregate: JSON.parse(s.aggregateJson(a.from, a.to, JSON.stringify(a.tracks))) };
    case TimelineOp.flows:
      return { flows: JSON.parse(s.flowsForSlice(a.slice)) };
    case TimelineOp.sliceAt:
      return { slice: s.sliceAt(a.track, a.depth, a.t, a.tolerance) };
    default:
      throw new Error(`unknown timeline request ${op}`);
  }
}

// {tl, id, req, op, args} -> {tl, id, req, result | error}
export async function timelineRequest(msg) {
  const reply = (body, transfer = []) => self.postMessage({ type: Msg.timelineReply, id: msg.id, req: msg.req, ...body }, transfer);
  const k = keptFor(msg.id);
  if (!k) {
    reply({ error: errorBody('stale', 'that trace is no longer loaded') });
    return;
  }
  try {
    const result = await timelineAnswer(k, msg.op, msg.args || {});
    const transfer = result.transfer || [];
    delete result.transfer;
    reply({ result }, transfer);
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) {
      resetModule();
      forgetKept();
    }
    reply({ error: errorBody('timeline_failed', String(e.message || e)) });
  }
}
