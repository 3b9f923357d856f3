#!/usr/bin/env node
// Where the page's main thread spends a warm load (issue #19, the fixed costs: the report's
// DOM): a V8 CPU profile (DevTools Profiler, 100 us sampling) from the file given to the report
// painted, as SHARES of its samples by script file and by function (self time). Shares within one
// run do not depend on the machine's load the way milliseconds do. Blink's own style, layout and
// paint show as "(program)". Prints one JSON line.
//   node bench/page_profile.mjs TRACE
//   node bench/page_profile.mjs RANK0 RANK1 ...     the ranks view (several files at once)
//   KS_COMPARE=1 node bench/page_profile.mjs BASE TEST    the compare view
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { openWarmPage, startBrowser, startServer } from '../tests/browser/lib.mjs';

const files = process.argv.slice(2);
const file = files[0];
const compare = process.env.KS_COMPARE === '1';
if (!files.length || (compare && files.length !== 2)) {
  console.error('usage: node bench/page_profile.mjs TRACE... (KS_COMPARE=1: BASE TEST)');
  process.exit(2);
}
// The ranks and compare views record no `painted` timing: their load ends when the report is ready.
const single = files.length === 1;
const profile = mkdtempSync(join(tmpdir(), 'ks-prof-'));
const server = await startServer();
const ctx = await startBrowser(profile);
try {
  const { page } = await openWarmPage(ctx, server.origin, '/');
  // KS_LOADS=N: the file is read N-1 times before the profiled load (what a page's first report
  // pays once, fonts and Blink's caches, against what every report pays).
  for (let i = 1; i < Number(process.env.KS_LOADS || 1); i++) {
    await page.setInputFiles('#file', file);
    await page.waitForFunction((n) => Number(document.body.dataset.loads || 0) >= n, i, { timeout: 1_800_000, polling: 50 });
    await page.waitForFunction(() => window.kinetoscope.timings().painted !== undefined && document.body.dataset.warm === '1', null, { timeout: 120_000, polling: 50 });
  }
  const loadsBefore = await page.evaluate(() => Number(document.body.dataset.loads || 0));
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  await cdp.send('Profiler.start');
  // Blink's own work on the main thread (style, layout, paint), from its trace events.
  const traceEvents = [];
  cdp.on('Tracing.dataCollected', (e) => traceEvents.push(...e.value));
  const traced = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.start', { categories: 'devtools.timeline,disabled-by-default-devtools.timeline,disabled-by-default-devtools.timeline.stack,blink.user_timing' + (process.env.KS_INVALIDATIONS ? ',disabled-by-default-devtools.timeline.invalidationTracking' : ''), transferMode: 'ReportEvents' });
  // KS_EXTRA_CSS: a style rule added before the file, for A/B experiments on the report's layout.
  // (A constructed sheet: the page's CSP refuses a <style>.)
  if (process.env.KS_EXTRA_CSS) {
    await page.evaluate((css) => {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(css);
      document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    }, process.env.KS_EXTRA_CSS);
  }
  // Which content-visibility: auto sections Blink laid out (skipped false) and skipped again, in order.
  await page.evaluate(() => {
    window.__ksSkips = [];
    document.addEventListener('contentvisibilityautostatechange', (e) => window.__ksSkips.push(`${e.target.id}:${e.skipped ? 'skip' : 'show'}`), true);
  });
  await page.evaluate(() => {
    new MutationObserver(() => performance.mark('ks-report-dom')).observe(document.getElementById('report'), { childList: true });
    new MutationObserver(() => performance.mark(`ks-state-${document.body.dataset.state}`)).observe(document.body, { attributes: true, attributeFilter: ['data-state'] });
  });
  if (compare) {
    await page.click('#compare-open');
    await page.setInputFiles('#compare-base', files[0]);
    await page.setInputFiles('#compare-test', files[1]);
  } else await page.setInputFiles('#file', single ? file : files);
  await page.waitForFunction((n) => ['ready', 'error'].includes(document.body.dataset.state) && Number(document.body.dataset.loads || 0) > n, loadsBefore, { timeout: 1_800_000, polling: 50 });
  if (single) await page.waitForFunction(() => window.kinetoscope.timings().painted !== undefined, null, { polling: 20 });
  else {
    // Their state says ready before the report is painted: two frames more, and half a second for
    // the layouts a task after them adds (a text field's, views/held_fields.js).
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await page.waitForTimeout(500);
  }
  const { profile: prof } = await cdp.send('Profiler.stop');
  await cdp.send('Tracing.end');
  await traced;
  // KS_TRACE_OUT=FILE: the raw trace events too, to read in DevTools (Performance, Load profile).
  if (process.env.KS_TRACE_OUT) writeFileSync(process.env.KS_TRACE_OUT, JSON.stringify({ traceEvents }));
  const timings = await page.evaluate(() => window.kinetoscope.timings());
  // The page's main thread: of the renderers' main threads (another renderer may be traced too),
  // the one that laid out the most.
  const mains = new Set(traceEvents.filter((e) => e.name === 'thread_name' && e.args && e.args.name === 'CrRendererMain').map((e) => e.tid));
  const layoutsBy = new Map([...mains].map((t) => [t, 0]));
  for (const e of traceEvents) if (e.name === 'Layout' && layoutsBy.has(e.tid)) layoutsBy.set(e.tid, layoutsBy.get(e.tid) + 1);
  const mainTid = [...layoutsBy].sort((a, b) => b[1] - a[1])[0]?.[0];
  const blinkMs = {};
  const blinkCount = {};
  const blinkCpuMs = {};
  const layouts = [];
  for (const e of traceEvents) {
    if (e.ph !== 'X' || e.tid !== mainTid || !/^(Layout|UpdateLayoutTree|RecalculateStyles|Paint|PrePaint|Layerize|UpdateLayer|HitTest|ParseHTML|ParseAuthorStyleSheet|Commit|IntersectionObserverController::computeIntersections)$/.test(e.name)) continue;
    blinkCount[e.name] = (blinkCount[e.name] || 0) + 1;
    if (e.name === 'Layout') {
      // [ms, layout objects it laid out of the tree's total, ms after the first layout, the script that forced it]
      const begin = e.args.beginData || {};
      layouts.push([Math.round(e.dur / 100) / 10, `${begin.dirtyObjects}/${begin.totalObjects} ${String(begin.frame).slice(-6)}`, e.ts, (begin.stackTrace || []).slice(0, 2).map((f) => `${f.functionName} ${String(f.url).replace(/^https?:\/\/[^/]+\//, '')}:${f.lineNumber}`).join(' < ')]);
    }
    blinkMs[e.name] = Math.round(((blinkMs[e.name] || 0) + e.dur / 1000) * 10) / 10;
    // The thread's CPU time in it (tdur), which the machine's load moves far less than the wall time.
    if (e.tdur !== undefined) blinkCpuMs[e.name] = Math.round(((blinkCpuMs[e.name] || 0) + e.tdur / 1000) * 10) / 10;
  }
  // Every main-thread event by name (nested ones counted in their parents' too): where "(program)" goes.
  const allMs = {};
  for (const e of traceEvents) if (e.ph === 'X' && e.tid === mainTid && e.dur) allMs[e.name] = (allMs[e.name] || 0) + e.dur / 1000;
  // The main thread's CPU time in tasks over the load (top-level tasks' tdur).
  let tasksCpu = 0;
  let taskEnd = -Infinity;
  for (const e of traceEvents.filter((x) => x.ph === 'X' && x.tid === mainTid && x.name === 'RunTask' && x.tdur).sort((a, b) => a.ts - b.ts)) {
    if (e.ts < taskEnd) continue; // a task run inside another one
    taskEnd = e.ts + e.dur;
    tasksCpu += e.tdur / 1000;
  }
  const mainEvents = Object.entries(allMs).sort((a, b) => b[1] - a[1]).slice(0, 16).map(([k, v]) => [k, Math.round(v)]);
  // KS_INVALIDATIONS=1: what made layout dirty (Blink's reason, the script that did it), counted.
  const invalidations = {};
  for (const e of traceEvents) {
    if (e.name !== 'LayoutInvalidationTracking' || !e.args || !e.args.data) continue;
    const d = e.args.data;
    const at = (d.stackTrace || []).slice(0, 3).map((f) => `${f.functionName} ${String(f.url).replace(/^https?:\/\/[^/]+\//, '')}:${f.lineNumber}`).join(' < ');
    const k = `${d.reason} | ${d.nodeName || ''} | ${at}`;
    invalidations[k] = (invalidations[k] || 0) + 1;
  }
  const marks = traceEvents.filter((e) => e.cat === 'blink.user_timing' && /^ks-/.test(e.name)).map((e) => [e.name, e.ts]);
  const firstLayout = Math.min(...layouts.map((l) => l[2]));
  for (const l of layouts) l[2] = Math.round((l[2] - firstLayout) / 1000);
  for (const m of marks) m[1] = Math.round((m[1] - firstLayout) / 1000);
  // The report's size in the DOM: what Blink styles and lays out.
  const elements = await page.evaluate(() => ({
    document: document.getElementsByTagName('*').length,
    report: document.querySelectorAll('#report *').length,
    visibility_changes: window.__ksSkips,
    sections: [...document.querySelectorAll('#report > *')].map((s) => [s.id || s.className, s.getElementsByTagName('*').length, Math.round(s.getBoundingClientRect().height)]),
  }));
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
  console.log(JSON.stringify({ file: basename(file), busy_ms: Math.round(busyMs), blink_main_thread_ms: blinkMs, blink_main_thread_cpu_ms: blinkCpuMs, main_thread_task_cpu_ms: Math.round(tasksCpu), blink_counts: blinkCount, elements, marks, invalidations: Object.entries(invalidations).sort((a, b) => b[1] - a[1]).slice(0, 25), main_thread_events_ms: mainEvents, layouts_in_order: layouts.filter((l) => l[0] >= 1), longest_layouts: [...layouts].sort((a, b) => b[0] - a[0]).slice(0, 6), by_file_pct: shares(byFile, 12), by_function_pct: shares(byFn, 15), timings_ms: timings }));
} finally {
  await ctx.close();
  server.proc.kill();
  rmSync(profile, { recursive: true, force: true });
}
