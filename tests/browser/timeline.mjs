// Browser tests of the timeline tab (web/timeline/), run by run.mjs with its helpers: real traces from
// ../shared/traces, real keyboard and mouse input in headless Chromium, numbers checked against the
// CLI (`kinetoscope aggregate`, `kinetoscope report`). Screenshots: build/screenshots/timeline-*.png.
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { diffJson } from './diff.mjs';

const DLRM = 'param__dlrm_kineto__worker0_step_12.1694128201545.pt.trace.json';
const GZ = 'hta__benchmark_simple_add_trace.json.gz';

export function timelineTests({ check, skip, needTraces, openPage, loadFile, shot, noErrors, TRACES, CLI }) {
  // A function run in the page (window.kinetoscope.timeline is the timeline's API).
  const api = (page, body, arg) => page.evaluate(body, arg);

  async function openTimeline(ctx, origin, file) {
    const { page, log } = await openPage(ctx, origin);
    const state = await loadFile(page, file);
    check(state === 'ready', `${file} did not load: ${await page.textContent('#error')}`);
    await page.click('#tabs button[data-tab="timeline"]');
    await api(page, () => window.kinetoscope.timeline.show());
    return { page, log };
  }
  const state = (page) => api(page, () => {
    const s = window.kinetoscope.timeline.state();
    delete s.layout;
    return s;
  });
  const settle = (page) => api(page, () => window.kinetoscope.timeline.settled());
  const near = (a, b, tol) => Math.abs(a - b) <= tol;

  function cli(args) {
    if (!existsSync(CLI)) skip(`${CLI} is missing`);
    return JSON.parse(execFileSync(CLI, args, { maxBuffer: 1 << 28 }).toString('utf8'));
  }

  // A kernel of the trace (the report's longest in total) and where its first occurrence is drawn.
  async function kernelOnScreen(page, name) {
    const n = await api(page, (k) => window.kinetoscope.timeline.search(k), name);
    check(n > 0, `searching for ${name} found nothing`);
    const slice = await api(page, () => window.kinetoscope.timeline.nextHit(1));
    await settle(page);
    await page.keyboard.press('Escape'); // forget the selection: the click below must make it
    await page.keyboard.press('f'); // nothing selected: a no-op
    let at = await api(page, (i) => window.kinetoscope.timeline.locate(i), slice);
    check(at, `kernel slice ${slice} is not on screen`);
    // Zoomed in on it, so that it is drawn as itself: a click on a box of several merged slices
    // selects their run (issue 18), not one of them.
    const b = at.brief;
    await api(page, ([s, d]) => window.kinetoscope.timeline.setWindow(s - 20 * d, s + 21 * d), [b.start_ns, Math.max(b.dur_ns, 1000)]);
    at = await api(page, (i) => window.kinetoscope.timeline.locate(i), slice);
    check(at, `kernel slice ${slice} is not on screen once zoomed in`);
    return { slice, at };
  }

  // Records what the timeline's canvas draws: each frame (drawFrame begins with setTransform)
  // replaces window.__frame with its fillText, fillRect, strokeRect, fill and stroke calls and the
  // style each used (as the canvas normalises it: '#rrggbb' or 'rgba(...)').
  async function recordDrawing(page) {
    await api(page, () => {
      if (window.__recording) return;
      window.__recording = true;
      const P = CanvasRenderingContext2D.prototype;
      const wrap = (name, entry) => {
        const orig = P[name];
        P[name] = function (...a) {
          if (this.canvas && this.canvas.classList && this.canvas.classList.contains('tl-canvas')) {
            if (name === 'setTransform') window.__frame = [];
            else if (window.__frame) window.__frame.push(entry(this, a));
          }
          return orig.apply(this, a);
        };
      };
      wrap('setTransform', () => null);
      wrap('fillText', (c, a) => ({ op: 'text', text: String(a[0]), x: a[1], y: a[2], style: c.fillStyle }));
      wrap('fillRect', (c, a) => ({ op: 'rect', style: c.fillStyle, x: a[0], y: a[1], w: a[2], h: a[3] }));
      wrap('strokeRect', (c, a) => ({ op: 'strokeRect', style: c.strokeStyle, x: a[0], y: a[1], w: a[2], h: a[3] }));
      wrap('fill', (c) => ({ op: 'fill', style: c.fillStyle }));
      wrap('stroke', (c) => ({ op: 'stroke', style: c.strokeStyle }));
      wrap('moveTo', (c, a) => ({ op: 'moveTo', x: a[0], y: a[1] }));
    });
  }
  // The calls of a frame drawn now.
  async function lastFrame(page) {
    await settle(page);
    await api(page, () => new Promise((r) => requestAnimationFrame(() => r())));
    await settle(page);
    return api(page, () => window.__frame || []);
  }
  // A CSS color as the canvas reports it back.
  const normColor = (page, colors) => api(page, (cs) => {
    const c = document.createElement('canvas').getContext('2d');
    return cs.map((x) => {
      c.fillStyle = x;
      return c.fillStyle;
    });
  }, colors);
  // The last filled rectangle of a frame under canvas point (x, y): what is seen there.
  const rectAt = (frame, x, y) => [...frame].reverse().find((e) => e.op === 'rect' && e.x <= x && x <= e.x + e.w && e.y <= y && y <= e.y + e.h);
  // A slice by name (the `nth` match in time order), selected and on screen.
  async function findSlice(page, name, nth = 0, regex = false) {
    const n = await api(page, (q) => window.kinetoscope.timeline.search(q[0], { regex: q[1] }), [name, regex]);
    check(n > nth, `searching for ${name} found ${n}`);
    // The first match is the first after the middle of the window: put that before the trace.
    await api(page, () => {
      const t = window.kinetoscope.timeline;
      const span = t.state().span_ns;
      return t.setWindow(-span, span * 0.2);
    });
    let slice = null;
    for (let i = 0; i <= nth; i++) slice = await api(page, () => window.kinetoscope.timeline.nextHit(1));
    await settle(page);
    return slice;
  }
  async function canvasPoint(page, slice) {
    const box = await page.locator('.tl-canvas').boundingBox();
    const at = await api(page, (i) => window.kinetoscope.timeline.locate(i), slice);
    check(at, `slice ${slice} is not on screen`);
    return { x: at.x - box.x, y: at.y - box.y, page: at, brief: at.brief };
  }

  return {
    async 'timeline: W/S zoom at the mouse, A/D pan, 0 fits, and the window moves as expected'({ ctx, origin }) {
      needTraces();
      const { page, log } = await openTimeline(ctx, origin, join(TRACES, DLRM));
      const s0 = await state(page);
      check(s0.span_ns > 0 && near(s0.start_ns, -0.01 * s0.span_ns, 1) && near(s0.end_ns, 1.01 * s0.span_ns, 1), `not fitted at first: ${JSON.stringify(s0)}`);
      const box = await page.locator('.tl-canvas').boundingBox();
      const mx = s0.plot_left + s0.plot_width * 0.3;
      await page.mouse.move(box.x + mx, box.y + 200);
      const tMouse = s0.start_ns + ((mx - s0.plot_left) / s0.plot_width) * (s0.end_ns - s0.start_ns);
      await page.keyboard.down('w');
      await page.waitForTimeout(400);
      await page.keyboard.up('w');
      await settle(page);
      const s1 = await state(page);
      const span0 = s0.end_ns - s0.start_ns;
      const span1 = s1.end_ns - s1.start_ns;
      check(span1 < span0 / 2, `W for 0.4 s zoomed from ${span0} to only ${span1} ns`);
      const tMouse1 = s1.start_ns + ((mx - s1.plot_left) / s1.plot_width) * span1;
      // The mouse lands on a whole CSS pixel: allow one pixel of the first scale.
      check(near(tMouse1, tMouse, span0 / s0.plot_width), `the time under the mouse moved from ${tMouse} to ${tMouse1}: zoom is not anchored at the mouse`);
      await shot(page, 'timeline-zoomed');
      await page.keyboard.press('d');
      await settle(page);
      const s2 = await state(page);
      check(s2.start_ns > s1.start_ns && near(s2.end_ns - s2.start_ns, span1, span1 * 1e-9 + 1), `D did not pan right: ${s1.start_ns} -> ${s2.start_ns}`);
      await page.keyboard.press('a');
      await page.keyboard.press('a');
      await settle(page);
      const s3 = await state(page);
      check(s3.start_ns < s2.start_ns, `A did not pan left: ${s2.start_ns} -> ${s3.start_ns}`);
      await page.keyboard.press('s');
      await settle(page);
      const s4 = await state(page);
      check(s4.end_ns - s4.start_ns > span1, 'S did not zoom out');
      // Drag to pan: 200 px to the right shows earlier time.
      await page.mouse.move(box.x + 600, box.y + 300);
      await page.mouse.down();
      await page.mouse.move(box.x + 700, box.y + 300, { steps: 4 });
      await page.mouse.move(box.x + 800, box.y + 300, { steps: 4 });
      await page.mouse.up();
      await settle(page);
      const s5 = await state(page);
      const perPx = (s4.end_ns - s4.start_ns) / s4.plot_width;
      check(near(s4.start_ns - s5.start_ns, 200 * perPx, perPx * 2), `dragging 200 px moved the window by ${(s4.start_ns - s5.start_ns) / perPx} px`);
      await page.keyboard.press('0');
      await settle(page);
      const s6 = await state(page);
      check(near(s6.start_ns, s0.start_ns, 1) && near(s6.end_ns, s0.end_ns, 1), '0 did not fit the trace');
      await shot(page, 'timeline-fit');
      noErrors(log);
      await page.close();
    },

    async 'timeline: clicking a kernel opens its details with its args (plain JSON and gzip)'({ ctx, origin }) {
      needTraces();
      for (const name of [DLRM, GZ]) {
        const file = join(TRACES, name);
        const report = cli(['report', '--format', 'json', file]);
        const kernel = report.kernels.rows[0].name;
        const { page, log } = await openTimeline(ctx, origin, file);
        const { slice, at } = await kernelOnScreen(page, kernel);
        await page.mouse.click(at.x, at.y);
        await page.waitForFunction((i) => { const s = window.kinetoscope.timeline.state(); return s.selection === i && s.details && s.details.slice === i; }, slice, { timeout: 10_000 });
        const s = await state(page);
        check(s.details.name === kernel, `clicked ${kernel}, details show ${s.details.name}`);
        check(s.details.kind === 'kernel', `details kind ${s.details.kind}`);
        const args = s.details.args || {};
        for (const key of ['correlation', 'stream', 'grid', 'block']) check(key in args, `the kernel's args lack ${key}: ${JSON.stringify(args).slice(0, 300)}`);
        check(s.details.partner && /cudaLaunchKernel|cudaLaunch/.test(s.details.partner.name), `no launch linked: ${JSON.stringify(s.details.partner)}`);
        check(s.links.some((l) => l.kind === 'launch' && l.to === slice), 'no launch arrow to the kernel');
        const text = await page.textContent('.tl-details');
        check(text.includes('grid') && text.includes(kernel.slice(0, 30)), 'the details panel does not show the args');
        // Selecting the launch highlights the kernel the other way.
        await page.click('.tl-details .tl-link');
        await page.waitForFunction((i) => { const st = window.kinetoscope.timeline.state(); return st.selection !== i && st.details && st.links.some((l) => l.to === i); }, slice, { timeout: 10_000 });
        await settle(page);
        await shot(page, name === DLRM ? 'timeline-launch-selected' : 'timeline-gzip-launch');
        await api(page, (i) => window.kinetoscope.timeline.select(i), slice);
        await settle(page);
        if (name === DLRM) await shot(page, 'timeline-kernel-details', true);
        noErrors(log);
        await page.close();
      }
    },

    async "timeline: an area selection's aggregate equals the CLI's"({ ctx, origin }) {
      needTraces();
      const file = join(TRACES, DLRM);
      const { page, log } = await openTimeline(ctx, origin, file);
      const box = await page.locator('.tl-canvas').boundingBox();
      const s0 = await state(page);
      // Shift+drag from 20% to 60% of the plot, over the first lanes.
      const x0 = box.x + s0.plot_left + s0.plot_width * 0.2;
      const x1 = box.x + s0.plot_left + s0.plot_width * 0.6;
      await page.keyboard.down('Shift');
      await page.mouse.move(x0, box.y + 40);
      await page.mouse.down();
      await page.mouse.move((x0 + x1) / 2, box.y + 200, { steps: 5 });
      await page.mouse.move(x1, box.y + 380, { steps: 5 });
      await page.mouse.up();
      await page.keyboard.up('Shift');
      await page.waitForFunction(() => !!window.kinetoscope.timeline.state().aggregate, null, { timeout: 10_000 });
      const s = await state(page);
      const agg = s.aggregate;
      check(agg.tracks.length >= 1 && agg.rows.length >= 1, `empty area selection: ${JSON.stringify(agg).slice(0, 200)}`);
      const fromUs = (agg.from_us).toFixed(3);
      const toUs = (agg.to_us).toFixed(3);
      const expected = cli(['aggregate', file, '--from-us', fromUs, '--to-us', toUs, '--tracks', agg.tracks.join(',')]);
      const diffs = diffJson(expected, agg);
      check(!diffs.length, `the page's aggregate differs from \`kinetoscope aggregate\`:\n  ${diffs.slice(0, 8).join('\n  ')}`);
      const rows = await page.locator('.tl-area tbody tr').count();
      check(rows === Math.min(agg.rows.length, 300), `${rows} table rows for ${agg.rows.length} names`);
      // What the columns sum: the time inside the range (each slice clipped to it) first, sorted by
      // it, then the self, avg, min and max of the clipped slices, and last the whole slices that
      // overlap the range (a step is longer than the range).
      const headers = await page.locator('.tl-area thead th').allTextContents();
      check(headers.slice(3).join() === 'In range,Self,Avg,Min,Max,Whole slices' && /inside the selection/.test(await page.textContent('.tl-area-head')), `the area table does not say what its columns are: ${headers}`);
      const span = agg.to_us - agg.from_us;
      // Nested slices of one name count once per track: no row holds more than the range on each track.
      for (const r of agg.rows) check(r.in_range_us <= r.total_us + 1e-3 && r.in_range_us <= Math.min(r.count, agg.tracks.length) * span + 1e-3, `${r.name}: ${r.in_range_us} µs in a ${span} µs range on ${agg.tracks.length} tracks, ${r.total_us} µs whole`);
      check(agg.rows.some((r) => r.total_us > span && r.in_range_us <= span + 1e-3), 'no slice longer than the range was clipped to it');
      // Min and max of clipped slices: none longer than the range, though whole slices are.
      check(agg.rows.some((r) => r.max_us > span) && agg.rows.every((r) => r.in_range_max_us <= span + 1e-3 && r.in_range_min_us <= r.in_range_max_us), 'the clipped max is longer than the range');
      const firstName0 = await page.locator('.tl-area tbody tr').first().locator('.clamp').textContent();
      const topIn = agg.rows.reduce((a, b) => (b.in_range_us > a.in_range_us ? b : a));
      check(agg.rows.find((r) => r.name === firstName0).in_range_us === topIn.in_range_us, `the table is not sorted by time in range: first ${firstName0}`);
      console.log(`      ${agg.slices} slices, ${agg.rows.length} names on ${agg.tracks.length} tracks agree with the CLI`);
      // M marks the area's range; F focuses it.
      await page.keyboard.press('m');
      await page.keyboard.press('f');
      await settle(page);
      const s2 = await state(page);
      check(s2.mark && near(s2.mark.start_ns, s.area.start_ns, 1) && near(s2.mark.end_ns, s.area.end_ns, 1), 'M did not mark the area');
      check(near(s2.start_ns, s.area.start_ns, 1) && near(s2.end_ns, s.area.end_ns, 1), 'F did not focus the area');
      await shot(page, 'timeline-area', true);
      // A row's "show": that name's occurrences highlighted, the window on those in the area.
      const firstName = await page.locator('.tl-area tbody tr').first().locator('.clamp').textContent();
      const top = agg.rows.find((r) => r.name === firstName);
      check(top, `the first row's name ${firstName} is not in the aggregate`);
      await page.locator('.tl-area tbody tr').first().locator('.tl-show').click();
      await page.waitForFunction((name) => document.querySelector('.tl-search').value === name, top.name, { timeout: 10_000 });
      await settle(page);
      const s3 = await state(page);
      check(s3.hits >= top.count, `${s3.hits} highlighted for ${top.count} × ${top.name} in the area`);
      check(s3.start_ns < s.area.end_ns && s3.end_ns > s.area.start_ns, `the window ${s3.start_ns}..${s3.end_ns} is off the area`);
      noErrors(log);
      await page.close();
    },

    async "timeline: a finding's and a kernel row's show-on-timeline land on them"({ ctx, origin }) {
      needTraces();
      const file = join(TRACES, DLRM);
      const report = cli(['report', '--format', 'json', file]);
      const { page, log } = await openPage(ctx, origin);
      check((await loadFile(page, file)) === 'ready', 'the trace did not load');
      const withRange = report.findings.find((f) => f.ranges && f.ranges.length);
      check(withRange, 'no finding with ranges in this trace');
      const card = page.locator('#findings article.finding', { has: page.locator(`.finding-id:text-is("${withRange.id}")`) });
      await card.locator('.tl-show-finding').click();
      await page.waitForFunction(() => document.body.dataset.tab === 'timeline');
      await settle(page);
      const r = withRange.ranges[0];
      // The jump may still be moving the window on a busy machine: read it once it holds still.
      let s = await state(page);
      for (let i = 0; i < 30; ++i) {
        await page.waitForTimeout(100);
        const next = await state(page);
        if (next.start_ns === s.start_ns && next.end_ns === s.end_ns) break;
        s = next;
      }
      const rs = r.start_us * 1e3;
      const re = r.end_us * 1e3;
      check(s.start_ns <= rs && s.end_ns >= re, `the window ${s.start_ns}..${s.end_ns} does not hold ${rs}..${re}`);
      // In context (issue 18): room around the range and its events, the range itself marked.
      check(s.end_ns - s.start_ns <= (re - rs) * 10 + 2e6, `the window is ${(s.end_ns - s.start_ns) / (re - rs)}x the range`);
      check(s.mark && s.mark.start_ns === rs && s.mark.end_ns === re, `the range is not marked: ${JSON.stringify(s.mark)}`);
      await shot(page, 'timeline-finding-range');
      // A finding with events: they are highlighted, and the first is selected.
      const withEvents = report.findings.find((f) => f.events && f.events.some((e) => Number.isFinite(e.byte_offset)));
      if (withEvents) {
        await page.click('#tabs button[data-tab="report"]');
        const card2 = page.locator('#findings article.finding', { has: page.locator(`.finding-id:text-is("${withEvents.id}")`) });
        await card2.locator('.tl-show-finding').click();
        await page
          .waitForFunction(() => { const t = window.kinetoscope.timeline.state(); return (t.details || t.mark) && t.hits > 0; }, null, { timeout: 10_000 })
          .catch(async (e) => {
            throw new Error(`${e.message}; state: ${JSON.stringify(await state(page)).slice(0, 400)}; errors: ${log.errors.join('; ')}`);
          });
        const s2 = await state(page);
        // Every occurrence of the events' names (or the events themselves) is highlighted; the
        // first example's first event is selected.
        check(s2.hits >= Math.min(1, withEvents.events.length), `${s2.hits} highlighted for ${withEvents.events.length} events`);
        const r0 = withEvents.ranges && withEvents.ranges[0];
        const firstItem = r0 ? withEvents.events.filter((e) => e.ts_us + (e.dur_us || 0) >= r0.start_us && e.ts_us <= r0.end_us) : withEvents.events.slice(0, 1);
        if (firstItem.length) {
          const first = [...firstItem].sort((a, b) => a.ts_us - b.ts_us)[0];
          check(s2.details.name === first.name, `selected ${s2.details.name}, the first event is ${first.name}`);
        }
        await shot(page, 'timeline-finding-events');
      }
      // A kernel row: every occurrence highlighted.
      await page.click('#tabs button[data-tab="report"]');
      const k = report.kernels.rows[0];
      await page.locator('#kernels tbody tr').first().locator('.tl-show').click();
      await page.waitForFunction((name) => document.querySelector('.tl-search').value === name, k.name, { timeout: 10_000 }).catch(async (e) => {
        throw new Error(`${e.message}; ${await page.evaluate(() => [document.body.dataset.tab, document.querySelector('.tl-search').value, window.kinetoscope.timeline.state().hits].join(' | '))}; ${log.errors.join('; ')}`);
      });
      await settle(page);
      const s3 = await state(page);
      check(s3.hits >= k.count, `${s3.hits} highlighted for ${k.count} launches of ${k.name}`);
      await shot(page, 'timeline-kernel-row');
      noErrors(log);
      await page.close();
    },

    async 'timeline: search with next/previous, regex, and the dark theme'({ ctx, origin }) {
      needTraces();
      const { page, log } = await openTimeline(ctx, origin, join(TRACES, DLRM));
      await page.fill('.tl-search', 'aten::mm');
      await page.waitForFunction(() => window.kinetoscope.timeline.state().hits > 0, null, { timeout: 10_000 });
      const n = (await state(page)).hits;
      await page.press('.tl-search', 'Enter');
      await page.waitForFunction(() => window.kinetoscope.timeline.state().details, null, { timeout: 10_000 });
      const a = await state(page);
      check(/aten::mm/i.test(a.details.name), `search hit is ${a.details.name}`);
      await page.locator('.tl-canvas').focus();
      await page.keyboard.press('n');
      await page.waitForFunction((h) => window.kinetoscope.timeline.state().hit !== h, a.hit);
      const b = await state(page);
      check(b.hit === (a.hit + 1) % n, `N went from hit ${a.hit} to ${b.hit}`);
      await page.keyboard.press('Shift+N');
      await page.waitForFunction((h) => window.kinetoscope.timeline.state().hit !== h, b.hit);
      check((await state(page)).hit === a.hit, 'Shift+N did not go back');
      const re = await api(page, () => window.kinetoscope.timeline.search('^aten::(mm|addmm)$', { regex: true }));
      check(re >= n, `the regex found ${re}, the substring ${n}`);
      // Next and previous walk the regex's matches too.
      const r1 = await api(page, () => window.kinetoscope.timeline.nextHit(1));
      await page.waitForFunction((i) => { const t = window.kinetoscope.timeline.state(); return t.details && t.details.slice === i; }, r1);
      const h1 = (await state(page)).hit;
      check(/^aten::(mm|addmm)$/.test((await state(page)).details.name), 'the regex match selected is not one');
      await page.keyboard.press('n');
      await page.waitForFunction((h) => window.kinetoscope.timeline.state().hit !== h, h1);
      const r2 = await state(page);
      check(r2.hit === (h1 + 1) % re, `N after the regex went from ${h1} to ${r2.hit}`);
      await page.waitForFunction((i) => { const t = window.kinetoscope.timeline.state(); return t.details && t.details.slice === t.selection; });
      check(/^aten::(mm|addmm)$/.test((await state(page)).details.name), 'the next regex match is not one');
      await page.keyboard.press('Shift+N');
      await page.waitForFunction((h) => window.kinetoscope.timeline.state().hit === h, h1);
      const bad = await api(page, () => window.kinetoscope.timeline.search('(', { regex: true }));
      check(bad === -1 && (await page.getAttribute('.tl-search', 'class')).includes('bad'), 'a bad regex is not flagged');
      await api(page, () => window.kinetoscope.timeline.search('aten::mm'));
      await api(page, () => window.kinetoscope.timeline.nextHit(1));
      await page.waitForFunction(() => { const t = window.kinetoscope.timeline.state(); return t.details && t.details.slice === t.selection; });
      await page.keyboard.press('m');
      const s = await state(page);
      check(s.mark && s.mark.end_ns > s.mark.start_ns, 'M did not mark the selected slice');
      await page.click('.tl-theme');
      await settle(page);
      check((await state(page)).theme === 'dark', 'the theme did not switch');
      await shot(page, 'timeline-dark', true);
      noErrors(log);
      await page.close();
    },

    async 'timeline: setHighlight outlines the given slices in their own color until cleared'({ ctx, origin }) {
      needTraces();
      const { page, log } = await openTimeline(ctx, origin, join(TRACES, DLRM));
      const n = await api(page, () => window.kinetoscope.timeline.search('aten::mm'));
      check(n >= 3, `only ${n} aten::mm slices`);
      const ids = [];
      for (let i = 0; i < 3; i++) ids.push(await api(page, () => window.kinetoscope.timeline.nextHit(1)));
      await api(page, () => window.kinetoscope.timeline.search('')); // no hit outlines in the way
      await api(page, () => window.kinetoscope.timeline.select(null));
      const found = await api(page, (x) => window.kinetoscope.timeline.setHighlight([...x].reverse(), { label: 'critical path' }), ids);
      check(found === 3, `setHighlight found ${found} of 3`);
      const hl = (await state(page)).highlight;
      check(hl && hl.count === 3 && hl.label === 'critical path' && [...hl.slices].sort().join() === [...ids].sort().join(), `state().highlight: ${JSON.stringify(hl)}`);
      // Drawn: the top edge of the first slice's box is the highlight color.
      const where = await api(page, (i) => window.kinetoscope.timeline.locate(i), ids[0]);
      check(where, `slice ${ids[0]} is not on screen`);
      const edge = () =>
        api(page, (w) => {
          const c = document.querySelector('.tl-canvas');
          const r = c.getBoundingClientRect();
          const k = window.devicePixelRatio || 1;
          const [red, green, blue] = c.getContext('2d').getImageData(Math.round((w.x - r.left) * k), Math.round((w.y - r.top - 9) * k), 1, 1).data;
          return [red, green, blue];
        }, where);
      await settle(page);
      // The light theme's highlight, #0b8a5a (colors.js), give or take the edge's blending.
      const isHighlight = (c) => Math.abs(c[0] - 11) + Math.abs(c[1] - 138) + Math.abs(c[2] - 90) < 60;
      const on = await edge();
      check(isHighlight(on), `the highlighted slice's edge is rgb(${on.join()}), not the highlight color`);
      check((await api(page, () => window.kinetoscope.timeline.setHighlight(null))) === 0 && (await state(page)).highlight === null, 'setHighlight(null) did not clear');
      await settle(page);
      const off = await edge();
      check(!isHighlight(off), `the outline stayed after clearing: rgb(${off.join()})`);
      noErrors(log);
      await page.close();
    },

    async 'timeline: overlapping kernels on one stream are drawn on extra rows'({ ctx, origin, tmp }) {
      const file = join(tmp, 'overlap.json');
      const k = (name, ts, dur) => ({ ph: 'X', cat: 'kernel', name, pid: 0, tid: 7, ts, dur, args: { stream: 7, correlation: ts } });
      // Also a counter series (drawn as a line over an area) and instants (marks above the rows).
      const counter = Array.from({ length: 40 }, (_, i) => ({ ph: 'C', name: 'Memory', pid: 1, ts: i * 8, args: { allocated: 100 + ((i * 37) % 90) } }));
      const instants = [10, 12, 200].map((ts) => ({ ph: 'i', s: 't', name: 'mark', pid: 1, tid: 1, ts }));
      const cpu = { ph: 'X', cat: 'cpu_op', name: 'op', pid: 1, tid: 1, ts: 0, dur: 320 };
      writeFileSync(file, JSON.stringify({ traceEvents: [k('k1', 0, 100), k('k2', 50, 100), k('k3', 120, 100), k('k4', 300, 20), cpu, ...counter, ...instants] }));
      const { page, log } = await openTimeline(ctx, origin, file);
      const layout = await api(page, () => window.kinetoscope.timeline.state().layout);
      const stream = layout.groups.flatMap((g) => g.tracks).find((t) => t.kind === 'stream');
      check(stream && stream.rows === 3 && stream.slices === 4, `stream track: ${JSON.stringify(stream)}`);
      const counters = layout.groups.flatMap((g) => g.counters);
      check(counters.length === 1 && counters[0].samples === 40 && counters[0].max === 189, `counters: ${JSON.stringify(counters)}`);
      check(layout.groups.flatMap((g) => g.tracks).some((t) => t.instants === 3), 'the instants are not on their track');
      for (const name of ['k2', 'k3']) {
        await api(page, (q) => window.kinetoscope.timeline.search(q), name);
        const slice = await api(page, () => window.kinetoscope.timeline.nextHit(1));
        await page.keyboard.press('Escape');
        await page.keyboard.press('0');
        const at = await api(page, (i) => window.kinetoscope.timeline.locate(i), slice);
        await page.mouse.click(at.x, at.y);
        // The selection is set at once, its details when the worker answers.
        await page.waitForFunction((i) => { const t = window.kinetoscope.timeline.state(); return t.details && t.details.slice === i; }, slice);
        check((await state(page)).details.depth === (name === 'k2' ? 1 : 2), `${name} is not on its own row`);
      }
      await shot(page, 'timeline-overlap');
      noErrors(log);
      await page.close();
    },
    async 'timeline: folding a process group hides its tracks and moves the rows below up; unfolding restores them'({ ctx, origin }) {
      needTraces();
      const { page, log } = await openTimeline(ctx, origin, join(TRACES, DLRM));
      await recordDrawing(page);
      const s0 = await state(page);
      const lanes0 = s0.lanes;
      const gi = lanes0.findIndex((l, i) => l.kind === 'group' && lanes0[i + 1] && lanes0[i + 1].kind !== 'group' && lanes0.slice(i + 1).some((x) => x.kind === 'group'));
      check(gi >= 0, `no group with tracks followed by another group: ${JSON.stringify(lanes0.map((l) => l.key))}`);
      const g = lanes0[gi];
      const nextGi = lanes0.findIndex((l, i) => i > gi && l.kind === 'group');
      const folded = lanes0.slice(gi + 1, nextGi);
      const foldedH = folded.reduce((a, l) => a + l.h, 0);
      const box = await page.locator('.tl-canvas').boundingBox();
      const headerY = (lane, st) => st.ruler_h + lane.y - st.scroll_y + lane.h / 2;
      check(headerY(g, s0) < box.height, 'the group header is not on screen');
      // Click the header (in the label column): the group folds.
      await page.mouse.click(box.x + 60, box.y + headerY(g, s0));
      await settle(page);
      const s1 = await state(page);
      const keys1 = new Set(s1.lanes.map((l) => l.key));
      check(folded.every((l) => !keys1.has(l.key)), `folded tracks are still laid out: ${folded.filter((l) => keys1.has(l.key)).map((l) => l.key)}`);
      check(s1.lanes.find((l) => l.key === g.key).closed, 'the group is not marked closed');
      check(s1.lanes.length === lanes0.length - folded.length, `${s1.lanes.length} lanes after folding ${folded.length} of ${lanes0.length}`);
      for (const l of lanes0.slice(nextGi)) {
        const now = s1.lanes.find((x) => x.key === l.key);
        check(now && now.y === l.y - foldedH, `lane ${l.key} at y ${now && now.y}, expected ${l.y - foldedH} (moved up by the ${foldedH} px folded)`);
      }
      // What was drawn: the header with a closed mark, and the next group's header right under it.
      const f1 = await lastFrame(page);
      const texts = f1.filter((e) => e.op === 'text');
      const head = texts.find((e) => e.text.startsWith('▸') && Math.abs(e.y - headerY(g, s1)) < 1);
      check(head, `no closed header drawn at y ${headerY(g, s1)}: ${JSON.stringify(texts.slice(0, 8))}`);
      const next = s1.lanes.find((x) => x.key === lanes0[nextGi].key);
      check(texts.some((e) => e.text.startsWith('▾') && Math.abs(e.y - headerY(next, s1)) < 1), `the next group's header is not drawn at y ${headerY(next, s1)}`);
      await shot(page, 'timeline-folded');
      // Click again: everything back where it was.
      await page.mouse.click(box.x + 60, box.y + headerY(g, s1));
      await settle(page);
      const s2 = await state(page);
      check(JSON.stringify(s2.lanes) === JSON.stringify(lanes0), 'unfolding did not restore the lanes');
      const f2 = await lastFrame(page);
      check(f2.some((e) => e.op === 'text' && e.text.startsWith('▾') && Math.abs(e.y - headerY(g, s2)) < 1), 'the unfolded header is not drawn open');
      noErrors(log);
      await page.close();
    },

    async 'timeline: a #t=START,END link lands on that window; panning and zooming write it back'({ ctx, origin }) {
      needTraces();
      const { page, log } = await openPage(ctx, origin, '/#t=1000,2500');
      check((await loadFile(page, join(TRACES, DLRM))) === 'ready', 'the trace did not load');
      await page.click('#tabs button[data-tab="timeline"]');
      await api(page, () => window.kinetoscope.timeline.show());
      await settle(page);
      const s0 = await state(page);
      check(near(s0.start_ns, 1e6, 1) && near(s0.end_ns, 2.5e6, 1), `the link's window is 1000..2500 µs, the timeline shows ${s0.start_ns / 1e3}..${s0.end_ns / 1e3}`);
      const hashT = () => api(page, () => {
        const m = /[#&]t=(-?[\d.]+),(-?[\d.]+)/.exec(location.hash);
        return m ? [Number(m[1]), Number(m[2])] : null;
      });
      // Pan (D), then zoom (S): each time the fragment follows, rounded to the ns.
      let prev = s0;
      for (const key of ['d', 's']) {
        const before = JSON.stringify(await hashT());
        await page.locator('.tl-canvas').focus();
        await page.keyboard.press(key);
        await settle(page);
        await page.waitForFunction((b) => {
          const m = /[#&]t=([^&]*)/.exec(location.hash);
          return m && JSON.stringify(m[1].split(',').map(Number)) !== b;
        }, before, { timeout: 10_000 });
        const s = await state(page);
        const t = await hashT();
        check(near(t[0], s.start_ns / 1e3, 0.0011) && near(t[1], s.end_ns / 1e3, 0.0011), `after ${key} the link says ${t}, the window is ${s.start_ns / 1e3}..${s.end_ns / 1e3} µs`);
        const grew = (s.end_ns - s.start_ns) / (prev.end_ns - prev.start_ns);
        if (key === 'd') check(s.start_ns > prev.start_ns && near(grew, 1, 1e-9), 'D did not pan right');
        else check(grew > 1.2, 'S did not zoom out');
        prev = s;
      }
      // Editing the fragment (or following a link in the same tab) moves the timeline at once.
      await api(page, () => {
        location.hash = '#t=3000,3200.5';
      });
      await page.waitForFunction(() => Math.abs(window.kinetoscope.timeline.state().start_ns - 3e6) < 1, null, { timeout: 10_000 });
      const s2 = await state(page);
      check(near(s2.end_ns, 3.2005e6, 1), `the edited link's end is 3200.5 µs, the timeline shows ${s2.end_ns / 1e3}`);
      await shot(page, 'timeline-deep-link');
      // Another trace loaded in this tab opens fitted: the range the timeline wrote for the first
      // trace is not a link to the second.
      await page.locator('.tl-canvas').focus();
      await page.keyboard.press('d');
      await page.waitForFunction(() => /[#&]t=/.test(location.hash) && !location.hash.includes('t=3000,3200.5'), null, { timeout: 10_000 });
      check((await loadFile(page, join(TRACES, GZ))) === 'ready', 'the second trace did not load');
      await page.click('#tabs button[data-tab="timeline"]');
      await api(page, () => window.kinetoscope.timeline.show());
      await settle(page);
      const s3 = await state(page);
      check(near(s3.start_ns, -0.01 * s3.span_ns, 1) && near(s3.end_ns, 1.01 * s3.span_ns, 1), `the second trace opened on ${s3.start_ns}..${s3.end_ns}, not fitted to its ${s3.span_ns} ns`);
      noErrors(log);
      await page.close();
    },

    async 'timeline: wheel scrolls the lanes, sideways and Shift+wheel pan, Ctrl+wheel (pinch) zooms at the mouse'({ ctx, origin }) {
      needTraces();
      const { page, log } = await openTimeline(ctx, origin, join(TRACES, DLRM));
      const box = await page.locator('.tl-canvas').boundingBox();
      await api(page, () => window.kinetoscope.timeline.setWindow(2e6, 6e6));
      // Deep threads show their top rows at first and the lanes fit: each unfolded from its label
      // (the fold control) gives lanes taller than the canvas to scroll.
      const fits = (s) => s.lanes.length && s.lanes[s.lanes.length - 1].y + s.lanes[s.lanes.length - 1].h <= box.height - s.ruler_h;
      for (let s = await state(page), l; fits(s) && (l = s.lanes.find((x) => x.folded > 0)); s = await state(page)) {
        await page.mouse.click(box.x + 60, box.y + s.ruler_h + l.y - s.scroll_y + 30);
        await settle(page);
        check(!(await state(page)).lanes.find((x) => x.key === l.key).folded, `a click on ${l.name}'s label did not unfold it`);
      }
      const s0 = await state(page);
      const perPx = (s0.end_ns - s0.start_ns) / s0.plot_width;
      const mx = s0.plot_left + Math.round(s0.plot_width * 0.3);
      await page.mouse.move(box.x + mx, box.y + 300);
      // A plain (vertical) wheel scrolls the lanes; the window stays.
      const last = s0.lanes[s0.lanes.length - 1];
      const maxScroll = Math.max(0, last.y + last.h - (box.height - s0.ruler_h));
      check(maxScroll > 0, 'the lanes fit on screen: nothing to scroll');
      await page.mouse.wheel(0, 100);
      await settle(page);
      const s1 = await state(page);
      check(s1.scroll_y === Math.min(maxScroll, 100) && s1.start_ns === s0.start_ns && s1.end_ns === s0.end_ns, `wheel 100: scroll ${s0.scroll_y} -> ${s1.scroll_y}, window ${s0.start_ns}..${s0.end_ns} -> ${s1.start_ns}..${s1.end_ns}`);
      await page.mouse.wheel(0, -100);
      await settle(page);
      check((await state(page)).scroll_y === 0, 'wheel -100 did not scroll back up');
      // A sideways swipe pans by its pixels.
      await page.mouse.wheel(120, 0);
      await settle(page);
      const s2 = await state(page);
      check(near(s2.start_ns - s0.start_ns, 120 * perPx, 1) && near(s2.end_ns - s2.start_ns, s0.end_ns - s0.start_ns, 1), `a 120 px sideways swipe moved the window by ${(s2.start_ns - s0.start_ns) / perPx} px`);
      // Shift+wheel pans too (a mouse without a sideways wheel).
      await page.keyboard.down('Shift');
      await page.mouse.wheel(0, -120);
      await page.keyboard.up('Shift');
      await settle(page);
      const s3 = await state(page);
      check(near(s3.start_ns, s0.start_ns, 1) && s3.scroll_y === 0, `Shift+wheel -120 did not pan back: ${(s3.start_ns - s0.start_ns) / perPx} px, scroll ${s3.scroll_y}`);
      // Ctrl+wheel (what a trackpad pinch sends) zooms by e^(deltaY/100), anchored at the mouse.
      const tMouse = s3.start_ns + ((mx - s3.plot_left) / s3.plot_width) * (s3.end_ns - s3.start_ns);
      await page.keyboard.down('Control');
      await page.mouse.wheel(0, -100);
      await page.keyboard.up('Control');
      await settle(page);
      const s4 = await state(page);
      const span3 = s3.end_ns - s3.start_ns;
      const span4 = s4.end_ns - s4.start_ns;
      check(near(span4, span3 * Math.exp(-1), span3 * 1e-6), `Ctrl+wheel -100: span ${span3} -> ${span4}, expected x${Math.exp(-1).toFixed(3)}`);
      const tMouse4 = s4.start_ns + ((mx - s4.plot_left) / s4.plot_width) * span4;
      check(near(tMouse4, tMouse, 1), `the time under the mouse moved from ${tMouse} to ${tMouse4}`);
      check(s4.scroll_y === 0, 'Ctrl+wheel scrolled the lanes');
      await page.keyboard.down('Control');
      await page.mouse.wheel(0, 100);
      await page.keyboard.up('Control');
      await settle(page);
      const s5 = await state(page);
      check(near(s5.end_ns - s5.start_ns, span3, span3 * 1e-6), 'Ctrl+wheel +100 did not zoom back out');
      noErrors(log);
      await page.close();
    },

    async 'timeline: what is drawn: named, sorted tracks, steps, ruler units, counters, instants, text, stable colors, arrows, F, M, dark theme'({ ctx, origin, tmp }) {
      const file = join(tmp, 'drawn.json');
      const X = (name, cat, pid, tid, ts, dur, args = {}) => ({ ph: 'X', name, cat, pid, tid, ts, dur, args });
      const events = [
        { ph: 'M', name: 'process_name', pid: 100, tid: 0, args: { name: 'Trainer' } },
        { ph: 'M', name: 'thread_name', pid: 100, tid: 1, args: { name: 'main thread' } },
        { ph: 'M', name: 'thread_name', pid: 100, tid: 2, args: { name: 'backward thread' } },
        { ph: 'M', name: 'thread_sort_index', pid: 100, tid: 1, args: { sort_index: 2 } },
        { ph: 'M', name: 'thread_sort_index', pid: 100, tid: 2, args: { sort_index: 1 } },
        X('ProfilerStep#1', 'user_annotation', 100, 1, 0, 1000),
        X('ProfilerStep#2', 'user_annotation', 100, 1, 1000, 1000),
        X('aten::linear', 'cpu_op', 100, 1, 50, 400, { 'Input Dims': [[4, 8], [8, 8]], 'Call stack': 'model.py(10): forward;train.py(3): step' }),
        X('cudaLaunchKernel', 'cuda_runtime', 100, 1, 100, 20, { correlation: 11 }),
        X('aten::linear', 'cpu_op', 100, 1, 1050, 400),
        X('cudaLaunchKernel', 'cuda_runtime', 100, 1, 1100, 20, { correlation: 12 }),
        X('LinearBackward0', 'cpu_op', 100, 2, 600, 200),
        { ph: 's', id: 1, cat: 'fwdbwd', name: 'fwdbwd', pid: 100, tid: 1, ts: 50 },
        { ph: 'f', bp: 'e', id: 1, cat: 'fwdbwd', name: 'fwdbwd', pid: 100, tid: 2, ts: 600 },
        { ph: 's', id: 11, cat: 'ac2g', name: 'ac2g', pid: 100, tid: 1, ts: 100 },
        { ph: 'f', bp: 'e', id: 11, cat: 'ac2g', name: 'ac2g', pid: 0, tid: 7, ts: 200 },
        X('gemm_kernel', 'kernel', 0, 7, 200, 300, { stream: 7, device: 0, correlation: 11, grid: [4, 1, 1], block: [128, 1, 1] }),
        X('gemm_kernel', 'kernel', 0, 7, 1200, 300, { stream: 7, device: 0, correlation: 12, grid: [4, 1, 1], block: [128, 1, 1] }),
        ...Array.from({ length: 21 }, (_, i) => ({ ph: 'C', name: 'GPU memory', pid: 100, ts: i * 100, args: { allocated: (i % 5) * 10 } })),
        { ph: 'i', s: 't', name: 'checkpoint', pid: 100, tid: 1, ts: 500 },
        { ph: 'i', s: 't', name: 'checkpoint', pid: 100, tid: 1, ts: 1500 },
        // 30 instants 1 µs apart: under a pixel each on the whole trace, drawn as one band.
        ...Array.from({ length: 30 }, (_, i) => ({ ph: 'i', s: 't', name: 'tick', pid: 100, tid: 1, ts: 1700 + i })),
      ];
      writeFileSync(file, JSON.stringify({ traceEvents: events }));
      const { page, log } = await openTimeline(ctx, origin, file);
      await recordDrawing(page);
      const layout = await api(page, () => window.kinetoscope.timeline.state().layout);
      // Groups: the CPU process first, named from M events; its threads by sort index.
      check(layout.groups.length === 2 && /^Trainer/.test(layout.groups[0].name) && layout.groups[1].gpu, `groups: ${layout.groups.map((g) => g.name)}`);
      check(JSON.stringify(layout.groups[0].tracks.map((t) => t.name)) === '["backward thread","main thread"]', `threads: ${layout.groups[0].tracks.map((t) => t.name)}`);
      check(layout.groups[1].tracks.some((t) => t.kind === 'stream'), 'no GPU stream track');
      const s0 = await state(page);
      const xOf = (st, ns) => st.plot_left + ((ns - st.start_ns) * st.plot_width) / (st.end_ns - st.start_ns);
      const [light, stepFill, counterInk, instantInk, linkInk, selectInk, sliceInk, darkBg, darkSliceInk] = await normColor(page, [
        '#ffffff', 'rgba(47,91,211,0.06)', '#2f5bd3', '#7a4fd0', '#c4320a', '#111111', '#111111', '#15181e', '#0d0f13',
      ]);
      let f = await lastFrame(page);
      const texts = (fr) => fr.filter((e) => e.op === 'text').map((e) => e.text);
      // The labels: group and track names, the counter's.
      for (const t of ['▾ Trainer', 'backward thread', 'main thread', 'GPU memory', 'gemm_kernel', 'aten::linear']) check(texts(f).some((x) => x.startsWith(t)), `"${t}" was not drawn: ${texts(f).slice(0, 40)}`);
      // Step bands: every other step shaded (the first), numbered in the ruler.
      check(texts(f).includes('step 1') && texts(f).includes('step 2'), 'the step numbers are not drawn');
      const band = f.find((e) => e.op === 'rect' && e.style === stepFill);
      check(band && near(band.x, xOf(s0, 0), 1) && near(band.x + band.w, xOf(s0, 1e6), 1), `step 1's band: ${JSON.stringify(band)}, expected x ${xOf(s0, 0)}..${xOf(s0, 1e6)}`);
      check(f.filter((e) => e.op === 'rect' && e.style === stepFill).length === 1, 'step 2 is shaded too (bands alternate)');
      // The ruler: ms ticks on the whole 2 ms; µs ticks when zoomed to 5 µs; evenly spaced values.
      const ticks = (fr) => fr.filter((e) => e.op === 'text' && e.y === 9).map((e) => e.text);
      const even = (ts, unit) => {
        const v = ts.map((x) => Number(x.replace(` ${unit}`, '')));
        return ts.length >= 3 && ts.every((x) => x.endsWith(` ${unit}`) && !/\.\d{3}/.test(x)) && v.slice(2).every((x, i) => near(x - v[i + 1], v[1] - v[0], 1e-9 + Math.abs(v[1] - v[0]) * 1e-6));
      };
      check(even(ticks(f), 'ms'), `ticks on the whole trace: ${ticks(f)}`);
      check(texts(f).some((x) => /^2\.\d+ ms shown$/.test(x)), `no "… ms shown": ${texts(f).slice(0, 5)}`);
      // Counters: a line and an area; instants: filled marks.
      check(f.some((e) => e.op === 'stroke' && e.style === counterInk) && f.some((e) => e.op === 'fill' && e.style === counterInk), 'the counter is not drawn as a line over an area');
      check(f.some((e) => e.op === 'fill' && e.style === instantInk), 'the instants are not drawn');
      const main = s0.lanes.find((l) => l.name === 'main thread');
      const marks = f.filter((e) => e.op === 'moveTo' && near(e.y, s0.ruler_h + main.y + 2 - s0.scroll_y, 0.01));
      check(marks.length === 3 && near(marks[0].x + 3, xOf(s0, 500e3), 0.01) && near(marks[2].x + 3, xOf(s0, 1700e3), 0.01), `instant marks: ${JSON.stringify(marks)} (two marks and one band expected)`);
      // Colors by name: both aten::linear the same fill, the palette's for that name; text in slices.
      const hueFill = await api(page, async (names) => {
        const { palette, hueIndex } = await import('/timeline/colors.js');
        const c = document.createElement('canvas').getContext('2d');
        return names.map((n) => {
          c.fillStyle = palette('light').solid[hueIndex(n)];
          return c.fillStyle;
        });
      }, ['aten::linear', 'gemm_kernel']);
      const fills = [];
      for (const [name, nth] of [['aten::linear', 0], ['aten::linear', 1], ['gemm_kernel', 0], ['gemm_kernel', 1]]) {
        const slice = await findSlice(page, name, nth);
        await page.keyboard.press('Escape');
        await page.keyboard.press('0');
        const p = await canvasPoint(page, slice);
        const fr = await lastFrame(page);
        const r = rectAt(fr, p.x, p.y);
        fills.push(r && r.style);
        check(fr.some((e) => e.op === 'text' && e.text === name && e.style === sliceInk && near(e.y, p.y, 1.5) && e.x < p.x), `no "${name}" text drawn in the slice`);
      }
      check(fills[0] === hueFill[0] && fills[1] === hueFill[0] && fills[2] === hueFill[1] && fills[3] === hueFill[1], `fills by name: ${fills}, palette ${hueFill}`);
      // Zoomed in to 500 ns: µs ticks, two decimals (web/timeline/units.js fmtTick).
      await api(page, () => window.kinetoscope.timeline.setWindow(101e3, 101.5e3));
      f = await lastFrame(page);
      check(even(ticks(f), 'µs') && ticks(f).every((x) => /^101\.\d+ µs$/.test(x)), `ticks on 500 ns: ${ticks(f)}`);
      await page.keyboard.press('0');
      // A kernel selected: its launch outlined and an arrow; the launch selected: the kernel.
      const kernel = await findSlice(page, 'gemm_kernel', 0);
      await page.waitForFunction((i) => { const t = window.kinetoscope.timeline.state(); return t.details && t.details.slice === i; }, kernel);
      await page.keyboard.press('0');
      let s = await state(page);
      const launchId = s.details.partner.slice;
      f = await lastFrame(page);
      const kp = await canvasPoint(page, kernel);
      const lp = await canvasPoint(page, launchId);
      const outlined = (fr, p, ink) => fr.some((e) => e.op === 'strokeRect' && e.style === ink && e.x <= p.x && p.x <= e.x + e.w && e.y <= p.y && p.y <= e.y + e.h);
      check(outlined(f, kp, selectInk) && outlined(f, lp, linkInk) && f.some((e) => e.op === 'stroke' && e.style === linkInk), 'the kernel selected: its launch is not outlined, or no arrow');
      await shot(page, 'timeline-drawn-kernel');
      await page.click('.tl-details .tl-link');
      await page.waitForFunction((i) => { const t = window.kinetoscope.timeline.state(); return t.details && t.details.slice === i; }, launchId);
      await page.keyboard.press('0');
      f = await lastFrame(page);
      check(outlined(f, lp, selectInk) && outlined(f, kp, linkInk) && f.some((e) => e.op === 'stroke' && e.style === linkInk), 'the launch selected: its kernel is not outlined, or no arrow');
      // Forward -> backward: the fwdbwd flow, drawn as an arrow.
      const fwd = await findSlice(page, 'aten::linear', 0);
      await page.waitForFunction((i) => { const t = window.kinetoscope.timeline.state(); return t.details && t.details.slice === i; }, fwd);
      s = await state(page);
      const bwdLink = s.links.find((l) => l.kind === 'fwdbwd' && l.from === fwd);
      check(bwdLink, `no fwdbwd link from the forward op: ${JSON.stringify(s.links)}`);
      await page.keyboard.press('0');
      f = await lastFrame(page);
      check(outlined(f, await canvasPoint(page, bwdLink.to), linkInk), 'the backward op is not outlined');
      // Details: input shapes and the call stack, one frame per line; nesting as depth.
      check(s.details.depth === 1 && (await page.locator('.tl-details .tl-stack li').count()) === 2 && (await page.textContent('.tl-details')).includes('[[4,8],[8,8]]'), 'the details lack the depth, the stack frames or the input dims');
      // ... and its facts: category, start, duration, self time (400 µs less its 20 µs launch).
      const facts = await page.locator('.tl-details .tl-facts tr').allTextContents();
      for (const want of ['Categorycpu_op (cpu_op)', 'Start50.00 µs from the first event', 'Duration400.0 µs', 'Self time380.0 µs (1 direct children)']) {
        check(facts.includes(want), `the details lack "${want}": ${JSON.stringify(facts)}`);
      }
      // F focuses the backward op; M marks it, with its duration against the capture.
      await api(page, (i) => window.kinetoscope.timeline.select(i), bwdLink.to);
      await page.locator('.tl-canvas').focus();
      await page.keyboard.press('f');
      await settle(page);
      s = await state(page);
      check(near(s.start_ns, 600e3 - 30e3, 1) && near(s.end_ns, 800e3 + 30e3, 1), `F: window ${s.start_ns}..${s.end_ns}`);
      await page.keyboard.press('m');
      f = await lastFrame(page);
      const pct = (100 * 200e3) / s.span_ns;
      const markLabel = `200.0 µs · ${pct.toFixed(1)}% of the capture`;
      check(texts(f).includes(markLabel), `no "${markLabel}": ${texts(f).filter((x) => x.includes('%'))}`);
      // No tick label is drawn through it.
      const markText = f.find((e) => e.op === 'text' && e.text === markLabel);
      const through = f.filter((e) => e.op === 'text' && e.y === 9 && e.x > markText.x - 40 && e.x < markText.x + markLabel.length * 5);
      check(!through.length, `tick labels drawn under the mark's label: ${JSON.stringify(through)}`);
      // The dark theme: dark background, dark ink on slices, the dark palette.
      await page.click('.tl-theme');
      f = await lastFrame(page);
      const bg = f.find((e) => e.op === 'rect');
      check(bg.style === darkBg && bg.w >= box(s).w, `the dark frame starts with ${JSON.stringify(bg)}`);
      check(f.some((e) => e.op === 'text' && e.style === darkSliceInk) && !f.some((e) => e.op === 'rect' && e.style === light), 'light fills in the dark theme');
      await shot(page, 'timeline-drawn-dark');
      noErrors(log);
      await page.close();
      function box(st) {
        return { w: st.plot_left + st.plot_width };
      }
    },
    async 'timeline: inertName shows controls as escapes and cuts long names (unit)'({ ctx, origin }) {
      const { page, log } = await openPage(ctx, origin);
      const got = await api(page, async () => {
        const { inertName, inertLines, NAME_MAX } = await import('/views/inert.js');
        const controls = [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c, 0x0000, 0x0007, 0x0009, 0x000a, 0x001b, 0x007f, 0x0085, 0x009f, 0x200b, 0x2028, 0x2029, 0xfeff];
        return {
          max: NAME_MAX,
          controls: controls.map((c) => [c, inertName(`a${String.fromCharCode(c)}b`)]),
          trojan: inertName('gemm_\u202etxt.exe'),
          kept: ['aten::mm', 'void at::native::kernel<float, 4>(float*)', 'café → 変換 😀', 'عربي עברית', 'C:\\path\\u202e'].map((x) => [x, inertName(x)]),
          long: inertName('a'.repeat(1000)),
          pair: inertName(`${'a'.repeat(299)}😀b`),
          short: inertName('abcdef', 3),
          lone: [inertName('x\ud800y'), inertName('x\udc00'), inertName('\ud83d\ude00')],
          other: [inertName(null), inertName(undefined), inertName(42), inertName({ toString: () => 'o\u202e' })],
          lines: inertLines('{\n "a": "\u202e"\n}', 1000),
          linesCut: inertLines('ab\ncd', 4),
        };
      });
      for (const [c, out] of got.controls) {
        const esc = `\\u${c.toString(16).toUpperCase().padStart(4, '0')}`;
        check(out === `a${esc}b`, `U+${c.toString(16)} gave ${JSON.stringify(out)}, expected a${esc}b`);
      }
      check(got.trojan === 'gemm_\\u202Etxt.exe', `the Trojan Source name gave ${got.trojan}`);
      for (const [x, out] of got.kept) check(out === x, `${JSON.stringify(x)} changed to ${JSON.stringify(out)}`);
      check(got.max === 300 && got.long === `${'a'.repeat(300)}… (1,000 chars)`, `a 1000-char name: ${got.long.slice(290)}`);
      check(got.pair === `${'a'.repeat(299)}… (302 chars)`, `a cut inside a surrogate pair: ${JSON.stringify(got.pair.slice(295))}`);
      check(got.short === 'abc… (6 chars)', `max 3: ${got.short}`);
      check(JSON.stringify(got.lone) === JSON.stringify(['x\\uD800y', 'x\\uDC00', '😀']), `lone surrogates: ${JSON.stringify(got.lone)}`);
      check(JSON.stringify(got.other) === JSON.stringify(['', '', '42', 'o\\u202E']), `other values: ${JSON.stringify(got.other)}`);
      check(got.lines === '{\n "a": "\\u202E"\n}' && got.linesCut === 'ab\nc… (5 chars)', `inertLines: ${JSON.stringify([got.lines, got.linesCut])}`);
      noErrors(log);
      await page.close();
    },

    async 'timeline: hostile names (bidi, controls, 100 KB) are drawn and shown as inert text'({ ctx, origin, tmp }) {
      const unsafe = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;
      // In the DOM's text, the line breaks of the event's JSON (a <pre>) are the page's own.
      const unsafeDom = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;
      const evil = 'gemm_\u202etxt.exe\u001b[2J\u2066iso\u2069\u200e\u200f\u061c\u0007\u0085\u2028end';
      const shown = 'gemm_\\u202Etxt.exe\\u001B[2J\\u2066iso\\u2069\\u200E\\u200F\\u061C\\u0007\\u0085\\u2028end';
      const long = `${'L'.repeat(100_000)}\u202e`;
      const X = (name, cat, pid, tid, ts, dur, args = {}) => ({ ph: 'X', name, cat, pid, tid, ts, dur, args });
      const trace = {
        traceEvents: [
          { ph: 'M', name: 'process_name', pid: 0, tid: 0, args: { name: 'GPU \u202e0' } },
          { ph: 'M', name: 'process_name', pid: 1, tid: 0, args: { name: `python \u2067${'P'.repeat(5000)}` } },
          { ph: 'M', name: 'thread_name', pid: 1, tid: 1, args: { name: 'main \u202dthread\u001b' } },
          X('ProfilerStep#1', 'user_annotation', 1, 1, 0, 2000),
          X(`cudaLaunchKernel ${evil}`, 'cuda_runtime', 1, 1, 5, 5, { correlation: 1 }),
          X(evil, 'kernel', 0, 7, 10, 500, { stream: 7, device: 0, correlation: 1, [`key\u202e${evil}`]: `value ${evil}` }),
          X(long, 'kernel', 0, 7, 600, 300, { stream: 7, device: 0, correlation: 2 }),
          X(`cat ${evil}`, `cat\u202e`, 1, 1, 950, 300),
          { ph: 'i', s: 't', name: evil, pid: 1, tid: 1, ts: 960 },
          ...[0, 500, 1000].map((ts) => ({ ph: 'C', name: evil, pid: 1, ts, args: { [`v\u202e`]: ts } })),
        ],
      };
      const file = join(tmp, 'hostile-timeline.json');
      writeFileSync(file, JSON.stringify(trace));
      const { page, log } = await openTimeline(ctx, origin, file);
      await recordDrawing(page);
      // The canvas: every string drawn is inert and short; the names are there, escaped.
      let f = await lastFrame(page);
      const drawn = f.filter((e) => e.op === 'text').map((e) => e.text);
      const bad = drawn.filter((x) => unsafe.test(x) || x.length > 400);
      check(!bad.length, `drawn with raw controls or too long: ${JSON.stringify(bad).slice(0, 300)}`);
      for (const want of ['GPU \\u202E0', 'main \\u202Dthread\\u001B', 'gemm_\\u202Etxt', 'python \\u2067PPP']) {
        check(drawn.some((x) => x.includes(want)), `"${want}" was not drawn: ${JSON.stringify(drawn).slice(0, 600)}`);
      }
      await shot(page, 'timeline-hostile');
      // The details of the hostile kernel: name, title, args, event JSON, links: inert.
      const allText = () => api(page, () => {
        const box = document.querySelector('#timeline');
        const attrs = [...box.querySelectorAll('*')].flatMap((el) => [...el.attributes].map((a) => a.value));
        const inputs = [...box.querySelectorAll('input')].map((el) => el.value);
        return [box.textContent, ...attrs, ...inputs].join('\n');
      });
      const kernel = await findSlice(page, '^gemm_', 0, true);
      await page.waitForFunction((i) => { const t = window.kinetoscope.timeline.state(); return t.details && t.details.slice === i; }, kernel);
      await page.evaluate(() => document.querySelectorAll('#timeline details').forEach((d) => (d.open = true)));
      let text = await allText();
      check(!unsafeDom.test(text), `raw controls in the timeline's panels: ${JSON.stringify(text.match(new RegExp(unsafeDom.source, 'g')))}`);
      check((await page.textContent('.tl-details .tl-name')) === shown, `the details title: ${await page.textContent('.tl-details .tl-name')}`);
      check((await page.getAttribute('.tl-details .tl-name', 'title')) === shown, 'the title tooltip is not the inert name');
      const details = await page.textContent('.tl-details');
      for (const want of [`key\\u202E${shown}`, `value ${shown}`, `cudaLaunchKernel ${shown}`, 'GPU \\u202E0']) check(details.includes(want), `the details lack "${want}"`);
      f = await lastFrame(page);
      check(!f.some((e) => e.op === 'text' && unsafe.test(e.text)), 'raw controls drawn with a selection');
      // The 100 KB name: cut, with its length.
      await findSlice(page, 'LLLL', 0);
      await page.waitForFunction(() => { const t = window.kinetoscope.timeline.state(); return t.details && t.details.name.length > 1000; });
      const title = await page.textContent('.tl-details .tl-name');
      // (The importer keeps the first 64 Ki characters of a name; the page shows 300 of them.)
      const full = await api(page, () => window.kinetoscope.timeline.state().details.name.length);
      check(title === `${'L'.repeat(300)}… (${full.toLocaleString('en-US')} chars)`, `the long name (${full} chars) is shown as ${title.length} chars: …${title.slice(-30)}`);
      check(!(await lastFrame(page)).some((e) => e.op === 'text' && e.text.length > 400), 'a long string was drawn');
      // Search results and the area table; a name shown from a table lands inert in the search box.
      await api(page, (q) => window.kinetoscope.timeline.search(q, { regex: true }), 'txt\\.exe');
      const tracks = (await api(page, () => window.kinetoscope.timeline.state().layout)).groups.flatMap((g) => g.tracks.map((t) => t.id));
      await api(page, (a) => window.kinetoscope.timeline.aggregate(a[0], a[1], a[2]), [0, 3e6, tracks]);
      await page.waitForFunction(() => document.querySelectorAll('.tl-area tbody tr').length > 0);
      const area = await page.textContent('.tl-area');
      check(area.includes(shown) && !unsafeDom.test(area), 'the area table does not show the inert name');
      await api(page, (n) => window.kinetoscope.timeline.showName(n), evil);
      check((await page.inputValue('.tl-search')) === shown, `the search box holds ${JSON.stringify(await page.inputValue('.tl-search'))}`);
      text = await allText();
      check(!unsafeDom.test(text), 'raw controls in the timeline after search and area selection');
      check((await api(page, () => window.kinetoscope.timeline.state().hits)) === 1, 'showName of the hostile name did not find it');
      await shot(page, 'timeline-hostile-details', true);
      noErrors(log);
      await page.close();
    },
  };
}
