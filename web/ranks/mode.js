// Several traces opened together are the ranks of one job. Each file is read in a pool of
// workers (worker/pool.js) and sends back its own report and its rank digest; one worker then
// combines the digests into the multi-rank report, the bytes `kinetoscope report --format json
// FILES...` writes for the same files in the same order. The page shows it (ranks/present.js,
// ranks/view.js) and window.kinetoscope.report() returns it.
//
// app.js owns the page's status line, error box and report area and passes them in:
//   const ranks = initRanks({ui, settled, showError, setCurrent, shown, stopSingle});
//   ranks.open(files) -> Promise<multi-rank report object>;  ranks.cancel() -> true if it stopped one
//   ranks.openExport(blob, name, gpuProcesses) -> the same, for the processes of one export
import { fmtInt } from '../views/format.js';
import { PoolError, cancelPoolJob, poolSize, startPoolJob } from '../worker/pool.js';
import { combineMsg } from '../worker/protocol.js';
import { newJob } from '../share/history.js';
import { showSkippedBox } from '../views/status.js';
import { emptyRanks, present } from './present.js';
import { perFrame, showReadProgress } from './progress.js';

// Rank digests written by the core start like this; source 2 is "load order" (RankSource).
const LOAD_ORDER_RANK = /^(\{\s*"schema": "kinetoscope\.rankdigest\/1",\s*"rank": )\d+(,\s*"source": 2,)/;

// The ranks of one export's GPU processes (`gpus`: [{pid, device}], the CLI's order), as pool
// items: each named "FILE pid P" as the CLI names it, read alone by its pid.
function processItems(blob, name, gpus, loadIndex) {
  const count = gpus.length;
  return gpus.map((g, i) => ({ blob, name: `${name} pid ${g.pid}`, loadIndex: loadIndex + i, rankProcess: { pid: g.pid, rank: i, count, merged: !!g.merged } }));
}

// After the pool read several files: those that were Nsight Systems exports of 2+ GPU processes
// (result.gpuProcesses) are replaced by their processes, read now; the others keep their
// results. {items, results} in the files' order, each export's processes at its place; null
// when no file was such an export.
async function splitExports(pool, items, results, onProgress) {
  const plan = items.map((it, i) => (results[i].ok && results[i].gpuProcesses && !it.rankProcess ? processItems(it.blob, it.name, results[i].gpuProcesses, i) : null));
  const extra = plan.filter(Boolean).flat();
  if (!extra.length) return null;
  const read = await pool.readAll(extra, onProgress);
  const out = { items: [], results: [] };
  let e = 0;
  items.forEach((it, i) => {
    if (!plan[i]) {
      out.items.push(it);
      out.results.push(results[i]);
    } else {
      for (const p of plan[i]) {
        out.items.push(p);
        out.results.push(read[e++]);
      }
    }
  });
  return out;
}

export function initRanks({ ui, settled, showError, setCurrent, shown, stopSingle }) {
  let job = null; // the running job (startPoolJob), or null
  let stacked = null; // the stacked-timelines section on screen (its workers stay until close())

  // Stops the stacked timelines' workers (another view replaced the ranks).
  function close() {
    if (stacked && stacked.dispose) stacked.dispose();
    stacked = null;
  }

  function cancel() {
    if (!job) return false;
    cancelPoolJob(job, 'reading the ranks was cancelled');
    job = null;
    ui.status.hidden = true;
    settled('cancelled');
    return true;
  }

  async function open(files) {
    files = Array.from(files || []);
    if (!files.length) {
      const err = { code: 'no_traces', message: 'no trace files (*.json, *.json.gz) were given' };
      showError('the folder', err);
      settled('error');
      throw new PoolError(err);
    }
    const names = files.map((f, i) => f.name || `rank-${i}.json`);
    return run(files.map((blob, i) => ({ blob, name: names[i], loadIndex: i })), files);
  }

  // One Nsight Systems export of several processes with GPU work (`gpus`: [{pid, device}], the
  // CLI's rank order): each process is a rank, named "FILE pid P" as the CLI names it.
  function openExport(blob, name, gpus) {
    return run(processItems(blob, name, gpus, 0), null);
  }

  // items: [{blob, name, loadIndex, ...}] as the pool reads them; files: the Files, or null.
  async function run(items, files) {
    cancel();
    close();
    stopSingle();
    const names = items.map((it) => it.name);
    // The files the user opened (an export's processes are one file), one per line: what a link
    // to any view of this job asks to open again.
    const jobName = [...new Set(items.map((it) => (it.rankProcess ? it.name.slice(0, it.name.lastIndexOf(' pid ')) : it.name)))].join('\n');
    const me = startPoolJob(poolSize(items.length), ui);
    const { pool, t0 } = me;
    job = me;
    // The first status at once (the pool's first report, before any file is posted), then one a
    // frame. No File's size is read here (worker/pool.js knownSizes says why).
    const onProgress = perFrame((p) => showReadProgress(ui, names, pool.workers.length, p), () => me === job && !me.combining);
    try {
      const work = (async () => {
        let results = await pool.readAll(items, onProgress);
        // Exports among the files that hold several GPU processes: one rank per process, read
        // again alone (as kinetoscope report splits them); no file of their own, so no stacked
        // timelines, and a rank's timeline reads its process from the export.
        const split = await splitExports(pool, items, results, onProgress);
        if (split) {
          ({ items, results } = split);
          files = null;
          names.splice(0, names.length, ...items.map((it) => it.name));
        }
        results.forEach((r, i) => (r.name = names[i]));
        const ok = results.filter((r) => r.ok);
        const failed = results.filter((r) => !r.ok);
        if (!ok.length) throw Object.assign(new PoolError(failed[0].error), { file: failed[0].name });
        me.combining = true; // a status update still waiting for its frame is dropped
        ui.statusText.textContent = `Comparing ${fmtInt(ok.length)} ranks…`;
        // The CLI numbers ranks by load order among the files it could read: so do we.
        const digests = ok.map((r, k) => r.digest.replace(LOAD_ORDER_RANK, `$1${k}$2`));
        results.combined = await pool.call(combineMsg(digests, ok.map((r) => r.json), ok.map((r) => r.markdown)));
        return { results, failed, ok };
      })();
      const { results, failed, ok } = await Promise.race([work, me.whenCancelled]);
      const multi = JSON.parse(results.combined.json);
      job = null;
      ui.status.hidden = true;
      const secs = ((performance.now() - t0) / 1000).toFixed(2);
      setCurrent(multi);
      present({ ui, setCurrent, shown, setStacked: (x) => (stacked = x), job: newJob(null), jobName }, multi, results, files, secs, items);
      const empty = emptyRanks(multi);
      if (failed.length || empty.length) showSkippedBox(ui.error, { opened: ok.length, total: items.length, noun: files ? 'files' : 'processes', failed: failed.map((f) => ({ name: f.name, error: f.error })), empty });
      settled('ready');
      return multi;
    } catch (e) {
      if (me.cancelled) throw e;
      job = null;
      ui.status.hidden = true;
      showError(e.file || `the ${fmtInt(items.length)} traces`, { code: e.code, message: e.message, offset: e.offset });
      settled('error');
      throw e;
    } finally {
      pool.close();
    }
  }

  return { open, openExport, cancel, close, busy: () => !!job };
}
