// The timeline's state module (web/timeline/state.js): the window, scrolling, when to query the
// worker again, indexing an answer, hits. Run: node --test tests/web/
import test from 'node:test';
import assert from 'node:assert/strict';
import { MIN_SPAN_NS, clampScrollY, memoryOf, clampWindow, columnsFromBriefs, fitWindow, hitCountText, hitsFrom, indexRows, nameMatcher, needsQuery, nextHitIndex, scrollToShow, zoomWindow } from '../../web/timeline/state.js';
import { lowerBound } from '../../web/timeline/geometry.js';

// A trace whose first event is its time zero, `span` ns long (state.js traceDomain).
const from0 = (span) => ({ start: 0, span });

test('clampWindow: at least MIN_SPAN_NS, at most 4x the trace, some of the trace on screen', () => {
  assert.deepEqual(clampWindow(from0(1000), 100, 200), { start: 100, end: 200 });
  const tiny = clampWindow(from0(1000), 500, 500);
  assert.equal(tiny.end - tiny.start, MIN_SPAN_NS);
  assert.equal((tiny.start + tiny.end) / 2, 500); // about the same middle
  const huge = clampWindow(from0(1000), -1e9, 1e9);
  assert.equal(huge.end - huge.start, 4000);
  // Far past the end: pulled back so that 10% of the window still shows the trace.
  const past = clampWindow(from0(1000), 5000, 5100);
  assert.equal(past.start, 1000 - 100 * 0.1);
  const before = clampWindow(from0(1000), -5000, -4900);
  assert.equal(before.start, -100 * 0.9);
});

test('clampWindow: an infinite or NaN window (a crafted link) shows the whole trace, never NaN', () => {
  for (const [a, b] of [[Infinity, Infinity], [-Infinity, Infinity], [0, NaN], [NaN, NaN]])
    assert.deepEqual(clampWindow(from0(1000), a, b), fitWindow(from0(1000)));
});

test('fitWindow shows the whole trace with 1% on each side', () => {
  assert.deepEqual(fitWindow(from0(1000)), { start: -10, end: 1010 });
});

test('zoomWindow keeps the anchor time at the same place on screen', () => {
  const v = { start: 0, end: 1000 };
  const z = zoomWindow(v, from0(10_000), 250, 0.5);
  assert.equal(z.end - z.start, 500);
  assert.equal((250 - z.start) / (z.end - z.start), (250 - v.start) / (v.end - v.start));
  assert.equal(zoomWindow(v, from0(10_000), 0, 1e-9).end, MIN_SPAN_NS); // not below the minimum
  assert.equal(zoomWindow(v, from0(100), 0, 1e9).end, 400); // nor past 4x the trace
});

test('scrolling stays within the lanes; a row well in view does not scroll', () => {
  assert.equal(clampScrollY(-5, 1000, 300), 0);
  assert.equal(clampScrollY(900, 1000, 300), 700);
  assert.equal(clampScrollY(50, 200, 300), 0); // everything fits
  assert.equal(scrollToShow(150, 0, 300), 0); // at 50%: stays
  assert.equal(scrollToShow(280, 0, 300), 180); // at 93%: brought to a third
  assert.equal(scrollToShow(10, 100, 300), -90); // above: brought down (clamped by the caller)
});

test('a trace that starts after its time zero (an Nsight Systems session): fit, clamp and fetch follow it', () => {
  // The first event 50,000 ns after the session start, 1000 ns long.
  const dom = { start: 50_000, span: 1000 };
  assert.deepEqual(fitWindow(dom), { start: 49_990, end: 51_010 });
  // A window at 0 (before the capture) is brought to where the trace is: some of it on screen.
  const early = clampWindow(dom, 0, 100);
  assert.ok(early.end > 50_000 && early.start < 51_000, JSON.stringify(early));
  const late = clampWindow(dom, 90_000, 90_100);
  assert.ok(late.start < 51_000, JSON.stringify(late));
  // A view at the trace's start whose answer reaches a view's width before it: nothing lies
  // further left, so no new query; counted from 0, the same answer looked cut short.
  const d = { winStart: 49_890, winEnd: 50_400, nsPerPx: 1, pixelNs: 1, trackSet: new Set([1]), counterSet: new Set() };
  const view = { start: 49_910, end: 50_010 };
  assert.equal(needsQuery(d, view, dom, 100, { tracks: [1], counters: [] }), false);
  assert.equal(needsQuery(d, view, from0(1000), 100, { tracks: [1], counters: [] }), true);
});

