#!/usr/bin/env node
// The timeline benchmark (make bench-timeline; not part of make test): a real-derived trace of
// >= 2 million events (bench/timeline/make_trace.py: the steps of HTA's df_index_resolver trace
// repeated), loaded in headless Chromium (software rendering, as the browser tests), then 10 s of
// scripted pan and zoom with the real keyboard, wheel and mouse. Reports frame times (each frame's
// drawing including its rasterization: the canvas is read back one pixel per frame, and the interval
// between animation frames while moving) and the level-of-detail query cost in the worker.
//
//   node bench/timeline/run.mjs [--events N] [--trace FILE] [--js-only] [--cpu-time]
// --cpu-time: also record a Chromium performance trace during the scripted part and report each
// animation frame's main-thread CPU time (its FireAnimationFrame event's thread duration) beside its
// wall time: on a shared machine the gap between the two is time the frame waited for a core.
// Environment as the browser tests: KINETOSCOPE_WASM_DIR, CHROMIUM. Results: build/bench/timeline.json.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ROOT, WASM_DIR, openPage, shot, startBrowser, startServer } from '../../tests/browser/lib.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const EVENTS = Number(opt('--events', 2_000_000));
const TRACE = resolve(ROOT, opt('--trace', `build/bench/timeline_${Math.round(EVENTS / 1e6)}m.json`));
// --js-only: leave rasterization out of the frame time (to see what the drawing code itself costs).
const RASTER = !args.includes('--js-only');
const CPU_TIME = args.includes('--cpu-time');
// The 2M run keeps its file name (docs/performance.md quotes it); others say their size (and are
// not named as their trace, build/bench/timeline_Nm.json).
const OUT = join(ROOT, `build/bench/timeline${EVENTS === 2_000_000 ? '' : `_${Math.round(EVENTS / 1e6)}m_result`}${RASTER ? '' : '-js-only'}.json`);

// Starts a Chromium performance trace of the page; stop() resolves to its events.
async function startCpuTrace(ctx, page) {
  const cdp = await ctx.newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  await cdp.send('Tracing.start', { traceConfig: { includedCategories: ['devtools.timeline'] }, transferMode: 'ReportEvents' });
  return {
    async stop() {
      const done = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
      await cdp.send('Tracing.end');
      await done;
      return events;
    },
  };
}

function pct(values, p) {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}
const summary = (v) => ({ n: v.length, p50: pct(v, 50), p95: pct(v, 95), p99: pct(v, 99), max: v.length ? Math.max(...v) : null });
const f1 = (x) => (x === null ? '—' : x.toFixed(1));
const line = (name, s, unit = 'ms') => `${name.padEnd(34)} n=${String(s.n).padStart(5)}  p50 ${f1(s.p50)}  p95 ${f1(s.p95)}  p99 ${f1(s.p99)}  max ${f1(s.max)} ${unit}`;

