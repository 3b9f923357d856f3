// Names that differ only in template arguments are the same kernel (a changed dtype or tile size in
// `cutlass::Kernel<...>`): the diff the core writes matches names exactly, so such a kernel shows
// as one name added and one removed. The page pairs them again (issue 18, item 4) and says so.

// The name with every <...> (nested) replaced by <…>; operator<< and the like are rare in kernel
// names. A name cut inside its template arguments (traces cut long names) ends in <…> too.
export function normalizeTemplates(name) {
  let out = '';
  let depth = 0;
  for (const c of String(name)) {
    if (c === '<') {
      if (depth === 0) out += '<…>';
      depth++;
    } else if (c === '>' && depth > 0) depth--;
    else if (depth === 0) out += c;
  }
  return out;
}

// A copy of the table (gpu_ops / cpu_ops) whose added+removed pairs with the same normalized name
// (one of each) become one row, status 'changed', with `matched: true` and both names.
export function matchTemplates(t) {
  if (!t || !Array.isArray(t.rows)) return t;
  const byKey = new Map();
  for (const r of t.rows) {
    if (r.status !== 'added' && r.status !== 'removed') continue;
    const key = normalizeTemplates(r.name);
    if (key === r.name) continue; // no template arguments to ignore
    const e = byKey.get(key) || { added: [], removed: [] };
    e[r.status].push(r);
    byKey.set(key, e);
  }
  const merged = new Map(); // row -> replacement (null: dropped)
  let matched = 0;
  for (const e of byKey.values()) {
    if (e.added.length !== 1 || e.removed.length !== 1) continue; // ambiguous: left as they are
    const [a] = e.added;
    const [b] = e.removed;
    const row = {
      name: a.name,
      base_name: b.name,
      matched: true,
      status: 'changed',
      base_count: b.base_count,
      test_count: a.test_count,
      count_delta: a.test_count - b.base_count,
      base_total_us: b.base_total_us,
      test_total_us: a.test_total_us,
      delta_us: a.test_total_us - b.base_total_us,
      base_count_per_step: b.base_count_per_step,
      test_count_per_step: a.test_count_per_step,
      base_per_step_us: b.base_per_step_us,
      test_per_step_us: a.test_per_step_us,
      delta_per_step_us: a.test_per_step_us - b.base_per_step_us,
      // Per step, as the core's delta_pct (the per-step values are the totals without steps).
      delta_pct: b.base_per_step_us ? ((a.test_per_step_us - b.base_per_step_us) / b.base_per_step_us) * 100 : null,
    };
    merged.set(a, row);
    merged.set(b, null);
    matched++;
  }
  if (!matched) return { ...t, matched: 0 };
  const rows = [];
  for (const r of t.rows) {
    if (!merged.has(r)) rows.push(r);
    else if (merged.get(r)) rows.push(merged.get(r));
  }
  rows.sort((x, y) => Math.abs(y.delta_per_step_us) - Math.abs(x.delta_per_step_us) || String(x.name).localeCompare(String(y.name)));
  const gone = new Set([...merged.keys()].map((r) => r.name));
  return {
    ...t,
    rows,
    matched,
    added: t.added - matched,
    removed: t.removed - matched,
    changed: t.changed + matched,
    added_names: (t.added_names || []).filter((n) => !gone.has(n)),
    removed_names: (t.removed_names || []).filter((n) => !gone.has(n)),
  };
}

// Findings by id: those only TEST has, and those only BASE had.
export function findingChanges(base, test) {
  const ids = (r) => new Map(((r && r.findings) || []).map((f) => [f.id, f]));
  const b = ids(base);
  const t = ids(test);
  return {
    added: [...t.values()].filter((f) => !b.has(f.id)),
    gone: [...b.values()].filter((f) => !t.has(f.id)),
  };
}
