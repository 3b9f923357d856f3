// The timeline's parts alone, in Node (no browser): the lanes (layout.js), coordinates
// (geometry.js), hit testing (geometry.js hitAt), the area's lane snapping (area.js), search and
// highlights through a fake worker client (search.js, evidence.js), and the ids "show on timeline"
// and links carry (links.js, sharing.js, share/view.js). Run: node --test tests/web/
import test from 'node:test';
import assert from 'node:assert/strict';
import { GROUP_H, LABEL_W, ROW_H, RULER_H, TRACK_PAD, INSTANT_H, COUNTER_H, FOLD_ROWS, FOLDED_ROWS, buildLanes, itemsBetween, laneIndexAt } from '../../web/timeline/layout.js';
import { hitAt, lowerBound, plotWidth, rowY, timeAt, xOf } from '../../web/timeline/geometry.js';
import { snapToLanes } from '../../web/timeline/area.js';
import { search } from '../../web/timeline/search.js';
import { setHighlight } from '../../web/timeline/evidence.js';
import { eventIdOf, offsetsOf } from '../../web/timeline/links.js';
import { linkId } from '../../web/timeline/sharing.js';
import { counterMaxLabel, counterUnit, fmtCounter } from '../../web/timeline/units.js';
import { fakeHub, laidOutState, layout } from './fixtures.mjs';

test('buildLanes: headers, tracks by rows, counters; empty and sparse tracks left out; folds', () => {
  const geo = buildLanes(layout(), new Set());
  // GPU processes first (the worker's layout has the CPU first).
  assert.deepEqual(geo.lanes.map((l) => l.key), ['p0', 't3', 'c0', 'p1', 't0']);
  assert.equal(geo.hidden, 1); // the sparse one
  const main = geo.trackLane.get(0);
  const stream0 = geo.trackLane.get(3);
  assert.equal(main.y, 2 * GROUP_H + stream0.h + COUNTER_H);
  assert.equal(main.h, TRACK_PAD * 2 + 3 * ROW_H);
  const stream = geo.trackLane.get(3);
  assert.equal(stream.rowsTop, stream.y + TRACK_PAD + INSTANT_H); // the instants' strip above
  assert.equal(geo.height, 2 * GROUP_H + main.h + stream.h + COUNTER_H);
  const withSparse = buildLanes(layout(), new Set(), true);
  assert.deepEqual(withSparse.lanes.map((l) => l.key), ['p0', 't3', 'c0', 'p1', 't0', 't2']);
  const folded = buildLanes(layout(), new Set(['p1']));
  assert.deepEqual(folded.lanes.map((l) => l.key), ['p0', 't3', 'c0', 'p1']);
  assert.equal(folded.lanes[3].closed, true);
  // Lanes in a band, and the tracks of a folded group when asked.
  assert.deepEqual(itemsBetween(folded.lanes, 0, 10_000), { tracks: [3], counters: [0] });
  assert.deepEqual(itemsBetween(folded.lanes, folded.height - 1, folded.height, { withCollapsed: true }).tracks, [0, 1, 2]);
  assert.equal(laneIndexAt(geo.lanes, GROUP_H - 1), 0);
  assert.equal(laneIndexAt(geo.lanes, GROUP_H), 1);
});

