#!/usr/bin/env node
// Browser tests of the built site (make dist): dist/ served from a sub-path by a plain static
// server, and dist/kinetoscope.html opened from file:// with the network off. Every test runs in
// Debian's chromium and, when it is installed, Debian's firefox-esr, both driven by playwright-core
// (Firefox through WebDriver BiDi, which a stock Firefox speaks; no browser is downloaded).
//
//   node tests/browser/dist.mjs [name-substring...]
//
// Environment: KINETOSCOPE_DIST (a built dist/ to test; by default one is built into a temporary
// folder from KINETOSCOPE_WASM_DIR, default build/wasm, so `make test` needs no second WASM build),
// KINETOSCOPE_CLI (default build/native/kinetoscope), CHROMIUM (default /usr/bin/chromium),
// FIREFOX (default /usr/bin/firefox-esr; absent or too old: the run fails), BROWSERS (default
// "chromium,firefox").
// Traces: examples/demo always; ../shared/traces when present (a WARN line says when it is not).
import { chromium, firefox } from 'playwright-core';
import { CHROMIUM, FIREFOX, requireBrowsers } from './browsers.mjs';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { diffJson } from './diff.mjs';
import { CLI, ROOT, SHOTS, TRACES, WASM_DIR, startServeMjs } from './lib.mjs';

const SUBPATH = '/team/tools/kinetoscope';
const DEMO = join(ROOT, 'examples/demo/h200_dataloader_stall.pt.trace.json.gz');
const TEST_TIMEOUT_MS = 90_000;
const BROWSERS = (process.env.BROWSERS || 'chromium,firefox').split(',').filter(Boolean);

// Real traces when ../shared is here (gzip and plain JSON, several findings); the demo otherwise.
const REAL = ['hta__benchmark_simple_add_trace.json.gz', 'param__dlrm_kineto__worker0_step_12.1694128201545.pt.trace.json'];
const TRACE_FILES = existsSync(TRACES) ? [DEMO, ...REAL.map((f) => join(TRACES, f))] : [DEMO];

function check(cond, msg) {
  if (!cond) throw new Error(msg);
}

// --- the CLI, the site, the server, the browser ----------------------------------------------------

const cliCache = new Map();
function cli(file, format) {
  check(existsSync(CLI), `${CLI} is missing: build the CLI (make native) or set KINETOSCOPE_CLI`);
  const key = `${format}:${file}`;
  if (!cliCache.has(key)) cliCache.set(key, execFileSync(CLI, ['report', '--format', format, file], { maxBuffer: 1 << 28 }).toString('utf8'));
  return cliCache.get(key);
}

function buildDist(tmp) {
  if (process.env.KINETOSCOPE_DIST) {
    const dist = resolve(ROOT, process.env.KINETOSCOPE_DIST);
    check(existsSync(join(dist, 'kinetoscope.html')), `${dist} has no kinetoscope.html: run make dist`);
    console.log(`testing ${dist}`);
    return dist;
  }
  const dist = join(tmp, 'dist');
  check(existsSync(join(WASM_DIR, 'kinetoscope_wasm.wasm')), `${WASM_DIR} has no WASM build: run make wasm, or set KINETOSCOPE_DIST`);
  execFileSync(process.execPath, [join(ROOT, 'scripts/dist.mjs'), '--wasm', WASM_DIR, '--out', dist], { stdio: 'ignore' });
  console.log(`testing a dist/ built here from ${WASM_DIR} (KINETOSCOPE_DIST=dist tests make dist's output)`);
  return dist;
}

function startServer(dist, tmp) {
  const empty = join(tmp, 'www');
  mkdirSync(empty, { recursive: true });
  const args = ['--root', empty, '--map', `${SUBPATH}=${dist}`, '--map', '/embed=examples/embed'];
  // Traces kept beside the page, as a team would, for ?url=.
  args.push('--map', `${SUBPATH}/traces=${existsSync(TRACES) ? TRACES : dirname(DEMO)}`);
  return startServeMjs(args);
}

