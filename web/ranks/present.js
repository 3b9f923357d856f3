// The ranks of one job once read (ranks/mode.js reads them): the all-ranks view and each rank's
// own report, the way between them (Back, previous/next rank, a link's rank), a rank opened alone
// with its timeline, and the notes on where the ranks came from.
import { h } from '../views/dom.js';
import { fmtInt } from '../views/format.js';
import { recordedNothing, renderReport } from '../views/report.js';
import { reportLead } from '../views/glance.js';
import { renderWhenSeen } from '../views/held_fields.js';
import { rankHead, renderRanks } from './view.js';
import { enter, newJob, visit } from '../share/history.js';
import { checkLinkFiles, takeLinkedView } from '../share/view.js';

// The line that says where an export's ranks came from: one export's processes, or several
// files of which some are exports read one rank per process; the same for JSON files that hold
// several ranks merged on one GPU (rankProcess.merged: split by launching process).
function exportNote(multi, items) {
  const split = (items || []).filter((it) => it.rankProcess);
  const exports = new Set(split.map((it) => it.name.slice(0, it.name.lastIndexOf(' pid '))));
  const merged = split.filter((it) => it.rankProcess.merged).length;
  const noun = merged === split.length ? 'trace file' : merged ? 'file' : 'Nsight Systems export';
  const holds = merged === split.length ? "several ranks' processes on one GPU (traces of several nodes merged)" : 'several processes with GPU work';
  const by = merged === split.length ? 'by the process that launched its GPU work' : 'by the GPU each worked on most';
  const n = multi.ranks.length;
  const text =
    exports.size > 1 || (items || []).some((it) => !it.rankProcess)
      ? `${fmtInt(n)} ranks: ${exports.size === 1 ? `one ${noun}` : `${fmtInt(exports.size)} ${noun}s`} among the files ${exports.size === 1 ? 'holds' : 'hold'} ${holds}, read as one rank each (${by}, numbered on across the ${merged ? 'files' : 'exports'} in the order given), as kinetoscope report does.`
      : `One ${noun} holding ${merged ? `${n} ranks' processes on one GPU (traces of several nodes merged)` : `${n} processes with GPU work`}, read as ranks (one per process, ${by}), as kinetoscope report does; kinetoscope report --separate gives the whole-file report.`;
  return h('p', { className: 'muted', dataset: { exportRanks: String(n) } }, text);
}

// The ranks read without one trace event (a file whose every event is broken JSON), with the first
// read problem as the reason: they are ranks, as the CLI counts them, but a user must hear why.
export function emptyRanks(multi) {
  return multi.ranks.flatMap((row, k) => {
    const report = multi.reports[k];
    if (!recordedNothing(report)) return [];
    const d = (report.diagnostics || []).find((x) => x && (x.severity === 'error' || x.severity === 'warning'));
    if (!d) return []; // a file truly empty of events says so in its own report
    return [{ name: row.file, error: { code: d.code, message: `no trace event could be read: ${d.message}`, offset: Number.isFinite(d.first_offset) ? d.first_offset : undefined } }];
  });
}

// The rank a link asked for (its `r`), when these ranks are the first thing opened since the link:
// its report, or with `v=timeline` its timeline; a rank that is not among them is said in the head.
function openLinkedRank(multi, linked, views, head) {
  if (!linked || linked.r === undefined) return;
  const k = multi.ranks.findIndex((row) => row.rank === linked.r);
  if (k < 0) {
    const have = multi.ranks.map((row) => row.rank).join(', ');
    head.append(h('p', { className: 'link-note muted' }, `The link is for rank ${linked.r}, which is not among these ranks (${have}).`));
    return;
  }
  if (linked.v === 'timeline' && views.canOpenAlone(k)) views.openAlone(k);
  else views.showRank(k);
}

