// Browser tests of Nsight Systems exports in the page (web/worker/nsys.js,
// web/views/stats.js), run by run.mjs:
//  - the real export (../shared/nsys: Nsight Systems 2024.5, CloverLeaf on an A100) through the
//    file input: the CLI's report, the `nsys stats` tables of `kinetoscope stats`, the timeline's
//    CUDA API, OS runtime and GPU stream rows with the launch -> kernel arrows;
//  - a built export with NVTX ranges (tests/nsys/make_exports.py, following NVIDIA's documented
//    schema; not written by nsys): its NVTX rows in the timeline; one with emit_nvtx's per-op
//    ranges: its ops tables, and "show" finding every call of an op;
//  - four rank exports (built) dropped together: the ranks of one job, the straggler named, the
//    CLI's multi-rank JSON byte for byte; an export of four GPU processes opened alone, and two
//    such exports (two nodes) dropped together: one rank per process, as the CLI numbers them;
//  - a damaged export and a non-nsys SQLite file: the CLI's error (code, message), then a good
//    export still loads.
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { basename, dirname, join } from 'node:path';
import { ROOT, CLI, check, skip, openPage, loads, settled, loadFile, cliReport, sameAsCli, noErrors, shot, startServer } from './lib.mjs';
import { diffJson } from './diff.mjs';

const REAL = join(ROOT, '..', 'shared', 'nsys', 'perlmutter-cloverleaf-cuda.sqlite');
const BUILT = join(ROOT, 'build', 'nsys');

function needReal() {
  if (!existsSync(REAL)) skip(`${REAL} is absent (the real export lives in ../shared/nsys)`);
}

// The exports tests/nsys/make_exports.py writes (built here when absent).
function built() {
  const script = join(ROOT, 'tests', 'nsys', 'make_exports.py');
  if (!existsSync(BUILT) && existsSync(script)) spawnSync('/usr/bin/python3', [script, BUILT], { stdio: 'inherit' });
  if (!existsSync(BUILT)) skip(`${BUILT} is absent (/usr/bin/python3 tests/nsys/make_exports.py)`);
  return readdirSync(BUILT).filter((f) => f.endsWith('.sqlite')).sort();
}