const CONTEXT = { acceptDownloads: true, viewport: { width: 1280, height: 800 } };
async function startBrowser(name, profile) {
  if (name === 'chromium') {
    return chromium.launchPersistentContext(profile, {
      ...CONTEXT,
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  }
  // channel moz-*: playwright-core's WebDriver BiDi driver, for an unpatched Firefox.
  const browser = await firefox.launch({ channel: 'moz-firefox', executablePath: FIREFOX, headless: true });
  const ctx = await browser.newContext(CONTEXT);
  ctx.on('close', () => browser.close().catch(() => {}));
  return ctx;
}

// --- page helpers ------------------------------------------------------------------------------------

// Playwright's screenshot in Firefox adds <style>body {}</style> for a moment (screenshotter.js,
// syncAnimations); a strict CSP refuses it. That is the test tool's style, not the page's.
const PLAYWRIGHT_STYLE = 'sha256-YjaKGiklmzC6wjXA513HAMmzus8VE61XCOT+SmwNZWA=';

// Records every request (page and workers), script error and CSP violation of a page.
function watch(page) {
  const log = { requests: [], errors: [], workers: [] };
  page.on('request', (r) => log.requests.push(r.url()));
  page.on('pageerror', (e) => !e.message.includes(PLAYWRIGHT_STYLE) && log.errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && log.errors.push(`console: ${m.text()}`));
  page.on('worker', (w) => {
    log.workers.push(w.url());
    w.on('console', (m) => m.type() === 'error' && log.errors.push(`worker console: ${m.text()}`));
  });
  return log;
}

async function openPage(ctx, url) {
  const page = await ctx.newPage();
  const log = watch(page);
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      if (!window.__inScreenshot) window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  await page.goto(url);
  await page.waitForFunction(() => !!window.kinetoscope, null, { timeout: 15_000 });
  return { page, log };
}

const loads = (page) => page.evaluate(() => Number(document.body.dataset.loads || 0));
async function settled(page, before) {
  await page.waitForFunction((n) => Number(document.body.dataset.loads || 0) > n, before, { timeout: 60_000 });
  return page.evaluate(() => document.body.dataset.state);
}
async function loadFile(page, file) {
  const before = await loads(page);
  await page.setInputFiles('#file', file);
  const state = await settled(page, before);
  check(state === 'ready', `${basename(file)} did not load: ${await page.textContent('#error')}`);
}

// Drops a file on the window, as a user dragging it from the desktop.
async function dropFile(page, file) {
  const before = await loads(page);
  const dt = await page.evaluateHandle(
    ({ b64, name }) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const d = new DataTransfer();
      d.items.add(new File([bytes], name));
      return d;
    },
    { b64: readFileSync(file).toString('base64'), name: basename(file) },
  );
  await page.dispatchEvent('body', 'dragenter', { dataTransfer: dt });
  await page.dispatchEvent('body', 'drop', { dataTransfer: dt });
  const state = await settled(page, before);
  check(state === 'ready', `dropped ${basename(file)} did not load: ${await page.textContent('#error')}`);
}

function sameAsCli(report, file) {
  const diffs = diffJson(JSON.parse(cli(file, 'json')), report);
  check(!diffs.length, `the page's report differs from the CLI's for ${basename(file)}:\n  ${diffs.slice(0, 8).join('\n  ')}`);
}

async function clean(page, log) {
  const csp = await page.evaluate(() => window.__cspViolations);
  check(!csp.length, `CSP violations: ${csp.join('; ')}`);
  check(!log.errors.length, `script errors:\n  ${log.errors.join('\n  ')}`);
}

// Clicks an export button and returns the downloaded file's name and bytes. playwright-core's
// Firefox (WebDriver BiDi) reports no download events, so there the page's <a download> click is
// caught and its Blob read back instead: the same bytes, one step short of the disk.
async function download(page, selector) {
  const browser = page.context().browser();
  if (!browser || browser.browserType().name() !== 'firefox') {
    const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 15_000 }), page.click(selector)]);
    return { name: dl.suggestedFilename(), data: readFileSync(await dl.path()) };
  }
  await page.evaluate(() => {
    window.__saved = null;
    if (window.__clickPatched) return;
    window.__clickPatched = true;
    const click = HTMLAnchorElement.prototype.click;
    HTMLAnchorElement.prototype.click = function () {
      if (!this.download || !this.href.startsWith('blob:')) return click.call(this);
      const name = this.download;
      window.__saved = fetch(this.href)
        .then((r) => r.arrayBuffer())
        .then((b) => ({ name, b64: btoa(Array.from(new Uint8Array(b), (c) => String.fromCharCode(c)).join('')) }));
    };
  });
  await page.click(selector);
  await page.waitForFunction(() => window.__saved, null, { timeout: 15_000 });
  const saved = await page.evaluate(() => window.__saved);
  return { name: saved.name, data: Buffer.from(saved.b64, 'base64') };
}

