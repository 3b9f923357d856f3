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
  return [...groups.values()].sort((a, b) => RANK[a.severity] - RANK[b.severity] || b.ranks.length - a.ranks.length);
}

function rankList(g, total, openRank, straggler) {
  return h(
    'span',
    { className: 'rollup-ranks' },
    g.ranks.map((r) =>
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
      ),
    ),
    h('span', { className: 'muted' }, g.ranks.length === total ? ` all ${fmtInt(total)} ranks` : ` ${fmtInt(g.ranks.length)} of ${fmtInt(total)} ranks`),
  );
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
              h('td', null, h('details', null, h('summary', null, fmtAny(g.title)), card(g.first)), h('span', { className: 'muted finding-id' }, g.id)),
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
    groups.length ? h('p', { className: 'muted' }, 'Each finding of the ranks\' own reports, once, with the ranks that have it; expand one to read it (as the first rank listed has it).') : null,
    table,
  );
}
