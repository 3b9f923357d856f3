// Browser test for the math-efficiency section (views/math.js; the report's `math` key): a real
// trace with shapes shows the ops table with the CLI's rows, a trace without shapes shows how to
// record them. run.mjs adds it.
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { check, openPage, loadFile, shot, noErrors, skip, TRACES } from './lib.mjs';

const WITH_SHAPES = 'tracelens__h100__gaunernst_bert-small-uncased__1016001.json.gz';
const WITHOUT_SHAPES = 'hta__benchmark_result_2869224_1695835535_trace.json.gz';

export function mathTests() {
  return {
    async 'math efficiency: ops table with TFLOP/s and % of peak, MFU per step'({ ctx, origin }) {
      const file = join(TRACES, WITH_SHAPES);
      if (!existsSync(file)) skip(`${file} is absent`);
      const { page, log } = await openPage(ctx, origin);
      check((await loadFile(page, file)) === 'ready', 'the trace did not load');
      const report = await page.evaluate(() => window.kinetoscope.report());
      const m = report.math;
      check(m && m.schema === 'kinetoscope.math/1' && m.shapes_recorded, 'the report has no math section with shapes');
      check(await page.isVisible('#math'), 'no #math section');
      const text = await page.textContent('#math');
      check(text.includes('NVIDIA H100 SXM') && text.includes('NVIDIA H100 Tensor Core GPU datasheet'), 'the GPU and its datasheet are not named');
      const tables = page.locator('#math table');
      check((await tables.count()) === 2, 'expected a steps table and an ops table');
      // The ops table: one row per op group, largest GPU time first, as the report lists them.
      const rows = tables.nth(1).locator('tbody tr');
      check((await rows.count()) === m.ops.length, `${await rows.count()} op rows, the report has ${m.ops.length}`);
      const first = await rows.first().locator('td').allTextContents();
      check(first[0] === m.ops[0].name && first[1] === m.ops[0].shapes, `first row ${first.slice(0, 2)}`);
      check(/%$/.test(first[8]), `% of peak cell: ${first[8]}`);
      const mfu = await tables.nth(0).locator('tbody tr').first().locator('td').nth(4).textContent();
      check(mfu === `${m.steps[0].mfu_pct.toFixed(1)}%`, `MFU cell ${mfu}, report ${m.steps[0].mfu_pct}`);
      await shot(page, 'math', false);
      noErrors(log);
      await page.close();
    },

    async 'math efficiency: a trace without shapes says to record them'({ ctx, origin }) {
      const file = join(TRACES, WITHOUT_SHAPES);
      if (!existsSync(file)) skip(`${file} is absent`);
      const { page, log } = await openPage(ctx, origin);
      check((await loadFile(page, file)) === 'ready', 'the trace did not load');
      const text = await page.textContent('#math');
      check(text.includes('record_shapes=True'), `no capture hint: ${text}`);
      check((await page.locator('#math table').count()) === 0, 'a table without shapes');
      noErrors(log);
      await page.close();
    },
  };
}