// The report on screen for one loaded job: the all-ranks view, or one rank's own report. ctx:
// initRanks's {ui, setCurrent, shown} and setStacked(section) for the stacked timelines.
// `files` is null for the processes of one Nsight Systems export: a rank is no file of its own,
// so there are no stacked timelines (each would read the whole export); a rank's own timeline
// reads its process alone from the export (`items`: the pool's {blob, name, rankProcess}).
export function present(ctx, multi, results, files, secs, items) {
  const { ui, setCurrent, shown, job, jobName } = ctx;
  // Back to these ranks from another view presents them again, from memory (share/history.js);
  // each rank opened alone is a job of its own, read again from its file.
  job.reopen = () => {
    setCurrent(multi);
    present(ctx, multi, results, files, secs, items);
  };
  job.alone = job.alone || [];
  const openRank = (k) => showRank(k);
  const fileOf = files ? (k) => (perRank[k] ? files[results.indexOf(perRank[k])] : null) : null;
  // The exact bytes of each rank's own report (for its export bar): by file name, in load order.
  // (Each name's results in a queue: a search of every result per rank was 1,000,000 steps for
  // 1,000 ranks.)
  const byName = new Map();
  results.forEach((r) => r.ok && (byName.get(r.name) || byName.set(r.name, []).get(r.name)).push(r));
  const perRank = multi.ranks.map((row) => {
    const queue = byName.get(row.file);
    return queue && queue.length ? queue.shift() : null;
  });
  const { head, sections } = renderRanks(multi, { secs, openRank, fileOf });
  if (!files) head.append(exportNote(multi, items));
  ctx.setStacked(sections.find((s) => s.id === 'stacked') || null);
  renderWhenSeen(sections); // Blink lays out only the sections on screen
  const all = [head, ...sections];
  // Links from any view of this job name all of its files (share/export.js); a rank's view adds its rank.
  const exported = { name: `${multi.ranks.length} ranks`, linkName: jobName, report: multi, json: results.combined.json, markdown: results.combined.markdown };

  function showAll() {
    ui.report.replaceChildren(...all);
    document.title = `${multi.ranks.length} ranks · Kinetoscope`;
    document.body.dataset.view = 'ranks';
    shown(exported);
    enter(job, 'all', () => job.views.showAll());
  }
  function showRank(k) {
    const row = multi.ranks[k];
    const report = multi.reports[k];
    if (!row || !report) return;
    const head = rankHead(row, {
      secs,
      back: () => {
        showAll();
        window.scrollTo(0, 0);
      },
      prev: k > 0 ? () => showRank(k - 1) : null,
      next: k + 1 < multi.ranks.length ? () => showRank(k + 1) : null,
    });
    // Its timeline: the rank's file opened as a single trace (the Report and Timeline tabs),
    // with the way back to all ranks (issue 18, item 7: rank reports had no timeline).
    if (canOpenAlone(k)) {
      const open = () => openRankAlone(k);
      const title = fileOf && fileOf(k) ? 'Open this rank alone, with its Timeline tab' : 'Read this process alone from the export, with its Timeline tab';
      head.append(h('button', { type: 'button', className: 'button small', dataset: { action: 'rank-timeline' }, title, onclick: open }, 'Timeline of this rank…'));
    }
    // The read problems and the run at a glance, as a single trace's report has them.
    head.append(...reportLead(report));
    const rankSections = renderReport(report);
    ui.report.replaceChildren(head, ...rankSections);
    renderWhenSeen(rankSections);
    document.title = `rank ${row.rank} · Kinetoscope`;
    document.body.dataset.view = `rank-${row.rank}`;
    const own = perRank[k];
    shown({ name: row.file, linkName: jobName, rank: row.rank, report, json: own ? own.json : '', markdown: own ? own.markdown : '' });
    window.scrollTo(0, 0);
    visit(`rank-${k}`, () => job.views.showRank(k));
  }
  // One rank alone, as a single trace; its report head gets "← All ranks", which shows this
  // job's ranks again (the stacked timelines rebuilt: opening the rank closed them).
  async function openAlone(k, file, options) {
    const row = multi.ranks[k];
    const navJob = (job.alone[k] = job.alone[k] || newJob(null));
    navJob.reopen = () => openAlone(k, file, options);
    await window.kinetoscope.open(file, row.file, { ...options, navJob, navView: 'timeline', link: { name: jobName, rank: row.rank } }).catch(() => null);
    const head = ui.report.querySelector('.report-head');
    if (!head || document.body.dataset.view) return;
    // "Timeline of this rank…" lands on its timeline (it opened on the Report tab); the report,
    // with the way back to all ranks, is the tab beside it.
    window.kinetoscope.timeline.show().catch(() => null);
    head.prepend(
      h('button', {
        type: 'button',
        className: 'button small',
        dataset: { action: 'all-ranks' },
        onclick: () => {
          setCurrent(multi);
          present(ctx, multi, results, files, secs, items);
          window.scrollTo(0, 0);
        },
      }, `← All ${multi.ranks.length} ranks`),
      h('p', { className: 'muted' }, `Rank ${row.rank} of the ${multi.ranks.length} ranks opened together, alone here with its timeline.`),
    );
  }
  // Its timeline: the rank's file, or its process read alone from the export.
  function aloneSource(k) {
    const file = fileOf ? fileOf(k) : null;
    const proc = !files && items ? items.find((it) => it.name === multi.ranks[k].file) : null;
    if (!window.kinetoscope || typeof window.kinetoscope.open !== 'function') return null;
    return file ? [file] : proc ? [proc.blob, { rankProcess: proc.rankProcess }] : null;
  }
  function canOpenAlone(k) {
    return !!aloneSource(k);
  }
  function openRankAlone(k) {
    const source = aloneSource(k);
    return source ? openAlone(k, ...source) : Promise.resolve();
  }
  // The link's view, taken before showAll() hands the view to its report.
  // The link's rank only if these are the link's files (share/view.js says which differ).
  if (!job.views) checkLinkFiles(jobName);
  const linked = job.views ? null : takeLinkedView();
  job.views = { showAll, showRank, canOpenAlone, openAlone: openRankAlone };
  showAll();
  openLinkedRank(multi, linked, job.views, head);
}
