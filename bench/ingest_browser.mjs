#!/usr/bin/env node
// Ingest in the real page, in headless Chromium: the file goes through the file input, the
// worker streams it (gzip through DecompressionStream) into the WASM module, and the clock stops
// when the report is on the page. Peak memory is the browser's total RSS (all its processes,
// sampled every 100 ms) above what it used before the file was given. Prints one JSON line.
// With --warm the file is given once the page has warmed up its next loader (web/app.js, "spare"),
// as when a user opens the page and then picks a file; without, the moment the page has loaded.
// --split=on|off and --workers=N go to the page's URL (web/worker/helpers.js: whether a large
// file is read by two workers, or by N; by default one per core, only with 4 cores or more).
// --revisit: a returning visitor's cold load. A first browser opens the page, lets it warm up,
// reads the file once and waits while V8 writes the optimized code it cached beside the .wasm
// (kept for good: its URL names its build; the warm-up alone compiles too little to be cached,
// V8 caches past 1 MB of optimized code), and closes;
// a second browser on the same profile then gives the file the moment the page has loaded, as the
// cold run does.
// KS_IDLE_MS=N waits N ms after the warm-up before the file, as a user picking a file does: V8's
// background compilation of what the warm-up made hot may still run when the page says it is
// warm, and a file given at once shares the cores with it (docs/performance.md, session 26).
//   node bench/ingest_browser.mjs TRACE [--warm | --revisit] [--split=on|off] [--workers=N]
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { loadFile, openPage, openWarmPage, startBrowser, startServer, waitForWarm } from '../tests/browser/lib.mjs';

function browserRssBytes(rootPid) {
  // Sum over the processes whose command line names this run's profile directory.
  let total = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmd.includes(rootPid)) continue;
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) total += Number(m[1]) * 1024;
    } catch {
      // processes come and go
    }
  }
  return total;
}

function browserCpuSeconds(rootPid) {
  // user + system time of the same processes (/proc/PID/stat fields 14 and 15, in 1/100 s): the
  // browser's CPU time, which a loaded machine does not inflate as it does the wall clock.
  let ticks = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(rootPid)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]);
    } catch {
      // processes come and go
    }
  }
  return ticks / 100;
}

// The same processes' CPU time by thread (/proc/PID/task/TID/stat), keyed `type:name` (the
// process type from its --type= switch, `browser` without one; the thread's name as the kernel
// keeps it, 15 characters: CrRendererMain is the page's main thread, DedicatedWorker each worker,
// ThreadPoolForeg/ThreadPoolBackg V8's background compiles and Blink's pools), in 1/100 s ticks;
// the workers also one by one (`workers`, busiest first), as the loader, a helper and the spare
// are all DedicatedWorker.
function browserThreadTicks(rootPid) {
  const byName = {};
  const workers = {};
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmd.includes(rootPid)) continue;
      const type = (/--type=([a-z-]+)/.exec(cmd) || [null, 'browser'])[1];
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const ticks = Number(f[11]) + Number(f[12]);
        const key = `${type}:${name}`;
        byName[key] = (byName[key] || 0) + ticks;
        if (name.startsWith('DedicatedWorker')) workers[`${pid}/${tid}`] = ticks;
      }
    } catch {
      // processes and threads come and go
    }
  }
  return { byName, workers };
}

// CPU seconds each thread name (and each worker) spent between two browserThreadTicks readings.
function threadCpuSince(before, after) {
  const byName = {};
  for (const [k, v] of Object.entries(after.byName)) {
    const d = (v - (before.byName[k] || 0)) / 100;
    if (d > 0) byName[k] = Math.round(d * 100) / 100;
  }
  const workers = Object.entries(after.workers).map(([k, v]) => (v - (before.workers[k] || 0)) / 100).filter((d) => d > 0).sort((a, b) => b - a);
  return { threads: byName, workers };
}

// V8 caches a module's optimized code a while after its last function tiered up.
const REVISIT_CACHE_WAIT_MS = 5000;