async function shot(page, name, fullPage = false) {
  mkdirSync(SHOTS, { recursive: true });
  const browser = page.context().browser();
  const suffix = browser && browser.browserType().name() === 'firefox' ? '-firefox' : '';
  // caret: 'initial': hiding the caret injects a <style>, which the single file's CSP refuses.
  await page.evaluate(() => (window.__inScreenshot = true));
  await page.screenshot({ path: join(SHOTS, `${name}${suffix}.png`), fullPage, caret: 'initial' });
  await page.waitForTimeout(50); // violation events are dispatched asynchronously
  await page.evaluate(() => (window.__inScreenshot = false));
}

// The CLI's Markdown cut as the page's "Copy findings" cuts it: title line, then ## Findings.
function findingsOf(md) {
  const title = md.slice(0, md.indexOf('\n') + 1);
  const start = md.indexOf('## Findings\n');
  const next = md.indexOf('\n## ', start);
  return `${title}\n${md.slice(start, next < 0 ? undefined : next + 1)}`.replace(/\n+$/, '\n');
}

// --- the tests -----------------------------------------------------------------------------------------

// dist/_headers as {path: {header: value}} (Netlify's and Cloudflare Pages' format: a path, then
// its headers indented).
function headerRules(text) {
  const rules = {};
  let at = null;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    if (!/^\s/.test(line)) rules[(at = line.trim())] = {};
    else if (at) {
      const k = line.indexOf(':');
      rules[at][line.slice(0, k).trim()] = line.slice(k + 1).trim();
    }
  }
  return rules;
}

