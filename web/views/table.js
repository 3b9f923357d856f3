// A sortable, filterable table. Sorting and filtering run on the report's rows in memory; only the
// first `limit` matching rows become DOM nodes, so a trace with thousands of kernels stays quick.
import { h } from './dom.js';
import { fmtAny, fmtInt, fmtPct, isNum, labelFor } from './format.js';
// Long names: clamped to two lines, whole on a click or from the keyboard (clamp.js).
export { clampedName } from './clamp.js';

// columns: [{key, label, num?, fmt?(value, row) -> string | Node, title?}]
// A column no row has a value for (null or absent in every row: bus bandwidth of collectives
// without sizes, say) is left out of the page; the CSV keeps it, as the report's fields. `keep`:
// a column drawn from other fields of its row stays.
// csv: {name, dataset, text(rows) -> string} replaces the default CSV of the shown columns (the
// Ranks table's CSV has every field of a rank, its per-step means included).

const hasValue = (v) => v !== null && v !== undefined;

export function dataTable({ columns: allColumns, rows, sortKey, sortDesc = true, filterKeys = null, limit = 500, label, csv = null }) {
  const columns = rows.length ? allColumns.filter((col) => col.keep || rows.some((r) => hasValue(r[col.key]))) : allColumns;
  const state = { key: sortKey, desc: sortDesc, query: '' };
  const tbody = h('tbody');
  const count = h('span', { className: 'muted table-count' });
  const heads = columns.map((col) => {
    const btn = h('button', { type: 'button', className: 'sort', title: col.title || `Sort by ${col.label}` }, col.label);
    const th = h('th', { scope: 'col', className: col.num ? 'num' : null, dataset: { key: col.key } }, btn);
    btn.addEventListener('click', () => {
      if (state.key === col.key) state.desc = !state.desc;
      else {
        state.key = col.key;
        state.desc = !!col.num; // numbers largest first, text A to Z
      }
      draw();
    });
    return th;
  });

  function compare(a, b) {
    const x = a[state.key];
    const y = b[state.key];
    let c;
    if (typeof x === 'number' && typeof y === 'number') c = x - y;
    else if (x === null || x === undefined) c = y === null || y === undefined ? 0 : 1;
    else if (y === null || y === undefined) c = -1;
    else c = String(x).localeCompare(String(y));
    return state.desc ? -c : c;
  }

  // The rows as filtered and sorted now (all of them, not only the first `limit`).
  function visibleRows() {
    const q = state.query.trim().toLowerCase();
    let shown = rows;
    if (q && filterKeys) {
      shown = rows.filter((r) => filterKeys.some((k) => String(r[k] ?? '').toLowerCase().includes(q)));
    }
    if (state.key) shown = [...shown].sort(compare);
    return shown;
  }

  function draw() {
    const shown = visibleRows();
    const nodes = shown.slice(0, limit).map((row) =>
      h(
        'tr',
        null,
        columns.map((col) => {
          const v = row[col.key];
          return h('td', { className: col.num ? 'num' : col.className || null }, col.fmt ? col.fmt(v, row) : v);
        }),
      ),
    );
    tbody.replaceChildren(...nodes);
    for (const th of heads) {
      const on = th.dataset.key === state.key;
      th.setAttribute('aria-sort', on ? (state.desc ? 'descending' : 'ascending') : 'none');
    }
    const of = shown.length === rows.length ? `${fmtInt(rows.length)}` : `${fmtInt(shown.length)} of ${fmtInt(rows.length)}`;
    count.textContent =
      shown.length > limit ? `showing the first ${fmtInt(limit)} of ${of} rows` : `${of} row${rows.length === 1 ? '' : 's'}`;
  }

  const tools = [];
  if (filterKeys) {
    const input = h('input', {
      type: 'search',
      className: 'filter',
      placeholder: 'Filter by name…',
      'aria-label': `Filter ${label || 'rows'}`,
    });
    input.addEventListener('input', () => {
      state.query = input.value;
      draw();
    });
    tools.push(input);
  }
  if (filterKeys || rows.length > limit) tools.push(count);
  tools.push(csv ? csvButton(null, () => visibleRows(), label, csv) : csvButton(allColumns, () => visibleRows(), label));
  draw();
  return h(
    'div',
    { className: 'table-block' },
    tools.length ? h('div', { className: 'table-tools' }, tools) : null,
    h('div', { className: 'table-scroll' }, h('table', { className: 'data', 'aria-label': label }, h('thead', null, h('tr', null, heads)), tbody)),
  );
}

// Columns for any row keys not in `known`, so fields added to the report later still show up.
export function extraColumns(rows, known, fmt) {
  const seen = new Set(known);
  const extra = [];
  for (const row of rows.slice(0, 50)) {
    for (const key of Object.keys(row)) {
      if (seen.has(key)) continue;
      seen.add(key);
      extra.push({ key, label: labelFor(key), num: typeof row[key] === 'number', fmt: (v) => fmt(key, v) });
    }
  }
  return extra;
}

// A percentage as a number plus a small bar (its width set through CSSOM, which the CSP allows).
export function shareCell(v) {
  if (!isNum(v)) return fmtAny(v);
  const fill = h('span', { className: 'share-fill' });
  fill.style.width = `${Math.min(100, Math.max(0, v))}%`;
  return h('span', { className: 'share' }, h('span', { className: 'share-bar' }, fill), fmtPct(v));
}

// CSV of the rows (RFC 4180 quoting; raw values, microseconds as in the report, not the formatted
// text; strings that start like a spreadsheet formula get a leading '), downloaded from a Blob
// URL (the CSP allows blob:). Each column once, by its key.
export function toCsv(columns, rows) {
  const cols = [];
  const seen = new Set();
  for (const c of columns) {
    if (seen.has(c.key)) continue;
    seen.add(c.key);
    cols.push(c.key);
  }
  const cell = (v) => {
    if (v === null || v === undefined) return '';
    let text = typeof v === 'object' ? JSON.stringify(v) : String(v);
    // A trace string starting like a formula would run as one in a spreadsheet: keep it text.
    if (typeof v === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  const lines = [cols.join(',')];
  for (const r of rows) lines.push(cols.map((k) => cell(r[k])).join(','));
  return lines.join('\r\n') + '\r\n';
}

function csvButton(columns, rowsNow, label, custom = null) {
  const name = custom ? custom.name : `${String(label || 'table').replace(/[^A-Za-z0-9_-]+/g, '_')}.csv`;
  return h(
    'button',
    {
      type: 'button',
      className: 'button csv',
      dataset: custom && custom.dataset ? custom.dataset : {},
      title: `Download the rows shown (filtered, sorted) as ${name}`,
      onclick: () => {
        const text = custom ? custom.text(rowsNow()) : toCsv(columns, rowsNow());
        const url = URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
        const a = h('a', { href: url, download: name });
        document.body.appendChild(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(url), 1000);
      },
    },
    'CSV',
  );
}
