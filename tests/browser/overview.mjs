// Browser tests for the overview (views/overview.js) and the summary tables (views/summaries.js,
// the CSV button of views/table.js), on the planted DataLoader-stall trace from
// examples/pathologies (in the repository, so these run without ../shared). run.mjs adds them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, TRACES, check, needTraces, openPage, loadFile, shot, noErrors } from './lib.mjs';

const STALL = join(ROOT, 'examples/pathologies/gpu/gpu_dataloader_stall.pt.trace.json.gz');

// Reads a CSV the page offers for download (RFC 4180, as table.js writes it).
function parseCsv(text) {
  const rows = [];
  let row = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; i++; } else if (c === '"') quoted = false; else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(cell); cell = ''; } else if (c === '\r' && text[i + 1] === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; i++; } else cell += c;
  }
  return rows;
}

async function download(page, button) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
  return { name: dl.suggestedFilename(), text: readFileSync(await dl.path(), 'utf8') };
}

export function overviewTests() {
  return {
    async 'overview: a stacked bar per step, GPU metrics, idle causes and streams'({ ctx, origin }) {
      const { page, log } = await openPage(ctx, origin);
      check((await loadFile(page, STALL)) === 'ready', 'the DataLoader-stall trace did not load');
      const report = await page.evaluate(() => window.kinetoscope.report());
      const sb = report.step_breakdown;
      check(await page.isVisible('#overview'), 'no overview section');
      // The findings come first, the overview right after them.
      const order = await page.evaluate(() => [...document.querySelectorAll('#report section')].map((s) => s.id));
      check(order.indexOf('findings') === 0 && order.indexOf('overview') === 1, `sections in this order: ${order.join(', ')}`);
      // One column of rects per step: as many parts as each step has non-zero parts.
      const parts = ['kernel', 'memcpy', 'memset', 'communication', 'runtime', 'dataloader', 'cpu_exec', 'other'];
      const expected = sb.rows.reduce((n, r) => n + parts.filter((p) => r[`${p}_us`] > 0).length, 0);
      const rects = await page.locator('#overview svg.ov-steps rect').count();
      check(rects === expected, `the step chart has ${rects} bars, the report ${expected} non-zero step parts`);
      // Tooltips name the step and the part, as text.
      const tip = await page.locator('#overview svg.ov-steps rect title').first().textContent();
      check(/^ProfilerStep#\d+, Kernel: /.test(tip), `unexpected tooltip: ${tip}`);
      const text = await page.textContent('#overview');
      check(text.includes('Utilization') && text.includes('Est. SM efficiency') && text.includes('Tensor-core kernels'), 'GPU metrics are missing');
      check(text.includes('Why the GPU sat idle') && text.includes('DataLoader'), 'the idle causes are missing');
      check(text.includes('Temporal breakdown (HTA)'), 'the temporal breakdown is missing');
      const streamRows = await page.locator('#overview table[aria-label="idle time per stream"] tbody tr').count();
      check(streamRows === report.idle_breakdown.streams.length, `${streamRows} stream rows, the report has ${report.idle_breakdown.streams.length}`);
      check(!text.includes('kernel wait is negative'), 'the overlap note shows on a trace whose streams do not overlap');
      await shot(page, 'overview', false);
      noErrors(log);
      await page.close();
    },

    async 'overview: a negative kernel wait (ops of one stream overlap) is explained'({ ctx, origin }) {
      needTraces();
      const { page, log } = await openPage(ctx, origin);
      check((await loadFile(page, join(TRACES, 'hta__mtia_rank_0.json.gz'))) === 'ready', 'the MTIA trace did not load');
      const report = await page.evaluate(() => window.kinetoscope.report());
      const negative = report.idle_breakdown.streams.filter((s) => s.kernel_wait_us < 0).length;
      check(negative === 2, `${negative} streams with a negative kernel wait in the report, 2 expected (HTA's reference has 2)`);
      const note = await page.textContent('#overview');
      check(note.includes("2 streams' kernel wait is negative: ops of one stream overlap"), 'no note explains the negative kernel wait');
      noErrors(log);
      await page.close();
    },

    // A text field in a section that content-visibility skips made Chromium (its autofill) style
    // and lay that section out anyway, one section per pass (docs/performance.md, session 35):
    // the filter boxes wait until their section is rendered (views/held_fields.js), the rows'
    // text does not (Ctrl-F finds it).
    async 'a table filter box waits until its section is on screen; its rows are there before'({ ctx, origin }) {
      const { page, log } = await openPage(ctx, origin);
      check((await loadFile(page, STALL)) === 'ready', 'the DataLoader-stall trace did not load');
      const first = (await page.evaluate(() => window.kinetoscope.report())).cpu_ops.rows[0].name;
      const before = await page.evaluate(() => {
        const sec = document.getElementById('cpu-ops');
        return { below: sec.getBoundingClientRect().top > 2 * innerHeight, fields: sec.querySelectorAll('input').length, text: sec.querySelector('tbody').textContent };
      });
      check(before.below, '#cpu-ops is not below the fold: this test needs it off screen');
      check(before.fields === 0, `#cpu-ops holds ${before.fields} text fields while off screen`);
      check(before.text.includes(first), `#cpu-ops's rows are not in the page while off screen (no ${first})`);
      await page.locator('#cpu-ops h2').scrollIntoViewIfNeeded();
      await page.waitForSelector('#cpu-ops input.filter', { state: 'attached', timeout: 30_000 });
      await page.fill('#cpu-ops input.filter', 'aten::mm');
      const names = await page.locator('#cpu-ops tbody tr td:first-child').allTextContents();
      check(names.length > 0 && names.every((n) => n.toLowerCase().includes('aten::mm')), `the filter shows ${names.length} rows: ${names.slice(0, 3)}`);
      // On a screen tall enough for every section, every filter box is there without scrolling.
      const tall = (await openPage(ctx, origin)).page;
      await tall.setViewportSize({ width: 1280, height: 9000 });
      check((await loadFile(tall, STALL)) === 'ready', 'the DataLoader-stall trace did not load (tall page)');
      await tall.waitForSelector('#cpu-ops input.filter', { state: 'attached', timeout: 30_000 });
      noErrors(log);
      await tall.close();
      await page.close();
    },

    async 'summary tables sort, filter and download as CSV'({ ctx, origin }) {
      const { page, log } = await openPage(ctx, origin);
      check((await loadFile(page, STALL)) === 'ready', 'the DataLoader-stall trace did not load');
      const report = await page.evaluate(() => window.kinetoscope.report());
      for (const id of ['api-calls', 'annotations', 'cpu-ops', 'kernel-groups', 'launches', 'gpu-by-op']) {
        check(await page.isVisible(`#${id}`), `no #${id} section`);
      }
      // GPU time by launching op: sorted by self time, as the report lists it.
      const byOp = report.gpu_by_op.rows;
      const firstOp = await page.locator('#gpu-by-op tbody tr').first().locator('td').first().locator('.clamp').getAttribute('title');
      check(byOp.length > 0 && firstOp === byOp[0].name, `first GPU-by-op row is ${firstOp}, the report's largest self time is ${byOp[0] && byOp[0].name}`);
      // CPU ops: sorted by self time; the CSV holds every row, raw values, in that order.
      const ops = report.cpu_ops.rows;
      const first = await page.locator('#cpu-ops tbody tr').first().locator('td').first().textContent();
      check(first === ops[0].name, `first CPU op row is ${first}, the report's largest self time is ${ops[0].name}`);
      const csv = await download(page, '#cpu-ops .csv');
      check(csv.name === 'cpu_ops.csv', `downloaded ${csv.name}`);
      const rows = parseCsv(csv.text);
      check(rows[0].join(',') === 'name,count,self_us,self_percent,total_us,avg_us,max_us,self_max_us', `CSV header: ${rows[0]}`);
      check(rows.length === ops.length + 1, `CSV has ${rows.length - 1} rows, the report ${ops.length}`);
      check(rows[1][0] === ops[0].name && Number(rows[1][2]) === ops[0].self_us, `CSV first row ${rows[1]}`);
      // Filtering narrows the table and the CSV alike.
      await page.fill('#cpu-ops input.filter', 'aten::mm');
      const shown = await page.locator('#cpu-ops tbody tr').count();
      const want = ops.filter((r) => r.name.toLowerCase().includes('aten::mm')).length;
      check(shown === want && want > 0, `filter shows ${shown} rows, ${want} expected`);
      const filtered = parseCsv((await download(page, '#cpu-ops .csv')).text);
      check(filtered.length === want + 1, `filtered CSV has ${filtered.length - 1} rows, ${want} expected`);
      // Sorting: a click on "Calls" orders by count, largest first.
      await page.fill('#cpu-ops input.filter', '');
      await page.click('#cpu-ops th[data-key="count"] button');
      const calls = await page.locator('#cpu-ops tbody tr td:nth-child(2)').allTextContents();
      const nums = calls.map((c) => Number(c.replace(/,/g, '')));
      check(nums.every((n, i) => i === 0 || nums[i - 1] >= n), `not sorted by calls: ${nums.slice(0, 8)}`);
      // The API table's CSV: one row per call name, with the nsys columns.
      const api = parseCsv((await download(page, '#api-calls .csv')).text);
      check(api[0].join(',') === 'name,count,total_us,percent,avg_us,median_us,min_us,max_us,stddev_us', `API CSV header: ${api[0]}`);
      check(api.length === report.api_calls.rows.length + 1, 'the API CSV does not have every call name');
      noErrors(log);
      await page.close();
    },
  };
}
