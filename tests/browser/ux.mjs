#!/usr/bin/env node
// Browser tests for issue 18 (the page as an expert's tool), in Debian's chromium AND firefox-esr
// (playwright-core, as dist.mjs drives them; never a downloaded browser), at 1400x900, on traces
// made for them (ux_traces.mjs). Each test takes a screenshot (build/screenshots/ux-*.png) and
// checks what the issue asks of it: the element in the viewport, the text present.
//
//   node tests/browser/ux.mjs [name-substring...]      BROWSERS=chromium,firefox (default)
import { chromium, firefox } from 'playwright-core';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, SHOTS, TEST_TIMEOUT_MS, check, startServer } from './lib.mjs';
import { GEMM, PY_FRAMES, diffPair, rankTrace, stackTrace, templated } from './ux_traces.mjs';

const FIREFOX = process.env.FIREFOX || '/usr/bin/firefox-esr';
const BROWSERS = (process.env.BROWSERS || 'chromium,firefox').split(',').filter(Boolean);
const VIEWPORT = { width: 1400, height: 900 };
// Playwright's screenshot in Firefox adds a <style> the strict CSP refuses (dist.mjs says more).
const PLAYWRIGHT_STYLE = 'sha256-YjaKGiklmzC6wjXA513HAMmzus8VE61XCOT+SmwNZWA=';

async function launch(name, profile) {
  if (name === 'chromium') {
    return chromium.launchPersistentContext(profile, {
      viewport: VIEWPORT,
      acceptDownloads: true,
      executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  }
  const browser = await firefox.launch({ channel: 'moz-firefox', executablePath: FIREFOX, headless: true });
  const ctx = await browser.newContext({ viewport: VIEWPORT, acceptDownloads: true });
  ctx.on('close', () => browser.close().catch(() => {}));
  return ctx;
}

async function openPage(ctx, origin, path = '/') {
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => !e.message.includes(PLAYWRIGHT_STYLE) && errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().includes(PLAYWRIGHT_STYLE) && !/status of 404|Content-Security-Policy|Content Security Policy/.test(m.text())) errors.push(`console: ${m.text()}`);
  });
  await page.goto(origin + path);
  await page.waitForFunction(() => !!window.kinetoscope);
  return { page, errors };
}

const loads = (page) => page.evaluate(() => Number(document.body.dataset.loads || 0));
async function settled(page, before) {
  await page.waitForFunction((n) => Number(document.body.dataset.loads || 0) > n, before, { timeout: 60_000 });
  return page.evaluate(() => document.body.dataset.state);
}
async function loadFiles(page, files) {
  const before = await loads(page);
  await page.setInputFiles('#file', files);
  const state = await settled(page, before);
  check(state === 'ready', `${files} did not load: ${await page.textContent('#error')}`);
}

let browserName = 'chromium';
async function shot(page, name) {
  mkdirSync(SHOTS, { recursive: true });
  const path = join(SHOTS, `ux-${name}${browserName === 'firefox' ? '-firefox' : ''}.png`);
  await page.screenshot({ path });
  return path;
}

// Whether the element's box lies inside the viewport (all of it, or its top `min` pixels).
async function inViewport(page, selector, min = 40) {
  const box = await page.locator(selector).first().boundingBox();
  return !!box && box.y >= 0 && box.y + Math.min(box.height, min) <= VIEWPORT.height && box.x >= 0 && box.x < VIEWPORT.width && box.height > 0;
}

// Non-background pixels of a PNG (a data: URL or bytes), counted in the page: how blank it is.
async function inkOf(page, dataUrl) {
  return page.evaluate(async (url) => {
    const img = new Image();
    img.src = url;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width;
    c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    const bg = [d[0], d[1], d[2]];
    let ink = 0;
    for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - bg[0]) + Math.abs(d[i + 1] - bg[1]) + Math.abs(d[i + 2] - bg[2]) > 30) ink++;
    return { ink, width: c.width, height: c.height };
  }, dataUrl);
}

const tl = (page, body, arg) => page.evaluate(body, arg);
async function openTimeline(page) {
  await page.click('#tabs button[data-tab="timeline"]');
  await tl(page, () => window.kinetoscope.timeline.settled());
}
async function findSlice(page, name) {
  const n = await tl(page, (q) => window.kinetoscope.timeline.search(q, { regex: false }), name);
  check(n > 0, `searching for ${name} found nothing`);
  await tl(page, () => {
    const t = window.kinetoscope.timeline;
    const span = t.state().span_ns;
    return t.setWindow(-span, span * 0.2);
  });
  const slice = await tl(page, () => window.kinetoscope.timeline.nextHit(1));
  await tl(page, () => window.kinetoscope.timeline.settled());
  return slice;
}

