// The page's own warm-up: the first report a page shows ran its views' code for the first time
// (parsed, compiled, interpreted): 104-155 ms of the main thread for a 55 MB trace's report,
// against 21-62 ms after this warm-up (docs/performance.md, session 26). The spare loader sends the report
// of its warm-up trace (worker/warm.js); it is rendered here once, detached and never shown,
// while the page waits for a file, each view a task of its own so that a file given meanwhile
// is not held up.
import { renderView, VIEW_KEYS } from './report.js';
import { reportHead } from './report_head.js';

let done = false;
let running = false;

// Every list of rows grown to a real report's length (copies of its rows, each name made its own):
// a view's code is compiled for the long tables a real report has.
const ROWS = 300;
export function inflate(v, depth = 0) {
  if (depth > 6 || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    const items = v.map((x) => inflate(x, depth + 1));
    if (!items.length || typeof items[0] !== 'object' || items[0] === null || Array.isArray(items[0])) return items;
    for (let i = items.length; i < ROWS; i++) {
      const row = { ...items[i % v.length] };
      if (typeof row.name === 'string') row.name = `${row.name} ${i}`;
      items.push(row);
    }
    return items;
  }
  const out = {};
  for (const [k, x] of Object.entries(v)) out[k] = inflate(x, depth + 1);
  return out;
}
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

// Renders the warm-up's report (JSON text) once per page, a view a task, stopping as soon as
// busy() (a file is being read); a later spare's report tries again.
export async function warmViews(json, busy) {
  if (done || running || !json) return;
  running = true;
  try {
    const report = inflate(JSON.parse(json), 0);
    const sections = [];
    for (const key of VIEW_KEYS) {
      if (busy()) return;
      const node = renderView(report, key);
      if (node) sections.push(node);
      await nextTask();
    }
    if (busy()) return;
    reportHead(report, 'warm-up', '0.00', sections, []);
    done = true;
  } catch {
    done = true; // a view that fails on the warm-up's report fails visibly on a real one, not here
  } finally {
    running = false;
  }
}
