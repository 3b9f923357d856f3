#!/usr/bin/env node
// Where the page's memory goes in a warm load (issue #19: memory <= 0.35x the JSON). Loads TRACE
// as bench/ingest_browser.mjs --warm does, then splits the growth of the browser's resident memory
// (end of the load, after the report is painted) by process and, in the renderer, by mapping:
// the WebAssembly memory (the one mapping whose size is the worker's heap, as the worker's
// timings report it) and the rest (V8's heaps, Blink's and PartitionAlloc's). The page's own
// V8 heap (Runtime.getHeapUsage) and DOM counts (Memory.getDOMCounters) come from DevTools.
// Resident bytes do not depend on the machine's load; they vary with GC timing, so run it 2-3 times.
//   node bench/memory_split.mjs TRACE
import { readFileSync, readdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { openWarmPage, startBrowser, startServer, waitForWarm } from '../tests/browser/lib.mjs';

function processes(profile) {
  const out = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmd.includes(profile)) continue;
      const type = (/--type=([a-z-]+)/.exec(cmd) || [0, 'browser'])[1];
      const util = (/--utility-sub-type=([\w.]+)/.exec(cmd) || [0, ''])[1];
      const rss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
      out.push({ pid, kind: util ? `${type}:${util.split('.').pop()}` : type, rss });
    } catch {
      // processes come and go
    }
  }
  return out;
}

// start -> {size, rss} of each mapping of a process (bytes).
function mappings(pid) {
  const maps = new Map();
  let cur = null;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) /.exec(line);
    if (m) {
      cur = { start: m[1], size: Number(BigInt('0x' + m[2]) - BigInt('0x' + m[1])), rss: 0, name: line.split(/\s+/).slice(5).join(' '), perms: line.split(' ')[1] };
      maps.set(m[1], cur);
    } else if (cur && line.startsWith('Rss:')) cur.rss = Number(/(\d+)/.exec(line)[1]) * 1024;
  }
  return maps;
}

const MB = (n) => Math.round(n / 1e5) / 10;
const file = process.argv[2];
const profile = mkdtempSync(join(tmpdir(), 'ks-mem-'));
const server = await startServer();
const ctx = await startBrowser(profile);
try {
  const { page } = await openWarmPage(ctx, server.origin, '/');
  const cdp = await ctx.newCDPSession(page);
  const collect = async () => {
    for (const w of page.workers()) await w.evaluate(() => self.gc && self.gc()).catch(() => {});
    await page.evaluate(() => window.gc && window.gc());
    await page.waitForTimeout(2000);
  };
  if (process.env.KS_GC) await collect(); // the warm-up's garbage: not the load's
  const heap0 = await cdp.send('Runtime.getHeapUsage');
  const before = processes(profile);
  const renderer = before.filter((p) => p.kind === 'renderer').map((p) => p.pid);
  const maps0 = new Map(renderer.map((pid) => [pid, mappings(pid)]));
  const json = readFileSync(file).length;
  // The renderer's RSS over time (ms after the file is given), to set beside the load's marks.
  const series = [];
  const tGiven = performance.now();
  const rendererRss = () => renderer.reduce((s, pid) => s + ((processes(profile).find((p) => p.pid === pid) || {}).rss || 0), 0);
  const r0 = rendererRss();
  const sampler = setInterval(() => series.push([Math.round(performance.now() - tGiven), MB(rendererRss() - r0)]), 50);
  await page.setInputFiles('#file', file);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.state) && Number(document.body.dataset.loads || 0) > 0, null, { timeout: 1_800_000, polling: 50 });
  await page.waitForFunction(() => window.kinetoscope.timings().painted !== undefined, null, { polling: 20 });
  const timings = await page.evaluate(() => window.kinetoscope.timings());
  // The next spare (worker/roles.js starts it once the load has settled): the renderer's RSS at
  // the paint, whether the spare had started by then, and its RSS once the spare is warm.
  const atPaint = { renderer_growth_mb: MB(rendererRss() - r0), spare_started: await page.evaluate(() => document.body.dataset.spare === '1') };
  await waitForWarm(page);
  atPaint.spare_warm_renderer_growth_mb = MB(rendererRss() - r0);
  await page.waitForTimeout(Number(process.env.KS_AFTER_MS || 0));
  clearInterval(sampler);
  const heap1 = await cdp.send('Runtime.getHeapUsage');
  const dom = await cdp.send('Memory.getDOMCounters');
  const sizes = await page.evaluate(() => { const r = window.kinetoscope.report(); return { report_json_chars: JSON.stringify(r).length }; });
  // What a garbage collection in the page and in each worker gives back (KS_CHROMIUM_FLAGS=
  // --js-flags=--expose-gc makes gc() callable): memory that is garbage, not held.
  let afterGc = null;
  if (process.env.KS_GC) {
    const rss = () => processes(profile).filter((p) => p.kind === 'renderer').reduce((s, p) => s + p.rss, 0);
    const r0 = rss();
    await collect();
    afterGc = { renderer_rss_freed_mb: MB(r0 - rss()), workers: page.workers().length };
  }
  const after = processes(profile);
  const byKind = {};
  for (const p of after) {
    const b = before.find((q) => q.pid === p.pid);
    byKind[p.kind] = (byKind[p.kind] || 0) + p.rss - (b ? b.rss : 0);
  }
  for (const p of before) if (!after.find((q) => q.pid === p.pid)) byKind[p.kind] = (byKind[p.kind] || 0) - p.rss;
  const wasmSize = timings.worker.heap_bytes;
  const split = { wasm_memory: 0, other_grown: [] };
  for (const pid of renderer) {
    const m1 = mappings(pid);
    for (const [start, m] of m1) {
      const old = maps0.get(pid).get(start);
      const grown = m.rss - (old ? old.rss : 0);
      if (wasmSize && m.size === wasmSize) split.wasm_memory += m.rss;
      else if (Math.abs(grown) >= 256 << 10) split.other_grown.push({ start, size_mb: MB(m.size), grown_mb: MB(grown), perms: m.perms, name: m.name });
    }
  }
  split.other_grown.sort((a, b) => Math.abs(b.grown_mb) - Math.abs(a.grown_mb));
  const otherSum = split.other_grown.reduce((s, m) => s + m.grown_mb, 0);
  console.log(JSON.stringify({
    file: basename(file), json_mb: MB(json), events: timings.worker.events,
    rss_growth_mb: Object.fromEntries(Object.entries(byKind).map(([k, v]) => [k, MB(v)])),
    wasm_heap_mb: MB(wasmSize || 0), wasm_resident_mb: MB(split.wasm_memory), wasm_break_mb: MB(timings.worker.heap_break || 0),
    renderer_other_mappings_grown_mb: Math.round(otherSum * 10) / 10,
    page_v8_heap_used_mb: [MB(heap0.usedSize), MB(heap1.usedSize)], page_v8_heap_total_mb: [MB(heap0.totalSize), MB(heap1.totalSize)],
    at_paint: atPaint, after_gc: afterGc, dom, report_json_mb: MB(sizes.report_json_chars), timings_ms: timings,
    renderer_growth_series_mb: series, largest_other: split.other_grown.slice(0, 12),
  }));
} finally {
  await ctx.close();
  server.proc.kill();
  rmSync(profile, { recursive: true, force: true });
}