test('buildLanes: a deep CPU thread shows its top rows until expanded; GPU streams never fold', () => {
  const l = layout();
  l.groups[0].tracks[0].rows = 11; // a Python stack
  l.groups[1].tracks[0].rows = 6; // a deep GPU stream (nested kernels): all rows
  const geo = buildLanes(l, new Set());
  const main = geo.trackLane.get(0);
  assert.equal(main.rows, FOLDED_ROWS);
  assert.equal(main.folded, 11 - FOLDED_ROWS);
  assert.equal(main.h, TRACK_PAD * 2 + FOLDED_ROWS * ROW_H);
  assert.equal(geo.trackLane.get(3).rows, 6);
  assert.equal(geo.trackLane.get(3).folded, 0);
  const open = buildLanes(l, new Set(), false, new Set([0]));
  assert.equal(open.trackLane.get(0).rows, 11);
  assert.equal(open.trackLane.get(0).folded, 0);
  assert.equal(open.height - geo.height, (11 - FOLDED_ROWS) * ROW_H);
  // A CPU thread filed under the GPU's pid (Kineto does that): after the streams, and folded.
  l.groups[1].tracks.unshift({ id: 4, name: 'thread 0 (python3)', kind: 'thread', rows: 7, instants: false });
  const mixed = buildLanes(l, new Set());
  assert.deepEqual(mixed.lanes.map((x) => x.key), ['p0', 't3', 't4', 'c0', 'p1', 't0']);
  assert.equal(mixed.trackLane.get(4).folded, 7 - FOLDED_ROWS);
  l.groups[1].tracks.shift();
  // A thread of FOLD_ROWS rows or fewer is left whole.
  l.groups[0].tracks[0].rows = FOLD_ROWS;
  assert.equal(buildLanes(l, new Set()).trackLane.get(0).folded, 0);
  // Rows folded away have no place on screen.
  const st = laidOutState();
  st.layout = l;
  l.groups[0].tracks[0].rows = 11;
  st.geo = geo;
  assert.equal(rowY(st, 0, FOLDED_ROWS), null);
  assert.notEqual(rowY(st, 0, FOLDED_ROWS - 1), null);
});

test('geometry: time and x are inverse; rows on screen; lowerBound', () => {
  const st = laidOutState();
  assert.equal(plotWidth(st), 1000 - LABEL_W);
  assert.equal(xOf(st, 0), LABEL_W);
  assert.equal(xOf(st, 1_000_000), 1000);
  for (const t of [0, 123_456, 999_999]) assert.ok(Math.abs(timeAt(st, xOf(st, t)) - t) < 1e-6);
  st.scrollY = 10;
  assert.equal(rowY(st, 0, 2), RULER_H + st.geo.trackLane.get(0).rowsTop + 2 * ROW_H - 10);
  assert.equal(rowY(st, 2, 0), null); // sparse: not laid out
  const a = new Float64Array([1, 3, 3, 7]);
  assert.deepEqual([0, 1, 3, 4, 8].map((x) => lowerBound(a, 0, 4, x)), [0, 0, 1, 3, 4]);
});

test('hitAt: the lane, row and time under a point', () => {
  const st = laidOutState();
  const main = st.geo.trackLane.get(0);
  const y = RULER_H + main.rowsTop + ROW_H + 2; // row 1 of the main thread
  const hit = hitAt(st, xOf(st, 500_000), y);
  assert.equal(hit.lane.key, 't0');
  assert.equal(hit.depth, 1);
  assert.ok(Math.abs(hit.t - 500_000) < 1);
  assert.equal(hit.inPlot, true);
  assert.equal(hitAt(st, 5, y).inPlot, false); // on the label
  assert.equal(hitAt(st, 500, RULER_H - 1), null); // the ruler
  assert.equal(hitAt(st, 500, RULER_H + st.geo.height + 5), null); // below the last lane
  assert.equal(hitAt(st, 500, RULER_H + 3).lane.kind, 'group');
  st.scrollY = ROW_H; // scrolled: the same point is one row further down
  assert.equal(hitAt(st, xOf(st, 500_000), y).depth, 2);
});

test('snapToLanes: an area covers whole lanes', () => {
  const { lanes } = buildLanes(layout(), new Set());
  const main = lanes[1];
  assert.deepEqual(snapToLanes(lanes, main.y + 5, main.y + 6), { y0: main.y, y1: main.y + main.h });
  const last = lanes[lanes.length - 1];
  assert.deepEqual(snapToLanes(lanes, 0, 1e6), { y0: 0, y1: last.y + last.h });
});