function tests(tmp) {
  const traces = {};
  const trace = (key, make) => traces[key] || (traces[key] = make());
  return {
    async '1. a clicked slice shows its details in a drawer in view, with the whole stack and the launching op'({ ctx, origin }) {
      const file = trace('stack', () => stackTrace(tmp));
      const { page, errors } = await openPage(ctx, origin);
      await loadFiles(page, file);
      await openTimeline(page);
      const kernel = await findSlice(page, GEMM);
      // Click it on the canvas, as a user would.
      await tl(page, () => window.kinetoscope.timeline.search('', {}));
      await page.focus('.tl-canvas');
      await page.keyboard.press('0');
      await tl(page, () => window.kinetoscope.timeline.settled());
      const at = await tl(page, (i) => window.kinetoscope.timeline.locate(i), kernel);
      check(at, 'the GEMM kernel is not on screen');
      await page.mouse.click(at.x, at.y);
      await page.waitForFunction((i) => { const s = window.kinetoscope.timeline.state(); return s.details && s.details.slice === i && s.context; }, kernel, { timeout: 15_000 });
      check(await page.isVisible('.tl-drawer'), 'no drawer');
      check(await inViewport(page, '.tl-drawer .tl-name'), 'the drawer\'s title is not in the viewport');
      await shot(page, '1-drawer-kernel');
      check(await inViewport(page, '.tl-drawer .tl-launcher', 60), 'the launching op is not in the viewport');
      const launcher = await page.textContent('.tl-drawer .tl-launcher');
      check(launcher.includes('aten::addmm') && launcher.includes('[[4096], [64, 4096], [4096, 4096], [], []]'), `the launching op and its Input Dims: ${launcher}`);
      const frames = await page.locator('.tl-drawer .tl-ancestors li').allTextContents();
      check(frames.length === PY_FRAMES + 4, `${frames.length} stack frames: ${frames.join(' | ')}`);
      check(frames[0].startsWith('aten::addmm') && frames[1].startsWith('aten::linear') && frames[2].startsWith('nn.Module: Linear_0') && frames.at(-1).startsWith('ProfilerStep#1'), `frames: ${frames.join(' | ')}`);
      const occupancy = await page.textContent('.tl-drawer .tl-facts');
      check(!occupancy.includes('0%') && occupancy.includes('not estimated'), `occupancy 0 shown as a number: ${occupancy}`);
      await shot(page, '1-drawer-kernel');
      // One click reaches the outermost Python frame.
      await page.locator('.tl-drawer .tl-ancestors .tl-crumb', { hasText: 'frame_0' }).click();
      await page.waitForFunction(() => { const s = window.kinetoscope.timeline.state(); return s.details && /frame_0$/.test(s.details.name); }, null, { timeout: 10_000 });
      check(await inViewport(page, '.tl-drawer .tl-name'), 'the drawer left the viewport');
      await page.keyboard.press('Escape');
      await page.waitForFunction(() => !window.kinetoscope.timeline.state().drawer);
      check(errors.length === 0, errors.join('\n'));
    },
  };
}

async function main() {
  const only = process.argv.slice(2);
  const tmp = mkdtempSync(join(tmpdir(), 'kinetoscope-ux-'));
  const all = tests(tmp);
  const selected = Object.entries(all).filter(([name]) => !only.length || only.some((o) => name.includes(o)));
  const browsers = BROWSERS.filter((b) => {
    if (b === 'firefox' && !existsSync(FIREFOX)) {
      console.log(`WARN: ${FIREFOX} is absent (apt-get install firefox-esr): the Firefox runs are skipped`);
      return false;
    }
    return true;
  });
  const server = await startServer();
  let passed = 0;
  let failed = 0;
  try {
    for (const b of browsers) {
      browserName = b;
      const ctx = await launch(b, join(tmp, `profile-${b}`));
      try {
        for (const [name, fn] of selected) {
          const t0 = Date.now();
          let timer;
          try {
            await Promise.race([fn({ ctx, origin: server.origin, tmp }), new Promise((_, rej) => (timer = setTimeout(() => rej(new Error('timed out')), TEST_TIMEOUT_MS)))]);
            passed++;
            console.log(`ok    ${b}: ${name} (${Date.now() - t0} ms)`);
          } catch (e) {
            failed++;
            console.log(`FAIL  ${b}: ${name}\n      ${String(e.stack || e).split('\n').join('\n      ')}`);
          } finally {
            clearTimeout(timer);
            for (const p of ctx.pages()) await p.close().catch(() => {});
          }
        }
      } finally {
        await ctx.close().catch(() => {});
      }
    }
  } finally {
    server.proc.kill();
    rmSync(tmp, { recursive: true, force: true });
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
