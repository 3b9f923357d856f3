// Browser test for "What bounds the step" (views/critical_path.js, the toggle in timeline/links.js):
// on HTA's cuda_event_sync reference trace the page shows the critical path's breakdown with the
// CLI's numbers (the same C++ in WASM) and HTA's (../shared/reference/critical_path), and the
// toggle highlights every event of the path on the timeline, then takes the highlight off.
// run.mjs adds it; `node tests/browser/run.mjs "critical path"` runs it alone.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CLI, ROOT, TRACES, check, loadFile, needTraces, noErrors, openPage, shot, skip } from './lib.mjs';

const TRACE = 'hta__cuda_event_sync__event_sync_trace.json.gz';
const REFERENCE = resolve(ROOT, '../shared/reference/critical_path', `${TRACE}.cp.json`);

export function criticalPathTests() {
  return {
    async 'critical path: the breakdown agrees with HTA and the toggle highlights the path'({ ctx, origin }) {
      needTraces();
      if (!existsSync(REFERENCE)) skip(`${REFERENCE} is absent`);
      const hta = JSON.parse(readFileSync(REFERENCE, 'utf8'));
      const { page, log } = await openPage(ctx, origin);
      check((await loadFile(page, join(TRACES, TRACE))) === 'ready', `${TRACE} did not load`);
      const report = await page.evaluate(() => window.kinetoscope.report());
      const cp = report.critical_path;
      check(cp && cp.ok, `no critical path in the report: ${JSON.stringify(cp)}`);
      // HTA's path total and bound_by split, to the microsecond.
      check(Math.abs(cp.path_total_us - hta.path_total_us) < 0.5, `path total ${cp.path_total_us} us, HTA ${hta.path_total_us} us`);
      for (const [label, us] of Object.entries(hta.bound_by_us)) {
        check(Math.abs(cp.bound_by_us[label] - us) < 0.5, `bound_by ${label}: ${cp.bound_by_us[label]} us, HTA ${us} us`);
      }
      // The critical-path finding's evidence names HTA's labels readably ("GPU kernel kernel
      // overhead" read like a typo).
      const evidence = (await page.locator('article.finding dl.evidence').allTextContents()).join(' ');
      check(!/kernel kernel/i.test(evidence), `a finding's evidence says "kernel kernel": ${evidence.slice(0, 300)}`);
      // The section shows it: the summary sentence, a bar part per non-zero label, a table row each.
      check(await page.isVisible('#critical-path'), 'no #critical-path section');
      const text = await page.textContent('#critical-path');
      check(text.includes('CPU-bound on its critical path'), `the summary is missing: ${text.slice(0, 300)}`);
      const parts = await page.locator('#critical-path .cp-bar .cp-part').count();
      const nonZero = Object.entries(cp.bound_by_pct).filter(([k, v]) => k && v > 0).length;
      check(parts === nonZero, `${parts} bar parts, ${nonZero} non-zero labels`);
      const cpuRow = page.locator('#critical-path table[aria-label="critical path by what bounds it"] tbody tr', { hasText: 'cpu_bound' });
      check((await cpuRow.count()) === 1, 'no cpu_bound row');
      // The CLI's critical-path command writes the same path (the page asks the worker for it whole).
      if (existsSync(CLI)) {
        const cli = JSON.parse(execFileSync(CLI, ['critical-path', '--format', 'json', join(TRACES, TRACE)]).toString('utf8'));
        const full = await page.evaluate(() => window.kinetoscope.timeline.criticalPath());
        check(full.events_on_path === cli.events_on_path && full.path.length === cli.path.length, `page path ${full.path.length} edges, CLI ${cli.path.length}`);
        check(full.path_total_us === cli.path_total_us, `page total ${full.path_total_us}, CLI ${cli.path_total_us}`);
      }
      // Toggle on: the timeline opens on the step and highlights the path's events.
      const toggle = page.locator('#critical-path button.cp-toggle');
      check((await toggle.getAttribute('aria-pressed')) === 'false', 'the toggle starts pressed');
      await toggle.click();
      await page.waitForFunction(() => document.querySelector('#critical-path button.cp-toggle').getAttribute('aria-pressed') === 'true', null, { timeout: 30_000 });
      const lit = (await page.evaluate(() => window.kinetoscope.timeline.state())).highlight;
      const full = await page.evaluate(() => window.kinetoscope.timeline.criticalPath());
      const events = new Set(full.path.filter((e) => e.slice >= 0).map((e) => e.slice));
      check(lit && lit.label === 'critical path' && lit.count === events.size, `highlighted ${JSON.stringify(lit)}, the path has ${events.size} events`);
      check(await page.evaluate(() => window.kinetoscope.timeline.visible()), 'the timeline did not open');
      const st = await page.evaluate(() => window.kinetoscope.timeline.state());
      check(st.highlight && st.highlight.slices.every((i) => events.has(i)), 'the timeline highlights slices that are not on the path');
      check(st.start_ns <= cp.window_begin_us * 1e3 && st.end_ns >= cp.window_end_us * 1e3, `the view [${st.start_ns}, ${st.end_ns}] does not hold the step`);
      await shot(page, 'critical_path_highlight');
      // Toggle off: no highlight left.
      await page.evaluate(() => window.kinetoscope.timeline.showReport());
      await toggle.click();
      await page.waitForFunction(() => document.querySelector('#critical-path button.cp-toggle').getAttribute('aria-pressed') === 'false', null, { timeout: 30_000 });
      check((await page.evaluate(() => window.kinetoscope.timeline.state())).highlight === null, 'the highlight stayed');
      noErrors(log);
      await page.close();
    },
  };
}
