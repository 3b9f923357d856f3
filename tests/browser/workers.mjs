// Several workers on one file (web/worker/split.js): the page given ?workers=N reads a plain file
// with N workers (the loader and N-1 helpers, each reading a part), and the report must be the
// one worker's, byte for byte (the JSON the worker wrote, as the export bar saves it). Also prints
// how long each N took, in the same run (on the project's 2-core machine N > 2 cannot be faster:
// the curve here shows the cost of more workers than cores, not the scaling of a larger machine).
import { writeFileSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { TRACES, check, cliReport, needTraces, openPage, openWarmPage, loadFile, loads, settled, sameAsCli, noErrors, waitForWorkers, writeBeginEndTrace } from './lib.mjs';

const READERS = [1, 2, 3, 4, 8];

// The traces: the largest shared trace unzipped (87 MB, many parts merge), two plain JSON ones
// of a few MB, and a file of B/E pairs (parts that pair across the file are not used: the loader
// reads them itself).
function traces(tmp) {
  const mtia = join(tmp, 'mtia_rank_0.json');
  writeFileSync(mtia, gunzipSync(readFileSync(join(TRACES, 'hta__mtia_rank_0.json.gz'))));
  const resnet = join(tmp, 'resnet50_nw4.json');
  writeFileSync(resnet, gunzipSync(readFileSync(join(TRACES, 'kineto__resnet50_nw4__worker0.1623212756351.pt.trace.json.gz'))));
  const be = writeBeginEndTrace(join(tmp, 'begin_end_4mb.json'), 4e6);
  return [
    { file: mtia, merges: true },
    { file: resnet, merges: true },
    { file: join(TRACES, 'param__dlrm_kineto__worker0_step_12.1694128201545.pt.trace.json'), merges: true },
    { file: be, merges: false },
  ];
}

export function workerTests() {
  return {
    async 'N workers on one file: 1, 2, 3, 4 and 8 give the same report, byte for byte'({ ctx, origin, tmp }) {
      needTraces();
      const list = traces(tmp);
      const reference = new Map(); // file -> the one worker's JSON
      const curve = [];
      for (const n of READERS) {
        const { page, log } = await openPage(ctx, origin, `/?workers=${n}`);
        const row = [];
        for (const { file, merges } of list) {
          const name = file.split('/').pop();
          check((await loadFile(page, file)) === 'ready', `${name} with ${n} workers did not load: ${await page.textContent('#error')}`);
          const json = await page.evaluate(() => window.kinetoscope.exports().json);
          const t = await page.evaluate(() => window.kinetoscope.timings());
          if (n === 1) {
            check(!t.worker.split, `${name}: ?workers=1 split the file`);
            reference.set(file, json);
            if (file.endsWith('mtia_rank_0.json')) sameAsCli(JSON.parse(json), file);
          } else {
            check(json === reference.get(file), `${name}: the report of ${n} workers differs from one worker's (${json.length} vs ${reference.get(file).length} bytes)`);
            check(t.worker.readers >= 2 && t.worker.readers <= n, `${name}: read by ${t.worker.readers} workers, asked for ${n}`);
            if (merges) check(t.worker.parts >= 1, `${name}: no part of ${n} workers was merged`);
            else check(!t.worker.parts, `${name}: a part of B/E pairs was merged`);
            if (file.endsWith('mtia_rank_0.json')) check(t.worker.parts === n - 1, `mtia with ${n} workers: ${t.worker.parts} of ${n - 1} parts merged`);
          }
          row.push(`${name.slice(0, 14)} ${(t.shown / 1000).toFixed(2)} s${n > 1 ? ` (${t.worker.parts || 0}/${t.worker.readers - 1} parts)` : ''}`);
        }
        curve.push(`${n} worker${n > 1 ? 's' : ' '}: ${row.join(', ')}`);
        await waitForWorkers(page, 1, `after the loads with ${n} workers`);
        noErrors(log);
        await page.close();
      }
      console.log(`      report shown after (same run, this machine):\n      ${curve.join('\n      ')}`);
    },

    // worker/warm.js, worker/prefault.js: the spare loader, once warmed up, holds no memory written
    // ahead of a file; the load writes what the file needs while it waits for the file's chunks
    // (sized to it); the file gives the CLI's report.
    async 'the warmed spare loader holds no heap ahead; the load prefaults what its file needs and reads as the CLI does'({ ctx, origin, tmp }) {
      needTraces();
      const { page, log } = await openWarmPage(ctx, origin, '/');
      const pretouched = await page.evaluate(() => document.body.dataset.pretouched);
      check(pretouched === '0', `the spare wrote ${pretouched} bytes of its heap before any file, expected none`);
      const file = traces(tmp)[1].file; // resnet50_nw4, 31 MB
      check((await loadFile(page, file)) === 'ready', `${file} did not load after the warm-up: ${await page.textContent('#error')}`);
      const t = await page.evaluate(() => window.kinetoscope.timings());
      check(t.worker.module < 50, `the load did not run on the warmed module (module ${t.worker.module} ms)`);
      const size = statSync(file).size;
      check(t.worker.prefault_bytes > 0 && t.worker.prefault_bytes <= 0.3 * size, `the load prefaulted ${t.worker.prefault_bytes} bytes for a file of ${size}`);
      // The module's memory after the report, for bench/memory_split.mjs: at least the bytes it
      // prefaulted, what the allocator holds free within it, and the events the model holds.
      const events = cliReport(file).trace.events_total;
      check(t.worker.heap_bytes >= t.worker.prefault_bytes && t.worker.heap_free_bytes >= 0 && t.worker.heap_free_bytes < t.worker.heap_bytes, `the load reported a heap of ${t.worker.heap_bytes} bytes, ${t.worker.heap_free_bytes} free`);
      check(t.worker.events === events, `the load reported ${t.worker.events} events, the CLI ${events}`);
      sameAsCli(JSON.parse(await page.evaluate(() => window.kinetoscope.exports().json)), file);
      check(t.worker.warmup_cut === false, 'a load after the warm-up says it cut one short');
      noErrors(log);
      await page.close();
    },

    // worker/warm.js: a file given while the spare is still warming up stops the warm-up at its
    // next stage (it does not wait for the rest), and reads as the
    // CLI does. The file is given the moment the page posts the warm-up to a new spare (the one it
    // starts after a load settles), so the warm-up is under way whatever this machine's speed.
    async 'a file given while the spare warms up does not wait for the warm-up'({ ctx, origin, tmp }) {
      needTraces();
      const { page, log } = await openWarmPage(ctx, origin, '/');
      const file = traces(tmp)[1].file; // resnet50_nw4, 31 MB
      await page.evaluate(() => document.body.insertAdjacentHTML('beforeend', '<input type="file" id="probe" hidden>'));
      await page.setInputFiles('#probe', file);
      await page.evaluate(() => {
        const post = Worker.prototype.postMessage;
        Worker.prototype.postMessage = function (m, ...rest) {
          post.call(this, m, ...rest);
          if (m && m.type === 'warm' && !window.__probeGiven) {
            window.__probeGiven = true;
            window.kinetoscope.open(document.getElementById('probe').files[0]).catch(() => {});
          }
        };
      });
      const small = join(tmp, 'small.json');
      writeFileSync(small, JSON.stringify({ traceEvents: [{ ph: 'X', cat: 'kernel', name: 'k', pid: 0, tid: 7, ts: 1, dur: 2, args: { stream: 7 } }] }));
      const before = await loads(page);
      check((await loadFile(page, small)) === 'ready', 'the small trace did not load');
      check((await settled(page, before + 1)) === 'ready', `${file} did not load: ${await page.textContent('#error')}`);
      const t = await page.evaluate(() => window.kinetoscope.timings());
      check(t.worker.warmup_cut === true, `the load did not stop the spare's warm-up (timings ${JSON.stringify(t.worker)})`);
      sameAsCli(JSON.parse(await page.evaluate(() => window.kinetoscope.exports().json)), file);
      noErrors(log);
      await page.close();
    },
  };
}
