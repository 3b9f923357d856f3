// The report's tables as CSV files (RFC 4180: comma, CRLF, fields with , " or a line break quoted).
// A table is any array of objects in the report, at the top level (findings, diagnostics) or one
// level down (steps.rows, kernels.rows, sync.calls, ...), so tables added to the report later are
// exported too. Columns are the union of the rows' keys in order of first appearance.
//
// Spreadsheet safety: a text cell starting with = + - @ or a tab would be run as a formula by Excel
// and LibreOffice (a kernel name is trace data, so anyone could plant one); such cells get a leading
// apostrophe (OWASP's advice). Numbers are written as numbers.

const FORMULA_START = /^[=+\-@\t\r]/;

function field(v) {
  let s;
  if (v === null || v === undefined) s = '';
  else if (typeof v === 'number' || typeof v === 'boolean') s = String(v);
  else if (typeof v === 'string') s = FORMULA_START.test(v) ? `'${v}` : v;
  else s = JSON.stringify(v); // arrays (e.g. cpu_ops) and objects (evidence) as JSON text
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function toCsv(rows) {
  const columns = [];
  const seen = new Set();
  for (const row of rows) {
    for (const key of Object.keys(row)) {
      if (!seen.has(key)) {
        seen.add(key);
        columns.push(key);
      }
    }
  }
  const lines = [columns.map(field).join(',')];
  for (const row of rows) lines.push(columns.map((c) => field(row[c])).join(','));
  return lines.join('\r\n') + '\r\n';
}

const isTable = (v) => Array.isArray(v) && v.length > 0 && v.every((x) => x && typeof x === 'object' && !Array.isArray(x));

// [{name: 'kernels', rows}, ...] in the report's key order; names join the keys with '_' unless the
// inner key is `rows` (kernels.rows -> kernels, sync.calls -> sync_calls).
export function reportTables(report) {
  const tables = [];
  for (const [key, value] of Object.entries(report || {})) {
    if (isTable(value)) tables.push({ name: key, rows: value });
    else if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [inner, rows] of Object.entries(value)) {
        if (isTable(rows)) tables.push({ name: inner === 'rows' ? key : `${key}_${inner}`, rows });
      }
    }
  }
  return tables;
}