async function main() {
  if (!existsSync(TRACE)) {
    console.log(`writing ${TRACE} ...`);
    execFileSync('python3', [join(ROOT, 'bench/timeline/make_trace.py'), '--out', TRACE, '--min-events', String(EVENTS)], { stdio: 'inherit' });
  }
  if (!existsSync(join(WASM_DIR, 'kinetoscope_wasm.js'))) throw new Error(`${WASM_DIR}/kinetoscope_wasm.js is missing: make wasm`);
  const tmp = mkdtempSync(join(tmpdir(), 'kinetoscope-bench-'));
  const { proc, origin } = await startServer();
  let ctx;
  try {
    ctx = await startBrowser(join(tmp, 'profile'));
    const { page, log } = await openPage(ctx, origin);
    const t0 = Date.now();
    await page.setInputFiles('#file', TRACE);
    await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.state), null, { timeout: 15 * 60_000, polling: 500 });
    if ((await page.evaluate(() => document.body.dataset.state)) !== 'ready') throw new Error(`the trace did not load: ${await page.textContent('#error')}`);
    const loadS = (Date.now() - t0) / 1000;
    const t1 = Date.now();
    await page.evaluate(() => window.kinetoscope.timeline.show());
    const layoutS = (Date.now() - t1) / 1000;
    const info = await page.evaluate(() => {
      const s = window.kinetoscope.timeline.state();
      return { span_ns: s.span_ns, tracks: s.layout.groups.reduce((a, g) => a + g.tracks.length, 0), slices: s.layout.groups.reduce((a, g) => a + g.tracks.reduce((b, t) => b + t.slices, 0), 0) };
    });
    const report = await page.evaluate(() => window.kinetoscope.report().trace);
    console.log(`loaded ${report.events_total} events (${info.slices} slices on ${info.tracks} tracks, ${(statSync(TRACE).size / 1e6).toFixed(0)} MB) in ${loadS.toFixed(1)} s; timeline layout ${layoutS.toFixed(1)} s`);

    // The zoomed-out query over the whole trace, repeated: its cost must not follow the slice count.
    const fit = await page.evaluate(async () => {
      const t = window.kinetoscope.timeline;
      t.stats(true);
      const s = t.state();
      const out = [];
      for (let i = 0; i < 10; i++) {
        // Alternate two windows so each one needs a fresh query.
        await t.setWindow(i % 2 ? -s.span_ns * 0.01 : 0, i % 2 ? s.span_ns * 1.01 : s.span_ns * 0.5);
      }
      out.push(...t.stats(true).queries);
      await t.setWindow(-s.span_ns * 0.01, s.span_ns * 1.01);
      return out;
    });

    const box = await page.locator('.tl-canvas').boundingBox();
    await page.evaluate((on) => window.kinetoscope.timeline.measureRaster(on), RASTER);
    await page.mouse.move(box.x + box.width * 0.45, box.y + 150);
    await page.evaluate(() => window.kinetoscope.timeline.stats(true));
    const wait = (ms) => page.waitForTimeout(ms);
    const hold = async (key, ms) => {
      await page.keyboard.down(key);
      await wait(ms);
      await page.keyboard.up(key);
    };
    const loadBefore = loadavg()[0];
    const cpuTrace = CPU_TIME ? await startCpuTrace(ctx, page) : null;
    const start = Date.now();
    await hold('w', 2000); // zoom in ~100x at the mouse
    await hold('d', 1500); // pan right
    await page.mouse.down(); // drag to pan
    for (let i = 1; i <= 30; i++) {
      await page.mouse.move(box.x + box.width * 0.45 - i * 15, box.y + 150 + (i % 2));
      await wait(25);
    }
    await page.mouse.up();
    await hold('s', 1200); // zoom out
    for (let i = 0; i < 25; i++) {
      await page.mouse.wheel(0, -40); // vertical scroll (wheel) and back
      await wait(20);
    }
    await hold('a', 1200); // pan left
    await page.keyboard.down('Control');
    for (let i = 0; i < 20; i++) {
      await page.mouse.wheel(0, i < 10 ? -60 : 60); // Ctrl+wheel: zoom in, then out
      await wait(25);
    }
    await page.keyboard.up('Control');
    await page.keyboard.press('0');
    await hold('w', Math.max(200, 10_000 - (Date.now() - start))); // the rest of the 10 s
    const scriptS = (Date.now() - start) / 1000;
    await page.evaluate(() => window.kinetoscope.timeline.settled());
    // Animation frames on the page's main thread: wall time (dur) and CPU time (tdur), in µs.
    const frames = cpuTrace ? (await cpuTrace.stop()).filter((e) => e.name === 'FireAnimationFrame' && e.ph === 'X' && e.dur > 0) : [];
    const st = await page.evaluate(() => window.kinetoscope.timeline.stats(true));
    // The timeline's own memory: the worker's view index (beside the model) and the page's columns;
    // and the page's whole JS heap (Chromium's performance.memory), for scale.
    const memory = await page.evaluate(() => ({ ...window.kinetoscope.timeline.memory(), page_js_heap_bytes: performance.memory ? performance.memory.usedJSHeapSize : null }));
    await page.evaluate(() => window.kinetoscope.timeline.measureRaster(false));
    await shot(page, 'timeline-bench');

    const result = {
      trace: TRACE.replace(`${ROOT}/`, ''),
      events: report.events_total,
      slices: info.slices,
      json_mb: Math.round(statSync(TRACE).size / 1e6),
      load_s: loadS,
      layout_s: layoutS,
      script_s: scriptS,
      // The machine is shared: the 1-minute load average around the scripted part (2 cores).
      load_average: [loadBefore, loadavg()[0]].map((x) => Math.round(x * 10) / 10),
      frame_draw_ms: summary(st.draws),
      frame_interval_ms: summary(st.intervals),
      query_worker_ms: summary(st.queries.map((q) => q.ms)),
      query_roundtrip_ms: summary(st.queries.map((q) => q.roundtrip)),
      query_searches: summary(st.queries.map((q) => q.searches)),
      query_rects: summary(st.queries.map((q) => q.rects)),
      fit_query_worker_ms: summary(fit.map((q) => q.ms)),
      fit_query_searches: summary(fit.map((q) => q.searches)),
      fit_query_rects: summary(fit.map((q) => q.rects)),
      ...(CPU_TIME
        ? {
            raf_wall_ms: summary(frames.map((e) => e.dur / 1000)),
            raf_cpu_ms: summary(frames.filter((e) => e.tdur !== undefined).map((e) => e.tdur / 1000)),
          }
        : {}),
      memory_mb: Object.fromEntries(Object.entries(memory).map(([k, v]) => [k.replace(/_bytes$/, ''), v === null ? null : Math.round((v / 2 ** 20) * 10) / 10])),
      errors: log.errors,
    };
    mkdirSync(join(ROOT, 'build/bench'), { recursive: true });
    writeFileSync(OUT, `${JSON.stringify(result, null, 2)}\n`);
    console.log(`scripted pan/zoom: ${scriptS.toFixed(1)} s, ${st.draws.length} frames, ${st.queries.length} LOD queries (load average ${result.load_average.join(' -> ')} on ${cpus().length} cores)`);
    console.log(line(RASTER ? 'frame: draw + raster (main thread)' : 'frame: draw calls only (main thread)', result.frame_draw_ms));
    console.log(line('frame: interval while animating', result.frame_interval_ms));
    console.log(`timeline memory: view index ${result.memory_mb.index} MB in the worker, ${result.memory_mb.page} MB of columns on the page (page JS heap ${result.memory_mb.page_js_heap} MB)`);
    if (CPU_TIME) {
      console.log(line('animation frame, wall (trace)', result.raf_wall_ms));
      console.log(line('animation frame, main-thread CPU', result.raf_cpu_ms));
    }
    console.log(line('LOD query in the worker (WASM)', result.query_worker_ms));
    console.log(line('LOD query round trip', result.query_roundtrip_ms));
    console.log(line('LOD query lookups (searches)', result.query_searches, ''));
    console.log(line('LOD rectangles per answer', result.query_rects, ''));
    console.log(line('whole-trace query in the worker', result.fit_query_worker_ms));
    console.log(line('whole-trace query lookups', result.fit_query_searches, ''));
    if (log.errors.length) console.log(`page errors:\n  ${log.errors.join('\n  ')}`);
    console.log(`results: ${OUT}`);
  } finally {
    if (ctx) await ctx.close().catch(() => {});
    proc.kill();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
