// The WASM build and the native CLI must write byte-identical JSON reports for the same trace,
// whatever the chunk sizes the page feeds. Runs the WASM module in Node (wasmBinary is passed:
// Emscripten 3.1.6's loader cannot fetch a file path under Node 20).
//   node tests/wasm/parity.cjs [trace...]   (default: a set from ../shared/traces)
// With no arguments it also checks the multi-file outputs: the multi-rank report (combineRanks,
// combineRanksMarkdown) of a rank folder, and the trace diff (diffTraces) of two traces, against
// `kinetoscope report DIR` and `kinetoscope diff BASE TEST` in each format.
// KINETOSCOPE_WASM_DIR picks the WASM build (default build/wasm).
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { execFileSync } = require('child_process');

const root = path.resolve(__dirname, '..', '..');
const cli = process.env.KINETOSCOPE_CLI || path.join(root, 'build/native/kinetoscope');
const wasmDir = path.resolve(root, process.env.KINETOSCOPE_WASM_DIR || 'build/wasm');
const shared = path.resolve(root, '..', 'shared', 'traces');

const defaults = [
  'hta__benchmark_simple_add_trace.json.gz',
  'param__dlrm_kineto__worker0_step_12.1694128201545.pt.trace.json',
  'kineto__gpu_metrics_input.json',
  'tracelens__h100__gaunernst_bert-small-uncased__1016001.json.gz',
  'speedscope__simple-partial.json',
  'kineto__resnet50_nw0__worker0.1623143089861.pt.trace.json.gz',
];

// Feeds bytes as the worker does (web/worker/module.js feed): straight into the importer's buffer.
function feedBytes(Module, s, bytes) {
  const ptr = s.feedBuffer(bytes.length);
  if (ptr) Module.HEAPU8.set(bytes, ptr);
  return ptr ? s.feedCommit(bytes.length) : false;
}

// A finished Session for one file, fed in one piece (chunking is covered above).
function session(Module, file) {
  const raw = fs.readFileSync(file);
  const gzip = raw[0] === 0x1f && raw[1] === 0x8b;
  const json = gzip ? zlib.gunzipSync(raw) : raw;
  const s = new Module.Session();
  s.setSource(path.basename(file), gzip);
  feedBytes(Module, s, json);
  if (!s.finish()) throw new Error(`${file}: ${s.errorJson()}`);
  return s;
}

function stringList(Module, items) {
  const list = new Module.StringList();
  for (const x of items) list.push_back(x);
  return list;
}

// [name, wasm output, CLI args] for the multi-rank report of a folder and the diff of two traces.
function multiFileCases(Module) {
  const cases = [];
  const dir = path.join(root, 'examples/pathologies/gpu/straggler_compute');
  if (fs.existsSync(dir)) {
    const files = fs.readdirSync(dir).filter((f) => /\.json(\.gz)?$/.test(f)).sort().map((f) => path.join(dir, f));
    const sessions = files.map((f) => session(Module, f));
    const digests = stringList(Module, sessions.map((s, i) => s.digestJson(i)));
    const reports = stringList(Module, sessions.map((s) => s.reportJson()));
    const markdowns = stringList(Module, sessions.map((s) => s.reportMarkdown()));
    cases.push(['multi-rank json straggler_compute/', Module.combineRanks(digests, reports), ['report', '--format', 'json', dir]]);
    cases.push(['multi-rank md straggler_compute/', Module.combineRanksMarkdown(digests, markdowns), ['report', '--format', 'md', dir]]);
    for (const x of [digests, reports, markdowns, ...sessions]) x.delete();
  }
  // The idle-gap straggler set: collective sizes, bus bandwidth, the idle-gap finding.
  const gapDir = path.join(root, 'examples/pathologies/gpu/straggler_idle_gaps');
  if (fs.existsSync(gapDir)) {
    const files = fs.readdirSync(gapDir).filter((f) => /\.json(\.gz)?$/.test(f)).sort().map((f) => path.join(gapDir, f));
    const sessions = files.map((f) => session(Module, f));
    const digests = stringList(Module, sessions.map((s, i) => s.digestJson(i)));
    const markdowns = stringList(Module, sessions.map((s) => s.reportMarkdown()));
    cases.push(['multi-rank md straggler_idle_gaps/', Module.combineRanksMarkdown(digests, markdowns), ['report', '--format', 'md', gapDir]]);
    for (const x of [digests, markdowns, ...sessions]) x.delete();
  }
  const pairs = [['examples/pathologies/gpu/gpu_clean.pt.trace.json.gz', 'examples/pathologies/gpu/gpu_item_sync.pt.trace.json.gz']];
  if (fs.existsSync(shared)) pairs.push(['hta__trace_compare__base.json.gz', 'hta__trace_compare__test.json.gz'].map((f) => path.join(shared, f)));
  for (const pair of pairs) {
    const [a, b] = pair.map((f) => path.resolve(root, f));
    if (!fs.existsSync(a) || !fs.existsSync(b)) continue;
    const [sa, sb] = [session(Module, a), session(Module, b)];
    for (const format of ['json', 'md', 'text']) {
      cases.push([`diff ${format} ${path.basename(a)} ${path.basename(b)}`, Module.diffTraces(sa.diffDigestJson(), sb.diffDigestJson(), format), ['diff', a, b, '--format', format]]);
    }
    sa.delete();
    sb.delete();
  }
  return cases;
}

