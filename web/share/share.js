// Sharing, wired into the page (app.js calls initSharing once and reportShown after each report):
// deep links (view.js), the export bar (export.js), postMessage embedding (embed.js) and the
// missing-feature note (support.js). docs/sharing.md describes what users and hosts see.
import { h } from '../views/dom.js';
import { fmtUs } from '../views/format.js';
import { initEmbedding } from './embed.js';
import { exportBar, exportsOf } from './export.js';
import { showSupportNote } from './support.js';
import { hasTimeline, registerTimeline } from './timeline-hook.js';
import { checkLinkFiles, currentView, forgetPreviousTrace, linkMismatch, onViewChange, replayView, setView, takeLinkedView } from './view.js';
import { showLinkPrompt } from './link-prompt.js';

let loaded = null; // the report on screen: {name, report, json, markdown}
let reportEl = null;

const findingCards = () => Array.from(reportEl.querySelectorAll('article.finding'));
const cardId = (card) => {
  const id = card.querySelector('.finding-id');
  return id ? id.textContent.trim() : '';
};

// Highlights the finding with rule id `id` (none for undefined); returns whether it is on the page.
function selectFinding(id, scroll) {
  let found = null;
  for (const card of findingCards()) {
    const on = id !== undefined && !found && cardId(card) === id;
    card.classList.toggle('selected', on);
    if (on) {
      card.setAttribute('aria-current', 'true');
      found = card;
    } else card.removeAttribute('aria-current');
  }
  if (found && scroll) found.scrollIntoView({ block: 'center' });
  return id === undefined || !!found;
}

// One line under the report title that says what the link asked for that the page cannot show.
function linkNote(view, findingShown) {
  const head = reportEl.querySelector('.report-head');
  if (!head) return;
  let note = head.querySelector('.link-note');
  const parts = [];
  const other = loaded && linkMismatch(loaded.linkName || loaded.name);
  if (other) parts.push(mismatchText(other));
  if (view.f !== undefined && !findingShown) parts.push(`The linked finding ${view.f} is not in this trace's report.`);
  // A range the Timeline tab opens on needs no line; nor does one on a rank's or a comparison's
  // report, which have no timeline of that trace (the line would be stale there).
  const otherView = !!document.body.dataset.view;
  if (view.t && view.v !== 'timeline' && !otherView) {
    const range = `${fmtUs(view.t[0])} → ${fmtUs(view.t[1])} from the trace start`;
    parts.push(hasTimeline() ? `Linked range: ${range}.` : `Linked range: ${range} (this page has no timeline to show it on).`);
  }
  // A rank of a job says its rank in the link itself (reportShown); a single trace's own rank is
  // what the link's is compared with.
  const rank = loaded && loaded.rank === undefined && loaded.report.trace ? loaded.report.trace.rank : null;
  if (view.r !== undefined && typeof rank === 'number' && rank !== view.r) {
    parts.push(`The link is for rank ${view.r}; this trace is rank ${rank}.`);
  }
  if (!parts.length) {
    if (note) note.remove();
    return;
  }
  if (!note) {
    note = h('p', { className: 'link-note muted' });
    head.append(note);
  }
  note.textContent = parts.join(' ');
  note.classList.toggle('link-other-files', !!other); // said plainly, not greyed (share.css)
}

// "a.json, b.json, c.json and 5 more": a job's names, short enough for one line.
function someNames(names) {
  const shown = names.slice(0, 3).join(', ');
  return names.length > 3 ? `${shown} and ${names.length - 3} more` : shown;
}

