// The fleet view: a fleet.json (kinetoscope.fleet/1, written by `python3 -m fleet`; docs/fleet.md)
// dropped on the page like a trace. Hundreds to thousands of ranks, so no per-cell DOM: the
// rank x step heat map is one canvas filled pixel by pixel (a 4,096 x 100 map is 410k cells), the
// hover reads the cell under the pointer from the data, and only the lists the eye reads (the
// findings, the outliers, the nodes) are DOM. Ranks sort by rank, by node (a line between nodes)
// or by their mean; a rank's row opens a detail with its numbers and its own findings, and a
// button to open that rank's trace in a second tab (share/embed.js's postMessage handshake), so
// the fleet stays open beside it.
//
//   isFleetFile(file) -> Promise<bool>   (the first bytes name the schema)
//   initFleet({ui, settled, showError, setCurrent, stopOthers}).open(file) -> Promise<fleet doc>
import { h } from '../views/dom.js';
import { fmtInt } from '../views/format.js';
import { colorAt } from '../ranks/heatmap.js';

export const FLEET_SCHEMA = 'kinetoscope.fleet/1';

export async function isFleetFile(file) {
  if (!file || typeof file.slice !== 'function' || /\.gz$/i.test(file.name || '')) return false;
  const head = await file.slice(0, 512).text();
  return /^\s*\{\s*"schema"\s*:\s*"kinetoscope\.fleet\/1"/.test(head);
}

const METRICS = [
  ['step_time', 'step time'],
  ['collective_wait', 'collective wait'],
  ['compute', 'compute'],
  ['dataloader', 'data loading'],
];

const ms = (us) => (us === null || us === undefined ? '–' : `${(us / 1e3).toFixed(2)} ms`);

export function initFleet({ ui, settled, showError, setCurrent, stopOthers }) {
  async function open(file) {
    stopOthers();
    ui.error.hidden = true;
    ui.status.hidden = false;
    ui.statusText.textContent = `Reading ${file.name}`;
    ui.progress.removeAttribute('value');
    document.body.dataset.state = 'loading';
    let doc;
    try {
      doc = JSON.parse(await file.text());
      if (!doc || doc.schema !== FLEET_SCHEMA || !Array.isArray(doc.ranks)) throw new Error(`not a ${FLEET_SCHEMA} file`);
    } catch (err) {
      ui.status.hidden = true;
      showError(file.name, { code: 'bad_fleet', message: err.message });
      settled('error');
      throw err;
    }
    const t0 = performance.now();
    ui.report.replaceChildren(renderFleet(doc, file.name));
    ui.status.hidden = true;
    setCurrent(doc);
    document.body.dataset.fleetRenderMs = String(Math.round(performance.now() - t0));
    settled('ready');
    return doc;
  }
  return { open };
}

// Ranks named by a finding, and the nodes named by a node finding.
function accused(doc) {
  const ranks = new Map();
  const nodes = new Set();
  for (const f of doc.findings || []) {
    const ev = f.evidence || {};
    for (const r of ev.ranks || []) {
      if (!ranks.has(r)) ranks.set(r, []);
      ranks.get(r).push(f);
    }
    if (/_node$/.test(f.id)) for (const n of ev.nodes || []) nodes.add(n);
  }
  return { ranks, nodes };
}

function renderFleet(doc, name) {
  const ranks = doc.ranks;
  const nodes = doc.nodes || [];
  const bad = accused(doc);
  const root = h('section', { className: 'fleet', dataset: { ranks: String(ranks.length) } });
  const detail = h('div', { className: 'fleet-detail', hidden: true });
  const map = heatMap(doc, bad, (k) => showRank(k));
  const byRank = new Map(ranks.map((r, k) => [r.rank, k]));

  function showRank(k) {
    const r = ranks[k];
    map.select(k);
    detail.hidden = false;
    const input = h('input', { type: 'file', accept: '.json,.gz', hidden: true });
    input.addEventListener('change', () => {
      if (input.files[0]) openBeside(input.files[0]);
    });
    detail.replaceChildren(
      h('h3', null, `Rank ${r.rank}`, r.node ? ` on ${r.node}` : ''),
      h('p', { className: 'fleet-file' }, r.path || r.file || ''),
      h('dl', null, ...[
        ['step (median)', ms(r.step_median_us)], ['compute', ms(r.compute_us)],
        ['communication', ms(r.collective_sum_us)], ['collective wait', ms(r.wait_us)],
        ['data loading', ms(r.dataloader_us)], ['GPU idle', ms(r.idle_us)],
      ].flatMap(([k2, v]) => [h('dt', null, k2), h('dd', null, v)])),
      (bad.ranks.get(r.rank) || []).length
        ? h('ul', { className: 'fleet-why' }, ...bad.ranks.get(r.rank).map((f) => h('li', null, f.title)))
        : null,
      (r.own_findings || []).length
        ? h('details', null, h('summary', null, `Its own report's findings (${r.own_findings.length})`),
          h('ul', null, ...r.own_findings.map((f) => h('li', null, `[${f.severity}] ${f.title}`))))
        : null,
      h('button', { type: 'button', className: 'fleet-open', onclick: () => input.click() }, `Open rank ${r.rank}'s trace in a new tab…`),
      input,
    );
  }

  const head = h('div', { className: 'report-head' },
    h('h2', null, `Fleet: ${fmtInt(ranks.length)} ranks on ${fmtInt(nodes.length)} nodes`),
    h('p', null, `${name} · ${fmtInt(doc.inputs ?? ranks.length)} files, ${fmtInt((doc.failed || []).length)} failed · ${doc.schema}`));

  const findings = h('ul', { className: 'fleet-findings' }, ...(doc.findings || []).map((f) => {
    const ev = f.evidence || {};
    const links = (ev.ranks || []).slice(0, 32).map((rk) => h('button', {
      type: 'button', className: 'fleet-rank-link', dataset: { rank: String(rk) },
      onclick: () => { if (byRank.has(rk)) showRank(byRank.get(rk)); },
    }, String(rk)));
    return h('li', { className: `sev-${f.severity}`, dataset: { id: f.id } },
      h('strong', null, f.title), ' ', h('code', null, f.id),
      /_node$/.test(f.id) && (ev.nodes || []).length ? h('div', null, 'node ', ev.nodes.join(', ')) : null,
      links.length ? h('div', { className: 'fleet-links' }, 'ranks ', ...links, (ev.ranks || []).length > 32 ? ' …' : '') : null);
  }));
  if (!(doc.findings || []).length) findings.append(h('li', null, 'No rank or node stands out.'));

  const nodeRows = nodes.slice().sort((a, b) => (b.compute_us || 0) - (a.compute_us || 0)).slice(0, 64);
  const nodeTable = h('table', { className: 'fleet-nodes' },
    h('thead', null, h('tr', null, ...['node', 'ranks', 'step median', 'compute', 'communication', 'data loading'].map((t) => h('th', null, t)))),
    h('tbody', null, ...nodeRows.map((n) => h('tr', {
      className: bad.nodes.has(n.node) ? 'fleet-bad' : null,
      onclick: () => map.sortBy('node', n.node),
    }, h('td', null, n.node), h('td', { className: 'num' }, String(n.ranks.length)),
    h('td', { className: 'num' }, ms(n.step_median_us)), h('td', { className: 'num' }, ms(n.compute_us)),
    h('td', { className: 'num' }, ms(n.collective_sum_us)), h('td', { className: 'num' }, ms(n.dataloader_us))))));

  const failed = (doc.failed || []).length
    ? h('section', null, h('h3', null, `Files that failed (${doc.failed.length})`),
      h('ul', null, ...doc.failed.map((e) => h('li', null, h('code', null, e.path), `: ${e.error}`))))
    : null;

  root.append(head,
    h('h3', null, 'Findings'), findings,
    h('h3', null, 'Rank × step'), map.node, detail,
    h('h3', null, `Nodes${nodes.length > 64 ? ' (the 64 with the most compute)' : ''}`), nodeTable,
    failed);
  return root;
}

// The heat map's colour scale per metric: scaleOf(metric) -> [lo, hi], the 1st to 99th
// percentile, so one extreme cell does not flatten it (computed once per metric, from a sample of
// at most ~200k cells, sorted).
function heatScales(heat, steps) {
  const scales = new Map();
  return function scaleOf(m) {
    if (scales.has(m)) return scales.get(m);
    const all = [];
    const rows = heat[m] || [];
    const stride = Math.max(1, Math.floor((rows.length * steps.length) / 200000));
    let c = 0;
    for (const row of rows) for (const v of row) if (v !== null && (c++ % stride === 0)) all.push(v);
    all.sort((a, b) => a - b);
    const lo = all.length ? all[Math.floor(all.length * 0.01)] : 0;
    const hi = all.length ? all[Math.min(all.length - 1, Math.floor(all.length * 0.99))] : 1;
    scales.set(m, [lo, hi]);
    return [lo, hi];
  };
}

// Colours as one 32-bit pixel each (ImageData is RGBA bytes; little-endian: ABGR as a word).
const little = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const word = ([r, g, b]) => (little ? ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0 : ((r << 24) | (g << 16) | (b << 8) | 255) >>> 0);
const LUT = Array.from({ length: 256 }, (_, i) => word(colorAt(i / 255).match(/\d+/g).map(Number)));
const MISSING = word([205, 205, 205]);
const RED = word([214, 40, 40]);
const BLUE = word([40, 90, 220]);

// The canvas heat map. Rows: ranks in the chosen order; columns: step numbers. Each cell is
// cw x rh pixels, rh shrinking to 1 px for thousands of ranks (the canvas scrolls).
function heatMap(doc, bad, onPick) {
  const heat = doc.heatmap || { steps: [] };
  const ranks = doc.ranks;
  const steps = heat.steps || [];
  const n = ranks.length;
  const rh = n > 600 ? 1 : Math.max(2, Math.min(14, Math.floor(600 / Math.max(1, n))));
  const cw = Math.max(4, Math.min(24, Math.floor(720 / Math.max(1, steps.length))));
  const canvas = h('canvas', { className: 'fleet-heat', width: String(steps.length * cw + 8), height: String(n * rh) });
  const tip = h('div', { className: 'fleet-tip' }, 'Point at a cell; click a rank to see it.');
  let metric = 'step_time';
  let order = ranks.map((_, k) => k);
  let selected = -1;
  let bounds = null; // node boundaries (row indexes) when sorted by node

  const metricSel = h('select', { 'aria-label': 'metric' }, ...METRICS.map(([k, label]) => h('option', { value: k }, label)));
  const orderSel = h('select', { 'aria-label': 'order' },
    h('option', { value: 'rank' }, 'by rank'), h('option', { value: 'node' }, 'by node'), h('option', { value: 'value' }, 'by mean, highest first'));
  metricSel.addEventListener('change', () => { metric = metricSel.value; if (orderSel.value === 'value') sortBy('value'); else draw(); });
  orderSel.addEventListener('change', () => sortBy(orderSel.value));

  function values(k) {
    return (heat[metric] || [])[k] || [];
  }

  function sortBy(how, node) {
    orderSel.value = how;
    order = ranks.map((_, k) => k);
    bounds = null;
    if (how === 'node') {
      order.sort((a, b) => String(ranks[a].node).localeCompare(String(ranks[b].node)) || ranks[a].rank - ranks[b].rank);
      bounds = [];
      for (let i = 1; i < order.length; i++) if (ranks[order[i]].node !== ranks[order[i - 1]].node) bounds.push(i);
    } else if (how === 'value') {
      const mean = (k) => { const v = values(k).filter((x) => x !== null); return v.length ? v.reduce((s, x) => s + x, 0) / v.length : -1; };
      const m = order.map(mean);
      order.sort((a, b) => m[b] - m[a] || a - b);
    }
    draw();
    if (node !== undefined) {
      const i = order.findIndex((k) => ranks[k].node === node);
      if (i >= 0) wrap.scrollTop = Math.max(0, i * rh - 40);
    }
  }

  const scaleOf = heatScales(heat, steps);

  function draw() {
    const ctx = canvas.getContext('2d');
    const W = canvas.width;
    const H = canvas.height;
    const [lo, hi] = scaleOf(metric);
    const span = hi > lo ? hi - lo : 1;
    const img = ctx.createImageData(W, H);
    const px = new Uint32Array(img.data.buffer);
    for (let i = 0; i < order.length; i++) {
      const k = order[i];
      const v = values(k);
      const y0 = i * rh * W;
      for (let j = 0; j < steps.length; j++) {
        const x = v[j];
        const c = x === null || x === undefined ? MISSING : LUT[Math.max(0, Math.min(255, Math.round(((x - lo) / span) * 255)))];
        px.fill(c, y0 + j * cw, y0 + (j + 1) * cw);
      }
      // A mark at the right edge for ranks a finding names (red) and the selected rank (blue).
      const mark = k === selected ? BLUE : bad.ranks.has(ranks[k].rank) ? RED : 0;
      if (mark) px.fill(mark, y0 + steps.length * cw + 2, y0 + steps.length * cw + 8);
      for (let y = 1; y < rh; y++) px.copyWithin(y0 + y * W, y0, y0 + W); // the row's other lines
    }
    ctx.putImageData(img, 0, 0);
    if (bounds) {
      ctx.fillStyle = '#fff';
      for (const b of bounds) ctx.fillRect(0, b * rh, steps.length * cw, rh > 3 ? 1 : 0.5);
    }
    legend.textContent = `${METRICS.find((m) => m[0] === metric)[1]}: ${ms(lo)} (dark) to ${ms(hi)} (yellow), 1st–99th percentile; red mark: a finding names the rank`;
  }

  function cellAt(e) {
    const r = canvas.getBoundingClientRect();
    const x = (e.clientX - r.left) * (canvas.width / r.width);
    const y = (e.clientY - r.top) * (canvas.height / r.height);
    const i = Math.floor(y / rh);
    const j = Math.floor(x / cw);
    if (i < 0 || i >= order.length) return null;
    return { k: order[i], j: j < steps.length ? j : -1 };
  }
  canvas.addEventListener('mousemove', (e) => {
    const c = cellAt(e);
    if (!c) return;
    const r = ranks[c.k];
    const v = c.j >= 0 ? values(c.k)[c.j] : null;
    tip.textContent = `rank ${r.rank}${r.node ? ` (${r.node})` : ''}${c.j >= 0 ? ` · step ${steps[c.j]}: ${ms(v)}` : ''}`;
  });
  canvas.addEventListener('click', (e) => {
    const c = cellAt(e);
    if (c) onPick(c.k);
  });

  const legend = h('div', { className: 'fleet-legend' });
  const wrap = h('div', { className: 'fleet-heat-wrap' }, canvas);
  const node = h('div', { className: 'fleet-map' }, h('div', { className: 'fleet-controls' }, metricSel, ' ', orderSel), wrap, tip, legend);
  draw();
  return {
    node,
    sortBy,
    select(k) {
      selected = k;
      draw();
      const i = order.indexOf(k);
      if (i >= 0 && (i * rh < wrap.scrollTop || i * rh > wrap.scrollTop + wrap.clientHeight)) wrap.scrollTop = Math.max(0, i * rh - 40);
    },
  };
}

// A rank's trace in a second tab, beside the fleet: the page there says 'kinetoscope-ready' and
// takes the file by postMessage (share/embed.js).
function openBeside(file) {
  const w = window.open(location.pathname, '_blank');
  if (!w) return;
  const onMsg = (e) => {
    if (e.source !== w || !e.data || e.data.type !== 'kinetoscope-ready') return;
    window.removeEventListener('message', onMsg);
    w.postMessage({ type: 'kinetoscope-open', name: file.name, buffer: file }, location.origin !== 'null' ? location.origin : '*');
  };
  window.addEventListener('message', onMsg);
}
