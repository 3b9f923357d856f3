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
    const at = await api(page, (i) => window.kinetoscope.timeline.locate(i), slice);
    check(at, `kernel slice ${slice} is not on screen`);
    return { slice, at };
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
        await page.waitForFunction((i) => { const s = window.kinetoscope.timeline.state(); return s.selection === i && s.details; }, slice, { timeout: 10_000 });
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
      console.log(`      ${agg.slices} slices, ${agg.rows.length} names on ${agg.tracks.length} tracks agree with the CLI`);
      // M marks the area's range; F focuses it.
      await page.keyboard.press('m');
      await page.keyboard.press('f');
      await settle(page);
      const s2 = await state(page);
      check(s2.mark && near(s2.mark.start_ns, s.area.start_ns, 1) && near(s2.mark.end_ns, s.area.end_ns, 1), 'M did not mark the area');
      check(near(s2.start_ns, s.area.start_ns, 1) && near(s2.end_ns, s.area.end_ns, 1), 'F did not focus the area');
      await shot(page, 'timeline-area', true);
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
      const s = await state(page);
      const rs = r.start_us * 1e3;
      const re = r.end_us * 1e3;
      check(s.start_ns <= rs && s.end_ns >= re, `the window ${s.start_ns}..${s.end_ns} does not hold ${rs}..${re}`);
      check(s.end_ns - s.start_ns <= (re - rs) * 1.2 + 200, `the window is ${(s.end_ns - s.start_ns) / (re - rs)}x the range`);
      await shot(page, 'timeline-finding-range');
      // A finding with events: they are highlighted, and the first is selected.
      const withEvents = report.findings.find((f) => f.events && f.events.some((e) => Number.isFinite(e.byte_offset)));
      if (withEvents) {
        await page.click('#tabs button[data-tab="report"]');
        const card2 = page.locator('#findings article.finding', { has: page.locator(`.finding-id:text-is("${withEvents.id}")`) });
        await card2.locator('.tl-show-finding').click();
        await page
          .waitForFunction(() => { const t = window.kinetoscope.timeline.state(); return t.details && t.hits > 0; }, null, { timeout: 10_000 })
          .catch(async (e) => {
            throw new Error(`${e.message}; state: ${JSON.stringify(await state(page)).slice(0, 400)}; errors: ${log.errors.join('; ')}`);
          });
        const s2 = await state(page);
        check(s2.hits === withEvents.events.length, `${s2.hits} highlighted for ${withEvents.events.length} events`);
        const first = [...withEvents.events].sort((a, b) => a.ts_us - b.ts_us)[0];
        check(s2.details.name === first.name, `selected ${s2.details.name}, the first event is ${first.name}`);
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
        await page.waitForFunction((i) => window.kinetoscope.timeline.state().selection === i, slice);
        check((await state(page)).details.depth === (name === 'k2' ? 1 : 2), `${name} is not on its own row`);
      }
      await shot(page, 'timeline-overlap');
      noErrors(log);
      await page.close();
    },
  };
}
