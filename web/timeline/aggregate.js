// The area-selection table: per slice name in the selected time range and tracks, count, time in
// the range (each slice clipped to it, as Perfetto's area selection sums wall time), whole-slice
// total, self, avg, min, max (the worker's aggregateJson, src/timeline_query/aggregate.h: the same JSON as
// `kinetoscope aggregate`). Sortable and filterable like the report's tables; a row's button shows
// that name's occurrences on the timeline.
import { h } from '../views/dom.js';
import { inertName } from '../views/inert.js';
import { fmtInt, fmtUs } from '../views/format.js';
import { dataTable } from '../views/table.js';

const WHOLE = 'Of whole slices, not clipped to the range: ';

export function renderAggregate(box, agg, { onShow }) {
  if (!agg) {
    box.replaceChildren(h('p', { className: 'muted' }, 'Shift+drag across tracks to get the table of the slices in that range.'));
    return;
  }
  const span = agg.to_us - agg.from_us;
  const head = h(
    'p',
    { className: 'tl-area-head' },
    `${fmtInt(agg.slices)} slices on ${fmtInt(agg.tracks.length)} tracks, ${fmtUs(agg.from_us)} → ${fmtUs(agg.to_us)} (${fmtUs(span)})`,
    // In range: each slice clipped to the selection (a 177 ms step overlapping a 5 ms range counts
    // 5 ms there); the whole-slice total stays beside it, as `kinetoscope aggregate` writes both.
    h('br'),
    h('span', { className: 'muted' }, '“In range” is the time inside the selection; the “Whole” columns are of the full slices that overlap it (not clipped).'),
  );
  const nameCell = (v) =>
    h(
      'span',
      { className: 'tl-agg-name' },
      h('button', { type: 'button', className: 'tl-show', title: 'Show these on the timeline', 'aria-label': 'Show these on the timeline', onclick: () => onShow && onShow(v) }),
      h('span', { className: 'clamp', title: inertName(v) }, inertName(v)),
    );
  const columns = [
    { key: 'name', label: 'Name', className: 'name', fmt: nameCell },
    { key: 'kind', label: 'Kind', title: 'CPU op, runtime call, kernel, ...: what the slices of that name are', fmt: (v) => (v ? String(v).replace('_', ' ') : '—') },
    { key: 'count', label: 'Count', num: true, fmt: fmtInt },
    { key: 'in_range_us', label: 'In range', title: 'Time inside the selected range: each slice clipped to it; nested slices of one name (recursion) count once per track', num: true, fmt: fmtUs },
    { key: 'total_us', label: 'Whole slices', title: 'The full durations of the slices that overlap the range, summed: a slice that starts before or ends after it counts whole', num: true, fmt: fmtUs },
    // Self, avg, min and max are of whole slices too (a 177 ms step in a 5 ms range has a 177 ms
    // max): their labels say so, lest they be read as the clipped "In range" time beside them.
    { key: 'self_us', label: 'Whole self', title: WHOLE + 'each slice\'s duration minus its children\'s, summed', num: true, fmt: fmtUs },
    { key: 'avg_us', label: 'Whole avg', title: WHOLE + 'the average full duration of one slice', num: true, fmt: fmtUs },
    { key: 'min_us', label: 'Whole min', title: WHOLE + 'the shortest full duration', num: true, fmt: fmtUs },
    { key: 'max_us', label: 'Whole max', title: WHOLE + 'the longest full duration', num: true, fmt: fmtUs },
  ];
  box.replaceChildren(head, dataTable({ columns, rows: agg.rows, sortKey: 'in_range_us' in (agg.rows[0] || {}) ? 'in_range_us' : 'total_us', filterKeys: ['name'], limit: 300, label: 'area selection' }));
}
