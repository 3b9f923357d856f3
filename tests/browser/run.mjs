#!/usr/bin/env node
// Browser tests for the Kinetoscope page: Debian's chromium driven by playwright-core (no browser is
// ever downloaded), against scripts/serve.mjs started here on a free port.
//
//   node tests/browser/run.mjs [name-substring...]
//
// Environment: CHROMIUM (default /usr/bin/chromium), KINETOSCOPE_CLI (default build/native/kinetoscope),
// KINETOSCOPE_WASM_DIR (default build/wasm). Screenshots go to build/screenshots/.
// Tests that need the real traces in ../shared/traces are skipped, with a message, when it is absent.
import { spawnSync, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { diffJson } from './diff.mjs';
import { requireBrowsers } from './browsers.mjs';
import { timelineTests } from './timeline.mjs';
import { rankTests } from './ranks.mjs';
import { compareTests } from './compare.mjs';
import { badInputTests } from './bad_inputs.mjs';
import { securityTests } from './security.mjs';
import { overviewTests } from './overview.mjs';
import { criticalPathTests } from './critical_path.mjs';
import { nsysTests } from './nsys.mjs';
import { fleetTests } from './fleet.mjs';
import { workerTests } from './workers.mjs';
import { mathTests } from './math.mjs';

import {
  ROOT, TRACES, CLI, WASM_DIR, SHOTS, TEST_TIMEOUT_MS, Skip, skip, check, needTraces, startServer, startBrowser, openPage, loads, settled, loadFile, cliReport, sameAsCli, noErrors, shot, waitForWorkers, writeBeginEndTrace,
  copiedLink,
} from './lib.mjs';

// --- the tests ----------------------------------------------------------------------------------------

const REAL = [
  'hta__benchmark_simple_add_trace.json.gz',
  'param__dlrm_kineto__worker0_step_12.1694128201545.pt.trace.json',
  'kineto__gpu_metrics_input.json',
];

// `kinetoscope report --format json FILE`: { ok, report } or, when it refuses the file, { ok: false,
// code, offset } from its one stderr line "kinetoscope: FILE: CODE at byte N: message".
function cliRun(file) {
  const r = spawnSync(CLI, ['report', '--format', 'json', file], { maxBuffer: 1 << 28, encoding: 'utf8' });
  if (r.error) throw new Error(`${CLI}: ${r.error.message} (build the CLI first: make native)`);
  if (r.status === 0) return { ok: true, report: JSON.parse(r.stdout) };
  const m = /: (\w+) at byte (\d+): /.exec(r.stderr);
  if (r.status !== 1 || !m) throw new Error(`\`kinetoscope report ${file}\` exited ${r.status} without a refusal message: ${r.stderr}`);
  return { ok: false, code: m[1], offset: Number(m[2]), stderr: r.stderr };
}

// The page's error box (web/app.js showError): the code in <code class="error-code">, the offset in
// "(at byte offset 1,234)".
function pageError(html) {
  const code = /<code class="error-code">(\w+)<\/code>/.exec(html);
  const offset = /at byte offset ([\d,]+)/.exec(html);
  // Byte 0 reads "at the start of the file" (views/status.js).
  const start = /at the start of the file/.test(html);
  return { code: code ? code[1] : null, offset: offset ? Number(offset[1].replace(/,/g, '')) : start ? 0 : null };
}

const tests = {
  async 'welcome page renders with a strict CSP and no errors'({ ctx, origin }) {
    const { page, log } = await openPage(ctx, origin);
    const csp = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
    check(/script-src 'self' 'wasm-unsafe-eval'/.test(csp) && /object-src 'none'/.test(csp), `unexpected CSP: ${csp}`);
    // The worker gets its policy from its own response header; it must be the page's policy, plus
    // frame-ancestors, which only a header can carry (a <meta> policy ignores it).
    const header = (await fetch(`${origin}/worker.js`)).headers.get('content-security-policy');
    const framed = /; frame-ancestors [^;]*$/.exec(header || '');
    check(framed && header.slice(0, framed.index) === csp,
      `worker.js is served with CSP ${header}, the page has ${csp} (the header must add only frame-ancestors)`);
    check(await page.isVisible('text=Your trace never leaves this browser tab.'), 'the privacy line is missing');
    await shot(page, 'welcome');
    noErrors(log);
    await page.close();
  },

  async 'real traces loaded through the file input match the CLI report'({ ctx, origin }) {
    needTraces();
    const { page, log } = await openPage(ctx, origin);
    for (const name of REAL) {
      const file = join(TRACES, name);
      const state = await loadFile(page, file);
      const err = state === 'error' ? await page.textContent('#error') : '';
      check(state === 'ready', `${name} did not load: ${err}`);
      const report = await page.evaluate(() => window.kinetoscope.report());
      sameAsCli(report, file);
      check((await page.textContent('.report-head h2')) === name, `the report header does not name ${name}`);
      await shot(page, `report-${name.replace(/[^A-Za-z0-9_.-]/g, '_')}`);
      if (name === REAL[1]) await shot(page, 'report-full-page', true);
    }
    noErrors(log);
    await page.close();
  },

  async 'every shared trace renders, and matches the CLI or fails the same way'({ ctx, origin }) {
    needTraces();
    const { page, log } = await openPage(ctx, origin);
    const names = readdirSync(TRACES).filter((f) => /\.json(\.gz)?$/.test(f) && f !== 'MANIFEST.json');
    const problems = [];
    let refused = 0;
    for (const name of names) {
      const file = join(TRACES, name);
      const state = await loadFile(page, file);
      const cli = cliRun(file);
      if (state === 'ready' && cli.ok) {
        const diffs = diffJson(cli.report, await page.evaluate(() => window.kinetoscope.report()));
        if (diffs.length) problems.push(`${name}: ${diffs.slice(0, 3).join('; ')}`);
      } else if (state === 'error' && !cli.ok) {
        // Both refuse it: with the same error code at the same byte offset.
        refused++;
        const page_ = pageError(await page.innerHTML('#error'));
        if (page_.code !== cli.code || page_.offset !== cli.offset) {
          problems.push(`${name}: the page says ${page_.code} at byte ${page_.offset}, the CLI ${cli.code} at byte ${cli.offset} (${cli.stderr.trim()})`);
        }
      } else {
        problems.push(`${name}: page ${state}, CLI ${cli.ok ? 'ok' : `failed: ${cli.stderr.trim()}`} (${await page.textContent('#error')})`);
      }
    }
    console.log(`      ${names.length} traces, ${refused} refused by both`);
    check(!problems.length, problems.join('\n  '));
    noErrors(log);
    await page.close();
  },

  async 'no request leaves the page origin'({ ctx, origin }) {
    needTraces();
    const { page, log } = await openPage(ctx, origin);
    check((await loadFile(page, join(TRACES, REAL[0]))) === 'ready', 'the trace did not load');
    const foreign = log.requests.filter((u) => !u.startsWith(origin + '/') && !/^(blob|data):/.test(u));
    check(!foreign.length, `requests left the origin: ${foreign.join(', ')}`);
    // The worker's requests are seen too: otherwise this test would prove little.
    const wasmUrl = log.requests.find((u) => /\/wasm\/kinetoscope_wasm\.wasm(\?|$)/.test(u));
    check(wasmUrl, `the worker's .wasm request was not observed: ${log.requests.join(', ')}`);
    // The build's name is in its URL (scripts/stamp_wasm.mjs), and that URL is kept for good: a
    // returning visitor's browser reuses the .wasm and V8's optimized code for it.
    check(/\?v=[0-9a-f]{16}$/.test(wasmUrl), `the .wasm URL does not name its build: ${wasmUrl}`);
    const cache = (await fetch(wasmUrl)).headers.get('cache-control');
    check(/immutable/.test(cache), `the build-named .wasm is served with Cache-Control: ${cache}`);
    noErrors(log);
    await page.close();
  },

  async 'a kernel named like HTML is shown as text'({ ctx, origin, tmp }) {
    const evil = '<img src=x onerror="window.__xss=1">';
    const file = join(tmp, 'xss.pt.trace.json');
    const ev = (name, cat, ts, dur, args) => ({ ph: 'X', cat, name, pid: 1, tid: 7, ts, dur, args });
    const trace = {
      traceEvents: [
        { ph: 'M', name: 'process_name', pid: 1, tid: 0, args: { name: evil } },
        { ph: 'M', name: 'thread_name', pid: 1, tid: 7, args: { name: `stream 7 ${evil}` } },
        ev('ProfilerStep#1', 'user_annotation', 100, 500, {}),
        ev(evil, 'kernel', 120, 40, { stream: 7, device: 0, correlation: 1 }),
        ev(evil, 'kernel', 200, 60, { stream: 7, device: 0, correlation: 2 }),
        ev(`${evil} Memcpy HtoD`, 'gpu_memcpy', 300, 10, { stream: 7, device: 0, bytes: 4096 }),
      ],
    };
    writeFileSync(file, JSON.stringify(trace));
    const { page, log } = await openPage(ctx, origin);
    check((await loadFile(page, file)) === 'ready', `the synthetic trace did not load: ${await page.textContent('#error')}`);
    await page.waitForTimeout(300); // an injected onerror handler would have fired by now
    check((await page.evaluate(() => window.__xss)) === undefined, 'window.__xss was set: markup from the trace ran');
    check((await page.locator('#report img').count()) === 0, 'an <img> from the trace reached the DOM');
    const cells = await page.locator('#kernels td.name').allTextContents();
    check(cells.includes(evil), `the kernel name is not shown literally; kernel cells: ${JSON.stringify(cells)}`);
    if (existsSync(CLI)) sameAsCli(await page.evaluate(() => window.kinetoscope.report()), file);
    await page.locator('#kernels').scrollIntoViewIfNeeded();
    await shot(page, 'xss-as-text');
    noErrors(log);
    await page.close();
  },

  async 'a file dropped anywhere on the window is opened'({ ctx, origin }) {
    const { page, log } = await openPage(ctx, origin);
    const before = await loads(page);
    const text = JSON.stringify({ traceEvents: [{ ph: 'X', cat: 'kernel', name: 'dropped_kernel', pid: 0, tid: 7, ts: 1, dur: 2, args: { stream: 7 } }] });
    const dt = await page.evaluateHandle((t) => {
      const d = new DataTransfer();
      d.items.add(new File([t], 'dropped.json', { type: 'application/json' }));
      return d;
    }, text);
    await page.dispatchEvent('body', 'dragenter', { dataTransfer: dt });
    check(await page.isVisible('#drop'), 'no drop hint while dragging a file over the page');
    await page.dispatchEvent('body', 'drop', { dataTransfer: dt });
    check((await settled(page, before)) === 'ready', `the dropped file did not load: ${await page.textContent('#error')}`);
    check(await page.isHidden('#drop'), 'the drop hint stayed up');
    check((await page.textContent('.report-head h2')) === 'dropped.json', 'the dropped file is not the one shown');
    noErrors(log);
    await page.close();
  },

  async 'a bad file shows the error with its byte offset, keeps the last report, and the next file loads'({ ctx, origin, tmp }) {
    needTraces();
    const bad = join(tmp, 'hello.json');
    writeFileSync(bad, 'hello');
    const { page, log } = await openPage(ctx, origin);
    check((await loadFile(page, join(TRACES, REAL[0]))) === 'ready', 'the first trace did not load');
    const first = await page.evaluate(() => window.kinetoscope.report());
    check((await loadFile(page, bad)) === 'error', 'a file holding "hello" was accepted');
    const msg = await page.textContent('#error');
    check(/at byte offset \d+|at the start of the file/.test(msg), `the error does not say where: ${msg}`);
    check(msg.includes('hello.json'), `the error does not name the file: ${msg}`);
    check((await page.textContent('.report-head h2')) === REAL[0], 'the previous report was not kept on screen');
    const kept = await page.evaluate(() => window.kinetoscope.report());
    check(!diffJson(first, kept).length, 'report() changed after a failed load');
    await shot(page, 'bad-file-error');
    // The API rejects with the code and offset too.
    const apiErr = await page.evaluate(() =>
      window.kinetoscope.open(new TextEncoder().encode('hello').buffer, 'api.json').then(
        () => null,
        (e) => ({ code: e.code, offset: e.offset, message: e.message }),
      ),
    );
    check(apiErr && typeof apiErr.offset === 'number' && apiErr.code, `open() did not reject with a code and offset: ${JSON.stringify(apiErr)}`);
    // A gzip cut off part way is read up to the cut, as in the CLI: the same report, with the same
    // gzip_truncated diagnostic (where the compressed file ends, the JSON decoded before it).
    const cut = join(tmp, 'cut.json.gz');
    writeFileSync(cut, readFileSync(join(TRACES, 'hta__df_index_resolver.json.gz')).subarray(0, 1_500_000));
    check((await loadFile(page, cut)) === 'ready', `a gzip file cut in half was refused: ${await page.textContent('#error')}`);
    const cutReport = await page.evaluate(() => window.kinetoscope.report());
    check(cutReport.diagnostics.some((d) => d.code === 'gzip_truncated' && d.message.includes('Cut off at byte 1500000 of the compressed file')), 'no gzip_truncated diagnostic');
    if (existsSync(CLI)) sameAsCli(cutReport, cut);
    const good = join(TRACES, REAL[2]);
    check((await loadFile(page, good)) === 'ready', 'the good file after the bad one did not load');
    check(await page.isHidden('#error'), 'the old error is still shown after a good load');
    if (existsSync(CLI)) sameAsCli(await page.evaluate(() => window.kinetoscope.report()), good);
    noErrors(log);
    await page.close();
  },

  async 'a large trace streams in with progress while the page stays responsive'({ ctx, origin, tmp }) {
    const gen = resolve(ROOT, '../shared/peers/gen_big_trace.py');
    if (!existsSync(gen)) skip(`${gen} is absent (it writes the synthetic large trace)`);
    const mb = Number(process.env.KINETOSCOPE_BIG_MB || 64);
    const file = join(tmp, `synthetic_${mb}mb.json`);
    execFileSync('python3', [gen, '--out', file, '--target-mb', String(mb)], { stdio: 'ignore' });
    const { page, log } = await openPage(ctx, origin);
    // Main-thread watchdog: the longest gap between 10 ms timer ticks while the file is being read.
    await page.evaluate(() => {
      const w = (window.__watch = { maxGap: 0, texts: new Set() });
      let last = performance.now();
      w.timer = setInterval(() => {
        const now = performance.now();
        if (document.body.dataset.state === 'loading') w.maxGap = Math.max(w.maxGap, now - last);
        last = now;
      }, 10);
      new MutationObserver(() => w.texts.add(document.getElementById('status-text').textContent)).observe(
        document.getElementById('status-text'),
        { childList: true, characterData: true, subtree: true },
      );
    });
    const before = await loads(page);
    const t0 = Date.now();
    await page.setInputFiles('#file', file);
    await page.waitForFunction(() => document.getElementById('progress').value > 0, null, { timeout: 60_000 }).catch(() => {});
    if ((await page.evaluate(() => document.body.dataset.state)) === 'loading') await shot(page, 'loading-progress');
    const state = await settled(page, before);
    const secs = (Date.now() - t0) / 1000;
    check(state === 'ready', `the ${mb} MB trace did not load: ${await page.textContent('#error')}`);
    const w = await page.evaluate(() => ({ maxGap: window.__watch.maxGap, updates: window.__watch.texts.size }));
    console.log(`      ${mb} MB of JSON in ${secs.toFixed(1)} s; ${w.updates} progress updates; longest main-thread gap ${w.maxGap.toFixed(0)} ms`);
    check(w.updates >= 3, `only ${w.updates} progress updates for ${mb} MB`);
    check(w.maxGap < 500, `the page froze for ${w.maxGap.toFixed(0)} ms while reading`);
    const report = await page.evaluate(() => window.kinetoscope.report());
    check(report.trace && report.trace.json_bytes > mb * 1e6 * 0.9, `json_bytes ${report.trace && report.trace.json_bytes} for a ${mb} MB file`);
    // Cancel a second read (clicked in the same task as the open, so the read cannot win the race):
    // the promise rejects, the page keeps the report it had, and the worker takes the next file.
    const cancelled = await page.evaluate(async () => {
      const p = window.kinetoscope.open(new Blob(['{"traceEvents":[', '{"ph":"i","name":"x","ts":1,"pid":1,"tid":1},'.repeat(20000), '{}]}']), 'cancel-me.json');
      document.getElementById('cancel').click();
      return p.then(() => 'resolved', (e) => e.code);
    });
    check(cancelled === 'cancelled', `open() after Cancel settled as ${cancelled}`);
    check(await page.isHidden('#status'), 'the progress bar stayed up after Cancel');
    check((await page.textContent('.report-head h2')) === `synthetic_${mb}mb.json`, 'the report on screen changed after Cancel');
    const small = join(tmp, 'after-cancel.json');
    writeFileSync(small, JSON.stringify({ traceEvents: [{ ph: 'X', cat: 'kernel', name: 'k', pid: 0, tid: 7, ts: 1, dur: 2, args: { stream: 7 } }] }));
    check((await loadFile(page, small)) === 'ready', 'the file after a cancelled one did not load');
    noErrors(log);
    await page.close();
  },

  async 'a large plain file is read by two workers and gives the CLI report'({ ctx, origin, tmp }) {
    needTraces();
    // The largest shared trace, unzipped (87 MB): the page splits it between two workers
    // (web/worker/split.js) and merges the second's part.
    const mtia = join(tmp, 'mtia_rank_0.json');
    writeFileSync(mtia, gunzipSync(readFileSync(join(TRACES, 'hta__mtia_rank_0.json.gz'))));
    // 40 MB of B/E pairs (DevTools-style): they pair across the file, so the helper's part is
    // not used and the loader reads on alone; the report must be the CLI's all the same.
    const be = writeBeginEndTrace(join(tmp, 'begin_end_40mb.json'), 40e6);
    // ?split=on: the page splits files only with 4 cores or more, unless told to.
    const { page, log } = await openPage(ctx, origin, '/?split=on');
    for (const [file, merged] of [[mtia, true], [be, false]]) {
      check((await loadFile(page, file)) === 'ready', `${file} did not load: ${await page.textContent('#error')}`);
      const t = await page.evaluate(() => window.kinetoscope.timings());
      check(Boolean(t.worker.split), `${file}: the page did not give it a second worker`);
      check(Boolean(t.worker.part_bytes) === merged, `${file}: the second worker's part was ${t.worker.part_bytes ? '' : 'not '}merged`);
      sameAsCli(await page.evaluate(() => window.kinetoscope.report()), file);
      console.log(`      ${file.split('/').pop()}: part ${merged ? `of ${(t.worker.part_bytes / 1e6).toFixed(1)} MB merged` : 'not used'}, report shown after ${(t.shown / 1000).toFixed(2)} s`);
    }
    await waitForWorkers(page, 1, 'after the loads');
    noErrors(log);
    await page.close();
  },

  async 'a large gzip file is decompressed by a helper worker; cut off, it is read up to the cut as in the CLI'({ ctx, origin, tmp }) {
    needTraces();
    // 87 MB of JSON gzipped (about 4 MB): a helper decompresses while the loader parses
    // (web/worker/unzip.js). Cut at 60%, the page must give the CLI's code and JSON offset: all
    // that was decoded before the cut reaches the loader before the error.
    const json = gunzipSync(readFileSync(join(TRACES, 'hta__mtia_rank_0.json.gz')));
    const gz = gzipSync(json, { level: 1 });
    const whole = join(tmp, 'mtia_rank_0.json.gz');
    const cut = join(tmp, 'mtia_cut.json.gz');
    writeFileSync(whole, gz);
    writeFileSync(cut, gz.subarray(0, Math.floor(gz.length * 0.6)));
    const { page, log } = await openPage(ctx, origin);
    check((await loadFile(page, whole)) === 'ready', `the gzip file did not load: ${await page.textContent('#error')}`);
    const t = await page.evaluate(() => window.kinetoscope.timings());
    check(t.worker.unzip_helper !== undefined, 'no helper decompressed the file');
    sameAsCli(await page.evaluate(() => window.kinetoscope.report()), whole);
    // Cut at 60%: read up to the cut, the same report as the CLI's (all that was decoded before the
    // cut reaches the loader, then the gzip_truncated diagnostic).
    check((await loadFile(page, cut)) === 'ready', `the cut gzip file was refused: ${await page.textContent('#error')}`);
    const cutReport = await page.evaluate(() => window.kinetoscope.report());
    check(cutReport.diagnostics.some((d) => d.code === 'gzip_truncated'), 'no gzip_truncated diagnostic');
    sameAsCli(cutReport, cut);
    console.log(`      ${(gz.length / 1e6).toFixed(1)} MB gzip: report after ${(t.shown / 1000).toFixed(2)} s; cut: read up to the cut in both`);
    await waitForWorkers(page, 1, 'after the loads');
    noErrors(log);
    await page.close();
  },

  async '?url= opens a trace from the origin, and says clearly when it cannot'({ ctx, origin }) {
    const demo = existsSync(join(ROOT, 'examples/demo'))
      ? readdirSync(join(ROOT, 'examples/demo')).find((f) => /\.json(\.gz)?$/.test(f))
      : undefined;
    let path;
    let file;
    if (demo) {
      path = `examples/demo/${demo}`;
      file = join(ROOT, path);
    } else {
      needTraces();
      path = `traces/${REAL[0]}`;
      file = join(TRACES, REAL[0]);
    }
    const { page, log } = await openPage(ctx, origin, `/?url=${encodeURIComponent(path)}`);
    await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.state), null, { timeout: 60_000 });
    const state = await page.evaluate(() => document.body.dataset.state);
    check(state === 'ready', `?url=${path} did not load: ${await page.textContent('#error')}`);
    if (existsSync(CLI)) sameAsCli(await page.evaluate(() => window.kinetoscope.report()), file);
    await shot(page, 'url-param');
    noErrors(log);
    await page.close();

    const missing = await openPage(ctx, origin, '/?url=examples/no-such-trace.json');
    await missing.page.waitForFunction(() => document.body.dataset.state === 'error', null, { timeout: 30_000 });
    const msg = await missing.page.textContent('#error');
    check(/404/.test(msg) && msg.includes('no-such-trace.json'), `unclear message for a missing URL: ${msg}`);
    await missing.page.close();

    const away = await openPage(ctx, origin, '/?demo=https://example.com/trace.json');
    await away.page.waitForFunction(() => document.body.dataset.state === 'error', null, { timeout: 30_000 });
    check(/own origin/.test(await away.page.textContent('#error')), 'a foreign URL was not refused clearly');
    check(!away.log.requests.some((u) => u.startsWith('https://example.com')), 'the foreign URL was fetched');
    await away.page.close();
  },

  async 'an HTML page saved as a trace says it looks like an HTML page'({ ctx, origin, tmp }) {
    const file = join(tmp, 'download.pt.trace.json');
    writeFileSync(file, '<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>Please sign in</body></html>\n');
    const { page, log } = await openPage(ctx, origin);
    check((await loadFile(page, file)) === 'error', 'an HTML page was read as a trace');
    const text = await page.textContent('#error');
    check(/looks like an HTML page/.test(text) && /Download the trace again/.test(text), `the error does not say it is an HTML page: ${text}`);
    noErrors(log);
    await page.close();
  },

  async 'Back and Forward move between the views a user opened, and the first Back does not leave the page'({ ctx, origin }) {
    const dir = join(ROOT, 'examples/pathologies/gpu/straggler_compute');
    const single = join(ROOT, 'examples/pathologies/gpu/gpu_clean.pt.trace.json.gz');
    const { page, log } = await openPage(ctx, origin);
    const restored = () => page.waitForFunction(() => !document.body.dataset.history && document.body.dataset.state !== 'loading');
    const back = async () => {
      await page.goBack({ waitUntil: 'commit' });
      await restored();
    };
    const where = () => page.evaluate(() => ({ view: document.body.dataset.view || '', tab: document.body.dataset.tab || '', title: document.querySelector('.report-head h2')?.textContent || '', alone: !!document.querySelector('.report-head [data-action="all-ranks"]') }));
    // All ranks -> rank 3's report -> rank 3 alone -> all ranks again -> another trace -> its Timeline.
    let before = await loads(page);
    await page.setInputFiles('#file', Array.from({ length: 8 }, (_, r) => join(dir, `rank-${r}.json.gz`)));
    check((await settled(page, before)) === 'ready', 'the 8 ranks did not load');
    await page.selectOption('#rank-picker', '3');
    await page.click('.rank-pick button');
    await page.waitForFunction(() => document.body.dataset.view === 'rank-3');
    before = await loads(page);
    await page.click('[data-action="rank-timeline"]');
    check((await settled(page, before)) === 'ready', 'rank 3 did not open alone');
    await page.waitForSelector('.report-head [data-action="all-ranks"]', { state: 'attached' });
    await page.waitForFunction(() => document.body.dataset.tab === 'timeline');
    await page.click('#tabs button[data-tab="report"]');
    await page.click('.report-head [data-action="all-ranks"]');
    await page.waitForFunction(() => document.body.dataset.view === 'ranks');
    check((await loadFile(page, single)) === 'ready', 'the single trace did not load');
    await page.click('#tabs button[data-tab="timeline"]');
    await page.waitForFunction(() => document.body.dataset.tab === 'timeline');
    // Back, one view at a time.
    await back();
    let at = await where();
    check(at.tab === 'report' && at.view === '' && at.title.includes('gpu_clean'), `Back from the Timeline tab: ${JSON.stringify(at)}`);
    await back();
    at = await where();
    check(at.view === 'ranks' && (await page.isVisible('#heatmap')), `Back from the second trace did not show the 8 ranks: ${JSON.stringify(at)}`);
    await back();
    at = await where();
    check(at.view === '' && at.alone && at.title.includes('rank-3') && at.tab === 'report', `Back did not return to rank 3 alone: ${JSON.stringify(at)}`);
    await back();
    at = await where();
    check(at.alone && at.tab === 'timeline', `Back did not return to rank 3's timeline: ${JSON.stringify(at)}`);
    await back();
    check((await where()).view === 'rank-3', `Back did not return to rank 3's report: ${JSON.stringify(await where())}`);
    await back();
    check((await where()).view === 'ranks', `Back did not return to all ranks: ${JSON.stringify(await where())}`);
    // The entry before the first trace: still this page, the ranks still on screen.
    await back();
    check(page.url().startsWith(origin), `the first Back left the page for ${page.url()}`);
    check((await where()).view === 'ranks', 'the ranks left the screen on the last Back');
    await page.goForward({ waitUntil: 'commit' });
    await restored();
    await page.goForward({ waitUntil: 'commit' });
    await restored();
    check((await where()).view === 'rank-3', `Forward did not return to rank 3's report: ${JSON.stringify(await where())}`);
    noErrors(log);
    await page.close();
  },
};

