#!/usr/bin/env node
// An Nsight Systems export in the real page (headless Chromium): the file goes through the file
// input, the worker reads it in place (SQLite pulling pages through the block cache, its misses
// served from 16 MiB FileReaderSync slices: web/worker/file_chunks.js) and the clock stops when
// the report is painted; then, separately, until its stats tables are shown. Peak memory is the browser's total RSS (all its
// processes, sampled every 100 ms) above what it used before; the worker also says how large its
// WASM memory grew and how many bytes it read from the File. Then the CLI on the same file (wall
// time and peak RSS). Prints one JSON line per tool.
//   node bench/nsys_browser.mjs EXPORT.sqlite [--warm]
import { readFileSync, readdirSync, statSync, mkdtempSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { CLI, openPage, startBrowser, startServer, waitForWarm } from '../tests/browser/lib.mjs';

function browserRssBytes(marker) {
  let total = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)) continue;
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) total += Number(m[1]) * 1024;
    } catch {
      // processes come and go
    }
  }
  return total;
}

// CPU seconds (user + system) used so far by the same processes: on a loaded machine the wall
// clock says more about the other processes than about this one.
function browserCpuSeconds(marker) {
  let ticks = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)) continue;
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      ticks += Number(f[11]) + Number(f[12]); // utime, stime (fields 14 and 15)
    } catch {
      // processes come and go
    }
  }
  return ticks / 100; // USER_HZ
}

const file = process.argv[2];
if (!file) {
  console.error('usage: node bench/nsys_browser.mjs EXPORT.sqlite [--warm]');
  process.exit(2);
}
const warm = process.argv.includes('--warm');
const fileBytes = statSync(file).size;
const profile = mkdtempSync(join(tmpdir(), 'ks-bench-'));
const server = await startServer();
const ctx = await startBrowser(profile);
try {
  const { page } = await openPage(ctx, server.origin, '/');
  if (warm) await waitForWarm(page);
  const base = browserRssBytes(profile);
  const cpu0 = browserCpuSeconds(profile);
  let cpuAtReport = null;
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, browserRssBytes(profile))), 100);
  await page.evaluate(() => document.getElementById('file').addEventListener('change', () => (window.__given = performance.now()), { capture: true, once: true }));
  const t0 = performance.now();
  await page.setInputFiles('#file', file);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.state) && Number(document.body.dataset.loads || 0) > 0, null, { timeout: 1_800_000, polling: 100 });
  const t1 = performance.now();
  cpuAtReport = browserCpuSeconds(profile) - cpu0;
  const state = await page.evaluate(() => document.body.dataset.state);
  // The stats tables follow the report (web/worker/nsys.js): the clock runs on until they are shown.
  if (state === 'ready') await page.waitForFunction(() => document.body.dataset.stats === '1', null, { timeout: 1_800_000, polling: 100 });
  const t2 = performance.now();
  const cpuAtStats = browserCpuSeconds(profile) - cpu0;
  clearInterval(timer);
  const error = state === 'error' ? await page.textContent('#error') : null;
  const facts = await page.evaluate(() => {
    const r = window.kinetoscope.report();
    const s = window.kinetoscope.stats();
    return r ? { events: r.trace.events_total, kernels: r.kernels ? r.kernels.count : null, stats_reports: s && s.reports ? s.reports.length : 0 } : null;
  });
  if (state === 'ready') await page.waitForFunction(() => window.kinetoscope.timings().painted !== undefined, null, { polling: 20 });
  const timings = await page.evaluate(() => window.kinetoscope.timings());
  const end = timings && (timings.painted !== undefined ? timings.painted : timings.shown);
  const pageSeconds = timings ? (timings.begin + end - (await page.evaluate(() => window.__given))) / 1000 : null;
  console.log(JSON.stringify({
    tool: 'chromium_page', file: basename(file), file_bytes: fileBytes, warm, state, error, ...facts,
    to_report_s: (t1 - t0) / 1000, to_stats_s: (t2 - t0) / 1000, cpu_to_report_s: cpuAtReport, cpu_to_stats_s: cpuAtStats, load_avg: readFileSync('/proc/loadavg', 'utf8').split(' ')[0], page_s: pageSeconds, mb_per_s: pageSeconds ? fileBytes / 1e6 / pageSeconds : null,
    wasm_heap_bytes: timings && timings.worker ? timings.worker.wasm_heap_bytes : null,
    file_reads: timings && timings.worker ? timings.worker.sqlite_reads : null,
    browser_rss_base_bytes: base, browser_rss_peak_bytes: peak, rss_growth_bytes: peak - base, rss_growth_over_file: (peak - base) / fileBytes,
    timings_ms: timings,
  }));
} finally {
  await ctx.close();
  server.proc.kill();
  rmSync(profile, { recursive: true, force: true });
}

// The CLI on the same file: report (JSON) and the default stats, wall time and peak RSS.
for (const args of [['report', '--format', 'json'], ['stats', '--format', 'json']]) {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', CLI, ...args, file], { maxBuffer: 1 << 30 });
  const [secs, user, sys, kb] = r.stderr.toString().trim().split('\n').pop().split(' ').map(Number);
  console.log(JSON.stringify({ tool: `native_cli_${args[0]}`, file: basename(file), file_bytes: fileBytes, status: r.status, seconds: secs, cpu_s: user + sys, peak_rss_bytes: kb * 1024, mb_per_s: fileBytes / 1e6 / secs, load_avg: readFileSync('/proc/loadavg', 'utf8').split(' ')[0] }));
}
