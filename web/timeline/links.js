// "Show on timeline" from the report: a button on each finding with `ranges` or `events` (the whole
// finding, and each listed range and event), and one in each row of the kernel and sync-call tables
// (all occurrences of that name). The report views stay unaware of the timeline: this decorates the
// DOM they render, and keeps decorating table rows as sorting and filtering redraw them.
import { h } from '../views/dom.js';

const RANK = { critical: 0, warning: 1, info: 2 };
const observers = [];

// The small "show" buttons carry no text of their own (the stylesheet draws the word), so a cell's
// or a list item's textContent stays what the report view wrote.
function showButton(label, title, onclick) {
  if (label === 'show') return h('button', { type: 'button', className: 'tl-show', title, 'aria-label': title, onclick });
  return h('button', { type: 'button', className: 'button tl-show-finding', title, onclick }, label);
}

// The ids the worker finds events by: the byte offset, or (an Nsight Systems export, whose ids are
// past 2^53 and so not exact as JS numbers) the exact decimal string the report adds as event_id.
export const eventIdOf = (e) => (typeof e.event_id === 'string' && /^\d+$/.test(e.event_id) ? e.event_id : Number.isSafeInteger(e.byte_offset) && e.byte_offset >= 0 ? e.byte_offset : null);
export const offsetsOf = (events) => events.map(eventIdOf).filter((x) => x !== null);

function extent(events) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const e of events) {
    lo = Math.min(lo, e.ts_us);
    hi = Math.max(hi, e.ts_us + (e.dur_us || 0));
  }
  return lo <= hi ? { start_us: lo, end_us: hi } : null;
}

function decorateFindings(root, report, tl) {
  const findings = Array.isArray(report.findings) ? report.findings : [];
  // The order findings.js shows them in: by severity, then as written.
  const sorted = findings
    .map((f, i) => [f, i])
    .sort((a, b) => (RANK[a[0].severity] ?? 3) - (RANK[b[0].severity] ?? 3) || a[1] - b[1])
    .map(([f]) => f);
  root.querySelectorAll('#findings article.finding').forEach((card, i) => {
    const f = sorted[i];
    if (!f || card.querySelector('.tl-show-finding')) return;
    const id = card.querySelector('.finding-id');
    if (id && f.id && id.textContent !== f.id) return;
    const ranges = (Array.isArray(f.ranges) ? f.ranges : []).filter((r) => Number.isFinite(r.start_us) && Number.isFinite(r.end_us));
    const events = (Array.isArray(f.events) ? f.events : []).filter((e) => Number.isFinite(e.ts_us));
    // The examples to step through: each range with the events in or right after it, else each
    // event; every occurrence of the events' names is highlighted (N steps through all of them).
    const items = ranges.length
      ? ranges.map((r) => ({ range: r, events: events.filter((e) => e.ts_us + (e.dur_us || 0) >= r.start_us && e.ts_us <= r.end_us) }))
      : events.map((e) => ({ range: null, events: [e] }));
    if (!items.length || !(ranges[0] || extent(events))) return;
    const names = [...new Set(events.map((e) => e.name).filter((n) => typeof n === 'string'))];
    const head = card.querySelector('header') || card;
    let at = 0;
    const where = h('span', { className: 'muted tl-evidence-at' });
    const go = (k) => {
      at = (k + items.length) % items.length;
      where.textContent = items.length > 1 ? `${at + 1} of ${items.length}` : '';
      const it = items[at];
      const range = it.range ? { start_ns: it.range.start_us * 1e3, end_ns: it.range.end_us * 1e3 } : null;
      return tl.showEvidence(range, { offsets: offsetsOf(it.events), names: names.length <= 3 ? names : [] });
    };
    // append() writes a null argument as the text "null": the arrows go in only when there are several.
    head.append(showButton('Show on timeline', 'Open the timeline on this finding’s first example, in context; the gap is marked', () => go(0)));
    if (items.length > 1) {
      head.append(
        h(
          'span',
          { className: 'tl-evidence-nav' },
          h('button', { type: 'button', className: 'button small', title: 'The previous example', 'aria-label': 'Previous example', dataset: { evidence: 'prev' }, onclick: () => go(at - 1) }, '◀'),
          where,
          h('button', { type: 'button', className: 'button small', title: `The next example (of ${items.length})`, 'aria-label': 'Next example', dataset: { evidence: 'next' }, onclick: () => go(at + 1) }, '▶'),
        ),
      );
    }
    where.textContent = items.length > 1 ? `all ${items.length}` : '';
    for (const block of card.querySelectorAll('.listed')) {
      const title = (block.querySelector('h4') || {}).textContent || '';
      const lis = [...block.querySelectorAll('li')];
      if (/^Where in the trace/.test(title)) {
        ranges.slice(0, lis.length).forEach((r, k) => {
          lis[k].append(showButton('show', 'Show this range on the timeline, in context', () => go(k)));
        });
      } else if (/^Events/.test(title)) {
        events.slice(0, lis.length).forEach((e, k) => {
          lis[k].append(showButton('show', 'Show this event on the timeline, with its launch', () => tl.showEvidence(null, { offsets: offsetsOf([e]), names: [] })));
        });
      }
    }
  });
}

