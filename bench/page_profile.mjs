#!/usr/bin/env node
// Where the page's main thread spends a warm load (issue #19, the fixed costs: the report's
// DOM): a V8 CPU profile (DevTools Profiler, 100 us sampling) from the file given to the report
// painted, as SHARES of its samples by script file and by function (self time). Shares within one
// run do not depend on the machine's load the way milliseconds do. Blink's own style, layout and
// paint show as "(program)". Prints one JSON line.
//   node bench/page_profile.mjs TRACE
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { openWarmPage, startBrowser, startServer } from '../tests/browser/lib.mjs';

const file = process.argv[2];
const profile = mkdtempSync(join(tmpdir(), 'ks-prof-'));
const server = await startServer();
const ctx = await startBrowser(profile);
try {
  const { page } = await openWarmPage(ctx, server.origin, '/');
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  await cdp.send('Profiler.start');
  // Blink's own work on the main thread (style, layout, paint), from its trace events.
  const traceEvents = [];
  cdp.on('Tracing.dataCollected', (e) => traceEvents.push(...e.value));
  const traced = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.start', { categories: 'devtools.timeline,disabled-by-default-devtools.timeline,disabled-by-default-devtools.timeline.stack', transferMode: 'ReportEvents' });
  await page.setInputFiles('#file', file);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.state) && Number(document.body.dataset.loads || 0) > 0, null, { timeout: 1_800_000, polling: 50 });
  await page.waitForFunction(() => window.kinetoscope.timings().painted !== undefined, null, { polling: 20 });
  const { profile: prof } = await cdp.send('Profiler.stop');
  await cdp.send('Tracing.end');
  await traced;
  const timings = await page.evaluate(() => window.kinetoscope.timings());
  const mainTid = (traceEvents.find((e) => e.name === 'thread_name' && e.args && e.args.name === 'CrRendererMain') || {}).tid;
  const blinkMs = {};
  const blinkCount = {};
  const layouts = [];
  for (const e of traceEvents) {
    if (e.ph !== 'X' || e.tid !== mainTid || !/^(Layout|UpdateLayoutTree|RecalculateStyles|Paint|PrePaint|Layerize|UpdateLayer|HitTest|ParseHTML|ParseAuthorStyleSheet|Commit|IntersectionObserverController::computeIntersections)$/.test(e.name)) continue;
    blinkCount[e.name] = (blinkCount[e.name] || 0) + 1;
    if (e.name === 'Layout') layouts.push([Math.round(e.dur / 100) / 10, ((e.args.beginData || {}).stackTrace || []).slice(0, 2).map((f) => `${f.functionName} ${String(f.url).replace(/^https?:\/\/[^/]+\//, '')}:${f.lineNumber}`).join(' < ')]);
    blinkMs[e.name] = Math.round(((blinkMs[e.name] || 0) + e.dur / 1000) * 10) / 10;
  }
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const counts = new Map();
  for (const id of prof.samples) counts.set(id, (counts.get(id) || 0) + 1);
  const byFile = {};
  const byFn = {};
  let total = 0;
  for (const [id, c] of counts) {
    const f = byId.get(id).callFrame;
    if (f.functionName === '(idle)') continue;
    total += c;
    const where = f.url ? f.url.replace(/^https?:\/\/[^/]+\//, '').replace(/\?.*$/, '') : f.functionName;
    byFile[where] = (byFile[where] || 0) + c;
    const fn = `${f.functionName || '(anonymous)'} ${where}:${f.lineNumber + 1}`;
    byFn[fn] = (byFn[fn] || 0) + c;
  }
  const shares = (o, n) => Object.entries(o).sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => [k, Math.round((1000 * v) / total) / 10]);
  const busyMs = total * ((prof.endTime - prof.startTime) / 1000 / prof.samples.length);
  console.log(JSON.stringify({ file: basename(file), busy_ms: Math.round(busyMs), blink_main_thread_ms: blinkMs, blink_counts: blinkCount, longest_layouts: layouts.sort((a, b) => b[0] - a[0]).slice(0, 6), by_file_pct: shares(byFile, 12), by_function_pct: shares(byFn, 15), timings_ms: timings }));
} finally {
  await ctx.close();
  server.proc.kill();
  rmSync(profile, { recursive: true, force: true });
}