async function main() {
  let files = process.argv.slice(2);
  const all = files.length === 0;
  if (files.length === 0) {
    files = fs.existsSync(shared) ? defaults.map((f) => path.join(shared, f)) : [];
    if (!files.length) console.log(`SKIP wasm parity of single traces: ${shared} is absent`);
  }
  const createKinetoscope = require(path.join(wasmDir, 'kinetoscope_wasm.js'));
  const Module = await createKinetoscope({ wasmBinary: fs.readFileSync(path.join(wasmDir, 'kinetoscope_wasm.wasm')) });
  let passed = 0, failed = 0;
  if (all && typeof Module.diffTraces !== 'function') {
    // A build without the multi-file entry points would skip those cases without a word.
    failed++;
    console.log(`FAIL ${wasmDir}/kinetoscope_wasm.js has no diffTraces: a stale WASM build (make wasm)`);
  } else if (all) {
    for (const [name, got, args] of multiFileCases(Module)) {
      // The CLI exits 0 here (every file is readable); its bytes must be the WASM's.
      const expected = execFileSync(cli, args, { maxBuffer: 1 << 30 }).toString();
      if (got === expected) passed++;
      else {
        failed++;
        fs.writeFileSync(path.join(root, 'build', `${name.replace(/[^\w.-]+/g, '_')}.wasm.actual`), got);
        console.log(`FAIL ${name}: WASM output differs from \`kinetoscope ${args.join(' ')}\` (written to build/)`);
      }
    }
  }
  for (const file of files) {
    const raw = fs.readFileSync(file);
    const gzip = raw[0] === 0x1f && raw[1] === 0x8b;
    const json = gzip ? zlib.gunzipSync(raw) : raw;
    const expected = execFileSync(cli, ['report', '--format', 'json', file], { maxBuffer: 1 << 30 }).toString();
    // Three chunkings: one piece, 1 MiB pieces, and small odd pieces (7..4099 bytes).
    const chunkings = [[json.length], [1 << 20], [7, 4099, 13, 1021, 64, 1]];
    for (const sizes of chunkings) {
      const s = new Module.Session();
      s.setSource(path.basename(file), gzip);
      let off = 0, k = 0;
      while (off < json.length) {
        const n = Math.min(sizes[k++ % sizes.length], json.length - off);
        feedBytes(Module, s, json.subarray(off, off + n));
        off += n;
      }
      const ok = s.finish();
      const got = ok ? s.reportJson() : s.errorJson();
      s.delete();
      const name = `${path.basename(file)} chunks=${sizes.join('/')}`;
      if (got === expected) {
        passed++;
      } else {
        failed++;
        fs.writeFileSync(path.join(root, 'build', path.basename(file) + '.wasm.actual.json'), got);
        console.log(`FAIL ${name}: WASM report differs from the CLI's (written to build/)`);
      }
    }
  }
  console.log(`wasm parity: ${passed} passed, ${failed} failed`);
  if (passed + failed === 0) console.log('FAIL wasm parity ran no case: nothing was compared');
  if (failed || passed + failed === 0) process.exitCode = 1;
}
main().catch((e) => { console.error(e); process.exitCode = 1; });
