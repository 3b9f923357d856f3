// The area-selection table: per slice name in the selected time range and tracks, count, time in
// the range (each slice clipped to it, as Perfetto's area selection sums wall time), and the self,
// average, shortest and longest time of its slices inside the range, with the whole slices' total
// beside them (the worker's aggregateJson, src/timeline_query/aggregate.h: the same JSON as
// `kinetoscope aggregate`). Sortable and filterable like the report's tables; a row's button shows
// that name's occurrences on the timeline.
import { h } from '../views/dom.js';
import { inertName } from '../views/inert.js';
import { fmtInt, fmtUs } from '../views/format.js';
import { dataTable } from '../views/table.js';
import { clampedName } from '../views/clamp.js';

const CLIPPED = 'Of each slice clipped to the selected range: ';

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
    // Every time column but the last is of the slices clipped to the selection (a 177 ms step
    // overlapping a 5 ms range counts 5 ms there); the whole-slice total stays beside them, as
    // `kinetoscope aggregate` writes both.
    h('br'),
    h('span', { className: 'muted' }, 'Times are inside the selection (each slice clipped to it); “Whole slices” sums the full slices that overlap it.'),
  );
  const nameCell = (v) =>
    h(
      'span',
      { className: 'tl-agg-name' },
      h('button', { type: 'button', className: 'tl-show', title: 'Show these on the timeline', 'aria-label': 'Show these on the timeline', onclick: () => onShow && onShow(v) }),
      clampedName(inertName(v)),
    );
  const columns = [
    { key: 'name', label: 'Name', className: 'name', fmt: nameCell },
    { key: 'kind', label: 'Kind', title: 'CPU op, runtime call, kernel, ...: what the slices of that name are', fmt: (v) => (v ? String(v).replace('_', ' ') : '—') },
    { key: 'count', label: 'Count', num: true, fmt: fmtInt },
    { key: 'in_range_us', label: 'In range', title: 'Time inside the selected range: each slice clipped to it; nested slices of one name (recursion) count once per track', num: true, fmt: fmtUs },
    { key: 'in_range_self_us', label: 'Self', title: CLIPPED + 'its time in the range minus its children\'s, summed', num: true, fmt: fmtUs },
    { key: 'in_range_avg_us', label: 'Avg', title: CLIPPED + 'the average time of one slice in the range', num: true, fmt: fmtUs },
    { key: 'in_range_min_us', label: 'Min', title: CLIPPED + 'the shortest', num: true, fmt: fmtUs },
    { key: 'in_range_max_us', label: 'Max', title: CLIPPED + 'the longest', num: true, fmt: fmtUs },
    // The one column of whole slices, last: a slice that starts before or ends after the range
    // counts whole here (the JSON keeps their self, avg, min and max too).
    { key: 'total_us', label: 'Whole slices', title: 'The full durations of the slices that overlap the range, summed: a slice that starts before or ends after it counts whole', num: true, fmt: fmtUs },
  ];
  box.replaceChildren(head, dataTable({ columns, rows: agg.rows, sortKey: 'in_range_us' in (agg.rows[0] || {}) ? 'in_range_us' : 'total_us', filterKeys: ['name'], limit: 300, label: 'area selection' }));
}