const file = process.argv[2];
const warm = process.argv.includes('--warm');
const profile = mkdtempSync(join(tmpdir(), 'ks-bench-'));
const revisit = process.argv.includes('--revisit');
const server = await startServer();
const query = process.argv.filter((a) => /^--(split|workers)=/.test(a)).map((a) => a.slice(2)).join('&');
if (revisit) {
  const first = await startBrowser(profile);
  const { page } = await openWarmPage(first, server.origin, query ? `/?${query}` : '/');
  await loadFile(page, file);
  await page.waitForTimeout(REVISIT_CACHE_WAIT_MS);
  await first.close();
}
const ctx = await startBrowser(profile);
try {
  const { page } = await openPage(ctx, server.origin, query ? `/?${query}` : '/');
  if (warm) await waitForWarm(page);
  if (process.env.KS_IDLE_MS) await page.waitForTimeout(Number(process.env.KS_IDLE_MS));
  // The heap the warm loader wrote before the file (worker/warm.js: 128 MiB before session 32,
  // none since: worker/prefault.js writes it during the load): resident before the clock starts,
  // so it is added to the load's memory growth rather than hidden by the base.
  const pretouched = warm ? Number(await page.evaluate(() => document.body.dataset.pretouched || 0)) : 0;
  const base = browserRssBytes(profile);
  const cpu0 = browserCpuSeconds(profile);
  const threads0 = browserThreadTicks(profile);
  let peak = base;
  const timer = setInterval(() => { peak = Math.max(peak, browserRssBytes(profile)); }, 100);
  // The page's own clock from the moment the file input hands the file over (its change event).
  await page.evaluate(() => document.getElementById('file').addEventListener('change', () => (window.__given = performance.now()), { capture: true, once: true }));
  const t0 = performance.now();
  await page.setInputFiles('#file', file);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.state) && Number(document.body.dataset.loads || 0) > 0, null, { timeout: 1_800_000, polling: 50 });
  const t1 = performance.now();
  clearInterval(timer);
  const cpuSeconds = browserCpuSeconds(profile) - cpu0;
  const state = await page.evaluate(() => document.body.dataset.state);
  const facts = await page.evaluate(() => { const r = window.kinetoscope.report(); return r ? { json_bytes: r.trace.json_bytes, events: r.trace.events_total } : null; });
  if (state === 'ready') await page.waitForFunction(() => window.kinetoscope.timings().painted !== undefined, null, { polling: 20 });
  const timings = await page.evaluate(() => (window.kinetoscope.timings ? window.kinetoscope.timings() : null));
  // To the paint: what each thread spent on this load (the next spare starts 300 ms after it).
  const threadCpu = threadCpuSince(threads0, browserThreadTicks(profile));
  // File given to report on screen (laid out and painted), in the page (the harness's own time
  // adds Playwright's round trips).
  const end = timings && (timings.painted !== undefined ? timings.painted : timings.shown);
  const given = await page.evaluate(() => window.__given);
  const pageSeconds = timings ? (timings.begin + end - given) / 1000 : null;
  const json = facts ? facts.json_bytes : 0;
  console.log(JSON.stringify({
    file: basename(file), file_bytes: statSync(file).size, warm, revisit, state, ...facts,
    to_report_s: (t1 - t0) / 1000, mb_per_s: json / 1e6 / ((t1 - t0) / 1000),
    page_s: pageSeconds, given_to_begin_ms: timings ? Math.round((timings.begin - given) * 10) / 10 : null, page_mb_per_s: pageSeconds ? json / 1e6 / pageSeconds : null,
    timings_ms: timings, browser_rss_base_bytes: base, browser_rss_peak_bytes: peak, browser_cpu_s: cpuSeconds, thread_cpu_s: threadCpu, loadavg: readFileSync('/proc/loadavg', 'utf8').split(' ')[0], pretouched_bytes: pretouched,
    rss_growth_over_json: json ? (peak - base + pretouched) / json : null,
  }));
} finally {
  await ctx.close();
  server.proc.kill();
  rmSync(profile, { recursive: true, force: true });
}