function cli(args) {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build the CLI first`);
  return spawnSync(CLI, args, { maxBuffer: 1 << 28, encoding: 'utf8' });
}

const api = (page, body, arg) => page.evaluate(body, arg);

async function timelineLayout(page) {
  await page.click('#tabs button[data-tab="timeline"]');
  await api(page, () => window.kinetoscope.timeline.show());
  await api(page, () => window.kinetoscope.timeline.settled());
  return api(page, () => window.kinetoscope.timeline.state().layout);
}

const trackNames = (layout) => layout.groups.flatMap((g) => g.tracks.map((t) => ({ group: g.name, gpu: g.gpu, ...t })));

export function nsysTests() {
  return {
    async 'nsys: the real export gives the CLI report, the stats tables and the timeline rows'({ ctx, origin }) {
      needReal();
      const { page, log } = await openPage(ctx, origin);
      const state = await loadFile(page, REAL);
      check(state === 'ready', `the export did not load: ${await page.textContent('#error')}`);
      const report = await page.evaluate(() => window.kinetoscope.report());
      sameAsCli(report, REAL);
      check(report.kernels && report.kernels.count === 1312, `${report.kernels && report.kernels.count} kernels, the export has 1,312`);
      // At a glance, each share over the window the report measured it over: idle over the GPU's
      // span (no steps); utilization over that span too, so that the two add up, and over the
      // whole trace (its 234 ms of startup included).
      const glance = await page.locator('.report-head .glance > div').allTextContents();
      check(report.gpu.window === 'gpu_span' && glance.some((g) => g.startsWith(`GPU idle${report.gpu.idle_pct.toFixed(1)}% of the GPU span`)), `at a glance: ${glance.join(' | ')}`);
      check(glance.some((g) => /^GPU utilization[\d.]+% of the GPU span in kernels \([\d.]+% of the trace\) · SM efficiency/.test(g)), `at a glance: ${glance.join(' | ')}`);
      // No NVTX steps, but the launches repeat: the iterations' times, said to be inferred, at a
      // glance and in the Steps section (src/analysis/iterations.h).
      const it = report.steps.inferred_iterations;
      check(it && it.found && it.count === 4 && it.ops_per_iteration === 300, `inferred iterations: ${JSON.stringify(it && { ...it, rows: undefined })}`);
      check(glance.some((g) => /^Stepsnone marked; 4 iterations inferred from the launches, median 65\.\d ms, CV 1\.\d%/.test(g)), `at a glance: ${glance.join(' | ')}`);
      const iterRows = await page.locator('#steps table[aria-label="inferred iterations"] tbody tr').count();
      check(iterRows === 4, `${iterRows} rows in the inferred iterations table`);
      check(await page.isVisible('#findings'), 'no findings section');
      check(await page.isVisible('#kernels'), 'no kernel table');
      // The `nsys stats` tables: the page's object is the CLI's JSON, and each report is a table.
      const r = cli(['stats', '--format', 'json', REAL]);
      check(r.status === 0, `kinetoscope stats failed: ${r.stderr}`);
      const expected = JSON.parse(r.stdout);
      // The tables follow the report (worker/nsys.js computes them after it): <body data-stats="1">.
      await page.waitForFunction(() => document.body.dataset.stats === '1', null, { timeout: 60_000 });
      const stats = await page.evaluate(() => window.kinetoscope.stats());
      const diffs = diffJson(expected, stats);
      check(!diffs.length, `the page's stats differ from kinetoscope stats:\n  ${diffs.slice(0, 10).join('\n  ')}`);
      for (const rep of expected.reports) {
        const sel = `#nsys-stats .stats-report[data-report="${rep.report}"]`;
        check(await page.isVisible(sel), `no ${rep.report} table`);
        if (rep.rows.length) {
          const shown = await page.locator(`${sel} tbody tr`).count();
          check(shown === Math.min(500, rep.rows.length), `${rep.report}: ${shown} rows shown, the CLI has ${rep.rows.length}`);
          // nsys's columns, its name columns first (as the report's own tables; nsys prints
          // them last), the others in nsys's order.
          const heads = await page.locator(`${sel} thead th`).allTextContents();
          const isName = (c) => /(^|\s)(Name|Range)$|^Operation$|^NameTree$/.test(c) && rep.rows.some((row) => typeof row[rep.columns.indexOf(c)] === 'string');
          const want = [...rep.columns.filter(isName), ...rep.columns.filter((c) => !isName(c))];
          check(JSON.stringify(heads) === JSON.stringify(want), `${rep.report}: columns ${heads.join('|')}, want ${want.join('|')}`);
        }
      }
      const kern = expected.reports.find((x) => x.report === 'cuda_gpu_kern_sum');
      check(kern && kern.rows.length > 0, 'cuda_gpu_kern_sum is empty');
      const firstName = await page.textContent('#nsys-stats .stats-report[data-report="cuda_gpu_kern_sum"] tbody tr:first-child td:first-child');
      check(firstName === kern.rows[0][kern.rows[0].length - 1], `the kernel summary's first row is ${firstName}, the CLI's ${kern.rows[0].at(-1)}`);
      // Each cell as the CLI prints it: reals with their decimals, 0.0 too (JSON reads it as 0).
      const osrt = cli(['stats', REAL, '--report', 'osrt_sum']).stdout.trim().split('\n');
      const lastCli = osrt.at(-1).trim().split(/\s{2,}/);
      const lastPage = await page.locator('#nsys-stats .stats-report[data-report="osrt_sum"] tbody tr:last-child td').allTextContents();
      // osrt_sum's one name column (Name, last in nsys) is the page's first.
      const lastWant = [lastCli.at(-1), ...lastCli.slice(0, -1)];
      check(JSON.stringify(lastPage) === JSON.stringify(lastWant), `osrt_sum's last row: page ${lastPage.join(' | ')}, CLI ${lastCli.join(' | ')}`);
      // Its CSV keeps nsys's column names, in nsys's order (was c0,c1,... under the page's order).
      const osrtSel = '#nsys-stats .stats-report[data-report="osrt_sum"]';
      await page.locator(osrtSel).scrollIntoViewIfNeeded();
      const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`${osrtSel} .csv`)]);
      const csvHead = readFileSync(await dl.path(), 'utf8').split('\r\n')[0];
      const osrtColumns = expected.reports.find((x) => x.report === 'osrt_sum').columns.join(',');
      check(dl.suggestedFilename() === 'osrt_sum.csv' && csvHead === osrtColumns, `osrt_sum CSV ${dl.suggestedFilename()}: ${csvHead}; nsys: ${osrtColumns}`);
      await shot(page, 'nsys-report');
      await page.locator('#nsys-stats').scrollIntoViewIfNeeded();
      await page.waitForTimeout(300); // let the scrolled-to part paint
      await shot(page, 'nsys-stats');
      // The report header says what was read: an export, not JSON.
      const head = await page.textContent('.report-head p');
      check(/of SQLite \(Nsight Systems export\)/.test(head), `the report header says: ${head}`);
      // Findings' events name the table they came from (their offsets are not byte offsets).
      const events = await page.textContent('#findings');
      check(!/byte [\d,]+ of the file/.test(events) && /a row of CUPTI_ACTIVITY_KIND_RUNTIME/.test(events), 'the findings show nsys row ids as byte offsets');
      // The timeline: CUDA API and OS runtime rows per thread, GPU stream rows, and the arrows.
      const layout = await timelineLayout(page);
      const tracks = trackNames(layout);
      check(tracks.some((t) => /CUDA API$/.test(t.name) && t.slices > 0), `no CUDA API row: ${tracks.map((t) => t.name).join(', ')}`);
      check(tracks.some((t) => /OS runtime$/.test(t.name) && t.slices > 0), 'no OS runtime row');
      const gpuSlices = tracks.filter((t) => t.gpu).reduce((s, t) => s + t.slices, 0);
      check(gpuSlices >= 1312 + 279, `the GPU rows hold ${gpuSlices} slices: fewer than the kernels and copies`);
      const kernel = report.kernels.rows[0].name;
      const n = await api(page, (k) => window.kinetoscope.timeline.search(k), kernel);
      check(n > 0, `searching the timeline for ${kernel} found nothing`);
      const slice = await api(page, () => window.kinetoscope.timeline.nextHit(1));
      await api(page, (i) => window.kinetoscope.timeline.select(i), slice);
      await page.waitForFunction((i) => { const s = window.kinetoscope.timeline.state(); return s.selection === i && s.details; }, slice, { timeout: 10_000 });
      const st = await api(page, () => window.kinetoscope.timeline.state());
      check(st.links.some((l) => l.kind === 'launch' && l.to === slice), `no launch arrow to the kernel: ${JSON.stringify(st.links)}`);
      check(st.details.partner && /^cuda/.test(st.details.partner.name), `the kernel's launch is not linked: ${JSON.stringify(st.details.partner)}`);
      // Times count from the session start, as Nsight Systems': the selected kernel starts where
      // `nsys stats --report cuda_gpu_trace` ("Start (ns)") has it, and the drawer and the facts say so.
      check(layout.time_zero === 'session start' && layout.start_ns === 78291151, `the timeline counts from ${layout.time_zero}, first event at ${layout.start_ns} ns`);
      const trace = JSON.parse(cli(['stats', '--format', 'json', '--report', 'cuda_gpu_trace', REAL]).stdout).reports[0];
      const startCol = trace.columns.indexOf('Start (ns)');
      const nameCol = trace.columns.indexOf('Name');
      check(trace.rows.some((row) => row[startCol] === st.details.start_ns && row[nameCol] === kernel), `the selected ${kernel.slice(0, 40)} starts at ${st.details.start_ns} ns on the timeline: no such row in cuda_gpu_trace`);
      const drawer = await page.textContent('.tl-details');
      check(/Start[\s\S]*from the session start/.test(drawer), `the drawer says: ${drawer.slice(0, 200)}`);
      const facts = await page.textContent('#facts');
      check(/Times count from\s*the session start, as in Nsight Systems \(first event at 78\.3 ms\)/.test(facts), `the facts say: ${facts.slice(0, 400)}`);
      await shot(page, 'nsys-timeline');
      noErrors(log);
      await page.close();
    },

    async 'nsys: a built export with NVTX ranges shows them as rows of their own'({ ctx, origin }) {
      const files = built();
      // The built export with the most NVTX ranges (the CLI's report says which).
      let best = null;
      for (const f of files) {
        const r = cli(['report', '--format', 'json', join(BUILT, f)]);
        if (r.status !== 0) continue;
        const rep = JSON.parse(r.stdout);
        const n = rep.annotations && Array.isArray(rep.annotations.rows) ? rep.annotations.rows.length : 0;
        if (n && (!best || n > best.n)) best = { f, n };
      }
      check(best, `no built export in ${BUILT} has NVTX ranges`);
      const file = join(BUILT, best.f);
      const { page, log } = await openPage(ctx, origin);
      check((await loadFile(page, file)) === 'ready', `${best.f} did not load: ${await page.textContent('#error')}`);
      sameAsCli(await page.evaluate(() => window.kinetoscope.report()), file);
      await page.waitForFunction(() => document.body.dataset.stats === '1', null, { timeout: 60_000 });
      const stats = await page.evaluate(() => window.kinetoscope.stats());
      const nvtx = stats.reports.find((x) => x.report === 'nvtx_sum');
      check(nvtx && nvtx.rows.length > 0, `nvtx_sum is empty for ${best.f}: ${nvtx && nvtx.note}`);
      const tracks = trackNames(await timelineLayout(page));
      check(tracks.some((t) => /NVTX$/.test(t.name) && t.slices > 0), `no NVTX row: ${tracks.map((t) => t.name).join(', ')}`);

      await shot(page, 'nsys-timeline-nvtx');
      // The step-range box: steps from the ranges of a name, as `kinetoscope report --step-range`.
      const rangeFile = join(BUILT, 'train_step_ranges.sqlite');
      if (existsSync(rangeFile)) {
        check((await loadFile(page, rangeFile)) === 'ready', `train_step_ranges.sqlite did not load: ${await page.textContent('#error')}`);
        await page.click('#tabs button[data-tab="report"]');
        // Beside the empty box, what the steps are now: found by their name, before any is typed.
        const nowBefore = await page.textContent('.step-range-now');
        check(/^Now: \d+ steps from the NVTX ranges “train_step”, found by their name\.$/.test(nowBefore), `beside the step-range box: ${nowBefore}`);
        const r = cli(['report', '--format', 'json', '--step-range', 'train_step', rangeFile]);
        check(r.status === 0, `kinetoscope report --step-range failed: ${r.stderr}`);
        const before = await loads(page);
        await page.fill('#step-range', 'train_step');
        await page.click('.step-range button');
        check((await settled(page, before)) === 'ready', `the step range did not apply: ${await page.textContent('#error')}`);
        const got = await page.evaluate(() => window.kinetoscope.report());
        const d = diffJson(JSON.parse(r.stdout), got);
        check(!d.length, `the page's report with the step range differs from the CLI's:\n  ${d.slice(0, 10).join('\n  ')}`);
        check(got.steps.count > 0 && got.steps.source === 'step_range', `no steps from train_step: ${JSON.stringify(got.steps).slice(0, 200)}`);
        const nowAfter = await page.textContent('.step-range-now');
        check(nowAfter === `Now: ${got.steps.count} steps from the ranges named “train_step”.`, `beside the step-range box after Apply: ${nowAfter}`);
        check(await page.isVisible('#steps'), 'no steps section after the step range');
        // The kernels under the NVTX range open at their launch, as the CLI's table.
        const groups = await page.textContent('#kernel-groups');
        check(/By NVTX range at launch/.test(groups) && /forward/.test(groups), `kernels by NVTX range: ${groups.slice(0, 300)}`);
        await shot(page, 'nsys-step-range');
      }
      // Steps between NVTX marks (nvtxMark): said so beside the box, never as ProfilerStep's (was
      // "Now: 5 steps from the ProfilerStep#N ranges.").
      const marksFile = join(BUILT, 'step_marks.sqlite');
      if (existsSync(marksFile)) {
        check((await loadFile(page, marksFile)) === 'ready', `step_marks.sqlite did not load: ${await page.textContent('#error')}`);
        await page.click('#tabs button[data-tab="report"]');
        const now = await page.textContent('.step-range-now');
        check(now === 'Now: 5 steps from the NVTX marks “train_step”, each step from one mark to the next.', `beside the step-range box, steps from marks: ${now}`);
        // Applying the marks' name keeps it in the box (the box emptied: it showed only range names).
        const before = await loads(page);
        await page.fill('#step-range', 'train_step');
        await page.click('.step-range button');
        check((await settled(page, before)) === 'ready', `the step range did not apply: ${await page.textContent('#error')}`);
        const box = await page.inputValue('#step-range');
        const got = await page.evaluate(() => window.kinetoscope.report());
        check(box === 'train_step' && got.steps.source === 'nvtx_marks' && got.steps.requested === 'train_step', `after Apply of the marks' name the box holds "${box}", steps ${JSON.stringify(got.steps).slice(0, 200)}`);
      }
      // Where a repair happened is a table and row on an export, never the row's code as a byte.
      const oldFile = join(BUILT, 'old_schema.sqlite');
      if (existsSync(oldFile)) {
        check((await loadFile(page, oldFile)) === 'ready', `old_schema.sqlite did not load: ${await page.textContent('#error')}`);
        await page.click('#tabs button[data-tab="report"]');
        const diag = await page.textContent('#diagnostics');
        check(/NVTX_EVENTS row 2/.test(diag) && !/\d{12}/.test(diag), `the diagnostics do not say the table and row: ${diag.slice(0, 400)}`);
        const note = await page.textContent('.read-problems');
        check(/in NVTX_EVENTS row 2/.test(note) && /Absent: CUPTI_ACTIVITY_KIND_KERNEL\.demangledName/.test(note), `the read note: ${note.slice(0, 400)}`);
      }
      noErrors(log);
      await page.close();
    },

    async 'nsys: an export profiled with emit_nvtx lists its ops (CPU self time, GPU time by launching op); "show" finds every call; more stats reports on request'({ ctx, origin }) {
      built();
      const file = join(BUILT, 'nvtx_domains.sqlite');
      const { page, log } = await openPage(ctx, origin);
      check((await loadFile(page, file)) === 'ready', `nvtx_domains.sqlite did not load: ${await page.textContent('#error')}`);
      const report = await page.evaluate(() => window.kinetoscope.report());
      sameAsCli(report, file);
      // The op ranges are named per call ("aten::addmm, seq = 3, op_id = 103, sizes = [...]"):
      // the tables list the op.
      check(report.gpu_by_op.source === 'nvtx_emit_nvtx', `gpu_by_op source ${report.gpu_by_op.source}`);
      const firstOp = await page.locator('#gpu-by-op tbody tr').first().locator('td').first().locator('.clamp').getAttribute('title');
      check(firstOp === 'aten::addmm', `the first GPU-by-op row is ${firstOp}`);
      const cpuOps = await page.locator('#cpu-ops tbody tr td.name').allTextContents();
      check(cpuOps.length === 3 && cpuOps.some((t) => t.includes('aten::linear')), `CPU ops rows: ${cpuOps.join(' | ')}`);
      // The stats nsys prints only when asked (16: with the unified-memory um_sum, um_total_sum
      // and um_cpu_page_faults_sum): a button each under the default tables; the table
      // it adds is the CLI's (`kinetoscope stats --report NAME --format json`).
      await page.waitForFunction(() => document.body.dataset.stats === '1', null, { timeout: 60_000 });
      const asked = ['nvtx_kern_sum', 'cuda_kern_exec_sum', 'cuda_gpu_kern_gb_sum', 'cuda_api_gpu_sum', 'nvtx_pushpop_sum', 'nvtx_gpu_proj_sum', 'cuda_kern_exec_trace', 'nvtx_pushpop_trace', 'cuda_gpu_kern_sum:base'];
      const offered = await page.locator('#nsys-stats button.more-report').count();
      for (const name of asked) {
        await page.locator(`#nsys-stats button.more-report[data-report="${name}"]`).click();
        await page.waitForSelector(`#nsys-stats .stats-report[data-report="${name}"]`, { timeout: 30_000 });
        const want = JSON.parse(cli(['stats', '--format', 'json', '--report', name, file]).stdout).reports[0];
        const got = (await page.evaluate(() => window.kinetoscope.stats())).reports.find((x) => x.report === name);
        const diffs = diffJson(want, got);
        check(!diffs.length, `the page's ${name} differs from the CLI's:\n  ${diffs.slice(0, 10).join('\n  ')}`);
        const rows = await page.locator(`#nsys-stats .stats-report[data-report="${name}"] tbody tr`).count();
        check(rows === Math.min(500, want.rows.length) && rows > 0, `${name}: ${rows} rows shown, the CLI has ${want.rows.length}`);
        check((await page.locator(`#nsys-stats button.more-report[data-report="${name}"]`).count()) === 0, `the ${name} button is still there`);
      }
      await page.locator('#nsys-stats .stats-report[data-report="nvtx_pushpop_trace"]').screenshot({ path: 'build/screenshots/nsys-pushpop-trace.png' });
      const left = await page.locator('#nsys-stats button.more-report').count();
      check(offered === 16 && left === offered - asked.length, `${offered} reports offered, ${left} left after asking for ${asked.length}`);
      // "show" on the op: its 8 calls, whatever their sequence numbers, on the timeline.
      await page.locator('#gpu-by-op tbody tr').first().locator('.tl-show').click();
      await page.waitForFunction(() => document.querySelector('.tl-search').value === 'aten::addmm', null, { timeout: 10_000 });
      await page.waitForFunction(() => window.kinetoscope.timeline.state().hits > 0, null, { timeout: 10_000 });
      const hits = await page.evaluate(() => window.kinetoscope.timeline.state().hits);
      check(hits === 8, `${hits} calls of aten::addmm highlighted, the export has 8`);
      await shot(page, 'nsys-emit-nvtx-ops');
      noErrors(log);
      await page.close();
    },

    async 'nsys: an export with --cuda-memory-usage=true shows the device peak and the flag'({ ctx, origin }) {
      if (!built().includes('memory_usage.sqlite')) skip(`no memory_usage.sqlite in ${BUILT}`);
      const file = join(BUILT, 'memory_usage.sqlite');
      const { page, log } = await openPage(ctx, origin);
      check((await loadFile(page, file)) === 'ready', `memory_usage.sqlite did not load: ${await page.textContent('#error')}`);
      const report = await page.evaluate(() => window.kinetoscope.report());
      sameAsCli(report, file);
      const ids = (report.findings || []).map((f) => f.id);
      check(ids.includes('memory.peak_high') && ids.includes('capture.diagnostic_flags'), `findings: ${ids.join(', ')}`);
      // The overview's memory figure: the device's reserved peak, no allocator total to show.
      const stat = page.locator('ul.stats li', { hasText: 'Peak memory, GPU 0' });
      check((await stat.count()) === 1, 'no "Peak memory, GPU 0" in the overview');
      const text = await stat.textContent();
      check(/76\.0 GiB/.test(text) && /95\.4%/.test(text), `the overview says: ${text}`);
      check((await stat.getAttribute('title')) === 'reserved from the device', `its title: ${await stat.getAttribute('title')}`);
      noErrors(log);
      await page.close();
    },

    async 'nsys: a start-up CUDA graph capture is said to be one, in its finding and at a glance'({ ctx, origin }) {
      if (!built().includes('graph_capture.sqlite')) skip(`no graph_capture.sqlite in ${BUILT}`);
      const file = join(BUILT, 'graph_capture.sqlite');
      const { page, log } = await openPage(ctx, origin);
      check((await loadFile(page, file)) === 'ready', `graph_capture.sqlite did not load: ${await page.textContent('#error')}`);
      const report = await page.evaluate(() => window.kinetoscope.report());
      sameAsCli(report, file);
      const ids = (report.findings || []).map((f) => f.id);
      check(ids[0] === 'capture.graph_capture', `the capture is not the first finding: ${ids.join(', ')}`);
      const card = page.locator('#findings .finding', { hasText: 'CUDA graph capture takes 85.2% of the GPU span' });
      check((await card.count()) === 1, 'no card for the capture');
      const glance = await page.locator('.report-head .glance > div').allTextContents();
      check(glance.some((g) => /^GPU idle95\.4% of the GPU span, 89\.4% while CUDA graphs were captured \(launches recorded, not run\)$/.test(g)), `at a glance: ${glance.join(' | ')}`);
      noErrors(log);
      await page.close();
    },

    async 'nsys: a GPU waiting on a sleeping host names the sleep, in the finding and the overview'({ ctx, origin }) {
      if (!built().includes('host_stall.sqlite')) skip(`no host_stall.sqlite in ${BUILT}`);
      const file = join(BUILT, 'host_stall.sqlite');
      const { page, log } = await openPage(ctx, origin);
      check((await loadFile(page, file)) === 'ready', `host_stall.sqlite did not load: ${await page.textContent('#error')}`);
      const report = await page.evaluate(() => window.kinetoscope.report());
      sameAsCli(report, file);
      const idle = (report.findings || []).find((f) => f.id === 'gpu.idle');
      check(idle && /launching thread was in log_metrics \(NVTX\) > clock_nanosleep \(OS runtime\)/.test(idle.title), `gpu.idle: ${idle && idle.title}`);
      const finding = page.locator('#findings', { hasText: 'clock_nanosleep (OS runtime)' });
      check((await finding.count()) === 1, 'the findings do not name clock_nanosleep');
      const line = page.locator('p.host-wait-activity');
      check((await line.count()) === 1, 'no host-wait activity line in the overview');
      const text = await line.textContent();
      check(/log_metrics \(NVTX\) > clock_nanosleep \(OS runtime\) 96\.0%/.test(text), `the overview says: ${text}`);
      const glance = await page.locator('.report-head .glance > div').allTextContents();
      check(glance.some((g) => /^GPU idle76\.0% of step time, 99\.6% waiting on the CPU, which was in log_metrics \(NVTX\) > clock_nanosleep/.test(g)), `at a glance: ${glance.join(' | ')}`);
      // With nothing recorded on the thread, its context switches say whether it waited (switched
      // out: a lock such as the GIL) or ran untraced code.
      for (const [name, state] of [['gil_wait', 'off'], ['python_busy', 'on']]) {
        const f = join(BUILT, `${name}.sqlite`);
        check((await loadFile(page, f)) === 'ready', `${name}.sqlite did not load: ${await page.textContent('#error')}`);
        const rep = await page.evaluate(() => window.kinetoscope.report());
        sameAsCli(rep, f);
        const gi = (rep.findings || []).find((x) => x.id === 'gpu.idle');
        check(gi && gi.title.endsWith(`the launching thread was ${state} CPU (no call traced)`), `${name}: gpu.idle: ${gi && gi.title}`);
        const g2 = await page.locator('.report-head .glance > div').allTextContents();
        check(g2.some((g) => g.includes(`waiting on the CPU, which was ${state} CPU (no call traced)`)), `${name}: at a glance: ${g2.join(' | ')}`);
        // The switches are drawn as nsys draws thread state: "off CPU" on the thread's CPU state row.
        const rows = trackNames(await timelineLayout(page));
        check(rows.some((t) => /CPU state$/.test(t.name) && t.slices === 4), `${name}: no CPU state row of 4 slices: ${rows.map((t) => `${t.name} ${t.slices}`).join(', ')}`);
      }
      noErrors(log);
      await page.close();
    },

    async 'nsys: every stats table prints each column kind as the CLI does (StdDev 0.0 in every table)'({ ctx, origin }) {
      if (!built().includes('training_steps.sqlite')) skip(`no training_steps.sqlite in ${BUILT}`);
      const file = join(BUILT, 'training_steps.sqlite');
      const { page, log } = await openPage(ctx, origin);
      check((await loadFile(page, file)) === 'ready', `training_steps.sqlite did not load: ${await page.textContent('#error')}`);
      await page.waitForFunction(() => document.body.dataset.stats === '1', null, { timeout: 30_000 });
      // The CLI's text tables (as nsys stats prints them): "** Title (report):", the header, dashes, rows.
      const text = cli(['stats', file]).stdout.split('\n');
      let checked = 0;
      for (let i = 0; i < text.length; i++) {
        const m = /^ \*\* .* \((\w+)\):$/.exec(text[i]);
        if (!m || !/^ -/.test(text[i + 3] || '')) continue;
        const rows = [];
        for (let j = i + 4; j < text.length && text[j].trim(); j++) rows.push(text[j].trim().split(/\s{2,}/));
        // The page shows the name columns first: its header says where each CLI column went.
        const cliHead = text[i + 2].trim().split(/\s{2,}/);
        const pageHead = await page.locator(`#nsys-stats .stats-report[data-report="${m[1]}"] thead th`).allTextContents();
        const at = pageHead.map((hd) => cliHead.indexOf(hd.trim()));
        check(at.every((j) => j >= 0) && new Set(at).size === cliHead.length, `${m[1]}: page columns ${pageHead.join('|')}; CLI ${cliHead.join('|')}`);
        const sel = `#nsys-stats .stats-report[data-report="${m[1]}"] tbody tr`;
        for (let k = 0; k < Math.min(rows.length, 20); k++) {
          const cells = (await page.locator(sel).nth(k).locator('td').allTextContents()).map((c) => c.trim());
          const want = at.map((j) => rows[k][j]);
          check(JSON.stringify(cells) === JSON.stringify(want), `${m[1]} row ${k + 1}: page ${cells.join(' | ')}; CLI ${want.join(' | ')}`);
          checked++;
        }
      }
      check(checked >= 10, `only ${checked} rows compared`);
      noErrors(log);
      await page.close();
    },

    async 'nsys: the overview lists the sampled GPU metrics beyond SM Active (DRAM, SM Issue, warps, PCIe, NVLink)'({ ctx, origin }) {
      if (!built().includes('metrics_gh100_set.sqlite')) skip(`no metrics_gh100_set.sqlite in ${BUILT}`);
      const file = join(BUILT, 'metrics_gh100_set.sqlite');
      const { page, log } = await openPage(ctx, origin);
      check((await loadFile(page, file)) === 'ready', `metrics_gh100_set.sqlite did not load: ${await page.textContent('#error')}`);
      const rep = await page.evaluate(() => window.kinetoscope.report());
      sameAsCli(rep, file);
      check((rep.findings || []).some((f) => f.id === 'gpu.memory_bound'), `no gpu.memory_bound: ${(rep.findings || []).map((f) => f.id).join(', ')}`);
      const items = (await page.locator('ul.stats[aria-label="GPU metrics of device 0"] li').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
      for (const want of ['SM Active (measured)90.0%', 'SM Issue (measured)12.0%', 'Warps in flight (measured)40.0%', 'DRAM read (measured)55.0%', 'DRAM write (measured)25.0%', 'PCIe RX (measured)2.0%', 'NVLink RX (measured)10.0%']) {
        check(items.includes(want), `overview: no "${want}" in ${items.join(' | ')}`);
      }
      noErrors(log);
      await page.close();
    },

    async 'nsys: GPU metric rows on the timeline say their unit (max 35%, not max 35)'({ ctx, origin }) {
      const files = built();
      for (const name of ['training_steps.sqlite', 'metrics_2024_names.sqlite']) {
        if (!files.includes(name)) skip(`no ${name} in ${BUILT}`);
        const { page, log } = await openPage(ctx, origin);
        check((await loadFile(page, join(BUILT, name))) === 'ready', `${name} did not load: ${await page.textContent('#error')}`);
        await timelineLayout(page);
        const counters = (await api(page, () => window.kinetoscope.timeline.state().lanes)).filter((l) => l.kind === 'counter' && l.gpu);
        check(counters.length >= 3, `${name}: ${counters.length} GPU metric rows`);
        // All of these metrics (SM/Tensor Active, DRAM Bandwidth) are percentages of peak.
        const bare = counters.filter((l) => !/^max [\d.,]+%$/.test(l.max || ''));
        check(!bare.length, `${name}: rows without their unit: ${bare.map((l) => `${l.name}: ${l.max}`).join(', ')}`);
        noErrors(log);
        await page.close();
      }
    },

    async 'nsys: a finding event of a built export shows on the timeline, selected, its row as args'({ ctx, origin }) {
      if (!built().includes('training_steps.sqlite')) skip(`no training_steps.sqlite in ${BUILT}`);
      const file = join(BUILT, 'training_steps.sqlite');
      const { page, log } = await openPage(ctx, origin);
      check((await loadFile(page, file)) === 'ready', `training_steps.sqlite did not load: ${await page.textContent('#error')}`);
      const report = await page.evaluate(() => window.kinetoscope.report());
      // An export's event ids are past 2^53: the report gives each as an exact string too.
      const f = (report.findings || []).find((x) => x.events && x.events.length > 1 && x.events.every((e) => typeof e.event_id === 'string'));
      check(f, `no finding's events carry event_id: ${JSON.stringify((report.findings || []).map((x) => x.events && x.events[0]))}`);
      const k = 1;
      const ev = f.events[k];
      check(String(ev.byte_offset) !== ev.event_id, `${ev.event_id} is exact as a JS number: the test proves nothing`);
      const card = page.locator('#findings article.finding', { has: page.locator(`.finding-id:text-is("${f.id}")`) });
      const events = card.locator('.listed', { has: page.locator('h4', { hasText: /^Events/ }) });
      await events.locator('li').nth(k).locator('.tl-show').click();
      await page
        .waitForFunction((id) => { const s = window.kinetoscope.timeline.state(); return s.details && s.details.event_id === id; }, ev.event_id, { timeout: 15_000 })
        .catch(async (e) => {
          throw new Error(`${e.message}: the event ${ev.event_id} (${ev.name}) was not selected; details: ${JSON.stringify(await api(page, () => window.kinetoscope.timeline.state().details)).slice(0, 300)}`);
        });
      const d = await api(page, () => window.kinetoscope.timeline.state().details);
      check(d.name === ev.name && d.dur_ns === Math.round(ev.dur_us * 1e3), `selected ${d.name} (${d.dur_ns} ns), the event is ${ev.name} (${ev.dur_us} µs)`);
      // The details drawer shows the row's facts as args (an export has no event text).
      const table = { kernel: 'CUPTI_ACTIVITY_KIND_KERNEL', gpu_memcpy: 'CUPTI_ACTIVITY_KIND_MEMCPY', cuda_runtime: 'CUPTI_ACTIVITY_KIND_RUNTIME' }[d.cat];
      check(d.args && d.args.table === table, `the args of ${d.name} (${d.cat}): ${JSON.stringify(d.args)}`);
      check(d.args.correlationId === d.correlation && d.args.row > 0, `the args miss the row or correlation id: ${JSON.stringify(d.args)}`);
      if (d.cat === 'gpu_memcpy') check(d.args.bytes === d.bytes && /^DtoH/.test(d.args.copyKind), `the copy's args: ${JSON.stringify(d.args)}`);
      const drawer = await page.textContent('.tl-drawer');
      check(drawer.includes(table) && !drawer.includes('No args.'), `the drawer does not show the row as args: ${drawer.slice(0, 300)}`);
      // The link carries the exact id, not a rounded number.
      check(page.url().includes(`s=${ev.event_id}`), `the link does not carry s=${ev.event_id}: ${page.url()}`);
      // And a link with it selects the event again (the id goes back to the worker as text).
      await api(page, () => window.kinetoscope.timeline.select(null));
      await page.evaluate((id) => { location.hash = `v=timeline&s=${id}`; }, ev.event_id);
      await page
        .waitForFunction((id) => { const s = window.kinetoscope.timeline.state(); return s.details && s.details.event_id === id; }, ev.event_id, { timeout: 15_000 })
        .catch((e) => {
          throw new Error(`${e.message}: the link #s=${ev.event_id} did not select the event`);
        });
      // An NVTX range: its text among the args.
      check((await api(page, () => window.kinetoscope.timeline.search('ProfilerStep'))) > 0, 'no ProfilerStep NVTX range found');
      const slice = await api(page, () => window.kinetoscope.timeline.nextHit(1));
      await api(page, (i) => window.kinetoscope.timeline.select(i), slice);
      const n = await api(page, () => window.kinetoscope.timeline.state().details);
      check(n.args && n.args.table === 'NVTX_EVENTS' && n.args.text === n.name, `the NVTX range's args: ${JSON.stringify(n.args)}`);
      await shot(page, 'nsys-details-args');
      noErrors(log);
      await page.close();
    },

    async "nsys: the profiler's own work is a row of its thread, and its finding shows it"({ ctx, origin }) {
      if (!built().includes('profiler_stall.sqlite')) skip(`no profiler_stall.sqlite in ${BUILT}`);
      const { page, log } = await openPage(ctx, origin);
      check((await loadFile(page, join(BUILT, 'profiler_stall.sqlite'))) === 'ready', `profiler_stall.sqlite did not load: ${await page.textContent('#error')}`);
      const idle = await page.textContent('#findings article.finding:has(.finding-id:text-is("gpu.idle"))');
      check(idle.includes('CUDA profiling data flush (profiler overhead)'), `gpu.idle does not name the profiler's work: ${idle.slice(0, 300)}`);
      // An export's times count from the session start (report.trace.time_zero), and the card says so.
      check(idle.includes('Where in the trace (from the session start)'), `the card does not say where its times count from: ${idle.slice(0, 600)}`);
      const card = page.locator('#findings article.finding', { has: page.locator('.finding-id:text-is("nsys.profiler_overhead")') });
      check((await card.count()) === 1, 'no nsys.profiler_overhead finding');
      const events = card.locator('.listed', { has: page.locator('h4', { hasText: /^Events/ }) });
      const first = await events.locator('li').first().textContent();
      check(first.includes('a row of PROFILER_OVERHEAD'), `the event does not name its table: ${first}`);
      await events.locator('li').first().locator('.tl-show').click();
      await page.waitForFunction(() => { const s = window.kinetoscope.timeline.state(); return s.details && s.details.cat === 'profiler_overhead'; }, null, { timeout: 15_000 });
      const d = await api(page, () => window.kinetoscope.timeline.state().details);
      check(d.name === 'CUDA profiling data flush' && d.args && d.args.table === 'PROFILER_OVERHEAD' && d.args.row > 0, `the selected slice: ${JSON.stringify(d).slice(0, 300)}`);
      const drawer = await page.textContent('.tl-drawer');
      check(drawer.includes('Profiler overhead'), `the drawer does not name the thread's row: ${drawer.slice(0, 300)}`);
      await shot(page, 'nsys-profiler-overhead');
      noErrors(log);
      await page.close();
    },

    async 'nsys: four rank exports dropped together name the straggler, as the CLI does'({ ctx, origin }) {
      const files = built().filter((f) => /^trace_rank\d+\.sqlite$/.test(f));
      if (files.length < 2) skip(`no rank exports in ${BUILT}`);
      const paths = files.map((f) => join(BUILT, f));
      const r = cli(['report', '--format', 'json', ...paths]);
      check(r.stdout, `the CLI wrote no multi-rank report: ${r.stderr}`);
      const expected = JSON.parse(r.stdout);
      const { page, log } = await openPage(ctx, origin);
      const bytes = paths.map((p) => [...readFileSync(p)]);
      const before = await loads(page);
      await page.evaluate(({ names, bytes }) => {
        const files = names.map((n, i) => new File([new Uint8Array(bytes[i])], n));
        const d = new DataTransfer();
        for (const f of files) d.items.add(f);
        const drop = new Event('drop', { bubbles: true, cancelable: true });
        Object.defineProperty(drop, 'dataTransfer', { value: { types: ['Files'], files: d.files, items: d.items } });
        document.body.dispatchEvent(drop);
      }, { names: files, bytes });
      check((await settled(page, before)) === 'ready', `the rank exports did not load: ${await page.textContent('#error')}`);
      const got = await page.evaluate(() => window.kinetoscope.exports().json);
      check(got === r.stdout, `the page's multi-rank JSON differs from the CLI's:\n  ${diffJson(expected, JSON.parse(got)).slice(0, 10).join('\n  ')}`);
      const f = (expected.findings || []).find((x) => x.id === 'ranks.straggler');
      check(f, `the CLI names no straggler for ${files.join(', ')}`);
      check((await page.textContent('#findings')).includes(`Rank ${f.evidence.rank} is the straggler`), `the page does not name rank ${f.evidence.rank} as the straggler`);
      // The built ranks idle alike: said once, not as "X (rank 0) to X (rank 0)".
      const glance = (await page.textContent('.ranks-head .glance')) || '';
      const idles = new Set(expected.ranks.map((x) => x.idle_us));
      if (idles.size === 1) check(/GPU idle per rank.* on every rank/.test(glance) && !/\(rank (\d+)\) to .*\(rank \1\)/.test(glance), `the job at a glance: ${glance}`);
      await shot(page, 'nsys-ranks');
      noErrors(log);
      await page.close();
    },

    async 'nsys: rank exports whose captures hold different steps: the line under the rank table says which steps the waits cover, as the CLI\'s note'({ ctx, origin }) {
      const files = built().filter((f) => /^late_launch_rank\d+\.sqlite$/.test(f));
      if (files.length !== 4) skip(`no late_launch_rank{0..3}.sqlite in ${BUILT} (make_exports.py)`);
      const paths = files.map((f) => join(BUILT, f));
      const r = cli(['report', '--format', 'json', ...paths]);
      check(r.stdout, `the CLI wrote no multi-rank report: ${r.stderr}`);
      const expected = JSON.parse(r.stdout);
      check(JSON.stringify(expected.shared_steps) === '[4,5]', `the CLI's shared_steps: ${JSON.stringify(expected.shared_steps)}`);
      const { page, log } = await openPage(ctx, origin);
      const before = await loads(page);
      await page.setInputFiles('#file', paths);
      check((await settled(page, before)) === 'ready', `the rank exports did not load: ${await page.textContent('#error')}`);
      const got = await page.evaluate(() => window.kinetoscope.exports().json);
      check(got === r.stdout, `the page's multi-rank JSON differs from the CLI's:\n  ${diffJson(expected, JSON.parse(got)).slice(0, 10).join('\n  ')}`);
      const line = (await page.textContent('#ranks .shared-steps')) || '';
      check(line.includes("collective wait covers the collectives of the 2 steps every rank's capture holds, from step 4"), `the line under the rank table: ${line}`);
      check(!(await page.textContent('#findings')).includes('different numbers of collectives'), 'a collective launched at a shared step\'s end made a count mismatch');
      noErrors(log);
      await page.close();
    },

    async 'nsys: one export of four GPU processes (torchrun) opens as four ranks, as the CLI reads it; one process opens as one trace'({ ctx, origin }) {
      const files = built();
      if (!files.includes('torchrun_4procs.sqlite') || !files.includes('training_steps.sqlite')) skip(`no torchrun_4procs.sqlite or training_steps.sqlite in ${BUILT}`);
      const file = join(BUILT, 'torchrun_4procs.sqlite');
      const r = cli(['report', '--format', 'json', file]);
      check(r.status === 0 && r.stdout, `the CLI wrote no report: ${r.stderr}`);
      const expected = JSON.parse(r.stdout);
      check(expected.schema === 'kinetoscope.multirank/1' && expected.ranks.length === 4, `the CLI does not read ${file} as 4 ranks: ${expected.schema}`);
      const { page, log } = await openPage(ctx, origin);
      check((await loadFile(page, file)) === 'ready', `the export did not load: ${await page.textContent('#error')}`);
      check((await page.evaluate(() => document.body.dataset.view)) === 'ranks', 'the ranks view is not shown');
      const got = await page.evaluate(() => window.kinetoscope.exports().json);
      check(got === r.stdout, `the page's multi-rank JSON differs from the CLI's:\n  ${diffJson(expected, JSON.parse(got)).slice(0, 10).join('\n  ')}`);
      const names = (await page.evaluate(() => window.kinetoscope.report())).ranks.map((x) => x.file);
      check(JSON.stringify(names) === JSON.stringify(expected.ranks.map((x) => x.file)), `ranks ${names.join(', ')}`);
      check(names.every((n) => /^torchrun_4procs\.sqlite pid \d+$/.test(n)), `rank names ${names.join(', ')}`);
      const f = (expected.findings || []).find((x) => x.id === 'ranks.straggler');
      check(f, 'the CLI names no straggler for torchrun_4procs.sqlite');
      check((await page.textContent('#findings')).includes(`Rank ${f.evidence.rank} is the straggler`), `the page does not name rank ${f.evidence.rank} as the straggler`);
      check(await page.isVisible('[data-export-ranks="4"]'), 'no line saying the export holds 4 processes read as ranks');
      await shot(page, 'nsys-export-ranks');
      // A rank's own report offers its timeline: that process read alone from the export, the
      // same report as the CLI's for that rank (its part of the multi-rank JSON), and its rows.
      const k = 2;
      await page.locator('#ranks table button.link-button').nth(k).click();
      await page.waitForFunction((r) => document.body.dataset.view === `rank-${r}`, expected.ranks[k].rank);
      const before = await loads(page);
      await page.click('[data-action="rank-timeline"]');
      check((await settled(page, before)) === 'ready', `rank ${k} did not open alone: ${await page.textContent('#error')}`);
      check((await page.evaluate(() => document.body.dataset.view)) === undefined, 'the rank opened in a ranks view again');
      const alone = await page.evaluate(() => window.kinetoscope.report());
      const diff = diffJson(expected.reports[k], alone);
      check(diff.length === 0, `rank ${k} alone differs from the CLI's report of that rank:\n  ${diff.slice(0, 10).join('\n  ')}`);
      await page.waitForSelector('.report-head [data-action="all-ranks"]', { state: 'attached' }); // on the Report tab, behind the timeline
      const layout = await timelineLayout(page);
      const pids = new Set(layout.groups.filter((g) => !g.gpu).map((g) => g.name));
      check(pids.size === 1, `the rank's timeline shows ${pids.size} processes: ${[...pids].join(', ')}`);
      await shot(page, 'nsys-export-rank-timeline');
      await page.click('#tabs button[data-tab="report"]');
      await page.click('.report-head [data-action="all-ranks"]');
      await page.waitForFunction(() => document.body.dataset.view === 'ranks');
      // An export of one GPU process opens as before: one trace, the CLI's single report.
      const one = join(BUILT, 'training_steps.sqlite');
      check((await loadFile(page, one)) === 'ready', `training_steps.sqlite did not load: ${await page.textContent('#error')}`);
      check((await page.evaluate(() => document.body.dataset.view)) === undefined, 'training_steps.sqlite opened in a ranks view');
      sameAsCli(await page.evaluate(() => window.kinetoscope.report()), one);
      check(!(await page.isVisible('[data-summed]')), 'a one-process export says its processes are summed');
      noErrors(log);
      await page.close();
    },

    async 'nsys: two nodes\' exports of four GPU processes each drop as the CLI reads them: eight ranks, numbered on across the exports'({ ctx, origin }) {
      if (!built().includes('torchrun_4procs.sqlite')) skip(`no torchrun_4procs.sqlite in ${BUILT}`);
      const dir = mkdtempSync(join(tmpdir(), 'ks-nodes-'));
      const node0 = join(dir, 'node0.sqlite');
      const node1 = join(dir, 'node1.sqlite');
      copyFileSync(join(BUILT, 'torchrun_4procs.sqlite'), node0);
      copyFileSync(join(BUILT, 'torchrun_4procs.sqlite'), node1);
      const paths = [node0, node1];
      const r = cli(['report', '--format', 'json', ...paths]);
      check(r.status === 0 && r.stdout, `the CLI wrote no multi-rank report: ${r.stderr}`);
      const expected = JSON.parse(r.stdout);
      check(expected.ranks.length === 8 && expected.ranks.map((x) => x.rank).join() === '0,1,2,3,4,5,6,7', `the CLI's ranks: ${expected.ranks.map((x) => `${x.rank} ${x.file}`).join(', ')}`);
      const { page, log } = await openPage(ctx, origin);
      const names = paths.map((p) => basename(p));
      const bytes = paths.map((p) => [...readFileSync(p)]);
      const before = await loads(page);
      await page.evaluate(({ names, bytes }) => {
        const d = new DataTransfer();
        names.forEach((n, i) => d.items.add(new File([new Uint8Array(bytes[i])], n)));
        const drop = new Event('drop', { bubbles: true, cancelable: true });
        Object.defineProperty(drop, 'dataTransfer', { value: { types: ['Files'], files: d.files, items: d.items } });
        document.body.dispatchEvent(drop);
      }, { names, bytes });
      check((await settled(page, before)) === 'ready', `the exports did not load: ${await page.textContent('#error')}`);
      const got = await page.evaluate(() => window.kinetoscope.exports().json);
      check(got === r.stdout, `the page's multi-rank JSON differs from the CLI's:\n  ${diffJson(expected, JSON.parse(got)).slice(0, 10).join('\n  ')}`);
      check(await page.isVisible('[data-export-ranks="8"]'), 'no line saying where the eight ranks came from');
      check((await page.textContent('[data-export-ranks="8"]')).includes('2 Nsight Systems exports'), `the line says: ${await page.textContent('[data-export-ranks="8"]')}`);
      // Rank 6 (node1's third process) opens its own timeline: that process alone.
      const k = 6;
      await page.locator('#ranks table button.link-button').nth(k).click();
      await page.waitForFunction((x) => document.body.dataset.view === `rank-${x}`, expected.ranks[k].rank);
      const opened = await loads(page);
      await page.click('[data-action="rank-timeline"]');
      check((await settled(page, opened)) === 'ready', `rank ${k} did not open alone: ${await page.textContent('#error')}`);
      const diff = diffJson(expected.reports[k], await page.evaluate(() => window.kinetoscope.report()));
      check(diff.length === 0, `rank ${k} alone differs from the CLI's report of that rank:\n  ${diff.slice(0, 10).join('\n  ')}`);
      rmSync(dir, { recursive: true, force: true });
      noErrors(log);
      await page.close();
    },

    async 'nsys: ?url= of an export of four GPU processes shows it whole and says the processes are summed'({ ctx }) {
      const files = built();
      if (!files.includes('torchrun_4procs.sqlite')) skip(`no torchrun_4procs.sqlite in ${BUILT}`);
      const file = join(BUILT, 'torchrun_4procs.sqlite');
      const r = cli(['report', '--separate', '--format', 'json', file]);
      check(r.status === 0, `kinetoscope report --separate failed: ${r.stderr}`);
      const { proc, origin } = await startServer(['--map', `/nsys=${BUILT}`]);
      try {
        const { page, log } = await openPage(ctx, origin, '/?url=nsys/torchrun_4procs.sqlite');
        await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.state), null, { timeout: 60_000 });
        check((await page.evaluate(() => document.body.dataset.state)) === 'ready', `did not load: ${await page.textContent('#error')}`);
        const diffs = diffJson(JSON.parse(r.stdout), await page.evaluate(() => window.kinetoscope.report()));
        check(!diffs.length, `the page's whole-file report differs from --separate's:\n  ${diffs.slice(0, 5).join('\n  ')}`);
        const note = await page.textContent('[data-summed="4"]');
        check(note.includes('4 GPU processes') && note.includes('kinetoscope report torchrun_4procs.sqlite'), `the note says: ${note}`);
        noErrors(log);
        await page.close();
      } finally {
        proc.kill();
      }
    },

    async 'nsys: a damaged export and a foreign SQLite file show the CLI error, then a good export loads'({ ctx, origin, tmp }) {
      needReal();
      // Damaged: the real export cut at 1 MB (its pages past that point are gone); foreign: an
      // SQLite database with no Nsight Systems tables. Plus the built damaged exports, if any.
      const real = readFileSync(REAL);
      const cut = join(tmp, 'cut.sqlite');
      writeFileSync(cut, real.subarray(0, 1 << 20));
      const foreign = join(tmp, 'foreign.sqlite');
      spawnSync('/usr/bin/python3', ['-c', 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("create table t(x)"); c.execute("insert into t values (1)"); c.commit()', foreign]);
      const zeroed = join(tmp, 'zeroed.sqlite');
      const z = Buffer.from(real);
      z.fill(0, 4096, 4096 * 64); // the schema's pages and the first tables' roots
      writeFileSync(zeroed, z);
      const bad = [cut, foreign, zeroed];
      if (existsSync(BUILT)) for (const f of readdirSync(BUILT)) if (/^(damaged_|not_an_export|not_sqlite|empty_capture)/.test(f)) bad.push(join(BUILT, f));
      const { page, log } = await openPage(ctx, origin);
      const problems = [];
      for (const file of bad) {
        const r = cli(['report', '--format', 'json', file]);
        const state = await loadFile(page, file);
        if (r.status === 0) {
          if (state !== 'ready') problems.push(`${file}: the CLI reads it, the page: ${await page.textContent('#error')}`);
          else sameAsCli(await page.evaluate(() => window.kinetoscope.report()), file);
        } else {
          const m = /^kinetoscope: .*?: (\w+) at byte (\d+): (.*)$/m.exec(r.stderr);
          const text = (await page.textContent('#error')) || '';
          if (!m) problems.push(`${file}: unexpected CLI error: ${r.stderr}`);
          else if (state !== 'error') problems.push(`${file}: the page ${state}, the CLI refuses it (${m[1]})`);
          else if (!text.includes(m[1]) || !text.includes(m[3])) problems.push(`${file}: the page says "${text}", the CLI "${m[1]}: ${m[3]}"`);
        }
        const after = await loadFile(page, REAL);
        if (after !== 'ready' || !(await page.isHidden('#error'))) problems.push(`${file}: the good export after it did not load cleanly`);
      }
      check(!problems.length, problems.join('\n  '));
      await loadFile(page, cut);
      await shot(page, 'nsys-damaged');
      noErrors(log);
      await page.close();
    },
    async 'nsys: ?url= opens an export served by the origin, with its stats, and says the CLI error for a bad one'({ ctx }) {
      const files = built();
      // A server of its own that also serves the built exports (and the real one, when present).
      const maps = ['--map', `/nsys=${BUILT}`];
      if (existsSync(REAL)) maps.push('--map', `/nsys-real=${dirname(REAL)}`);
      const { proc, origin } = await startServer(maps);
      try {
        const good = ['training_steps.sqlite', 'trace_rank0.sqlite'].filter((f) => files.includes(f)).map((f) => [`nsys/${f}`, join(BUILT, f)]);
        if (existsSync(REAL)) good.push([`nsys-real/${REAL.split('/').pop()}`, REAL]);
        check(good.length >= 2, `too few exports to open by URL: ${files.join(', ')}`);
        for (const [path, file] of good) {
          const { page, log } = await openPage(ctx, origin, `/?url=${encodeURIComponent(path)}`);
          await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.state), null, { timeout: 120_000 });
          check((await page.evaluate(() => document.body.dataset.state)) === 'ready', `?url=${path} did not load: ${await page.textContent('#error')}`);
          const report = await page.evaluate(() => window.kinetoscope.report());
          check(report.trace.format === 'nsys_sqlite', `?url=${path} was not read as an Nsight Systems export (${report.trace.format})`);
          sameAsCli(report, file);
          // The stats tables follow, as for the file itself; the timeline reads the export too.
          await page.waitForFunction(() => document.body.dataset.stats === '1', null, { timeout: 60_000 });
          const r = cli(['stats', '--format', 'json', file]);
          check(r.status === 0, `kinetoscope stats failed: ${r.stderr}`);
          const diffs = diffJson(JSON.parse(r.stdout), await page.evaluate(() => window.kinetoscope.stats()));
          check(!diffs.length, `?url=${path}: the stats differ from kinetoscope stats:\n  ${diffs.slice(0, 5).join('\n  ')}`);
          const layout = await timelineLayout(page);
          check(trackNames(layout).length > 0, `?url=${path}: no timeline rows`);
          noErrors(log);
          await page.close();
        }
        // A damaged export by URL: the CLI's code and message, as for the file.
        for (const f of ['damaged_truncated.sqlite', 'not_sqlite.sqlite'].filter((x) => files.includes(x))) {
          const r = cli(['report', '--format', 'json', join(BUILT, f)]);
          const m = /^kinetoscope: .*?: (\w+) at byte (\d+): (.*)$/m.exec(r.stderr);
          check(r.status !== 0 && m, `the CLI reads ${f}: expected a refusal (${r.stderr})`);
          const { page } = await openPage(ctx, origin, `/?url=${encodeURIComponent(`nsys/${f}`)}`);
          await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.state), null, { timeout: 60_000 });
          const text = (await page.textContent('#error')) || '';
          check(text.includes(m[1]) && text.includes(m[3]), `?url=nsys/${f}: the page says "${text}", the CLI "${m[1]}: ${m[3]}"`);
          await page.close();
        }
      } finally {
        proc.kill();
      }
    },
  };
}