test('search: names matched here, slices by name id from the worker, hit count shown', async () => {
  const cols = { slice: Int32Array.of(4, 8), start: Float64Array.of(10, 50), end: Float64Array.of(20, 90), track: Uint32Array.of(0, 3), depth: Uint32Array.of(0, 0) };
  const tl = fakeHub({
    names: () => ({ names: [[1, 'ampere_sgemm'], [2, 'cudaLaunchKernel'], [3, 'volta_sgemm']] }),
    search: ({ ids }) => {
      assert.deepEqual(ids, [1, 3]);
      return cols;
    },
  });
  assert.equal(await search(tl, 'SGEMM', false), 2);
  assert.equal(tl.st.hits.maxDur, 40);
  assert.equal(tl.dom.hitCount.textContent, '2 matches · 2 names');
  assert.equal(await search(tl, '(', true), -1);
  assert.match(tl.dom.hitCount.textContent, /^not a regular expression/);
  assert.equal(tl.dom.searchInput.classList.contains('bad'), true);
  assert.equal(await search(tl, '', false), 0);
  assert.equal(tl.st.hits, null);
  assert.equal(tl.requests.filter((r) => r.op === 'names').length, 1); // the list is asked once
});

test('setHighlight: slices outlined by index in one request, found ones counted, cleared with null', async () => {
  const known = { 5: { start: 300, end: 310, track: 0, depth: 1 }, 2: { start: 100, end: 150, track: 3, depth: 0 } };
  // The worker's `slices` op: hit columns of the slices that exist, by start time.
  const slices = ({ slices: ids }) => {
    const found = ids.filter((i) => known[i]).sort((a, b) => known[a].start - known[b].start);
    const col = (k) => Float64Array.from(found, (i) => known[i][k]);
    return { slice: Int32Array.from(found), start: col('start'), end: col('end'), track: col('track'), depth: col('depth') };
  };
  const tl = fakeHub({ slices });
  assert.equal(await setHighlight(tl, [5, 2, 5, 99, -1, 'x'], { label: 'critical path' }), 2);
  assert.deepEqual([...tl.st.highlight.slice], [2, 5]); // by start time, duplicates once
  assert.equal(tl.st.highlight.maxDur, 50);
  assert.equal(tl.st.highlight.label, 'critical path');
  const asked = tl.requests.filter((r) => r.op === 'slices');
  assert.equal(asked.length, 1); // one request for the whole set
  assert.deepEqual(asked[0].args.slices, [5, 2, 99]); // valid ids, each once
  assert.equal(await setHighlight(tl, null), 0);
  assert.equal(tl.st.highlight, null);
});

test('ids of events: an export row id (past 2^53) travels as its exact decimal string', () => {
  const big = '144115188075855873'; // table 2 (kernels) << 56 | row 1
  assert.ok(Number(big) > Number.MAX_SAFE_INTEGER && String(Number(big)) !== big);
  assert.equal(eventIdOf({ byte_offset: Number(big), event_id: big }), big);
  assert.equal(eventIdOf({ byte_offset: 1234 }), 1234);
  assert.equal(eventIdOf({ byte_offset: Number(big) }), null); // not exact: not sent
  assert.deepEqual(offsetsOf([{ byte_offset: 7 }, { name: 'no offset' }, { byte_offset: 2 ** 60, event_id: big }]), [7, big]);
  assert.equal(linkId({ file_offset: Number(big), event_id: big }), big);
  assert.equal(linkId({ file_offset: 42 }), 42);
  assert.equal(linkId(null), null);
});

