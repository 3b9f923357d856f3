// The job at a glance, under the ranks view's title: one line of numbers in the order an engineer
// reads a distributed run (step time across ranks, the straggler, time waiting in collectives,
// GPU idle), each linking to its section, as the single-trace report has (views/glance.js).
// Without it the first screen held the straggler's card and nothing to compare the ranks by.
import { h } from '../views/dom.js';
import { fmtPct, fmtUs, isNum } from '../views/format.js';
import { glanceItem } from '../views/glance.js';

// The lowest and highest value of `key` over the ranks, with the rank of each; null when none.
function spread(ranks, key) {
  let lo = null;
  let hi = null;
  for (const r of ranks) {
    if (!isNum(r[key])) continue;
    if (!lo || r[key] < lo[key]) lo = r;
    if (!hi || r[key] > hi[key]) hi = r;
  }
  return lo ? { lo: lo[key], hi: hi[key], loRank: lo.rank, hiRank: hi.rank } : null;
}

// "835 µs on every rank" rather than "835 µs (rank 0) to 835 µs (rank 0)" when the ranks agree.
const perRank = (s) => (s.lo === s.hi ? `${fmtUs(s.lo)} on every rank` : `${fmtUs(s.lo)} (rank ${s.loRank}) to ${fmtUs(s.hi)} (rank ${s.hiRank})`);

function steps(ranks) {
  const s = spread(ranks, 'step_median_us');
  if (!s) return glanceItem('Step time', '#ranks', 'no rank has steps');
  if (s.lo === s.hi) return glanceItem('Step time', '#ranks', `median ${fmtUs(s.lo)} on every rank`);
  const pct = s.lo > 0 ? `, ${fmtPct((100 * (s.hi - s.lo)) / s.lo)} apart` : '';
  return glanceItem('Step time (median per rank)', '#ranks', `${perRank(s)}${pct}`);
}

function straggler(multi) {
  const f = (multi.findings || []).find((x) => x.id === 'ranks.straggler' && x.evidence);
  if (!f) return glanceItem('Straggler', '#findings', 'none: the ranks wait alike');
  const e = f.evidence;
  const value = isNum(e.its_communication_us) && isNum(e.others_median_us)
    ? `rank ${e.rank}: collectives ${fmtUs(e.its_communication_us)}, others ${fmtUs(e.others_median_us)}`
    : `rank ${e.rank}`;
  // What makes it slow, when the ranks show it (the finding's likely_cause): the first thing a
  // user looks for after the rank.
  const cause = typeof e.likely_cause === 'string' && e.likely_cause && !e.likely_cause.startsWith('unknown') ? `; likely ${e.likely_cause}` : '';
  return glanceItem('Straggler (shortest communication)', '#findings', `${value}${cause}`, f.title);
}

function waiting(ranks) {
  const s = spread(ranks, 'wait_us');
  return s && s.hi > 0 ? glanceItem('Waiting in collectives', '#ranks', perRank(s)) : null;
}

function idle(ranks) {
  const s = spread(ranks, 'idle_us');
  return s ? glanceItem('GPU idle per rank', '#ranks', perRank(s)) : null;
}

export function ranksGlance(multi) {
  const ranks = (multi && Array.isArray(multi.ranks) ? multi.ranks : []).filter((r) => r && isNum(r.rank));
  if (!ranks.length) return null;
  const items = [steps(ranks), straggler(multi), waiting(ranks), idle(ranks)].filter(Boolean);
  return h('dl', { className: 'glance', 'aria-label': 'The job at a glance' }, items);
}