// Name cells of a table (td.name): a button before the name; again whenever the rows are redrawn.
function decorateNameCells(table, tl) {
  const tbody = table && table.querySelector('tbody');
  if (!tbody) return;
  const apply = () => {
    for (const td of tbody.querySelectorAll('td.name')) {
      if (td.querySelector('.tl-show')) continue;
      const clamp = td.querySelector('.clamp');
      const name = clamp ? clamp.title : td.textContent;
      td.prepend(showButton('show', 'Show every occurrence on the timeline', () => tl.showName(name)));
    }
  };
  apply();
  const obs = new MutationObserver(apply);
  obs.observe(tbody, { childList: true });
  observers.push(obs);
}

// "What bounds the step" (views/critical_path.js): a toggle that opens the timeline on the step and
// highlights every event on its critical path (N steps through them), or takes the highlight off.
function decorateCriticalPath(root, report, tl) {
  const sec = root.querySelector('#critical-path');
  const cp = report.critical_path;
  if (!sec || !cp || cp.ok === false || typeof tl.setHighlight !== 'function' || sec.querySelector('.cp-toggle')) return;
  let on = false;
  let busy = false;
  const label = (v) => (v ? 'Hide the path on the timeline' : 'Highlight the path on the timeline');
  const status = h('span', { className: 'muted cp-status' });
  const btn = h('button', {
    type: 'button',
    className: 'button cp-toggle',
    'aria-pressed': 'false',
    title: 'Open the timeline on this step and highlight the events on its critical path',
    onclick: async () => {
      if (busy) return;
      busy = true;
      try {
        if (!on) {
          const full = await tl.criticalPath();
          const slices = (full && Array.isArray(full.path) ? full.path : []).map((e) => e.slice).filter((i) => Number.isInteger(i) && i >= 0);
          await tl.showRange(cp.window_begin_us * 1e3, cp.window_end_us * 1e3);
          const n = await tl.setHighlight(slices, { label: 'critical path' });
          status.textContent = `${n.toLocaleString('en-US')} events highlighted`;
          on = true;
        } else {
          await tl.setHighlight(null);
          status.textContent = '';
          on = false;
        }
      } catch (e) {
        status.textContent = `could not highlight the path: ${e.message || e}`;
      } finally {
        btn.setAttribute('aria-pressed', String(on));
        btn.textContent = label(on);
        busy = false;
      }
    },
  }, label(false));
  const head = sec.querySelector('h2');
  (head || sec).after(h('p', { className: 'cp-actions' }, btn, ' ', status));
}

export function decorateReport(root, report, tl) {
  while (observers.length) observers.pop().disconnect();
  decorateFindings(root, report, tl);
  decorateCriticalPath(root, report, tl);
  decorateNameCells(root.querySelector('#kernels table.data'), tl);
  decorateNameCells(root.querySelector('#sync table.data'), tl); // the first: calls by name
  decorateNameCells(root.querySelector('#cpu-ops table.data'), tl);
  decorateNameCells(root.querySelector('#gpu-by-op table.data'), tl);
  decorateSteps(root.querySelector('#steps table.data'), report, tl);
}

// Step rows: a button that opens the timeline on that step (its start to its end).
function decorateSteps(table, report, tl) {
  const tbody = table && table.querySelector('tbody');
  const rows = report.steps && Array.isArray(report.steps.rows) ? report.steps.rows : [];
  if (!tbody || !rows.length) return;
  const byNumber = new Map(rows.map((r) => [String(r.number), r]));
  const apply = () => {
    for (const tr of tbody.querySelectorAll('tr')) {
      const cell = tr.querySelector('td');
      if (!cell || cell.querySelector('.tl-show')) continue;
      const r = byNumber.get(cell.textContent.trim());
      if (!r || !Number.isFinite(r.start_us) || !Number.isFinite(r.end_us)) continue;
      cell.prepend(showButton('show', `Show step ${r.number} on the timeline`, () => tl.showRange(r.start_us * 1e3, r.end_us * 1e3)));
    }
  };
  apply();
  const obs = new MutationObserver(apply);
  obs.observe(tbody, { childList: true });
  observers.push(obs);
}