// The timeline tab's tests (timeline.mjs), with the same helpers.
Object.assign(tests, timelineTests({ check, skip, needTraces, openPage, loadFile, shot, noErrors, TRACES, CLI }));
// Several ranks at once (ranks.mjs) and two traces compared (compare.mjs).
const multiHelpers = { check, skip, needTraces, openPage, loads, settled, shot, noErrors, diffJson, waitForWorkers, copiedLink, CLI, TRACES, ROOT };
Object.assign(tests, rankTests(multiHelpers), compareTests(multiHelpers));
// Bad inputs, hostile names, cancelled loads and memory limits (bad_inputs.mjs, docs/hardening.md).
Object.assign(tests, badInputTests());
// Hostile hosts (embedding, redirects) and hidden characters in every view (security.mjs, issue 17).
Object.assign(tests, securityTests());
// The overview and the summary tables with their CSV downloads (overview.mjs).
Object.assign(tests, overviewTests());
Object.assign(tests, criticalPathTests());
// Nsight Systems exports (nsys.mjs): the real export, built ones (NVTX, ranks), damaged ones.
Object.assign(tests, nsysTests());
Object.assign(tests, mathTests());
Object.assign(tests, fleetTests({ check, openPage, loadFile, shot, noErrors, ROOT, TRACES }));
// Several workers on one file (workers.mjs): 1..8 workers, byte-identical reports.
Object.assign(tests, workerTests());

