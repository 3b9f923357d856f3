// Shared by the browser tests and benchmarks: the static server, Debian's chromium through
// playwright-core (never a downloaded browser), page helpers and the CLI's report for comparison.
import { chromium } from 'playwright-core';
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { diffJson } from './diff.mjs';
import { CHROMIUM, requireBrowsers } from './browsers.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const TRACES = resolve(ROOT, '../shared/traces');
export const CLI = resolve(ROOT, process.env.KINETOSCOPE_CLI || 'build/native/kinetoscope');
export const WASM_DIR = resolve(ROOT, process.env.KINETOSCOPE_WASM_DIR || 'build/wasm');
export const SHOTS = join(ROOT, 'build/screenshots');
export const TEST_TIMEOUT_MS = 300_000;  // a hang guard; the slowest test takes ~15 s on an idle machine

export class Skip extends Error {}
export const skip = (why) => {
  throw new Skip(why);
};
export function check(cond, msg) {
  if (!cond) throw new Error(msg);
}
export function needTraces() {
  if (!existsSync(TRACES)) skip(`${TRACES} is absent (the real traces live in ../shared/traces)`);
}

// --- server and browser ---------------------------------------------------------------------------

// Starts scripts/serve.mjs with `args` (port 0: a free one) and resolves to { proc, origin }
// once it prints its URL.
export function startServeMjs(args) {
  const proc = spawn(process.execPath, ['scripts/serve.mjs', '--port', '0', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolvePromise, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('serve.mjs did not start within 10 s')), 10_000);
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /Kinetoscope: (http:\/\/\S+?)\/?\s/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolvePromise({ proc, origin: new URL(m[1]).origin });
      }
    });
    proc.on('exit', (code) => reject(new Error(`serve.mjs exited with ${code}`)));
  });
}

// The page from web/, with the WASM build, the examples and (when present) ../shared/traces.
export function startServer(extra = []) {
  const args = ['--root', 'web', '--map', `/wasm=${WASM_DIR}`, '--map', '/examples=examples', ...extra];
  if (existsSync(TRACES)) args.push('--map', `/traces=${TRACES}`);
  return startServeMjs(args);
}

export async function startBrowser(profile) {
  const executablePath = CHROMIUM;
  requireBrowsers(['chromium']);  // absent or older than playwright-core needs: say so, and stop
  return chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      // Extra flags for experiments, e.g. KS_CHROMIUM_FLAGS=--js-flags=--no-wasm-dynamic-tiering
      // (docs/performance.md, session 26).
      ...(process.env.KS_CHROMIUM_FLAGS ? process.env.KS_CHROMIUM_FLAGS.split(' ') : []),
    ],
  });
}

// --- helpers used by the tests ---------------------------------------------------------------------

// Waits until the page runs `n` workers besides its warmed-up spare loader (web/app.js, which
// starts one a moment after each load settles), and fails the test if that does not happen.
export async function waitForWorkers(page, n, what) {
  let seen = -1;
  for (let i = 0; i < 100; i++) {
    const spare = await page.evaluate(() => (document.body.dataset.spare ? 1 : 0));
    seen = page.workers().length - spare;
    if (seen === n) return;
    await page.waitForTimeout(50);
  }
  check(false, `${what}: ${seen} workers run besides the spare, expected ${n}`);
}

// A fresh page that records every request (the page's and its worker's) and every script error.
export async function openPage(ctx, origin, path = '/') {
  const page = await ctx.newPage();
  const log = { requests: [], errors: [] };
  page.on('request', (r) => log.requests.push(r.url()));
  page.on('pageerror', (e) => log.errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource: the server responded with a status of 404/.test(m.text())) {
      log.errors.push(`console: ${m.text()}`);
    }
  });
  page.on('worker', (w) => w.on('console', (m) => m.type() === 'error' && log.errors.push(`worker console: ${m.text()}`)));
  await page.goto(origin + path);
  await page.waitForFunction(() => !!window.kinetoscope);
  return { page, log };
}

// Waits until the page's spare loader has warmed up (web/app.js sets data-warm): what a timed or
// measured load starts from. Generous: a loaded machine compiles the WASM slowly.
export async function waitForWarm(page, timeout = 120_000) {
  await page.waitForFunction(() => document.body.dataset.warm === '1', null, { timeout, polling: 50 });
}

// openPage, then waitForWarm: the warm page the benches and the warm-up tests start from.
export async function openWarmPage(ctx, origin, path = '/') {
  const opened = await openPage(ctx, origin, path);
  await waitForWarm(opened.page);
  return opened;
}

export async function loads(page) {
  return page.evaluate(() => Number(document.body.dataset.loads || 0));
}

// Waits for the load after `before` to finish; returns 'ready' or 'error'.
export async function settled(page, before) {
  await page.waitForFunction((n) => Number(document.body.dataset.loads || 0) > n, before, { timeout: 60_000 });
  return page.evaluate(() => document.body.dataset.state);
}

export async function loadFile(page, file) {
  const before = await loads(page);
  await page.setInputFiles('#file', file);
  return settled(page, before);
}

const cliCache = new Map();
export function cliReport(file) {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build the CLI first (make native), or set KINETOSCOPE_CLI`);
  if (!cliCache.has(file)) {
    const out = execFileSync(CLI, ['report', '--format', 'json', file], { maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] }).toString('utf8');
    try {
      cliCache.set(file, JSON.parse(out));
    } catch (e) {
      throw new Error(`\`${CLI} report --format json ${file}\` did not print JSON (${e.message}): ${out.slice(0, 200)}`);
    }
  }
  return cliCache.get(file);
}

export function sameAsCli(actual, file) {
  const diffs = diffJson(cliReport(file), actual);
  check(!diffs.length, `page report differs from the CLI's for ${file}:\n  ${diffs.slice(0, 10).join('\n  ')}`);
}

export function noErrors(log) {
  check(!log.errors.length, `script errors on the page:\n  ${log.errors.join('\n  ')}`);
}

export async function shot(page, name, fullPage = false) {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage });
}

// A trace of `bytes` bytes of B/E pairs (DevTools-style), written to `file`: its events pair
// across the file, so a helper's part of it is never used (web/worker/split.js). Returns file.
export function writeBeginEndTrace(file, bytes) {
  const pair = (i) => `{"ph":"B","name":"step ${i % 97}","cat":"x","pid":1,"tid":${i % 3},"ts":${i * 10}},\n{"ph":"E","pid":1,"tid":${i % 3},"ts":${i * 10 + 7}}`;
  const pairs = [];
  for (let i = 0, n = 0; n < bytes; i++) n += (pairs[i] = pair(i)).length + 2;
  writeFileSync(file, `{"traceEvents":[\n${pairs.join(',\n')}\n]}`);
  return file;
}

// "Copy link": what the page put on the clipboard (the clipboard itself is stubbed: a headless
// browser's permission is not what is tested).
export async function copiedLink(page) {
  await page.evaluate(() => {
    window.__copied = null;
    navigator.clipboard.writeText = async (text) => {
      window.__copied = text;
    };
  });
  await page.click('.export-bar [data-export="copy-link"]');
  await page.waitForFunction(() => window.__copied !== null, null, { timeout: 30_000 });
  return page.evaluate(() => window.__copied);
}