// What the link was for and is not applied, and which names differ.
function mismatchText({ missing, extra, way, files, count, held }) {
  const kept = [];
  if (held.r !== undefined) kept.push(`rank ${held.r}`);
  if (held.f !== undefined) kept.push(`the finding ${held.f}`);
  if (held.t) kept.push(`the range ${fmtUs(held.t[0])} → ${fmtUs(held.t[1])}`);
  if (held.s !== undefined) kept.push('a selected slice');
  const ways = { swapped: `compared the other way round: the link has ${files[0]} as BASE`, 'not compared': 'opened together, not compared', compared: 'compared, not opened together' };
  const differ = way ? ways[way] : [missing.length ? `not opened: ${someNames(missing)}` : '', extra.length ? `opened but not in the link: ${someNames(extra)}` : ''].filter(Boolean).join('; ');
  const listed = kept.length > 1 ? `${kept.slice(0, -1).join(', ')} and ${kept[kept.length - 1]}` : kept[0];
  const what = kept.length ? `Its ${listed} ${kept.length === 1 ? 'is' : 'are'} not shown on these files` : 'Its view is not applied to these files';
  const open = count === 1 ? "the link's file" : way === 'swapped' || way === 'not compared' ? `${files[0]} as BASE with ${files[1]} as TEST` : `the link's ${count} files together`;
  const lead = way ? 'This link was made for these files read another way' : 'This link was made for other files than these';
  return `${lead} (${differ}). ${what}; ${way === 'swapped' || way === 'not compared' ? 'compare' : 'open'} ${open} to see ${kept.length === 1 ? 'it' : 'them'}.`;
}

function apply(view, source) {
  if (!loaded) {
    // applied when the trace loads (replayView); a link followed meanwhile says what to open
    if (source === 'url') showLinkPrompt(view);
    return;
  }
  const shown = selectFinding(view.f, source !== 'findings');
  linkNote(view, shown);
}

// A click on a finding selects it (and writes #f=ID), unless it was on a control or ended a text
// selection (copying a kernel name must not move the view).
function onReportClick(e) {
  const card = e.target.closest && e.target.closest('article.finding');
  if (!card || e.target.closest('a, button, input, summary, pre')) return;
  if (String(window.getSelection ? window.getSelection() : '').length) return;
  const id = cardId(card);
  if (id) setView({ f: id }, 'findings');
}

// Enter or Space on a focused finding card selects it, as a click does (keyboard users had no way to).
function onReportKey(e) {
  if ((e.key !== 'Enter' && e.key !== ' ') || !e.target.matches || !e.target.matches('article.finding')) return;
  e.preventDefault();
  const id = cardId(e.target);
  if (id) setView({ f: id }, 'findings');
}

// The report's section links scroll without touching the fragment, which holds the view.
function onJumpClick(e) {
  const a = e.target.closest && e.target.closest('nav.jump a[href^="#"]');
  if (!a) return;
  const target = document.getElementById(decodeURIComponent(a.getAttribute('href').slice(1)));
  if (!target) return;
  e.preventDefault();
  target.scrollIntoView({ block: 'start' });
}

export function initSharing({ open, report, firstNode }) {
  reportEl = report;
  showSupportNote(firstNode);
  reportEl.addEventListener('click', onReportClick);
  reportEl.addEventListener('keydown', onReportKey);
  document.addEventListener('click', onJumpClick);
  onViewChange(apply);
  initEmbedding({ open, shown: () => (loaded ? loaded.report : null) });
  showLinkPrompt(currentView());
}

// After app.js has drawn a report: {name, report (object), json (the CLI's bytes), markdown}; for
// the ranks of a job opened together also linkName (every file of the job, one per line: what a
// copied link asks to open again) and rank (the rank shown, written as the link's `r`).
// The export bar goes in #exports, above the Report/Timeline tabs, so that the timeline's PNG is
// a click away from the timeline; without that element, under the report's title.
export function reportShown(next) {
  checkLinkFiles(next.linkName || next.name, !!next.compared); // a comparison's two files too, in order
  if (loaded && loaded.name !== next.name) forgetPreviousTrace();
  loaded = next;
  takeLinkedView(); // the link has been applied to its first report (replayView below)
  if (typeof next.rank === 'number') setView({ r: next.rank }, 'ranks', { quiet: true });
  const old = document.querySelector('.export-bar');
  if (old) {
    old.stop();
    old.remove();
  }
  const bar = exportBar(next);
  const holder = document.getElementById('exports');
  const head = reportEl.querySelector('.report-head');
  if (holder) {
    holder.replaceChildren(bar);
    holder.hidden = false;
  } else if (head) head.append(bar);
  replayView();
}

// Added to window.kinetoscope.
export const sharingApi = {
  view: currentView,
  setView,
  onViewChange,
  registerTimeline,
  exports: () => (loaded ? exportsOf(loaded) : null),
};