const tests = {
  async '_headers confines the worker with the page\'s policy, and leaves the single file its own'({ dist }) {
    // A <meta> policy binds no worker: the analyzer worker, which reads the untrusted trace, takes
    // its policy from its own response, and dist/_headers gave it none (only frame-ancestors).
    const rules = headerRules(readFileSync(join(dist, '_headers'), 'utf8'));
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(readFileSync(join(dist, 'index.html'), 'utf8'));
    check(meta, 'dist/index.html has no CSP <meta>');
    const worker = (rules['/worker.js'] || {})['Content-Security-Policy'] || '';
    check(worker === meta[1], `/worker.js is served with CSP "${worker}", the page has "${meta[1]}"`);
    check(/script-src 'self' 'wasm-unsafe-eval'/.test(worker) && !/unsafe-eval'|unsafe-inline/.test(worker.replace("'wasm-unsafe-eval'", '')), `weak worker policy: ${worker}`);
    check(/connect-src 'self' blob:/.test(worker), `the worker may connect elsewhere: ${worker}`);
    // Every rule that matches kinetoscope.html sets no script-src (its script is inline, by hash).
    for (const [path, headers] of Object.entries(rules)) {
      const matches = path === '/*' || path === '/kinetoscope.html';
      check(!matches || !/script-src/.test(headers['Content-Security-Policy'] || ''), `${path} would refuse the single file's inline script: ${headers['Content-Security-Policy']}`);
    }
  },

  async 'the hosted site works from a sub-path, with relative requests only'({ ctx, origin }) {
    const base = `${origin}${SUBPATH}/`;
    const { page, log } = await openPage(ctx, base);
    check(await page.isVisible('text=Your trace never leaves this browser tab.'), 'the privacy line is missing');
    check(await page.isVisible('a[href="kinetoscope.html"]'), 'the hosted page does not offer the single file');
    for (const file of TRACE_FILES) {
      await loadFile(page, file);
      sameAsCli(await page.evaluate(() => window.kinetoscope.report()), file);
    }
    const outside = log.requests.filter((u) => !u.startsWith(base) && !/^(blob|data):/.test(u));
    check(!outside.length, `requests outside ${base}: ${outside.join(', ')}`);
    check(log.requests.some((u) => u.startsWith(`${base}wasm/kinetoscope_wasm.wasm?v=`)), `the worker's .wasm request (named by its build) was not seen: ${log.requests.join(', ')}`);
    const wasm = await fetch(`${base}wasm/kinetoscope_wasm.wasm`);
    check(wasm.headers.get('content-type') === 'application/wasm', `.wasm served as ${wasm.headers.get('content-type')}`);
    await shot(page, 'dist-subpath');
    await clean(page, log);
    await page.close();

    // ?url= with a trace kept beside the page, and a clear refusal for another origin.
    const name = basename(TRACE_FILES[TRACE_FILES.length - 1]);
    const viaUrl = await openPage(ctx, `${base}?url=traces/${encodeURIComponent(name)}`);
    await viaUrl.page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.state), null, { timeout: 60_000 });
    check((await viaUrl.page.evaluate(() => document.body.dataset.state)) === 'ready', `?url=traces/${name}: ${await viaUrl.page.textContent('#error')}`);
    sameAsCli(await viaUrl.page.evaluate(() => window.kinetoscope.report()), TRACE_FILES[TRACE_FILES.length - 1]);
    await viaUrl.page.close();
    const away = await openPage(ctx, `${base}?url=https://example.com/t.json`);
    await away.page.waitForFunction(() => document.body.dataset.state === 'error', null, { timeout: 15_000 });
    check(/own origin/.test(await away.page.textContent('#error')), 'a foreign ?url= was not refused clearly');
    check(!away.log.requests.some((u) => u.startsWith('https://example.com')), 'the foreign URL was fetched');
    await away.page.close();
  },

  async 'the single file opens from file:// offline: drop a trace, get the report, nothing leaves'({ ctx, dist }) {
    const url = pathToFileURL(join(dist, 'kinetoscope.html')).href;
    await ctx.setOffline(true);
    const blocked = [];
    await ctx.route(/^(?!file:|blob:|data:)/, (route) => {
      blocked.push(route.request().url());
      return route.abort();
    });
    try {
      const { page, log } = await openPage(ctx, url);
      const csp = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
      check(/script-src 'sha256-[^']+' 'wasm-unsafe-eval'/.test(csp) && !/unsafe-inline/.test(csp) && /worker-src blob:/.test(csp), `weak or unexpected CSP: ${csp}`);
      check(/style-src 'sha256-/.test(csp) && /default-src 'none'/.test(csp), `weak or unexpected CSP: ${csp}`);
      check(await page.isVisible('text=Your trace never leaves this browser tab.'), 'the privacy line is missing');
      // The example trace travels inside the single file (<html data-example>): it opens offline.
      const first = await loads(page);
      await page.click('#try-example');
      check((await settled(page, first)) === 'ready', `the example did not open offline: ${await page.textContent('#error')}`);
      check((await page.textContent('.report-head h2')) === 'h200_dataloader_stall.pt.trace.json.gz', 'the example report is not named after it');
      await dropFile(page, TRACE_FILES[TRACE_FILES.length - 1]);
      sameAsCli(await page.evaluate(() => window.kinetoscope.report()), TRACE_FILES[TRACE_FILES.length - 1]);
      for (const file of TRACE_FILES) {
        await loadFile(page, file);
        sameAsCli(await page.evaluate(() => window.kinetoscope.report()), file);
      }
      await shot(page, 'dist-single-file');
      const foreign = log.requests.filter((u) => u !== url && !u.startsWith('blob:') && !u.startsWith('data:'));
      check(!foreign.length && !blocked.length, `requests beyond the file: ${[...foreign, ...blocked].join(', ')}`);
      check(log.workers.length && log.workers.every((u) => u.startsWith('blob:')), `workers started from ${log.workers.join(', ')}, not a Blob URL`);
      // ?url= cannot work from a file: the page says so instead of failing obscurely.
      const before = await loads(page);
      await page.evaluate(() => window.kinetoscope.openUrl('traces/x.json').catch(() => {}));
      check((await settled(page, before)) === 'error', '?url= from file:// did not fail');
      check(/opened from a file/.test(await page.textContent('#error')), `unclear ?url= message: ${await page.textContent('#error')}`);
      await clean(page, log);
      await page.close();
    } finally {
      await ctx.unroute(/^(?!file:|blob:|data:)/);
      await ctx.setOffline(false);
    }
  },

  async "exported Markdown, JSON and CSV equal the CLI's output"({ ctx, origin, dist, browserName }) {
    // Chromium on http: the real clipboard. Elsewhere (Firefox has no clipboard-read permission to
    // grant; file:// pages) the copied text is caught at navigator.clipboard.writeText.
    const realClipboard = browserName === 'chromium';
    if (realClipboard) await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    const pages = [`${origin}${SUBPATH}/`, pathToFileURL(join(dist, 'kinetoscope.html')).href];
    for (const url of pages) {
      const { page, log } = await openPage(ctx, url);
      for (const file of TRACE_FILES) {
        await loadFile(page, file);
        const stem = basename(file).replace(/\.gz$/, '').replace(/\.json$/, '').replace(/\.pt\.trace$/, '');
        const md = await download(page, '[data-export="markdown"]');
        check(md.name === `${stem}.kinetoscope.md`, `Markdown saved as ${md.name}`);
        check(md.data.toString('utf8') === cli(file, 'md'), `the Markdown export of ${basename(file)} differs from kinetoscope report --format md (${url})`);
        const json = await download(page, '[data-export="json"]');
        check(json.data.toString('utf8') === cli(file, 'json'), `the JSON export of ${basename(file)} differs from kinetoscope report --format json (${url})`);
        // CSV: one file per table; the kernels table has a header and one line per kernel.
        const report = JSON.parse(cli(file, 'json'));
        await page.click('.export-csv summary');
        const tables = await page.$$eval('[data-export^="csv:"]', (bs) => bs.map((b) => b.dataset.export.slice(4)));
        const want = [report.findings.length && 'findings', report.kernels.rows.length && 'kernels', report.diagnostics.length && 'diagnostics'];
        check(want.filter(Boolean).every((t) => tables.includes(t)), `CSV tables offered: ${tables.join(', ')}`);
        if (report.kernels.rows.length) {
          const csv = (await download(page, '[data-export="csv:kernels"]')).data.toString('utf8');
          const lines = csv.split('\r\n').filter(Boolean);
          check(lines[0].startsWith('name,category,class,'), `kernels.csv header: ${lines[0]}`);
          check(lines.length === report.kernels.rows.length + 1, `kernels.csv has ${lines.length - 1} rows, the report ${report.kernels.rows.length}`);
          const total = Number(lines[1].split(',')[lines[0].split(',').indexOf('total_us')]);
          check(total === report.kernels.rows[0].total_us || lines[1].startsWith('"'), `kernels.csv total_us ${total} != ${report.kernels.rows[0].total_us}`);
        }
        await page.keyboard.press('Escape');
        const real = realClipboard && url.startsWith('http');
        if (!real) {
          await page.evaluate(() => {
            navigator.clipboard.writeText = async (text) => {
              window.__copied = text;
            };
          });
        }
        await page.click('[data-export="copy-findings"]');
        await page.waitForSelector('.export-said:has-text("copied")');
        const copied = await page.evaluate(() => (window.__copied !== undefined ? window.__copied : navigator.clipboard.readText()));
        check(copied === findingsOf(cli(file, 'md')), `"Copy findings" gave:\n${copied.slice(0, 300)}`);
      }
      // The timeline as PNG: from the Timeline tab when the page has one (web/timeline/); otherwise
      // the button says there is nothing to export, and a canvas registered later is exported.
      const png = await page.$('[data-export="png"]');
      const isPng = (data) => data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      const hasTimeline = await page.evaluate(() => !!(window.kinetoscope.timeline && window.kinetoscope.timeline.show));
      if (hasTimeline) {
        await page.evaluate(() => window.kinetoscope.timeline.show());
        await page.waitForFunction(() => {
          const c = document.querySelector('canvas[data-kinetoscope-timeline]');
          if (!c || !c.width || c.offsetParent === null) return false;
          const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
          const colors = new Set();
          for (let i = 0; i < px.length && colors.size < 8; i += 4 * 97) colors.add(px[i] * 65536 + px[i + 1] * 256 + px[i + 2]);
          return colors.size >= 8; // something is drawn, not a blank canvas
        }, null, { timeout: 20_000 });
        const size = await page.$eval('canvas[data-kinetoscope-timeline]', (c) => [c.width, c.height]);
        check(!(await png.isDisabled()), 'the Timeline PNG button is disabled with a timeline on the page');
        const image = await download(page, '[data-export="png"]');
        check(isPng(image.data), 'the timeline export is not a PNG');
        const dims = [image.data.readUInt32BE(16), image.data.readUInt32BE(20)];
        check(dims[0] === size[0] && dims[1] === size[1], `the PNG is ${dims.join('x')}, the timeline canvas ${size.join('x')}`);
        await shot(page, url.startsWith('file:') ? 'dist-timeline-file' : 'dist-timeline');
      } else {
        check(await png.isDisabled(), 'the Timeline PNG button is enabled without a timeline');
        await page.evaluate(() => {
          const c = document.createElement('canvas');
          c.width = 64;
          c.height = 32;
          c.getContext('2d').fillRect(0, 0, 40, 20);
          window.kinetoscope.registerTimeline({ canvas: c });
        });
        check(!(await png.isDisabled()), 'registering a timeline did not enable the PNG export');
        check(isPng((await download(page, '[data-export="png"]')).data), 'the timeline export is not a PNG');
      }
      await clean(page, log);
      await page.close();
    }
  },

  async 'a deep link reopens the same finding and range'({ ctx, origin, dist }) {
    // The trace with the most findings; the link points at its last one (not the first on screen).
    const [file, report] = TRACE_FILES.map((f) => [f, JSON.parse(cli(f, 'json'))]).sort((a, b) => b[1].findings.length - a[1].findings.length)[0];
    check(report.findings.length >= 1, `${basename(file)} has no findings to link to`);
    const id = report.findings[report.findings.length - 1].id;
    for (const base of [`${origin}${SUBPATH}/`, pathToFileURL(join(dist, 'kinetoscope.html')).href]) {
      // The sender: selects the second finding, and a (stand-in) timeline selects a range.
      const a = await openPage(ctx, base);
      await loadFile(a.page, file);
      await a.page.locator('article.finding', { has: a.page.locator('.finding-id', { hasText: id }) }).locator('h3').click();
      const cardId = await a.page.textContent('article.finding.selected .finding-id');
      check(cardId === id, `the selected card is ${cardId}, expected ${id}`);
      await a.page.evaluate(() => window.kinetoscope.setView({ t: [1234.5, 56789.125] }, 'timeline'));
      const link = a.page.url();
      check(link.endsWith(`#f=${id}&t=1234.5,56789.125`), `the link is ${link}`);
      // Section links scroll without clobbering the view in the fragment.
      await a.page.click('nav.jump a[href="#kernels"]');
      check(a.page.url() === link, `a section link changed the URL to ${a.page.url()}`);
      await a.page.close();

      // The teammate: opens the link, then the same trace.
      const b = await openPage(ctx, link);
      await b.page.evaluate(() => {
        window.__seen = [];
        window.kinetoscope.onViewChange((v, source) => window.__seen.push({ v, source }));
      });
      await loadFile(b.page, file);
      const seen = await b.page.evaluate(() => window.__seen);
      const applied = seen.find((s) => s.source === 'load');
      check(applied && applied.v.f === id && applied.v.t[0] === 1234.5 && applied.v.t[1] === 56789.125, `after the load the view was ${JSON.stringify(seen)}`);
      const selected = await b.page.textContent('article.finding.selected .finding-id');
      check(selected === id, `the teammate's page selected ${selected}, expected ${id}`);
      const inView = await b.page.$eval('article.finding.selected', (el) => {
        const r = el.getBoundingClientRect();
        return r.bottom > 0 && r.top < innerHeight;
      });
      check(inView, 'the linked finding was not scrolled into view');
      const note = await b.page.textContent('.link-note');
      check(/Linked range: 1\.23 ms → 56\.8 ms/.test(note), `the range is not mentioned: ${note}`);
      await shot(b.page, base.startsWith('file:') ? 'dist-deep-link-file' : 'dist-deep-link');
      // Editing the fragment by hand moves the view too.
      if (report.findings.length >= 2) {
        await b.page.evaluate((f) => (location.hash = `#f=${f}`), report.findings[0].id);
        await b.page.waitForFunction((f) => document.querySelector('article.finding.selected .finding-id')?.textContent === f, report.findings[0].id);
      }
      await clean(b.page, b.log);
      await b.page.close();
    }
  },

  async 'a postMessage handshake from a second page delivers a trace'({ ctx, origin }) {
    const file = TRACE_FILES[TRACE_FILES.length - 1];
    // Same origin, in an iframe (serve.mjs's CSP allows frames from 'self' only).
    const kinetoscope = `${origin}${SUBPATH}/`;
    const host = await ctx.newPage();
    const hostLog = watch(host);
    await host.goto(`${origin}/embed/host.html?kinetoscope=${encodeURIComponent(kinetoscope)}`);
    await host.setInputFiles('#trace', file);
    await host.click('#in-frame');
    await host.waitForFunction(() => document.body.dataset.loaded, null, { timeout: 60_000 });
    const lines = await host.$$eval('#log li', (li) => li.map((x) => x.textContent));
    check((await host.evaluate(() => document.body.dataset.loaded)) === 'ok', `the frame did not load the trace: ${lines.join(' | ')}`);
    check(lines[0] === 'kinetoscope-ready' && /^kinetoscope-open /.test(lines[1]) && /^kinetoscope-loaded ok/.test(lines[2]), `handshake: ${lines.join(' | ')}`);
    const frame = host.frames().find((f) => f.url().startsWith(kinetoscope));
    sameAsCli(await frame.evaluate(() => window.kinetoscope.report()), file);
    await shot(host, 'dist-embed-iframe');
    check(!hostLog.errors.length, `errors: ${hostLog.errors.join('; ')}`);

    // Another origin (localhost vs 127.0.0.1), in a new tab, and a bad trace answered with an error.
    const other = origin.replace('127.0.0.1', 'localhost');
    const host2 = await ctx.newPage();
    await host2.goto(`${other}/embed/host.html?kinetoscope=${encodeURIComponent(kinetoscope)}`);
    await host2.setInputFiles('#trace', file);
    const [tab] = await Promise.all([ctx.waitForEvent('page'), host2.click('#in-tab')]);
    await host2.waitForFunction(() => document.body.dataset.loaded, null, { timeout: 60_000 });
    const lines2 = await host2.$$eval('#log li', (li) => li.map((x) => x.textContent));
    check((await host2.evaluate(() => document.body.dataset.loaded)) === 'ok', `the tab did not load the trace: ${lines2.join(' | ')}`);
    sameAsCli(await tab.evaluate(() => window.kinetoscope.report()), file);
    const reply = await host2.evaluate(
      (k) =>
        new Promise((done) => {
          const w = window.open(`${k}?embed=${encodeURIComponent(location.origin)}`, '_blank'); // ?embed: Kinetoscope answers allowed origins only
          window.addEventListener('message', (e) => {
            if (e.source !== w) return;
            if (e.data.type === 'kinetoscope-ready') {
              const buffer = new TextEncoder().encode('hello').buffer;
              w.postMessage({ type: 'kinetoscope-open', name: 'hello.json', buffer }, new URL(k).origin, [buffer]);
            } else if (e.data.type === 'kinetoscope-loaded') done(e.data);
          });
        }),
      kinetoscope,
    );
    check(reply.ok === false && reply.error.code === 'not_json' && reply.error.offset === 0, `a bad trace got ${JSON.stringify(reply)}`);
    for (const p of [host, host2, tab]) await p.close();
  },

  async 'browsers without WebAssembly or DecompressionStream are told so'({ ctx, origin }) {
    const page = await ctx.newPage();
    await page.addInitScript(() => {
      delete window.WebAssembly;
    });
    await page.goto(`${origin}${SUBPATH}/`);
    await page.waitForSelector('#support.fatal');
    const text = await page.textContent('#support');
    check(/cannot run Kinetoscope/.test(text) && /WebAssembly/.test(text), `message without WebAssembly: ${text}`);
    await shot(page, 'dist-no-webassembly');
    await page.close();
    const gz = await ctx.newPage();
    await gz.addInitScript(() => {
      delete window.DecompressionStream;
    });
    await gz.goto(`${origin}${SUBPATH}/`);
    await gz.waitForSelector('#support');
    const note = await gz.textContent('#support');
    check(!(await gz.$('#support.fatal')) && /DecompressionStream/.test(note) && /\.json\.gz/.test(note), `message without DecompressionStream: ${note}`);
    await gz.close();
    const fine = await openPage(ctx, `${origin}${SUBPATH}/`);
    check(!(await fine.page.$('#support')), 'a support note on a browser that has everything');
    await fine.page.close();
  },
};

