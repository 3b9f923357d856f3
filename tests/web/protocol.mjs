#!/usr/bin/env node
// The worker's message protocol is named once (web/worker/protocol.js) and both sides use it:
//  - no file in web/ but protocol.js spells a message type of the page<->worker or
//    loader<->helper protocol as a string (in `type: '...'`, `type === '...'`, `case '...'`);
//  - the bytes of a trace can be followed by imports alone: from web/app.js (input#file) to
//    worker/roles.js and worker/start.js (which starts web/worker.js) and worker/protocol.js; from web/worker.js to
//    worker/main.js, which reaches every worker module (job, stream, split, unzip, nsys, ...);
//  - every module in web/ stays small (at most 400 lines, no function over 120; issue #20).
//   node tests/web/protocol.mjs
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const WEB = join(ROOT, 'web');
const failures = [];
const fail = (msg) => failures.push(msg);

const files = (dir) => readdirSync(dir).flatMap((f) => {
  const p = join(dir, f);
  return statSync(p).isDirectory() ? files(p) : p.endsWith('.js') ? [p] : [];
});
const rel = (p) => relative(ROOT, p);

// The wire strings, read from protocol.js itself (its Msg and PortMsg objects).
const protocol = await import(`data:text/javascript,${encodeURIComponent(readFileSync(join(WEB, 'worker/protocol.js'), 'utf8'))}`);
const wire = new Set([...Object.values(protocol.Msg), ...Object.values(protocol.PortMsg)]);
if (wire.size < 20) fail(`protocol.js names only ${wire.size} message types`);

const SPELLED = /\btype\s*(?:===|!==|==|!=|:)\s*(['"`])([\w-]+)\1|\bcase\s+(['"`])([\w-]+)\3\s*:/g;
let scanned = 0;
for (const f of files(WEB)) {
  if (f === join(WEB, 'worker/protocol.js')) continue;
  scanned++;
  const lines = readFileSync(f, 'utf8').split('\n');
  lines.forEach((line, i) => {
    if (/^\s*\/\//.test(line)) return; // comments may name messages
    for (const m of line.matchAll(SPELLED)) {
      const name = m[2] || m[4];
      if (wire.has(name)) fail(`${rel(f)}:${i + 1}: the message type '${name}' is spelled here; use worker/protocol.js (Msg/PortMsg)`);
    }
  });
}

// Static imports, resolved relative to each file.
const IMPORT = /^\s*import\s+(?:[\w$*{][^'";]*?\s+from\s*)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)|new URL\(\s*['"]([^'"]+\.js)['"]\s*,\s*import\.meta\.url\)/gm;
function importsOf(file) {
  const src = readFileSync(file, 'utf8');
  return [...src.matchAll(IMPORT)].map((m) => resolve(dirname(file), m[1] || m[2] || m[3]));
}
function reach(entry) {
  const seen = new Set();
  const visit = (f) => {
    if (seen.has(f)) return;
    seen.add(f);
    for (const d of importsOf(f)) visit(d);
  };
  visit(entry);
  return seen;
}
const fromPage = reach(join(WEB, 'app.js'));
for (const need of ['worker/protocol.js', 'worker/roles.js', 'worker/start.js', 'worker.js', 'worker/main.js', 'worker/job.js', 'worker/stream.js', 'worker/gunzip.js', 'worker/split.js', 'worker/nsys.js', 'worker/unzip.js', 'worker/pool.js', 'worker/helpers.js', 'timeline/client.js', 'views/report.js']) {
  if (!fromPage.has(join(WEB, need))) fail(`web/${need} cannot be reached by imports from web/app.js`);
}
const fromWorker = reach(join(WEB, 'worker.js'));
for (const f of readdirSync(join(WEB, 'worker')).filter((x) => x.endsWith('.js'))) {
  const pageSide = ['start.js', 'roles.js', 'pool.js', 'helpers.js'].includes(f);
  if (!pageSide && !fromWorker.has(join(WEB, 'worker', f))) fail(`web/worker/${f} is not reached from web/worker.js (dead, or not wired into worker/main.js)`);
  if (pageSide && fromWorker.has(join(WEB, 'worker', f))) fail(`web/worker/${f} is page code but the worker imports it`);
}

// Sizes: a module of web/ at most 400 lines; a function at most 120 (from a line that opens one
// to the line, at the same indentation, that closes it).
const OPENS = /^(\s*)(?:export\s+)?(?:async\s+)?(?:function\b|[\w$]+\s*\([^)]*\)\s*\{$|(?:const|let)\s+[\w$]+\s*=\s*(?:async\s*)?\([^)]*\)\s*=>\s*\{$)/;
for (const f of files(WEB)) {
  const lines = readFileSync(f, 'utf8').split('\n');
  if (lines.length > 400) fail(`${rel(f)} has ${lines.length} lines (at most 400)`);
  lines.forEach((line, i) => {
    const m = OPENS.exec(line);
    if (!m || !line.trimEnd().endsWith('{')) return;
    const close = lines.findIndex((l, j) => j > i && l.startsWith(`${m[1]}}`));
    if (close > 0 && close - i + 1 > 120) fail(`${rel(f)}:${i + 1}: a function of ${close - i + 1} lines (at most 120)`);
  });
}

if (failures.length) {
  console.log(`worker protocol: ${failures.length} problem(s)\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
console.log(`worker protocol: ${wire.size} message types named once in web/worker/protocol.js; ${scanned} other files spell none; imports reach the worker from app.js; modules of web/ within size`);