// --- runner -----------------------------------------------------------------------------------------

async function main() {
  const only = process.argv.slice(2);
  const selected = Object.entries(tests).filter(([name]) => !only.length || only.some((o) => name.includes(o)));
  // Before anything starts: an absent or too old chromium stops here, saying what to upgrade.
  try {
    requireBrowsers(['chromium']);
  } catch (e) {
    console.error(`FAIL  ${e.message}`);
    process.exit(1);
  }
  if (!existsSync(join(WASM_DIR, 'kinetoscope_wasm.js'))) {
    console.error(`${join(WASM_DIR, 'kinetoscope_wasm.js')} is missing: run \`make wasm\` first`);
    process.exit(1);
  }
  // serve.mjs sends the page's CSP to the worker too (script-src without 'unsafe-eval'), so glue that
  // builds functions from strings (Embind's default) cannot load: say so once, not in every test.
  if (/new Function\(|new_\(Function/.test(readFileSync(join(WASM_DIR, 'kinetoscope_wasm.js'), 'utf8'))) {
    console.error(`${join(WASM_DIR, 'kinetoscope_wasm.js')} evaluates strings as code (new Function), which the worker's CSP refuses: link it with -sDYNAMIC_EXECUTION=0`);
    process.exit(1);
  }
  const tmp = mkdtempSync(join(tmpdir(), 'kinetoscope-browser-'));
  const { proc, origin } = await startServer();
  let ctx;
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  try {
    ctx = await startBrowser(join(tmp, 'profile'));
    for (const [name, fn] of selected) {
      const t0 = Date.now();
      let timer;
      try {
        await Promise.race([
          fn({ ctx, origin, tmp }),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`timed out after ${TEST_TIMEOUT_MS / 1000} s`)), TEST_TIMEOUT_MS);
          }),
        ]);
        passed++;
        console.log(`ok    ${name} (${Date.now() - t0} ms)`);
      } catch (e) {
        if (e instanceof Skip) {
          skipped++;
          console.log(`SKIP  ${name}: ${e.message}`);
        } else {
          failed++;
          console.log(`FAIL  ${name}\n      ${String(e.stack || e).split('\n').join('\n      ')}`);
        }
      } finally {
        clearTimeout(timer);
        for (const p of ctx.pages()) await p.close().catch(() => {});
      }
    }
  } finally {
    if (ctx) await ctx.close().catch(() => {});
    proc.kill();
    rmSync(tmp, { recursive: true, force: true });
  }
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
