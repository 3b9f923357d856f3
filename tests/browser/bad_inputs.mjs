// Hardening tests of the page (docs/hardening.md), run by run.mjs:
//  - every file of the bad-input catalogue (tests/bad_inputs/catalogue.json) gives in the page the
//    message the CLI gives (same code, byte offset and text), and a good file loads after each;
//  - hostile names (HTML, script, bidi overrides, control characters, 100 KB) are inert text in
//    every panel, table, tooltip, the timeline and the exports;
//  - a large multi-member gzip with bytes after its end (read by the helper that decompresses)
//    gives the CLI's report and its gzip_trailing_data diagnostic;
//  - a cancelled or replaced load leaves no worker running (the loader worker is terminated);
//  - a file beyond what 4 GB of WebAssembly memory can hold is refused before it is read.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT, TRACES, check, cliReport, openPage, loads, settled, loadFile, noErrors, shot, waitForWorkers } from './lib.mjs';

const CATALOGUE = join(ROOT, 'tests/bad_inputs');
const BIG_DIR = join(ROOT, process.env.KINETOSCOPE_BAD_INPUTS_DIR || 'build/bad_inputs');
// The 10-million-event file is checked with the CLI only (tests/bad_inputs/check.py).
const BROWSER_BIG = new Set(['deep_nesting_100k.json', 'string_10mb.json', 'event_over_cap.json']);

function goodTrace(tmp) {
  const file = join(tmp, 'good.pt.trace.json');
  if (!existsSync(file)) {
    const ev = (name, ts, dur) => ({ ph: 'X', cat: 'kernel', name, pid: 0, tid: 7, ts, dur, args: { stream: 7, device: 0 } });
    writeFileSync(file, JSON.stringify({ traceEvents: [ev('good_kernel', 1, 5), ev('good_kernel', 10, 5)] }));
  }
  return file;
}

const fmtInt = (n) => Number(n).toLocaleString('en-US');

// Every element and attribute on the page, so a test can tell that nothing was injected.
async function domCensus(page) {
  return page.evaluate(() => {
    const tags = {};
    for (const el of document.querySelectorAll('*')) tags[el.tagName] = (tags[el.tagName] || 0) + 1;
    const handlers = [...document.querySelectorAll('*')].filter((el) => [...el.attributes].some((a) => /^on/i.test(a.name))).length;
    return { tags, handlers };
  });
}

// Holds every part-helper message the page sends (the helper's half of a large plain file, with its
// port to the loader) until window.__releaseHelperMessages(): the loader then waits for that part,
// so a load stays running until it is cancelled or replaced. (Playwright's routes do not see a
// worker's own requests, so holding its WebAssembly does not work: tests/browser/security.mjs.)
function holdHelperMessages(page) {
  return page.evaluate(() => {
    const post = Worker.prototype.postMessage;
    const held = [];
    window.__heldHelperMessages = 0;
    Worker.prototype.postMessage = function (msg, ...rest) {
      if (msg && msg.type === 'part') {
        window.__heldHelperMessages++;
        held.push(() => post.call(this, msg, ...rest));
        return;
      }
      return post.call(this, msg, ...rest);
    };
    window.__releaseHelperMessages = () => {
      Worker.prototype.postMessage = post;
      for (const send of held.splice(0)) send();
    };
  });
}

