// Findings of several ranks in one place: the cross-rank findings (multi.findings: straggler,
// skews, mismatches) first, as cards; then every finding the ranks have on their own, grouped by
// id: which ranks have it, how bad on each (the worst severity leads), and a button per rank that
// opens its own report. Without this the overview said "No findings" for a job whose every rank
// has a critical one (issue 18, item 3).
import { h, note, section } from '../views/dom.js';
import { fmtAny, fmtInt } from '../views/format.js';
import { card } from '../views/findings.js';

const RANK = { critical: 0, warning: 1, info: 2 };
const sevOf = (f) => (RANK[f && f.severity] === undefined ? 'info' : f.severity);
const worse = (a, b) => (RANK[a] <= RANK[b] ? a : b);

// The straggler: the rank that a cross-rank finding names in its evidence (ranks.straggler,
// ranks.idle_gap_straggler, ...), most severe first; null when none names one.
export function stragglerRank(multi) {
  const named = (multi.findings || [])
    .filter((f) => /straggler|skew|late_start/.test(f.id || '') && f.evidence && typeof f.evidence.rank === 'number')
    .sort((a, b) => RANK[sevOf(a)] - RANK[sevOf(b)]);
  return named.length ? named[0].evidence.rank : null;
}

// [{id, title, severity (worst), ranks: [{k, rank, severity}]}], worst first, then by how many
// ranks have it.
export function groupRankFindings(multi) {
  const groups = new Map();
  (multi.reports || []).forEach((report, k) => {
    const row = multi.ranks[k];
    for (const f of (report && report.findings) || []) {
      const id = f.id || f.title;
      let g = groups.get(id);
      if (!g) groups.set(id, (g = { id, title: f.title || f.id, severity: sevOf(f), ranks: [], first: f }));
      g.severity = worse(g.severity, sevOf(f));
      g.ranks.push({ k, rank: row ? row.rank : k, severity: sevOf(f), title: f.title || f.id });
    }
  });
  for (const g of groups.values()) {
    // The title's numbers as ranges across the ranks; the card shown is the worst rank's.
    const worst = g.ranks.find((r) => r.severity === g.severity) || g.ranks[0];
    g.title = rangeTitle(g.ranks.map((r) => r.title), worst.rank);
    g.shown = worst;
    g.first = (multi.reports[worst.k].findings || []).find((f) => (f.id || f.title) === g.id) || g.first;
  }
  return [...groups.values()].sort((a, b) => RANK[a.severity] - RANK[b.severity] || b.ranks.length - a.ranks.length);
}

const NUMBER = /\d[\d,]*(?:\.\d+)?/g;
const value = (text) => Number(text.replace(/,/g, ''));

// One title for a finding the ranks have with different numbers: each number that differs as its
// range across the ranks ("GPU idle 38.1–54.4% of step time"). The first rank's title alone read as
// if every rank had its number. Titles that go on differently (another cause, another unit) keep
// the part they share, when it holds a number; else the worst rank's title, saying whose it is.
export function rangeTitle(titles, worstRank) {
  if (titles.length < 2) return titles[0] || '';
  const skeletons = titles.map((t) => t.replace(NUMBER, '#'));
  let common = skeletons[0];
  for (const sk of skeletons) {
    let n = 0;
    while (n < common.length && n < sk.length && common[n] === sk[n]) n++;
    common = common.slice(0, n);
  }
  let tail = '';
  if (common !== skeletons[0] || skeletons.some((sk) => sk !== common)) {
    // Back to the last clause boundary, where the titles still say the same thing.
    const cut = Math.max(common.lastIndexOf(', '), common.lastIndexOf(' ('), common.lastIndexOf(': '));
    common = cut > 0 ? common.slice(0, cut) : '';
    if (!common.includes('#')) return `${titles[0]} (rank ${worstRank}; the others differ)`;
    tail = ' (the rest differs by rank)';
  }
  const numbers = titles.map((t) => t.match(NUMBER) || []);
  let i = 0;
  return (
    common.replace(/#/g, () => {
      const column = numbers.map((n) => n[i]);
      i++;
      const lo = column.reduce((a, b) => (value(b) < value(a) ? b : a));
      const hi = column.reduce((a, b) => (value(b) > value(a) ? b : a));
      return value(lo) === value(hi) ? lo : `${lo}–${hi}`;
    }) + tail
  );
}

// "critical on 1, warning on 7": how many ranks have it at each severity, when they differ.
function severitySplit(g) {
  const n = {};
  for (const r of g.ranks) n[r.severity] = (n[r.severity] || 0) + 1;
  const present = Object.keys(RANK).filter((s) => n[s]);
  if (present.length < 2) return null;
  return h('span', { className: 'sev-split muted' }, ` ${present.map((s) => `${s} on ${fmtInt(n[s])}`).join(', ')}`);
}

