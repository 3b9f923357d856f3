// Browser tests for "Compare two traces" (web/compare/): HTA's trace_diff fixtures picked into the
// BASE and TEST slots, a hand-made pair through window.kinetoscope.compare() and by dropping both
// files on the panel, and Swap; the page's diff JSON against `kinetoscope diff BASE TEST --format
// json`, byte for byte. run.mjs adds these to its tests; `t` holds its helpers.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function compareTests(t) {
  const { check, needTraces, openPage, loads, settled, shot, noErrors, diffJson, copiedLink, CLI, TRACES } = t;

  function cliDiff(base, test) {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build the CLI first, or set KINETOSCOPE_CLI`);
    const r = spawnSync(CLI, ['diff', base, test, '--format', 'json'], { maxBuffer: 1 << 28, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`kinetoscope diff failed: ${r.stderr}`);
    return r.stdout;
  }

  async function sameAsCliDiff(page, base, test) {
    const cli = cliDiff(base, test);
    const report = await page.evaluate(() => window.kinetoscope.report());
    const diffs = diffJson(JSON.parse(cli), report);
    check(!diffs.length, `the page's diff differs from the CLI's:\n  ${diffs.slice(0, 10).join('\n  ')}`);
    const bytes = await page.evaluate(() => window.kinetoscope.exports().json);
    check(bytes === cli, `the page's diff JSON is not byte-identical to the CLI's (${bytes.length} vs ${cli.length} bytes)`);
    return report;
  }

  // A trace with ProfilerSteps of the given lengths (us), kernels {name: [durations]} and CPU ops.
  function trace(stepsUs, kernels, ops) {
    const ev = [];
    let ts = 0;
    stepsUs.forEach((d, i) => {
      ev.push({ ph: 'X', cat: 'user_annotation', name: `ProfilerStep#${i + 1}`, pid: 1, tid: 1, ts, dur: d });
      ts += d;
    });
    let k = 10;
    for (const [name, durs] of Object.entries(kernels)) for (const d of durs) ev.push({ ph: 'X', cat: 'kernel', name, pid: 0, tid: 7, ts: (k += 200), dur: d, args: { stream: 7 } });
    let c = 5;
    for (const [name, durs] of Object.entries(ops)) for (const d of durs) ev.push({ ph: 'X', cat: 'cpu_op', name, pid: 1, tid: 1, ts: (c += 20), dur: d });
    return JSON.stringify({ traceEvents: ev });
  }

  return {
    async 'compare: a copied link names the two traces compared, and the page it opens asks to compare them, not to open a file "BASE-vs-TEST"'({ ctx, origin, tmp }) {
      const base = join(tmp, 'link_before.json');
      const test = join(tmp, 'link_after.json');
      writeFileSync(base, trace([1000, 1000], { gemm: [100, 100] }, { 'aten::mm': [10, 10] }));
      writeFileSync(test, trace([1100, 1300], { gemm: [100, 120] }, { 'aten::mm': [10, 12] }));
      const { page, log } = await openPage(ctx, origin);
      await page.click('#compare-open');
      const before = await loads(page);
      await page.setInputFiles('#compare-base', base);
      await page.setInputFiles('#compare-test', test);
      check((await settled(page, before)) === 'ready', `the comparison did not finish: ${await page.textContent('#error')}`);
      const link = new URL(await copiedLink(page));
      const view = new URLSearchParams(link.hash.slice(1));
      check(view.get('n') === 'link_before.json\nlink_after.json' && view.get('c') === '1', `the comparison's link: ${link.hash}`);
      const said = await page.textContent('.export-said');
      check(/two traces are compared/.test(said), `after Copy link: ${said}`);
      const second = await openPage(ctx, origin, link.pathname + link.hash);
      const prompt = (await second.page.textContent('#link-prompt')) || '';
      check(/Compare link_before\.json with link_after\.json/.test(prompt) && !/-vs-/.test(prompt), `the link's prompt: ${prompt}`);
      await second.page.click('#link-prompt button');
      check(await second.page.isVisible('#compare .compare-slot[data-slot="base"]'), "the prompt's button did not open the compare panel");
      const again = await loads(second.page);
      await second.page.setInputFiles('#compare-base', base);
      await second.page.setInputFiles('#compare-test', test);
      check((await settled(second.page, again)) === 'ready', 'the comparison did not run again');
      check((await second.page.locator('#link-prompt').count()) === 0, 'the prompt stays over the comparison');
      noErrors(log);
      noErrors(second.log);
    },

    async 'compare two traces: HTA\'s trace_diff pair in the page equals kinetoscope diff'({ ctx, origin }) {
      needTraces();
      const base = join(TRACES, 'hta__trace_compare__base.json.gz');
      const test = join(TRACES, 'hta__trace_compare__test.json.gz');
      const { page, log } = await openPage(ctx, origin);
      await page.click('#compare-open');
      check(await page.isVisible('#compare .compare-slot[data-slot="base"]'), 'the compare panel did not open');
      await shot(page, 'compare-empty');
      const before = await loads(page);
      await page.setInputFiles('#compare-base', base);
      await page.setInputFiles('#compare-test', test);
      check((await settled(page, before)) === 'ready', `the comparison did not finish: ${await page.textContent('#error')}`);
      const diff = await sameAsCliDiff(page, base, test);
      check(diff.schema === 'kinetoscope.diff/1', `schema ${diff.schema}`);
      check(diff.cpu_ops.added_names.join() === 'All2All_Pooled_Req,AddmmBackward0,CatBackward0', `added CPU ops: ${diff.cpu_ops.added_names}`);
      const added = await page.locator('#diff-cpu .diff-names.added li').allTextContents();
      check(added.join() === diff.cpu_ops.added_names.join(), `the page lists ${added} as added`);
      check((await page.locator('#diff-gpu tbody tr').count()) === diff.gpu_ops.rows.length, 'the GPU op table is incomplete');
      await shot(page, 'compare-hta', true);
      noErrors(log);
      await page.close();
    },

    async 'compare(): a hand-made pair, by the API, by a drop on the panel, and swapped'({ ctx, origin, tmp }) {
      const base = join(tmp, 'before.json');
      const test = join(tmp, 'after.json');
      writeFileSync(base, trace([1000, 1000, 1200], { gemm: [100, 100], relu: [50], old_kernel: [30] }, { 'aten::mm': [10, 10], 'aten::relu': [5] }));
      writeFileSync(test, trace([1100, 1300, 1300], { gemm: [100, 100, 120], relu: [50], '<b>new</b>': [20, 20] }, { 'aten::mm': [10, 10, 10], 'aten::relu': [5], 'aten::cat': [7] }));
      const { page, log } = await openPage(ctx, origin);
      const pair = [readFileSync(base, 'utf8'), readFileSync(test, 'utf8')];
      const viaApi = await page.evaluate(async ([b, t]) => {
        const d = await window.kinetoscope.compare(new File([b], 'before.json'), new File([t], 'after.json'));
        return d.step_time;
      }, pair);
      check(viaApi.delta_us === 300 && viaApi.delta_pct === 30, `step-time delta ${JSON.stringify(viaApi)}, not +300 us (+30%)`);
      await sameAsCliDiff(page, base, test);
      // The kernel named like markup is text.
      check((await page.locator('#report b').count()) === 0, 'markup from a kernel name reached the DOM');
      check((await page.locator('#diff-gpu td.name').allTextContents()).includes('<b>new</b>'), 'the added kernel is not shown by its name');
      // Both have 3 steps: compared per step, no warning.
      check((await page.locator('#diff-gpu th').allTextContents()).some((t) => t.includes('Δ time/step')), 'the GPU table is not per step');
      check((await page.locator('.diff-warning').count()) === 0, 'a step-count warning for equal step counts');
      await shot(page, 'compare-handmade', true);

      // Swap: TEST against BASE.
      let before = await loads(page);
      await page.click('#compare .compare-actions button');
      check((await settled(page, before)) === 'ready', 'the swapped comparison did not finish');
      await sameAsCliDiff(page, test, base);

      // Two files dropped on the open panel: BASE then TEST, in drop order.
      const dt = await page.evaluateHandle(([b, t]) => {
        const d = new DataTransfer();
        d.items.add(new File([b], 'before.json'));
        d.items.add(new File([t], 'after.json'));
        return d;
      }, pair);
      before = await loads(page);
      await page.dispatchEvent('body', 'dragenter', { dataTransfer: dt });
      await page.dispatchEvent('body', 'drop', { dataTransfer: dt });
      check((await settled(page, before)) === 'ready', 'the dropped pair was not compared');
      await sameAsCliDiff(page, base, test);
      noErrors(log);
      await page.close();
    },

    async 'compare(): 2 and 3 steps of the same work are compared per step, with a warning'({ ctx, origin, tmp }) {
      const base = join(tmp, 'two.json');
      const test = join(tmp, 'three.json');
      // One gemm of 100 us per step (each inside its step), the same work per step.
      const stepped = (n) => {
        const ev = [];
        for (let i = 0; i < n; ++i) {
          ev.push({ ph: 'X', cat: 'user_annotation', name: `ProfilerStep#${i + 1}`, pid: 1, tid: 1, ts: 1000 * i, dur: 1000 });
          ev.push({ ph: 'X', cat: 'kernel', name: 'gemm', pid: 0, tid: 7, ts: 1000 * i + 100, dur: 100, args: { stream: 7 } });
        }
        return JSON.stringify({ traceEvents: ev });
      };
      writeFileSync(base, stepped(2));
      writeFileSync(test, stepped(3));
      const { page, log } = await openPage(ctx, origin);
      const diff = await page.evaluate(async ([b, t]) => window.kinetoscope.compare(new File([b], 'two.json'), new File([t], 'three.json')), [readFileSync(base, 'utf8'), readFileSync(test, 'utf8')]);
      check(diff.compared === 'per_step' && diff.step_counts_differ === true, `compared ${diff.compared}, step_counts_differ ${diff.step_counts_differ}`);
      check(diff.gpu_ops.changed === 0 && diff.gpu_ops.rows[0].delta_per_step_us === 0, `gemm per step: ${JSON.stringify(diff.gpu_ops.rows[0])}`);
      await sameAsCliDiff(page, base, test);
      const warning = await page.locator('.diff-warning').allTextContents();
      check(warning.length === 1 && warning[0].includes('BASE 2, TEST 3'), `the page's warning: ${warning}`);
      noErrors(log);
      await page.close();
    },
  };
}