export function badInputTests() {
  return {
    async 'bad-input catalogue: the page gives the CLI message for each file, and the next file loads'({ ctx, origin, tmp }) {
      const rows = JSON.parse(readFileSync(join(CATALOGUE, 'catalogue.json'), 'utf8'));
      spawnSync('python3', [join(CATALOGUE, 'generate.py'), '--big', BIG_DIR, ...BROWSER_BIG], { stdio: 'inherit' });
      const { page, log } = await openPage(ctx, origin);
      const good = goodTrace(tmp);
      const problems = [];
      let n = 0;
      for (const e of rows) {
        const where = e.source || 'small';
        if (where === 'big' && !BROWSER_BIG.has(e.file)) continue;
        const file = where === 'small' ? join(CATALOGUE, e.file) : where === 'shared' ? join(TRACES, e.file) : join(BIG_DIR, e.file);
        if (!existsSync(file)) continue;
        n++;
        const state = await loadFile(page, file);
        if (e.exit) {
          const text = (await page.textContent('#error')) || '';
          // "code at byte N: message", or "code: message" for a file known by its name (no offset).
          const m = /^(\w+)(?: at byte (\d+))?: (.*)$/.exec(e.error);
          const [, code, offset, message] = m;
          if (state !== 'error') problems.push(`${e.file}: page ${state}, CLI refuses it`);
          else if (!text.includes(code)) problems.push(`${e.file}: no code ${code} in "${text}"`);
          else if (e.file.endsWith('.gz')) {
            // The page decodes gzip with the browser's DecompressionStream, the CLI with zlib: the same
            // code always; the same offset (JSON bytes decoded before the damage) where both can tell.
            if (e.file.includes('truncated') && !text.includes(`at byte offset ${fmtInt(offset)}`)) problems.push(`${e.file}: "${text}" lacks offset ${offset}`);
          } else {
            if (!text.includes(message)) problems.push(`${e.file}: the page says "${text}", the CLI "${message}"`);
            // Byte 0 is the file as a whole: the page says "at the start of the file".
            const where = offset === '0' ? 'at the start of the file' : `at byte offset ${fmtInt(offset)}`;
            if (offset !== undefined && !text.includes(where)) problems.push(`${e.file}: "${text}" lacks offset ${offset}`);
            if (text.includes(`${code}null`)) problems.push(`${e.file}: the error box says "null" after its code: ${text}`);
          }
        } else {
          if (state !== 'ready') {
            problems.push(`${e.file}: page ${state} (${await page.textContent('#error')}), CLI reads it`);
          } else {
            const report = await page.evaluate(() => window.kinetoscope.report());
            const got = report.diagnostics.map((d) => [d.code, d.count, d.first_offset]);
            if (JSON.stringify(got) !== JSON.stringify(e.diagnostics)) problems.push(`${e.file}: diagnostics ${JSON.stringify(got)}, CLI ${JSON.stringify(e.diagnostics)}`);
            if (report.trace.slices !== e.slices) problems.push(`${e.file}: ${report.trace.slices} slices, CLI ${e.slices}`);
            // Steps left out (nested or overlapping markers) are said in the Steps section too.
            if (e.steps && e.steps.overlapping_left_out) {
              const steps = (await page.textContent('#steps')) || '';
              if (!steps.includes(`${e.steps.overlapping_left_out} step markers nested in or overlapping an earlier step are left out`)) problems.push(`${e.file}: the Steps section does not say which markers were left out: "${steps.slice(0, 200)}"`);
            }
            // The diagnostics table shows each code and its offset.
            // An export's row is its table and row ("NVTX_EVENTS row 2"; its first_offset is a
            // code the JSON above compares), a whole-file note nothing (views/diagnostics.js).
            const table = (await page.textContent('#diagnostics')) || '';
            for (const d of report.diagnostics) {
              const where = d.first_table ? `${d.first_table} row ${fmtInt(d.first_row)}` : report.trace.format === 'nsys_sqlite' ? '' : fmtInt(d.first_offset);
              if (!table.includes(d.code) || !table.includes(where)) problems.push(`${e.file}: the diagnostics panel lacks ${d.code} at ${where || 'the file'}`);
            }
            if (e.diagnostic_note && !table.includes(e.diagnostic_note)) problems.push(`${e.file}: the diagnostics panel lacks "${e.diagnostic_note}"`);
          }
        }
        if (e.exit || e.file === 'string_10mb.json') {
          // The page stays usable: a good file loads after the bad one, and its error is gone.
          const after = await loadFile(page, good);
          if (after !== 'ready' || !(await page.isHidden('#error'))) problems.push(`${e.file}: the good file after it did not load cleanly`);
        }
      }
      console.log(`      ${n} catalogue files`);
      check(n >= 22, `only ${n} catalogue files were found`);
      check(!problems.length, problems.join('\n  '));
      await shot(page, 'bad-inputs-last');
      noErrors(log);
      await page.close();
    },

    async 'hostile names stay inert text in every panel, tooltip, the timeline and the exports'({ ctx, origin, tmp }) {
      const rlo = '\u202e';
      const evil = `<img src=x onerror="window.__xss=1"><script>window.__xss=2</script> gemm_${rlo}txt.exe\u001b[2J`;
      const long = 'L'.repeat(100_000);
      const ev = (name, cat, ts, dur, args, tid = 7, pid = 0) => ({ ph: 'X', cat, name, pid, tid, ts, dur, args });
      const trace = {
        traceEvents: [
          { ph: 'M', name: 'process_name', pid: 0, tid: 0, args: { name: `<b>gpu</b>${rlo}0` } },
          { ph: 'M', name: 'thread_name', pid: 1, tid: 1, args: { name: `<svg onload="window.__xss=3">${rlo}` } },
          ev('ProfilerStep#1', 'user_annotation', 0, 2000, {}, 1, 1),
          ev(`cudaLaunchKernel ${evil}`, 'cuda_runtime', 5, 5, { correlation: 1 }, 1, 1),
          ev(evil, 'kernel', 10, 500, { stream: 7, device: 0, correlation: 1 }),
          ev(long, 'kernel', 600, 100, { stream: 7, device: 0, correlation: 2 }),
          ev(`Memcpy HtoD ${evil}`, 'gpu_memcpy', 800, 10, { stream: 7, device: 0, bytes: 4096 }),
          ev(`cudaDeviceSynchronize ${rlo}`, 'cuda_runtime', 900, 400, {}, 1, 1),
          { ph: 'i', s: 't', name: evil, cat: `${evil}`, pid: 1, tid: 1, ts: 950 },
          { ph: 'C', name: evil, pid: 1, ts: 960, args: { [evil]: 1 } },
        ],
      };
      const file = join(tmp, 'hostile.pt.trace.json');
      writeFileSync(file, JSON.stringify(trace));
      const { page, log } = await openPage(ctx, origin);
      const before = await domCensus(page);
      check((await loadFile(page, file)) === 'ready', `the hostile trace did not load: ${await page.textContent('#error')}`);
      // Every view: the report's sections, then the timeline tab when this build has one.
      const tabs = await page.locator('#tabs button[data-tab="timeline"]').count();
      if (tabs && (await page.isVisible('#tabs'))) {
        await page.click('#tabs button[data-tab="timeline"]');
        await page.waitForTimeout(1500);
        await shot(page, 'hostile-timeline');
        await page.click('#tabs button[data-tab="report"]');
      }
      // Hover every element with a title (the tooltips) and open every clamp (long names).
      await page.evaluate(() => document.querySelectorAll('.clamp').forEach((el) => el.click()));
      await page.waitForTimeout(500);
      check((await page.evaluate(() => window.__xss)) === undefined, 'markup from the trace ran (window.__xss is set)');
      const after = await domCensus(page);
      for (const tag of ['SCRIPT', 'IMG', 'SVG', 'IFRAME', 'OBJECT', 'EMBED', 'B']) {
        check((after.tags[tag] || 0) === (before.tags[tag] || 0), `a <${tag.toLowerCase()}> from the trace reached the DOM (${before.tags[tag] || 0} -> ${after.tags[tag]})`);
      }
      check(after.handlers === before.handlers, `elements with on* attributes appeared: ${before.handlers} -> ${after.handlers}`);
      // The names are shown, as text, with the bidi override neutralised (views/dom.js).
      const body = await page.evaluate(() => document.body.innerText);
      check(body.includes('<img src=x onerror="window.__xss=1"><script>'), 'the HTML name is not shown literally');
      const titles = await page.evaluate(() => [...document.querySelectorAll('[title]')].map((el) => el.getAttribute('title')).join('\n'));
      check(!body.includes(rlo) && !titles.includes(rlo), 'a raw U+202E reached the page text or a tooltip');
      check(body.includes('gemm_\ufffdtxt.exe'), 'the bidi override is not shown as a visible mark');
      // The exports are the CLI's: Markdown escapes HTML and neutralises bidi and control characters;
      // JSON and CSV keep the names exactly (they are data).
      const ex = await page.evaluate(() => (window.kinetoscope.exports ? window.kinetoscope.exports() : null));
      if (ex) {
        // Inside a code span Markdown shows text literally (no HTML): only text outside code
        // spans could come alive, so that is what must hold no tag.
        const outsideCode = ex.markdown.replace(/`[^`\n]*`/g, '');
        check(!/(?<!\\)<(img|script|svg|b)\b/.test(outsideCode) && !ex.markdown.includes(rlo) && !ex.markdown.includes('\u001b'), 'the Markdown export carries live HTML, a bidi override or an escape');
        check(JSON.parse(ex.json).kernels !== undefined, 'the JSON export is not the report');
      }
      await shot(page, 'hostile-report', true);
      noErrors(log);
      await page.close();
    },

    async 'a capture of 200 000 steps opens with bounded tables: the first 1000 steps listed, the statistics over all'({ ctx, origin, tmp }) {
      // A capture far too long (a micro-benchmark with prof.step() every iteration): the report
      // was 121 MB of JSON before the step tables were capped (report_table.h).
      const file = join(tmp, 'many_steps.json');
      const ev = [];
      for (let i = 0; i < 200000; i++) ev.push({ ph: 'X', name: `ProfilerStep#${i}`, ts: i * 10, dur: 9, pid: 1, tid: 1 });
      writeFileSync(file, JSON.stringify({ traceEvents: ev }));
      const { page, log } = await openPage(ctx, origin);
      check((await loadFile(page, file)) === 'ready', 'the 200 000-step trace did not load');
      const report = await page.evaluate(() => window.kinetoscope.report());
      check(report.steps.count === 200000, `steps.count ${report.steps.count}, not 200000`);
      check(report.steps.rows.length === 1000 && report.steps.omitted_rows === 199000, `steps rows ${report.steps.rows.length}, omitted ${report.steps.omitted_rows}`);
      const text = await page.textContent('#steps');
      check(text.includes('The report lists the first 1,000 of 200,000 steps'), 'the steps panel does not say that only the first steps are listed');
      check((await page.locator('#steps tbody tr').count()) <= 1000, 'more than 1000 step rows in the DOM');
      noErrors(log);
      await page.close();
    },

    async 'a kernel 35 days after the rest is left out and said on the first screen, in a split read too'({ ctx, origin, tmp }) {
      // A corrupt CUPTI time made a 35-day trace: "GPU idle 100%" about nothing (model/stray_times.h).
      // 36 MB, so the page reads its second half in a helper (split.js) and merges the parts.
      const file = join(tmp, 'stray_kernel.json');
      const ev = [];
      for (let i = 0; i < 180000; i++) {
        ev.push({ ph: 'X', cat: 'cpu_op', name: 'aten::mm', ts: 1000 + i * 10, dur: 5, pid: 1, tid: 1 });
        ev.push({ ph: 'X', cat: 'kernel', name: 'gemm', ts: 1003 + i * 10, dur: 4, pid: 0, tid: 7, args: { stream: 7, device: 0 } });
      }
      ev.push({ ph: 'X', cat: 'kernel', name: 'gemm', ts: 35 * 86400e6, dur: 4, pid: 0, tid: 7, args: { stream: 7, device: 0 } });
      writeFileSync(file, JSON.stringify({ traceEvents: ev }));
      const { page, log } = await openPage(ctx, origin, '/?split=on');
      check((await loadFile(page, file)) === 'ready', 'the trace did not load');
      const report = await page.evaluate(() => window.kinetoscope.report());
      check(report.trace.span_us < 2e6, `the trace spans ${report.trace.span_us} us`);
      const d = report.diagnostics.find((x) => x.code === 'stray_time');
      check(d && d.count === 1 && d.message.includes('35 days after them'), `the diagnostic: ${JSON.stringify(d)}`);
      check(report.kernels.count === 180000, `${report.kernels.count} kernels, not 180000`);
      const problems = await page.textContent('.report-head .read-problems');
      check(problems.includes('stray_time'), `the read problems: ${problems}`);
      noErrors(log);
      await page.close();
    },

    async 'a large gzip in three members with text after it reads as in the CLI (the unzip helper)'({ ctx, origin, tmp }) {
      // 3 members of about 1.3 MB each (a file of 2 MB or more is decompressed by a helper worker:
      // web/worker/unzip.js), then a log line: Chromium and Firefox refused both (the first byte
      // after a member's end), while the CLI read every member and ignored the line without a word.
      const events = (from, to) => Array.from({ length: to - from }, (_, k) => {
        const i = from + k;
        return JSON.stringify({ ph: 'X', cat: 'kernel', name: `k${(i * 7919) % 1009}`, ts: i * 10, dur: 4 + ((i * 31) % 5), pid: 0, tid: 7, args: { stream: 7, device: 0, correlation: (i * 2654435761) % 2 ** 32 } });
      }).join(',');
      const parts = ['{"traceEvents":[' + events(0, 60000) + ',', events(60000, 120000) + ',', events(120000, 180000) + ']}'];
      const members = parts.map((p) => gzipSync(Buffer.from(p)));
      const junk = Buffer.from('[rank0] training finished in 3600 s\n');
      const file = join(tmp, 'three_members.json.gz');
      writeFileSync(file, Buffer.concat([...members, junk]));
      const gzBytes = members.reduce((n, m) => n + m.length, 0);
      check(gzBytes >= 2 * 2 ** 20, `only ${gzBytes} bytes of gzip: the helper is not used`);
      const cli = cliReport(file);
      const note = `The gzip data ends at byte ${gzBytes} of the compressed file; the ${junk.length} bytes after it were ignored.`;
      const cliDiag = cli.diagnostics.find((d) => d.code === 'gzip_trailing_data');
      check(cli.trace.slices === 180000 && cliDiag && cliDiag.message.endsWith(note), `the CLI: ${cli.trace.slices} slices, ${JSON.stringify(cli.diagnostics)}`);
      const { page, log } = await openPage(ctx, origin);
      check((await loadFile(page, file)) === 'ready', `the page refused it: ${await page.textContent('#error')}`);
      const report = await page.evaluate(() => window.kinetoscope.report());
      check(report.trace.slices === 180000, `${report.trace.slices} slices in the page, 180000 in the CLI`);
      check(JSON.stringify(report.diagnostics) === JSON.stringify(cli.diagnostics), `the page's diagnostics ${JSON.stringify(report.diagnostics)}, the CLI's ${JSON.stringify(cli.diagnostics)}`);
      noErrors(log);
      await page.close();
    },

    async 'a cancelled or replaced load leaves no worker running'({ ctx, origin, tmp }) {
      const { page, log } = await openPage(ctx, origin, '/?split=on'); // large files get a helper
      const good = goodTrace(tmp);
      check((await loadFile(page, good)) === 'ready', 'the first trace did not load');
      const waitWorkers = (n, what) => waitForWorkers(page, n, what);
      await waitWorkers(1, 'after the first load');
      // A load that cannot end by itself: 40 MB of small events (a plain file of 32 MB or more is
      // split, and a helper reads its second part: web/worker/split.js) whose helper never gets
      // its part (the page's message to it is held), so the loader, done with the first part,
      // waits for the second until the load is cancelled or replaced, however fast the machine.
      // (Before: 400 MB of whitespace, which has no events to split at, so the loader read it
      // alone and, on a busy machine, sometimes finished before the cancel.)
      await holdHelperMessages(page);
      const startSlow = (name) => page.evaluate((n) => {
        const event = '{"ph":"X","name":"k","ts":1,"dur":1,"pid":1,"tid":1},';
        const mb = new TextEncoder().encode(event.repeat(Math.floor((1 << 20) / event.length)));
        const parts = [new TextEncoder().encode('{"traceEvents":[')];
        for (let i = 0; i < 40; i++) parts.push(mb);
        parts.push(new TextEncoder().encode(event.slice(0, -1) + ']}'));
        window.__slow = window.kinetoscope.open(new Blob(parts), n).then(() => 'ready', (e) => e.code);
      }, name);
      for (const how of ['cancel button', 'new file']) {
        await startSlow(`slow-${how}.json`);
        await page.waitForFunction(() => document.body.dataset.state === 'loading');
        // The trace on screen's, the loader's, and (a plain file of 32 MB or more) the helper that
        // reads the second half (web/worker/split.js).
        await waitWorkers(3, `while loading (${how})`);
        if (how === 'cancel button') {
          await page.click('#cancel');
          check((await page.evaluate(() => window.__slow)) === 'cancelled', 'the cancelled load did not reject with code cancelled');
          await waitWorkers(1, 'after cancel');
          check((await page.textContent('.report-head h2')) === 'good.pt.trace.json', 'the report on screen changed after a cancel');
        } else {
          check((await loadFile(page, good)) === 'ready', 'the file that replaced the slow one did not load');
          check((await page.evaluate(() => window.__slow)) === 'cancelled', 'the replaced load did not reject with code cancelled');
          await waitWorkers(1, 'after a new file replaced the load');
        }
      }
      check((await page.evaluate(() => window.__heldHelperMessages)) === 2, 'the helpers of the two slow loads were not held');
      await page.evaluate(() => window.__releaseHelperMessages());
      // A failed load ends its worker too, and the report on screen keeps its own.
      const before = await loads(page);
      await page.evaluate(() => window.kinetoscope.open(new TextEncoder().encode('hello').buffer, 'bad.json').catch(() => {}));
      check((await settled(page, before)) === 'error', 'hello was accepted');
      await waitWorkers(1, 'after a failed load');
      noErrors(log);
      await page.close();
    },

    async 'a file beyond 4 GB of WebAssembly memory is stopped early, pointing to the CLI'({ ctx, origin, tmp }) {
      // 24 MB of 33-byte events, gzip, whose trailer says it holds 4.29 GB (ISIZE 0xffffff00): about
      // 130 million events, far more than 4 GB of memory holds. The page stops after 16 MB of JSON.
      const n = 24 * 2 ** 20 / 33;
      const json = '{"traceEvents":[' + '{"ph":"i","ts":1,"pid":1,"tid":1},'.repeat(n) + '{"ph":"i","ts":1,"pid":1,"tid":1}]}';
      const gz = gzipSync(Buffer.from(json), { level: 1 });
      gz.writeUInt32LE(0xffffff00, gz.length - 4);
      const file = join(tmp, 'huge.json.gz');
      writeFileSync(file, gz);
      const { page, log } = await openPage(ctx, origin);
      check((await loadFile(page, file)) === 'error', 'the 4 GB gzip was accepted');
      const text = await page.textContent('#error');
      check(/too_large/.test(text) && /kinetoscope report huge\.json\.gz/.test(text) && /4 GB/.test(text) && /million events/.test(text), `not a clear too_large message: ${text}`);
      check((await loadFile(page, goodTrace(tmp))) === 'ready', 'the page did not load a good file after the refusal');
      await shot(page, 'too-large');
      noErrors(log);
      await page.close();
    },
  };
}