// Chips drawn at first for a finding on many ranks: the worst ranks (the straggler first), then
// "N more", which draws the rest. 1,000 ranks were 1,000 buttons in each row, 4,000 elements.
const CHIPS_SHOWN = 12;
function rankList(g, total, openRank, straggler) {
  const chip = (r) =>
    h(
      'button',
      {
        type: 'button',
        className: `rank-chip sev-${r.severity}${r.rank === straggler ? ' straggler' : ''}`,
        title: `Rank ${r.rank}: ${r.title} (${r.severity}). Click: its own report`,
        dataset: { rank: String(r.rank) },
        onclick: () => openRank(r.k),
      },
      `rank ${r.rank}`,
    );
  const worstFirst = (a, b) => (b.rank === straggler) - (a.rank === straggler) || RANK[a.severity] - RANK[b.severity] || a.k - b.k;
  const first = g.ranks.length > CHIPS_SHOWN ? new Set([...g.ranks].sort(worstFirst).slice(0, CHIPS_SHOWN)) : new Set(g.ranks);
  const box = h('span', { className: 'rollup-ranks' }, g.ranks.filter((r) => first.has(r)).map(chip));
  const rest = g.ranks.filter((r) => !first.has(r));
  if (rest.length) {
    const more = h('button', { type: 'button', className: 'button small rank-more', title: 'Show a chip for every rank that has it' }, `${fmtInt(rest.length)} more…`);
    more.addEventListener('click', () => {
      box.replaceChildren(...g.ranks.map(chip), ...tail);
      const again = box.querySelector(`.rank-chip[data-rank="${rest[0].rank}"]`);
      if (again) again.focus(); // the keyboard's place: the first chip that was hidden
    });
    box.append(more);
  }
  const tail = [h('span', { className: 'muted' }, g.ranks.length === total ? ` all ${fmtInt(total)} ranks` : ` ${fmtInt(g.ranks.length)} of ${fmtInt(total)} ranks`), severitySplit(g)].filter(Boolean);
  box.append(...tail);
  return box;
}

export function rollupSection(multi, openRank) {
  const cross = [...(multi.findings || [])].sort((a, b) => RANK[sevOf(a)] - RANK[sevOf(b)]);
  const groups = groupRankFindings(multi);
  const total = multi.ranks.length;
  const straggler = stragglerRank(multi);
  const counts = {};
  for (const f of cross) counts[sevOf(f)] = (counts[sevOf(f)] || 0) + 1;
  for (const g of groups) counts[g.severity] = (counts[g.severity] || 0) + 1;
  const summary = Object.keys(RANK)
    .filter((s) => counts[s])
    .map((s) => h('span', { className: `badge sev-${s}` }, `${counts[s]} ${s}`));
  const table = groups.length
    ? h(
        'table',
        { className: 'data rollup', 'aria-label': 'Findings of the ranks' },
        h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Severity'), h('th', { scope: 'col' }, 'Finding'), h('th', { scope: 'col' }, 'Ranks (click: that rank\'s report)'))),
        h(
          'tbody',
          null,
          groups.map((g) =>
            h(
              'tr',
              { className: `sev-${g.severity}`, dataset: { finding: g.id } },
              h('td', null, h('span', { className: `badge sev-${g.severity}` }, g.severity)),
              h('td', null, h('details', null, h('summary', null, fmtAny(g.title)), g.ranks.length > 1 ? h('p', { className: 'muted' }, `As rank ${g.shown.rank} has it:`) : null, card(g.first)), h('span', { className: 'muted finding-id' }, g.id)),
              h('td', null, rankList(g, total, openRank, straggler)),
            ),
          ),
        ),
      )
    : null;
  return section(
    'findings',
    'Findings',
    counts.critical || counts.warning || counts.info ? h('p', { className: 'summary-badges' }, summary) : note('No findings: nothing stood out on any rank, nor across them.'),
    cross.length ? h('h3', { className: 'sub' }, 'Across ranks') : null,
    cross.map(card),
    groups.length ? h('h3', { className: 'sub' }, `On the ranks themselves (${fmtInt(groups.length)} finding${groups.length === 1 ? '' : 's'})`) : null,
    groups.length ? h('p', { className: 'muted' }, 'Each finding of the ranks\' own reports, once, with the ranks that have it: a number that differs between ranks shows as its range, the severity as the worst rank\'s, split by rank when they differ; expand one to read it as its worst rank has it.') : null,
    // Scrolls on its own when wider than the screen (a phone): the page itself did, sideways.
    table ? h('div', { className: 'rollup-scroll' }, table) : null,
  );
}
