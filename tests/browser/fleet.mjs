// Browser tests for the fleet view (web/fleet/): a generated 4,096-rank fleet.json
// (examples/fleet/generate.py --fleet-json) dropped through the file input opens the fleet view,
// draws its canvas heat map (3 s / 1.5 s at most for the first render / a redraw: a hang guard
// for a loaded machine; it takes 0.1-0.5 s), lists the findings with rank links that open
// the rank's detail, sorts by node, and stays responsive. run.mjs adds these to its tests.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export function fleetTests({ check, openPage, loadFile, shot, noErrors, ROOT, TRACES }) {
  const file = join(ROOT, 'build', 'fleet', 'fleet4096.json');
  function generated() {
    if (existsSync(file)) return file;
    const r = spawnSync('python3', [join(ROOT, 'examples/fleet/generate.py'), '--ranks', '4096', '--steps', '40', '--fleet-json', file], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`examples/fleet/generate.py failed: ${r.stderr}`);
    return file;
  }

  return {
    async 'python3 -m fleet on 4 ranks of the DLRM set: its fleet.json opens in the fleet view'({ ctx, origin }) {
      const traces = ['0_step_12.1694128201545', '1_step_12.1694128201556', '2_step_12.1694128201554', '3_step_12.1694128201557']
        .map((s) => join(TRACES, `param__dlrm_kineto__worker${s}.pt.trace.json`));
      if (!traces.every(existsSync)) return;  // ../shared/traces absent: nothing to check here
      const out = join(ROOT, 'build', 'fleet', 'dlrm4.fleet.json');
      const r = spawnSync('/usr/bin/python3', ['-m', 'fleet', ...traces, '--scheduler', 'local:1', '-o', out, '--no-progress'], { cwd: ROOT, encoding: 'utf8' });
      check(r.status === 0, `python3 -m fleet failed: ${r.stderr}`);
      const { page, log } = await openPage(ctx, origin);
      const state = await loadFile(page, out);
      check(state === 'ready', `the fleet file did not open: ${await page.textContent('#error')}`);
      check((await page.textContent('.fleet .report-head h2')) === 'Fleet: 4 ranks on 4 nodes', 'header');
      const doc = await page.evaluate(() => window.kinetoscope.report());
      check(doc.ranks.map((x) => x.rank).join() === '0,1,2,3', `ranks ${doc.ranks.map((x) => x.rank)}`);
      // The straggler finding links to its rank; the rank's detail lists its own report's findings.
      const rank = await page.getAttribute('.fleet-findings li[data-id="ranks.straggler"] .fleet-rank-link', 'data-rank');
      check(rank !== null, 'no straggler link');
      await page.click(`.fleet-findings li[data-id="ranks.straggler"] .fleet-rank-link[data-rank="${rank}"]`);
      check((await page.textContent('.fleet-detail h3')).startsWith(`Rank ${rank}`), 'the detail is not the straggler');
      check(/Its own report's findings \(\d+\)/.test(await page.textContent('.fleet-detail')), 'the rank\'s own findings are missing');
      noErrors(log);
      await page.close();
    },

    async 'a 4,096-rank fleet.json opens the fleet view: canvas heat map, findings, rank detail, node sort'({ ctx, origin }) {
      const path = generated();
      const { page, log } = await openPage(ctx, origin);
      const t0 = Date.now();
      const state = await loadFile(page, path);
      const wall = Date.now() - t0;
      check(state === 'ready', `the fleet file did not open: ${await page.textContent('#error')}`);
      const head = await page.textContent('.fleet .report-head h2');
      check(head === 'Fleet: 4,096 ranks on 512 nodes', `unexpected header: ${head}`);
      const render = Number(await page.evaluate(() => document.body.dataset.fleetRenderMs));
      check(render < 3000, `rendering 4,096 ranks took ${render} ms`);
      const size = await page.evaluate(() => { const c = document.querySelector('canvas.fleet-heat'); return [c.width, c.height]; });
      check(size[1] === 4096, `the heat map should have one pixel row per rank, has ${size[1]}`);
      const doc = await page.evaluate(() => window.kinetoscope.report());
      check(doc.schema === 'kinetoscope.fleet/1' && doc.ranks.length === 4096, 'report() is not the fleet document');
      // The slow node's finding, and a rank link that opens the rank's detail.
      const ids = await page.$$eval('.fleet-findings li', (lis) => lis.map((li) => li.dataset.id));
      check(ids.includes('fleet.slow_compute_node') && ids.includes('fleet.slow_dataloader'), `findings: ${ids}`);
      const rank = await page.getAttribute('.fleet-findings li[data-id="fleet.slow_compute"] .fleet-rank-link', 'data-rank');
      await page.click(`.fleet-findings li[data-id="fleet.slow_compute"] .fleet-rank-link[data-rank="${rank}"]`);
      const detail = await page.textContent('.fleet-detail h3');
      check(detail.startsWith(`Rank ${rank} on node`), `the rank detail says ${detail}`);
      check(await page.isVisible('.fleet-detail .fleet-open'), 'no button to open the rank\'s trace');
      // The rank's trace opens in a second tab (the embedding handshake), the fleet stays.
      const trace = join(TRACES, 'param__dlrm_kineto__worker0_step_12.1694128201545.pt.trace.json');
      if (existsSync(trace)) {
        const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.click('.fleet-detail .fleet-open')]);
        const [tab] = await Promise.all([ctx.waitForEvent('page'), chooser.setFiles(trace)]);
        await tab.waitForFunction(() => document.body.dataset.state === 'ready' || document.body.dataset.state === 'error', null, { timeout: 60_000 });
        const title = await tab.textContent('.report-head h2');
        check(title === 'param__dlrm_kineto__worker0_step_12.1694128201545.pt.trace.json', `the second tab shows ${title}`);
        await tab.close();
        check((await page.textContent('.fleet .report-head h2')).startsWith('Fleet:'), 'the fleet view did not stay');
      }
      // Redraws (metric, order) stay fast at this size.
      const redraw = await page.evaluate(() => {
        const sel = document.querySelectorAll('.fleet-controls select');
        const t = performance.now();
        sel[1].value = 'node'; sel[1].dispatchEvent(new Event('change'));
        sel[0].value = 'compute'; sel[0].dispatchEvent(new Event('change'));
        sel[1].value = 'value'; sel[1].dispatchEvent(new Event('change'));
        return (performance.now() - t) / 3;
      });
      check(redraw < 1500, `a redraw of the 4,096-rank map takes ${redraw.toFixed(0)} ms`);
      // Sorted by mean compute, the slowest rank is the planted slow GPU, on top.
      const tipTop = await page.evaluate(() => {
        const c = document.querySelector('canvas.fleet-heat');
        const r = c.getBoundingClientRect();
        c.dispatchEvent(new MouseEvent('mousemove', { clientX: Math.ceil(r.left) + 3, clientY: Math.ceil(r.top), bubbles: true }));
        // (MouseEvent coordinates are whole pixels: the first one inside the top row.)
        return document.querySelector('.fleet-tip').textContent;
      });
      check(tipTop.startsWith(`rank ${rank} `), `the top row by compute is not rank ${rank}: ${tipTop}`);
      await shot(page, 'fleet-4096');
      noErrors(log);
      console.log(`    4,096 ranks: open ${wall} ms, render ${render} ms, redraw ${redraw.toFixed(0)} ms`);
      await page.close();
    },
  };
}
