// Exports of the report on screen: Markdown (the CLI's `--format md` text, made by the same C++ in
// the worker), JSON (the exact bytes the CLI's `--format json` writes), one CSV per table, the
// timeline as PNG, and "copy findings" / "copy link" to the clipboard. Everything is made in the tab
// and saved through a Blob URL: nothing is sent anywhere.
import { h } from '../views/dom.js';
import { reportTables, toCsv } from './csv.js';
import { hasTimeline, onTimelineChange, timelineFileName, timelinePng, timelineWhat } from './timeline-hook.js';
import { linkTo } from './view.js';

// "run.pt.trace.json.gz" -> "run": the stem the exported files are named after.
export function baseName(name) {
  return String(name || 'trace').replace(/\.gz$/i, '').replace(/\.json$/i, '').replace(/\.pt\.trace$/i, '') || 'trace';
}

// The findings part of the CLI's Markdown: its title line, then the "## Findings" section.
export function findingsMarkdown(markdown) {
  if (!markdown) return '';
  const title = markdown.slice(0, markdown.indexOf('\n') + 1);
  const start = markdown.indexOf('## Findings\n');
  if (start < 0) return '';
  const next = markdown.indexOf('\n## ', start);
  const section = markdown.slice(start, next < 0 ? undefined : next + 1);
  return `${title}\n${section}`.replace(/\n+$/, '\n');
}

// Everything the buttons save, as text (window.kinetoscope.exports() returns this too).
export function exportsOf(loaded) {
  const csv = {};
  for (const t of reportTables(loaded.report)) csv[t.name] = toCsv(t.rows);
  return {
    name: loaded.name,
    markdown: loaded.markdown || '',
    json: loaded.json || '',
    findingsMarkdown: findingsMarkdown(loaded.markdown),
    csv,
  };
}

function save(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: filename, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

// navigator.clipboard needs a secure context and, in some browsers, a permission; the old
// execCommand('copy') path covers the rest (it runs inside the click that asked for it).
export async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // fall through to the textarea route
    }
  }
  const area = h('textarea', { readonly: true, 'aria-hidden': 'true', className: 'offscreen-copy' });
  area.value = text;
  document.body.append(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}

// The bar of export buttons for one loaded report: {name, report, json, markdown}.
export function exportBar(loaded) {
  // The Markdown and JSON as they came; each CSV written when its button is clicked (written at
  // once, the CSVs of 1,000 ranks took a third of a second before the report was drawn).
  const out = { markdown: loaded.markdown || '', json: loaded.json || '', findingsMarkdown: findingsMarkdown(loaded.markdown) };
  const tables = reportTables(loaded.report);
  const stem = baseName(loaded.name);
  const said = h('span', { className: 'export-said muted', 'aria-live': 'polite' });
  let sayTimer = 0;
  const say = (text) => {
    said.textContent = text;
    clearTimeout(sayTimer);
    sayTimer = setTimeout(() => (said.textContent = ''), 4000);
  };
  const button = (label, onclick, extra = {}) => h('button', { type: 'button', className: 'button small', onclick, ...extra }, label);

  const md = button('Markdown', () => save(new Blob([out.markdown], { type: 'text/markdown' }), `${stem}.kinetoscope.md`), {
    title: 'The report as Markdown, as `kinetoscope report --format md` writes it',
    dataset: { export: 'markdown' },
  });
  const json = button('JSON', () => save(new Blob([out.json], { type: 'application/json' }), `${stem}.kinetoscope.json`), {
    title: 'The report as JSON, as `kinetoscope report --format json` writes it (docs/report-schema.md)',
    dataset: { export: 'json' },
  });
  const csvItems = tables.map(({ name, rows }) =>
    h('li', null, button(`${name}.csv`, () => {
      save(new Blob([toCsv(rows)], { type: 'text/csv' }), `${stem}.${name}.csv`);
      csv.open = false;
    }, { dataset: { export: `csv:${name}` } })),
  );
  const csv = csvItems.length
    ? h('details', { className: 'export-csv' }, h('summary', { className: 'button small', title: 'One CSV file per table of the report' }, 'CSV'), h('ul', null, csvItems))
    : null;
  // The CSV menu closes on a click elsewhere or Escape, like a menu.
  const closeMenu = (e) => {
    if (csv && csv.open && (e.type === 'keydown' ? e.key === 'Escape' : !csv.contains(e.target))) csv.open = false;
  };
  document.addEventListener('click', closeMenu);
  document.addEventListener('keydown', closeMenu);
  const png = button('Timeline PNG', async () => {
    try {
      const name = timelineFileName(stem); // before the await: the view may change meanwhile
      const blob = await timelinePng();
      if (blob) save(blob, name);
      else say('There is no timeline on this page to export.');
    } catch (e) {
      say(`The timeline image failed: ${e.message}`);
    }
  }, { dataset: { export: 'png' } });
  const pngState = () => {
    png.disabled = !hasTimeline();
    const ranksView = document.body.dataset.view === 'ranks';
    png.title = !png.disabled
      ? timelineWhat()
      : ranksView
        ? 'No timeline shown yet: "Show timelines" under "Timelines of selected ranks" stacks ranks\' timelines, which this saves as one image'
        : 'No timeline on this view: nothing to export as PNG';
  };
  pngState();
  const stopWatching = onTimelineChange(pngState);
  const copyFindings = button('Copy findings', async () => {
    say((await copyText(out.findingsMarkdown)) ? 'Findings copied as Markdown.' : 'The browser refused the clipboard.');
  }, { title: 'The findings as Markdown, for a pull request or an issue', dataset: { export: 'copy-findings' } });
  // A rank of a job links to the job: its files, all of them, bring that rank back.
  const linkName = loaded.linkName || loaded.name;
  const files = linkName.split('\n').length;
  const opens = loaded.compared
    ? 'once the same two traces are compared (Compare two traces…, in the same order)'
    : files > 1
      ? `once the same ${files} files are opened together`
      : 'once the same trace is loaded';
  const copyLink = button('Copy link', async () => {
    say((await copyText(linkTo(linkName, !!loaded.compared))) ? `Link copied: it opens this view ${opens}.` : 'The browser refused the clipboard.');
  }, { title: 'A link to this view (tab, selected finding or slice, time range, rank, trace name)', dataset: { export: 'copy-link' } });

  const bar = h('div', { className: 'export-bar', role: 'group', 'aria-label': 'Export' }, h('span', { className: 'muted' }, 'Export:'), md, json, csv, png, copyFindings, copyLink, said);
  bar.stop = () => {
    // the next report's bar replaces this one
    stopWatching();
    document.removeEventListener('click', closeMenu);
    document.removeEventListener('keydown', closeMenu);
  };
  return bar;
}
