// Browser tests for several ranks at once (web/ranks/): the 8-rank DLRM job dropped together, the
// planted straggler sets opened as a folder (a dropped directory entry, and the folder input), and
// the page's multi-rank JSON against `kinetoscope report --format json FILES...` byte for byte.
// run.mjs adds these to its tests; `t` holds its helpers.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const PATHOLOGIES = 'examples/pathologies/gpu';

export function rankTests(t) {
  const { check, skip, needTraces, openPage, loads, settled, shot, noErrors, diffJson, waitForWorkers, copiedLink, CLI, TRACES, ROOT } = t;

  // Exit status 1 when a file could not be read; the report of the others is written all the same.
  function cliMulti(args) {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build the CLI first, or set KINETOSCOPE_CLI`);
    const r = spawnSync(CLI, ['report', '--format', 'json', ...args], { maxBuffer: 1 << 28, encoding: 'utf8' });
    if (!r.stdout) throw new Error(`the CLI wrote no report: ${r.stderr}`);
    return r.stdout;
  }

  // The page's multi-rank JSON (the exact bytes of its JSON export) against the CLI's.
  async function sameAsCliMulti(page, args) {
    const cli = cliMulti(args);
    const bytes = await page.evaluate(() => window.kinetoscope.exports().json);
    const report = await page.evaluate(() => window.kinetoscope.report());
    const diffs = diffJson(JSON.parse(cli), report);
    check(!diffs.length, `the page's multi-rank report differs from the CLI's:\n  ${diffs.slice(0, 10).join('\n  ')}`);
    check(bytes === cli, `the page's JSON export is not byte-identical to the CLI's (${bytes.length} vs ${cli.length} bytes)`);
    return report;
  }

  // Files served by the test server, made into File objects in the page.
  async function pageFiles(page, urls) {
    return page.evaluateHandle(async (list) => {
      const files = [];
      for (const u of list) {
        const r = await fetch(u);
        if (!r.ok) throw new Error(`${u}: HTTP ${r.status}`);
        files.push(new File([await r.blob()], u.split('/').pop()));
      }
      return files;
    }, urls);
  }

  function straggler(report) {
    return (report.findings || []).find((f) => f.id === 'ranks.straggler');
  }

  // The four rank exports tests/nsys/make_exports.py writes (small, always built here).
  function rankExports() {
    const dir = join(ROOT, 'build', 'nsys');
    const script = join(ROOT, 'tests', 'nsys', 'make_exports.py');
    if (!existsSync(dir) && existsSync(script)) spawnSync('/usr/bin/python3', [script, dir], { stdio: 'inherit' });
    const names = existsSync(dir) ? readdirSync(dir).filter((f) => /^trace_rank\d+\.sqlite$/.test(f)).sort() : [];
    if (names.length !== 4) skip(`no trace_rank{0..3}.sqlite in ${dir} (/usr/bin/python3 tests/nsys/make_exports.py build/nsys)`);
    return names.map((n) => ({ name: n, bytes: [...readFileSync(join(dir, n))] }));
  }

  // Drops `files` ({name, bytes}) on the page together, as a user drags them from a folder.
  async function dropTogether(page, files) {
    const before = await loads(page);
    await page.evaluate((list) => {
      const d = new DataTransfer();
      for (const f of list) d.items.add(new File([new Uint8Array(f.bytes)], f.name));
      const drop = new Event('drop', { bubbles: true, cancelable: true });
      Object.defineProperty(drop, 'dataTransfer', { value: { types: ['Files'], files: d.files, items: d.items } });
      document.body.dispatchEvent(drop);
    }, files);
    return settled(page, before);
  }

  return {
    async 'ranks: a link copied from one rank\'s report, and from its timeline, reopens that rank when the job\'s files are dropped again'({ ctx, origin }) {
      const files = rankExports();
      const names = files.map((f) => f.name);
      const { page, log } = await openPage(ctx, origin);
      check((await dropTogether(page, files)) === 'ready', `the rank exports did not load: ${await page.textContent('#error')}`);
      // The stacked timelines are ranks on their own clocks: none of them writes the page's link.
      await page.locator('#stacked').scrollIntoViewIfNeeded();
      await page.click('#stacked button:has-text("Show timelines")');
      await page.waitForFunction(() => /^Step \d+/.test(document.querySelector('#stacked .stacked-controls [aria-live]').textContent), null, { timeout: 60_000 });
      await page.locator('#stacked .tl-canvas').first().focus();
      await page.keyboard.press('d');
      await page.waitForTimeout(1500); // the page's own timeline writes `t` 400 ms after it moves
      const hash = await page.evaluate(() => location.hash);
      check(!/[#&]t=/.test(hash), `a stacked rank's timeline wrote its range into the page's link: ${hash}`);
      // Rank 2's own report, a finding selected: the link names the job's four files and the rank.
      await page.locator('#rank-picker').selectOption('2');
      await page.click('.rank-pick button');
      await page.waitForFunction(() => document.body.dataset.view === 'rank-2');
      const finding = await page.locator('#findings article.finding .finding-id').first().textContent();
      await page.locator('#findings article.finding').first().click({ position: { x: 4, y: 4 } });
      const link = new URL(await copiedLink(page));
      const view = new URLSearchParams(link.hash.slice(1));
      check(view.get('r') === '2' && view.get('f') === finding.trim(), `the link from rank 2's report: ${link.hash}`);
      check(view.get('n') === names.join('\n'), `the link names ${JSON.stringify(view.get('n'))}, not the job's files ${JSON.stringify(names)}`);
      check(/opened together/.test(await page.textContent('.export-said')), `after Copy link: ${await page.textContent('.export-said')}`);

      // A teammate opens it: the page asks for the four files, then shows rank 2 with the finding.
      const second = await openPage(ctx, origin, link.pathname + link.hash);
      const prompt = (await second.page.textContent('#link-prompt')) || '';
      check(/Open these 4 files together/.test(prompt) && names.every((n) => prompt.includes(n)) && /rank 2/.test(prompt), `the link's prompt: ${prompt}`);
      check((await dropTogether(second.page, files)) === 'ready', 'the job did not load again');
      await second.page.waitForFunction(() => document.body.dataset.view === 'rank-2', null, { timeout: 30_000 });
      const selected = await second.page.locator('#findings article.finding.selected .finding-id').textContent();
      check(selected.trim() === finding.trim(), `rank 2's report opened with ${selected} selected, not ${finding}`);

      // Its timeline: the rank alone, on a window; that link brings the timeline back on it.
      await second.page.click('[data-action="rank-timeline"]');
      await second.page.waitForFunction(() => !document.body.dataset.view && document.body.dataset.tab === 'timeline' && document.querySelector('[data-action="all-ranks"]'), null, { timeout: 60_000 });
      await second.page.evaluate(() => window.kinetoscope.timeline.settled());
      await second.page.locator('.tl-canvas').first().focus();
      await second.page.keyboard.press('w');
      await second.page.waitForFunction(() => /[#&]t=/.test(location.hash), null, { timeout: 30_000 });
      const want = await second.page.evaluate(() => window.kinetoscope.timeline.state());
      const timelineLink = new URL(await copiedLink(second.page));
      const tv = new URLSearchParams(timelineLink.hash.slice(1));
      check(tv.get('r') === '2' && tv.get('v') === 'timeline' && tv.get('n') === names.join('\n') && tv.get('t'), `the link from rank 2's timeline: ${timelineLink.hash}`);
      const third = await openPage(ctx, origin, timelineLink.pathname + timelineLink.hash);
      check((await dropTogether(third.page, files)) === 'ready', 'the job did not load a third time');
      await third.page.waitForFunction(() => !document.body.dataset.view && document.body.dataset.tab === 'timeline' && document.querySelector('[data-action="all-ranks"]'), null, { timeout: 60_000 });
      await third.page.evaluate(() => window.kinetoscope.timeline.settled());
      const got = await third.page.evaluate(() => window.kinetoscope.timeline.state());
      const [t0, t1] = tv.get('t').split(',').map(Number);
      check(Math.abs(got.start_ns / 1e3 - t0) < 0.01 && Math.abs(got.end_ns / 1e3 - t1) < 0.01, `rank 2's timeline opened on ${got.start_ns / 1e3}..${got.end_ns / 1e3} µs, the link says ${t0}..${t1} (it was ${want.start_ns / 1e3}..${want.end_ns / 1e3})`);
      check(/Rank 2 of the 4 ranks/.test(await third.page.textContent('#report')), 'the timeline is not rank 2\'s');

      // A rank the job does not have is said, over all ranks.
      const missing = await openPage(ctx, origin, `/#r=9&n=${encodeURIComponent(names.join('\n'))}`);
      check((await dropTogether(missing.page, files)) === 'ready', 'the job did not load a fourth time');
      const note = (await missing.page.textContent('.ranks-head .link-note')) || '';
      check(/rank 9, which is not among these ranks \(0, 1, 2, 3\)/.test(note), `a link to rank 9 of 4: ${note}`);
      for (const p of [log, second.log, third.log, missing.log]) noErrors(p);
    },

    async 'eight DLRM ranks dropped at once: rank table, heat map, and the CLI\'s JSON'({ ctx, origin }) {
      needTraces();
      const names = readdirSync(TRACES).filter((f) => /^param__dlrm_kineto__worker\d+_.*\.json$/.test(f)).sort();
      if (names.length !== 8) skip(`expected the 8 DLRM traces param__dlrm_kineto__worker0..7 in ${TRACES}, found ${names.length}`);
      const { page, log } = await openPage(ctx, origin);
      const files = await pageFiles(page, names.map((n) => `/traces/${n}`));
      const dt = await page.evaluateHandle((list) => {
        const d = new DataTransfer();
        for (const f of list) d.items.add(f);
        return d;
      }, files);
      const before = await loads(page);
      const t0 = Date.now();
      await page.dispatchEvent('body', 'dragenter', { dataTransfer: dt });
      await page.dispatchEvent('body', 'drop', { dataTransfer: dt });
      const state = await settled(page, before);
      const secs = (Date.now() - t0) / 1000;
      check(state === 'ready', `the 8 ranks did not load: ${await page.textContent('#error')}`);
      const said = await page.textContent('.ranks-head p');
      const workers = await page.evaluate(() => Math.min(8, navigator.hardwareConcurrency || 2, 4));
      const mb = names.reduce((s, n) => s + statSync(join(TRACES, n)).size, 0) / 1e6;
      console.log(`      8 DLRM ranks (${mb.toFixed(1)} MB) in ${secs.toFixed(2)} s with ${workers} workers; the page says: ${said}`);
      check((await page.locator('#ranks table[aria-label="Per-rank table"] tbody tr').count()) === 8, 'the rank table does not have 8 rows');
      // The job at a glance, on the first screen: step times across ranks and the straggler.
      const glance = (await page.textContent('.ranks-head .glance')) || '';
      check(/Step time \(median per rank\).*\(rank 7\) to .*\(rank 1\)/.test(glance) && /rank 7: collectives 1\.75 ms, others 6\.25 ms/.test(glance), `the job at a glance: ${glance}`);
      const gbox = await page.locator('.ranks-head .glance').boundingBox();
      check(gbox && gbox.y + gbox.height <= 800, `the job at a glance is below the first screen: ${JSON.stringify(gbox)}`);
      // GPU idle differs by rank (critical on some, a warning on others): the rolled-up row gives
      // the range and the split, not rank 0's number as if every rank had it.
      const idle = page.locator('#findings tr[data-finding="gpu.idle"]');
      const idleText = (await idle.textContent()).replace(/\s+/g, ' ');
      const pcts = await page.evaluate(() => window.kinetoscope.report().reports.map((r) => r.findings.find((f) => f.id === 'gpu.idle')).filter(Boolean).map((f) => f.title.match(/[\d.]+%/)[0]));
      const lo = pcts.reduce((a, b) => (parseFloat(b) < parseFloat(a) ? b : a));
      const hi = pcts.reduce((a, b) => (parseFloat(b) > parseFloat(a) ? b : a));
      check(idleText.includes(`${lo.slice(0, -1)}–${hi}`), `the gpu.idle row does not give the range ${lo}–${hi}: ${idleText}`);
      check(/critical on \d+, warning on \d+/.test(idleText), `the gpu.idle row does not split the ranks by severity: ${idleText}`);
      const report = await sameAsCliMulti(page, names.map((n) => join(TRACES, n)));
      check(report.schema === 'kinetoscope.multirank/1', `schema ${report.schema}`);
      const cells = await page.locator('#heatmap .heat-grid .heat-cell').count();
      check(cells === 2 * 8 * report.heatmap.steps.length, `the heat maps have ${cells} cells for 8 ranks x ${report.heatmap.steps.length} steps x 2`);
      const title = await page.getAttribute('#heatmap .heat-cell[data-rank="3"]', 'title');
      check(/rank 3, step \d+: [\d.]+ (ms|µs)/.test(title || ''), `a heat map cell has no value on hover: ${title}`);
      // The second map shows any per-step metric; the per-step means table is there too.
      await page.selectOption('#heat-metric', 'idle_us');
      const second = await page.textContent('#heatmap .heat-second');
      const idleTitle = await page.getAttribute('#heatmap .heat-second .heat-cell[data-rank="3"]', 'title');
      const idle3 = report.heatmap.idle_us[3].find((v) => v !== null);
      check(second.includes('GPU idle') && idle3 > 0 && (idleTitle || '').startsWith('rank 3, step'), `the idle heat map shows: ${second.slice(0, 80)} / ${idleTitle}`);
      check((await page.locator('#ranks table[aria-label="Per-step means"] tbody tr').count()) === 8, 'the per-step means table has not 8 rows');
      check((await page.locator('#collectives table[aria-label="Collectives per rank"] tbody tr').count()) === Math.min(200, report.collectives.rows.length), 'the collectives table is incomplete');
      // By name: the DLRM job's two kernels (all-to-all as SendRecv, all-reduce), with the sizes
      // of their "nccl:*" annotations' input tensors (the 2023 traces have no collective args).
      check((await page.locator('#collectives table[aria-label="Collectives by name"] tbody tr').count()) === report.collectives.by_name.length && report.collectives.by_name.length === 2, 'the collectives-by-name table is incomplete');
      check(report.collectives.by_name.every((g) => g.sized === g.count && g.bytes > 0), `DLRM collectives without sizes: ${JSON.stringify(report.collectives.by_name)}`);
      check((await page.locator('#collectives th[data-key="bytes"]').count()) === 2, 'the collectives tables show no sizes');
      // Per-rank clock offsets under the step alignment (the report's alignment section).
      check(report.alignment.mode === 'step' && report.alignment.ranks.every((r) => r.step_start_us === 0), 'the DLRM ranks are not aligned on their step');
      check(report.collectives.counts_match, 'the DLRM ranks should issue the same number of collectives');
      // Most severe first, with evidence.
      check(await page.isVisible('#findings article.finding'), 'no multi-rank finding is shown');
      await shot(page, 'ranks-dlrm');
      await page.locator('#heatmap').scrollIntoViewIfNeeded();
      await shot(page, 'ranks-dlrm-heatmap');

      // Sorting by collective wait puts the rank that waits most first.
      await page.click('#ranks th[data-key="wait_us"] button');
      const firstRank = Number(await page.textContent('#ranks table[aria-label="Per-rank table"] tbody tr:first-child td:first-child'));
      const most = report.ranks.reduce((a, b) => (b.wait_us > a.wait_us ? b : a));
      check(firstRank === most.rank, `sorted by wait, rank ${firstRank} comes first, not ${most.rank}`);
      // The CSV download holds every rank.
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#ranks [data-export="csv:ranks"]')]);
      check(download.suggestedFilename() === 'ranks.csv', `the CSV is named ${download.suggestedFilename()}`);
      const csv = await new Promise((res, rej) => {
        download.createReadStream().then((s) => {
          let text = '';
          s.on('data', (d) => (text += d));
          s.on('end', () => res(text));
          s.on('error', rej);
        }, rej);
      });
      check(csv.trim().split('\r\n').length === 9, `the CSV has ${csv.trim().split('\r\n').length} lines, not a header and 8 ranks`);

      // Any rank's own report opens, and the way back works; report() stays the multi-rank object.
      await page.selectOption('#rank-picker', '3');
      await page.click('.rank-pick button');
      check((await page.textContent('.ranks-head h2')).startsWith('Rank 3'), 'the rank picker did not open rank 3');
      check(await page.isVisible('#kernels'), 'rank 3\'s own report has no kernel table');
      check((await page.evaluate(() => window.kinetoscope.report().schema)) === 'kinetoscope.multirank/1', 'report() changed while a rank is open');
      await shot(page, 'ranks-dlrm-rank3');
      await page.click('[data-action="all-ranks"]');
      check(await page.isVisible('#heatmap'), 'the way back to all ranks does not show the heat map');
      noErrors(log);
      await page.close();
    },

    // As in a single trace's report (overview.mjs): a text field in a section that
    // content-visibility skips made Chromium lay that section out anyway (the DLRM set: the
    // collectives, 1493 layout objects instead of 1205, bench/page_profile.mjs), so the ranks
    // view's filter boxes wait until their section is rendered too (views/held_fields.js).
    async 'ranks: the collectives\' filter box waits until its section is on screen; its rows are there before'({ ctx, origin }) {
      needTraces();
      const files = readdirSync(TRACES).filter((f) => /^param__dlrm_kineto__worker\d+_.*\.json$/.test(f)).sort().map((f) => join(TRACES, f));
      if (files.length !== 8) skip(`expected the 8 DLRM traces param__dlrm_kineto__worker0..7 in ${TRACES}, found ${files.length}`);
      const { page, log } = await openPage(ctx, origin);
      const before = await loads(page);
      await page.setInputFiles('#file', files);
      check((await settled(page, before)) === 'ready', `the 8 ranks did not load: ${await page.textContent('#error')}`);
      const first = (await page.evaluate(() => window.kinetoscope.report())).collectives.rows[0].name;
      const seen = await page.evaluate(() => {
        const sec = document.getElementById('collectives');
        return {
          below: sec.getBoundingClientRect().top > 2 * innerHeight,
          skipped: getComputedStyle(sec).contentVisibility,
          findings: getComputedStyle(document.getElementById('findings')).contentVisibility,
          fields: sec.querySelectorAll('input').length,
          text: sec.querySelector('tbody').textContent,
        };
      });
      check(seen.below, '#collectives is not below the fold: this test needs it off screen');
      check(seen.skipped === 'auto' && seen.findings === 'visible', `content-visibility: collectives ${seen.skipped}, findings ${seen.findings}`);
      check(seen.fields === 0, `#collectives holds ${seen.fields} text fields while off screen`);
      check(seen.text.includes(first), `#collectives's rows are not in the page while off screen (no ${first})`);
      await page.locator('#collectives h2').scrollIntoViewIfNeeded();
      await page.waitForSelector('#collectives input.filter', { state: 'attached', timeout: 30_000 });
      await page.fill('#collectives input.filter', first);
      const names = await page.locator('#collectives .table-block:has(input.filter) tbody tr').allTextContents();
      check(names.length > 0 && names.every((n) => n.includes(first)), `the filter shows ${names.length} rows: ${names.slice(0, 3)}`);
      noErrors(log);
      await page.close();
    },

    async 'a straggler folder dropped as a directory names rank 5'({ ctx, origin }) {
      const dir = join(ROOT, PATHOLOGIES, 'straggler_compute');
      if (!existsSync(dir)) skip(`${dir} is absent`);
      const names = readdirSync(dir).filter((f) => /\.json(\.gz)?$/.test(f)).sort();
      const { page, log } = await openPage(ctx, origin);
      const files = await pageFiles(page, names.map((n) => `/${PATHOLOGIES}/straggler_compute/${n}`));
      const before = await loads(page);
      // A dropped folder: the page walks its DirectoryEntry (webkitGetAsEntry). Chromium gives
      // entries only for files dragged from the desktop, so the entry is a stand-in with the same
      // interface; it lists the files out of order, with a non-trace file and a sub-folder among them.
      await page.evaluate((list) => {
        const fileEntry = (file) => ({ isFile: true, isDirectory: false, name: file.name, file: (ok) => ok(file) });
        const dirEntry = (name, entries) => ({
          isFile: false,
          isDirectory: true,
          name,
          createReader() {
            let left = [...entries];
            return { readEntries: (ok) => ok(left.splice(0, 3)) }; // in batches, as browsers do
          },
        });
        const entries = [...list].reverse().map(fileEntry);
        entries.splice(2, 0, fileEntry(new File(['not a trace'], 'README.txt')));
        entries.push(dirEntry('old', [fileEntry(new File(['{}'], 'rank-9.json'))]));
        const folder = dirEntry('straggler_compute', entries);
        const dataTransfer = { types: ['Files'], files: [], items: [{ kind: 'file', webkitGetAsEntry: () => folder, getAsFile: () => null }] };
        const drop = new Event('drop', { bubbles: true, cancelable: true });
        Object.defineProperty(drop, 'dataTransfer', { value: dataTransfer });
        document.body.dispatchEvent(drop);
      }, files);
      check((await settled(page, before)) === 'ready', `the dropped folder did not load: ${await page.textContent('#error')}`);
      const report = await sameAsCliMulti(page, [dir]);
      check(report.ranks.length === 8, `${report.ranks.length} ranks from the folder, not 8 (the README and the sub-folder must be left out)`);
      const f = straggler(report);
      check(f && f.evidence.rank === 5, `the straggler finding does not name rank 5: ${JSON.stringify(f && f.evidence)}`);
      check((await page.textContent('#findings')).includes('Rank 5 is the straggler'), 'the page does not say that rank 5 is the straggler');
      await shot(page, 'ranks-straggler-compute');
      await page.locator('#heatmap').scrollIntoViewIfNeeded();
      await shot(page, 'ranks-straggler-heatmap');
      // Stacked timelines of the straggler and the rank that waits most, aligned on a step.
      check(await page.isChecked('#stacked input[value="5"]'), 'the straggler (rank 5) is not among the ranks picked for the stacked timelines');
      await page.selectOption('#stacked-step', String(report.heatmap.steps[2]));
      await page.click('#stacked button:has-text("Show timelines")');
      await page.waitForFunction(() => /line up/.test(document.querySelector('#stacked [aria-live]').textContent), null, { timeout: 60_000 });
      const canvases = await page.locator('#stacked canvas').count();
      check(canvases === 2, `${canvases} stacked timelines, not 2`);
      await page.locator('#stacked').scrollIntoViewIfNeeded();
      await page.waitForTimeout(300);
      await shot(page, 'ranks-stacked-timelines');
      noErrors(log);
      await page.close();
    },

    async 'the folder input reads a rank folder; the clean set has no straggler'({ ctx, origin }) {
      const dirs = ['straggler_dataloader', 'straggler_clean'].map((d) => join(ROOT, PATHOLOGIES, d));
      if (!dirs.every(existsSync)) skip(`the straggler sets in ${PATHOLOGIES} are absent`);
      const { page, log } = await openPage(ctx, origin);
      for (const dir of dirs) {
        const before = await loads(page);
        await page.setInputFiles('#folder', dir);
        check((await settled(page, before)) === 'ready', `${dir} did not load: ${await page.textContent('#error')}`);
        const report = await sameAsCliMulti(page, [dir]);
        const f = straggler(report);
        if (dir.endsWith('clean')) check(!f, `the clean set has a straggler finding: ${f && f.title}`);
        else check(f && f.evidence.rank === 5 && report.findings.some((x) => x.id === 'ranks.dataloader_skew'), 'the data-loader straggler is not rank 5 with data-loader skew');
      }
      await shot(page, 'ranks-clean');
      noErrors(log);
      await page.close();
    },

    async 'the idle-gap straggler: rank 5 named, message sizes shown, stacked timelines on HTA\'s global-min clock'({ ctx, origin }) {
      const dir = join(ROOT, PATHOLOGIES, 'straggler_idle_gaps');
      if (!existsSync(dir)) skip(`${dir} is absent`);
      const { page, log } = await openPage(ctx, origin);
      const before = await loads(page);
      await page.setInputFiles('#folder', dir);
      check((await settled(page, before)) === 'ready', `${dir} did not load: ${await page.textContent('#error')}`);
      const report = await sameAsCliMulti(page, [dir]);
      const gaps = report.findings.find((f) => f.id === 'ranks.idle_gap_straggler');
      check(gaps && gaps.evidence.rank === 5, `the idle-gap finding does not name rank 5: ${JSON.stringify(gaps && gaps.evidence)}`);
      check((await page.textContent('#findings')).includes('Rank 5 has extra GPU idle gaps'), 'the page does not show the idle-gap finding');
      // The generator writes the collective args: sizes and bus bandwidth in both tables.
      const row = report.collectives.rows[0];
      check(row.collective === 'allreduce' && row.bytes > 0 && row.busbw_gbps > 0, `no message size on the first collective: ${JSON.stringify(row)}`);
      check((await page.locator('#collectives th[data-key="busbw_gbps"]').count()) === 2, 'the collectives tables have no bus-bandwidth column');
      check(report.alignment.mode === 'step' && report.alignment.ranks.length === 8, `alignment: ${JSON.stringify(report.alignment).slice(0, 200)}`);
      await page.locator('#collectives').scrollIntoViewIfNeeded();
      await shot(page, 'ranks-collectives-sizes');
      // Stacked timelines on one clock (HTA's global-min alignment).
      await page.selectOption('#stacked-step', String(report.heatmap.steps[1]));
      await page.selectOption('#stacked-align', 'global-min');
      await page.click('#stacked button:has-text("Show timelines")');
      await page.waitForFunction(() => /global-minimum/.test(document.querySelector('#stacked [aria-live]').textContent), null, { timeout: 60_000 });
      const canvases = await page.locator('#stacked canvas').count();
      check(canvases === 2, `${canvases} stacked timelines, not 2`);
      const heads = await page.locator('#stacked h3').allTextContents();
      check(heads.some((x) => /starts .* after the earliest/.test(x)), `the stacked headings do not give the ranks' offsets: ${heads.join(' | ')}`);
      await page.locator('#stacked').scrollIntoViewIfNeeded();
      await page.waitForTimeout(300);
      await shot(page, 'ranks-stacked-global-min');
      noErrors(log);
      await page.close();
    },

    async 'several files picked at once; ranks by load order; a file that fails leaves the others'({ ctx, origin, tmp }) {
      // Two ranks with no distributedInfo and no rank in their names: numbered by load order
      // among the files that could be read, as the CLI numbers them.
      const rank = (commUs) =>
        JSON.stringify({
          traceEvents: [
            { ph: 'X', cat: 'user_annotation', name: 'ProfilerStep#7', pid: 1, tid: 1, ts: 0, dur: 1000 },
            { ph: 'X', cat: 'kernel', name: 'ncclDevKernel_AllReduce_Sum_f32', pid: 0, tid: 20, ts: 100, dur: commUs, args: { stream: 20 } },
            { ph: 'X', cat: 'kernel', name: 'sm90_gemm', pid: 0, tid: 7, ts: 10, dur: 80, args: { stream: 7 } },
          ],
        });
      const files = [join(tmp, 'alpha.json'), join(tmp, 'broken.json'), join(tmp, 'beta.json')];
      writeFileSync(files[0], rank(300));
      writeFileSync(files[1], 'hello');
      writeFileSync(files[2], rank(120));
      const { page, log } = await openPage(ctx, origin);
      const before = await loads(page);
      await page.setInputFiles('#file', files);
      check((await settled(page, before)) === 'ready', `the files did not load: ${await page.textContent('#error')}`);
      const report = await sameAsCliMulti(page, files);
      check(report.ranks.map((r) => `${r.rank}:${r.rank_source}:${r.file}`).join() === '0:load order:alpha.json,1:load order:beta.json', `ranks ${JSON.stringify(report.ranks.map((r) => [r.rank, r.rank_source, r.file]))}`);
      const err = await page.textContent('#error');
      check(/broken\.json/.test(err) && /JSON/.test(err), `the failed file is not named in the error: ${err}`);
      // window.kinetoscope.open takes an array as well.
      const viaApi = await page.evaluate(async () => {
        const get = async (n) => new File([await (await fetch(`/examples/pathologies/gpu/straggler_clean/${n}`)).blob()], n);
        const r = await window.kinetoscope.open([await get('rank-1.json.gz'), await get('rank-0.json.gz')]);
        return r.ranks.map((x) => x.rank).join();
      });
      check(viaApi === '0,1', `open([...]) gave ranks ${viaApi}`);
      // Cancel stops every worker of the pool, and the promise rejects.
      const cancelled = await page.evaluate(async () => {
        const get = async (n) => new File([await (await fetch(`/examples/pathologies/gpu/straggler_clean/${n}`)).blob()], n);
        const p = window.kinetoscope.open([await get('rank-0.json.gz'), await get('rank-1.json.gz'), await get('rank-2.json.gz')]);
        document.getElementById('cancel').click();
        return p.then(() => 'resolved', (e) => e.code);
      });
      check(cancelled === 'cancelled', `open([...]) after Cancel settled as ${cancelled}`);
      check(await page.isHidden('#status'), 'the progress bar stayed up after Cancel');
      await page.waitForFunction(() => document.body.dataset.state === 'cancelled');
      await waitForWorkers(page, 0, 'after Cancel');
      check((await page.locator('#ranks table[aria-label="Per-rank table"] tbody tr').count()) === 2, 'the report on screen changed after Cancel');
      noErrors(log);
      await page.close();
    },

    async 'two nodes\' ranks merged in one JSON file on GPU pid 0 open as two ranks, as the CLI splits the file; a rank\'s timeline is that rank alone'({ ctx, origin, tmp }) {
      needTraces();
      const file = join(tmp, 'merged_nodes.pt.trace.json');
      const w = spawnSync('/usr/bin/python3', [join(ROOT, 'tests/corpus/merged_ranks.py'), '--write', file, '--straggler'], { encoding: 'utf8' });
      check(w.status === 0 && existsSync(file), `merged_ranks.py --write failed: ${w.stderr}`);
      const { page, log } = await openPage(ctx, origin);
      const before = await loads(page);
      await page.setInputFiles('#file', [file]);
      check((await settled(page, before)) === 'ready', `the merged file did not load: ${await page.textContent('#error')}`);
      const report = await sameAsCliMulti(page, [file]);
      const ranks = report.ranks.map((r) => `${r.rank}:${r.file}`).join();
      check(ranks === '0:merged_nodes.pt.trace.json pid 59811,1:merged_nodes.pt.trace.json pid 159811', `the ranks: ${ranks}`);
      check((await page.textContent('[data-export-ranks="2"]')).includes('One trace file holding 2 ranks'), `the line on where the ranks came from: ${await page.textContent('[data-export-ranks="2"]')}`);
      // Rank 1's own timeline reads the file again and keeps that rank alone: the CLI's report of it.
      await page.locator('#ranks table button.link-button').nth(1).click();
      await page.waitForFunction((x) => document.body.dataset.view === `rank-${x}`, report.ranks[1].rank);
      const opened = await loads(page);
      await page.click('[data-action="rank-timeline"]');
      check((await settled(page, opened)) === 'ready', `rank 1 did not open alone: ${await page.textContent('#error')}`);
      const diff = diffJson(report.reports[1], await page.evaluate(() => window.kinetoscope.report()));
      check(diff.length === 0, `rank 1 alone differs from the CLI's report of that rank:\n  ${diff.slice(0, 10).join('\n  ')}`);
      noErrors(log);
      await page.close();
    },

    async 'four gloo ranks on an H200 (real): the straggler from gloo\'s CPU ranges, as the CLI says'({ ctx, origin }) {
      const dir = 'examples/pathologies/h200/ddp4_gloo_slow2';
      const names = [0, 1, 2, 3].map((r) => `trace_rank${r}.pt.trace.json.gz`);
      const { page, log } = await openPage(ctx, origin);
      const before = await loads(page);
      await page.setInputFiles('#file', names.map((n) => join(ROOT, dir, n)));
      check((await settled(page, before)) === 'ready', `the ranks did not load: ${await page.textContent('#error')}`);
      const report = await sameAsCliMulti(page, names.map((n) => join(ROOT, dir, n)));
      const f = straggler(report);
      check(f && /^Rank 2 is the straggler/.test(f.title), `straggler: ${f && f.title}`);
      const glance = (await page.textContent('.ranks-head .glance')) || '';
      check(/rank 2/.test(glance), `the job at a glance does not name rank 2: ${glance}`);
      // and why: rank 2 alone burns 20 ms a step in record_function("slow_rank_extra_work")
      check(/likely host range slow_rank_extra_work/.test(glance), `the job at a glance does not say why rank 2 is slow: ${glance}`);
      await shot(page, 'ranks-h200-gloo');
      noErrors(log);
      await page.close();
    },
  };
}