// --- runner -----------------------------------------------------------------------------------------

async function main() {
  const only = process.argv.slice(2);
  const selected = Object.entries(tests).filter(([name]) => !only.length || only.some((o) => name.includes(o)));
  if (!existsSync(TRACES)) console.log(`WARN: ${TRACES} is absent: only the bundled demo trace is used`);
  // Every browser of BROWSERS must be there and new enough for playwright-core: an absent Firefox is
  // a failure, not a skip (scripts/setup.sh installs firefox-esr; BROWSERS=chromium leaves it out).
  const browsers = BROWSERS;
  try {
    requireBrowsers(browsers, { chromium: CHROMIUM, firefox: FIREFOX });
  } catch (e) {
    console.error(`FAIL  ${e.message}`);
    process.exit(1);
  }
  const tmp = mkdtempSync(join(tmpdir(), 'kinetoscope-dist-'));
  let proc;
  let ctx;
  let passed = 0;
  let failed = 0;
  try {
    const dist = buildDist(tmp);
    const server = await startServer(dist, tmp);
    proc = server.proc;
    const origin = server.origin;
    for (const browserName of browsers) {
      const t0 = Date.now();
      ctx = await startBrowser(browserName, join(tmp, `profile-${browserName}`));
      console.log(`-- ${browserName} (started in ${Date.now() - t0} ms)`);
      for (const [name, fn] of selected) {
        const t1 = Date.now();
        let timer;
        try {
          await Promise.race([
            fn({ ctx, origin, dist, tmp, browserName }),
            new Promise((_, reject) => {
              timer = setTimeout(() => reject(new Error(`timed out after ${TEST_TIMEOUT_MS / 1000} s`)), TEST_TIMEOUT_MS);
            }),
          ]);
          passed++;
          console.log(`ok    ${browserName}: ${name} (${Date.now() - t1} ms)`);
        } catch (e) {
          failed++;
          console.log(`FAIL  ${browserName}: ${name}\n      ${String(e.stack || e).split('\n').join('\n      ')}`);
        } finally {
          clearTimeout(timer);
          for (const p of ctx.pages()) await p.close().catch(() => {});
        }
      }
      await ctx.close().catch(() => {});
      ctx = null;
    }
  } finally {
    if (ctx) await ctx.close().catch(() => {});
    if (proc) proc.kill();
    rmSync(tmp, { recursive: true, force: true });
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