test('needsQuery: edges of the fetched window, the scale, lanes not covered', () => {
  const d = { winStart: -1000, winEnd: 2000, nsPerPx: 1, pixelNs: 1, trackSet: new Set([1, 2]), counterSet: new Set() };
  const items = { tracks: [1], counters: [] };
  assert.equal(needsQuery(null, { start: 0, end: 1000 }, from0(1000), 1000, items), true);
  assert.equal(needsQuery(d, { start: 0, end: 1000 }, from0(1000), 1000, items), false);
  assert.equal(needsQuery(d, { start: 1100, end: 2100 }, from0(5000), 1000, items), true); // past the end
  assert.equal(needsQuery(d, { start: 0, end: 1000 }, from0(1000), 500, items), true); // 2 ns/px: coarser
  assert.equal(needsQuery(d, { start: 0, end: 1000 }, from0(1000), 1000, { tracks: [3], counters: [] }), true);
  assert.equal(needsQuery(d, { start: 0, end: 1000 }, from0(1000), 1000, { tracks: [], counters: [0] }), true);
});

test('indexRows: rows per track and depth, series and instant ranges, hues per rectangle', () => {
  const d = {
    start: new Float64Array([0, 10, 5, 0]),
    end: new Float64Array([5, 20, 6, 9]),
    track: new Uint32Array([1, 1, 1, 2]),
    depth: new Uint32Array([0, 0, 1, 0]),
    name: new Uint32Array([7, 8, 7, 9]),
    cSeries: new Uint32Array([4, 4, 5]),
    iTrack: new Uint32Array([2]),
  };
  indexRows(d, (id) => id % 3);
  assert.deepEqual(d.rows.get(1), [
    [0, 0, 2],
    [1, 2, 3],
  ]);
  assert.deepEqual(d.rows.get(2), [[0, 3, 4]]);
  assert.deepEqual(d.series.get(4), [0, 2]);
  assert.deepEqual(d.series.get(5), [2, 3]);
  assert.deepEqual(d.instRows.get(2), [0, 1]);
  assert.deepEqual([...d.hue], [1, 2, 1, 0]);
});

test('hits: columns from briefs by start, the longest, stepping with wrap-around, the count text', () => {
  const cols = columnsFromBriefs([
    { slice: 9, start_ns: 300, dur_ns: 50, track: 1, depth: 0 },
    { slice: 4, start_ns: 100, dur_ns: 120, track: 2, depth: 1 },
    { slice: 5, start_ns: 200, dur_ns: 10, track: 1, depth: 0 },
  ]);
  assert.deepEqual([...cols.slice], [4, 5, 9]);
  const hs = hitsFrom(cols);
  assert.equal(hs.maxDur, 120);
  assert.equal(hs.current, -1);
  assert.equal(hitCountText(hs, '2 names'), '3 matches · 2 names');
  assert.equal(nextHitIndex(hs, 1, 150, lowerBound), 1); // the first at or after the middle
  assert.equal(nextHitIndex(hs, -1, 150, lowerBound), 0); // the one before it
  assert.equal(nextHitIndex(hs, -1, 0, lowerBound), 2); // wraps
  hs.current = 2;
  assert.equal(nextHitIndex(hs, 1, 0, lowerBound), 0);
  assert.equal(hitCountText(hs, ''), '3 of 3');
  assert.equal(hitsFrom(null), null);
  assert.equal(hitCountText(null, 'x'), '');
});

test('nameMatcher: case-blind substring, or a regular expression; a bad one throws', () => {
  const n = (name) => ({ name, lower: name.toLowerCase() });
  assert.equal(nameMatcher('GEMM', false)(n('ampere_sgemm_128x64')), true);
  assert.equal(nameMatcher('gemm$', true)(n('ampere_sgemm_128x64')), false);
  assert.equal(nameMatcher('^ampere_.*x64$', true)(n('ampere_sgemm_128x64')), true);
  assert.equal(nameMatcher('(', false)(n('f(x)')), true); // not a regex: a plain substring
  assert.throws(() => nameMatcher('(', true), SyntaxError);
});

test('memoryOf: the typed arrays the page holds, and the worker index size from the layout', () => {
  const st = { data: { start: new Float64Array(10), track: new Uint32Array(10), rows: new Map(), ms: 3 }, hits: null, highlight: { slice: new Int32Array(4), label: 'x' }, layout: { index_bytes: 12345 } };
  assert.deepEqual(memoryOf(st), { page_bytes: 80 + 40 + 16, lod_bytes: 120, hits_bytes: 0, highlight_bytes: 16, index_bytes: 12345 });
  assert.equal(memoryOf({ data: null, hits: null, highlight: null, layout: null }).index_bytes, null);
});
