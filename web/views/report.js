// The whole report, in reading order: findings first, then the facts and tables behind them.
// Top-level keys this page does not know yet are still shown, as formatted JSON text.
import { h, section } from './dom.js';
import { labelFor } from './format.js';
import { factsView } from './facts.js';
import { findingsView } from './findings.js';
import { stepsView } from './steps.js';
import { kernelsView } from './kernels.js';
import { memoryView } from './memory.js';
import { diagnosticsView } from './diagnostics.js';
import { gpuView } from './gpu.js';
import { syncView } from './sync.js';

const VIEWS = [
  ['findings', findingsView],
  ['trace', factsView],
  ['steps', stepsView],
  ['gpu', gpuView],
  ['kernels', kernelsView],
  ['memory_ops', memoryView],
  ['sync', syncView],
  ['diagnostics', diagnosticsView],
];
// Shown in the report header (app.js) rather than as sections.
const QUIET = new Set(['schema', 'generator', 'options']);

function other(key, value) {
  return section(`extra-${key}`, labelFor(key), h('pre', { className: 'json' }, JSON.stringify(value, null, 2)));
}

export function renderReport(report) {
  const nodes = [];
  for (const [key, view] of VIEWS) {
    if (key in report) nodes.push(view(report[key]));
  }
  const known = new Set(VIEWS.map(([k]) => k));
  for (const [key, value] of Object.entries(report)) {
    if (!known.has(key) && !QUIET.has(key)) nodes.push(other(key, value));
  }
  return nodes.filter(Boolean);
}