test('links: `s` keeps an export row id exact through the fragment', async () => {
  // share/view.js listens to the window: a stand-in for Node.
  globalThis.window = { addEventListener() {} };
  globalThis.location = { href: 'http://x/' };
  const { formatFragment, parseFragment, sliceId } = await import('../../web/share/view.js');
  const big = '144115188075855873';
  assert.equal(parseFragment(`#${formatFragment({ v: 'timeline', s: big })}`).s, big);
  assert.equal(parseFragment('#s=1234').s, 1234);
  // A range of 400 digits reads as Infinity: no range, not [Infinity, Infinity] (a NaN window).
  const digits = '9'.repeat(400);
  assert.equal(parseFragment(`#t=${digits},${digits}`).t, undefined);
  assert.equal(parseFragment(`#t=-${digits},5`).t, undefined);
  assert.deepEqual(parseFragment('#t=1.5,20').t, [1.5, 20]);
  assert.equal(parseFragment('#s=99999999999999999999999').s, undefined); // past 2^64
  // A crafted rank: 400 digits read as Infinity ("rank Infinity", and setView refuses it).
  assert.equal(parseFragment(`#r=${digits}`).r, undefined);
  assert.equal(parseFragment('#r=12').r, 12);
  assert.equal(sliceId(18446744073709551615n.toString()), '18446744073709551615');
  assert.equal(sliceId('18446744073709551616'), null);
  assert.equal(sliceId(2 ** 60), null); // an inexact number is refused, not rounded
  assert.equal(sliceId(-1), null);
});

test('fmtCounter: a counter row\'s maximum reads as a number, large ones grouped, not in exponent form', () => {
  assert.equal(fmtCounter(77824), '77,824');
  assert.equal(fmtCounter(77823.6), '77,824');
  assert.equal(fmtCounter(35), '35');
  assert.equal(fmtCounter(61.53), '61.53');
  assert.equal(fmtCounter(0.000123456), '0.0001235');
  assert.equal(fmtCounter(NaN), '—');
});

test('counterUnit: a GPU metric row says its unit, from the metric name nsys wrote', () => {
  // Nsight Systems 2023 and later: the unit in brackets at the end of the name.
  assert.equal(counterUnit('SMs Active [Throughput %]', true), '%');
  assert.equal(counterUnit('GPC Clock Frequency [MHz]', true), 'MHz');
  assert.equal(counterUnit('PCIe Read Bandwidth [GB/s]', true), 'GB/s');
  // 2021-2022: no brackets; percentages of peak and clocks in MHz on a GPU's rows only.
  assert.equal(counterUnit('SM Active', true), '%');
  assert.equal(counterUnit('DRAM Bandwidth', true), '%');
  assert.equal(counterUnit('SYS Clock Frequency', true), 'MHz');
  assert.equal(counterUnit('SM Active', false), '');
  assert.equal(counterUnit('Memory Allocated', false), '');
  assert.equal(counterMaxLabel({ name: 'SM Active', max: 35 }, true), 'max 35%');
  assert.equal(counterMaxLabel({ name: 'GPC Clock Frequency [MHz]', max: 1410 }, true), 'max 1410 MHz');
  assert.equal(counterMaxLabel({ name: 'queue depth', max: 12 }, false), 'max 12');
});

test('a track label cut to its column keeps what tells it from its thread\'s other rows', async () => {
  const { distinctTail, truncateKeepingEnd } = await import('../../web/timeline/text.js');
  const ctx = { measureText: (s) => ({ width: s.length * 6.5 }) }; // 28 characters in 192 px
  const rows = ['cuda-EvtHandlr [1701906] OS runtime', 'cuda-EvtHandlr [1701906] CPU state', 'cuda-EvtHandlr [1701906] Profiler overhead'];
  const labels = rows.map((n, i) => truncateKeepingEnd(ctx, n, 192, distinctTail(n, rows[i - 1], rows[i + 1])));
  assert.deepEqual(labels, ['cuda-E… [1701906] OS runtime', 'cuda-Ev… [1701906] CPU state', '…[1701906] Profiler overhead']);
  assert.ok(labels.every((l) => l.length <= 28), labels.join(' | '));
  // Nothing shared, or a name that fits: as before.
  assert.equal(distinctTail('stream 7', undefined, 'python3 NVTX'), 0);
  assert.equal(truncateKeepingEnd(ctx, 'stream 7', 192, 1), 'stream 7');
});
