// Structural comparison of two JSON values; returns one line per difference ("$.a.b[3]: 1 != 2"),
// so a failing test says where the page's report and the CLI's part ways.
function show(v) {
  const s = JSON.stringify(v);
  return s === undefined ? 'undefined' : s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

export function diffJson(expected, actual, path = '$', out = []) {
  if (out.length >= 50) return out;
  const te = Array.isArray(expected) ? 'array' : expected === null ? 'null' : typeof expected;
  const ta = Array.isArray(actual) ? 'array' : actual === null ? 'null' : typeof actual;
  if (te !== ta) {
    out.push(`${path}: expected ${show(expected)}, got ${show(actual)}`);
  } else if (te === 'array') {
    if (expected.length !== actual.length) out.push(`${path}: expected ${expected.length} items, got ${actual.length}`);
    const n = Math.min(expected.length, actual.length);
    for (let i = 0; i < n; i++) diffJson(expected[i], actual[i], `${path}[${i}]`, out);
  } else if (te === 'object') {
    for (const k of Object.keys(expected)) {
      if (!(k in actual)) out.push(`${path}.${k}: missing`);
      else diffJson(expected[k], actual[k], `${path}.${k}`, out);
    }
    for (const k of Object.keys(actual)) if (!(k in expected)) out.push(`${path}.${k}: unexpected key`);
  } else if (!Object.is(expected, actual)) {
    out.push(`${path}: expected ${show(expected)}, got ${show(actual)}`);
  }
  return out;
}
