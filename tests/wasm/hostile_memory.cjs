// The bad-input catalogue (tests/bad_inputs/catalogue.json) through the WASM build as the page's
// worker feeds it (64 KiB pieces into the importer's buffer, web/worker/module.js), each in a
// fresh instance: the page must say what the CLI says (the one error line, or the same JSON
// report) and the WebAssembly memory it ends with (it never shrinks: the peak) must stay within
// the entry's budget (max_rss_mb, 512 MB when none, as tests/bad_inputs/check.py holds the CLI).
// Prints, per input, the time and the memory.
//   node tests/wasm/hostile_memory.cjs [FILTER]   (big inputs from build/bad_inputs: check.py or
//   generate.py --big make them; absent ones are skipped and said)
// The page's own gzip path (gunzip.js: damaged, cut-off, padded files) is tests/web/gunzip.test.mjs;
// here a .gz file is decoded by node's zlib first, and one zlib refuses is left to that test.
// A .sqlite entry (the hostile Nsight Systems exports, tests/bad_inputs/hostile_exports.py) is
// read as the worker reads a File: Session.importSqlite pulling pages through a read function.
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { spawnSync } = require('child_process');

const root = path.resolve(__dirname, '..', '..');
const cli = process.env.KINETOSCOPE_CLI || path.join(root, 'build/native/kinetoscope');
const wasmDir = path.resolve(root, process.env.KINETOSCOPE_WASM_DIR || 'build/wasm');
const FEED_BYTES = 64 << 10;

function fileOf(entry) {
  if (entry.source === 'big' || entry.source === 'hostile') return path.join(root, 'build', 'bad_inputs', entry.file);
  if (entry.source === 'shared') return path.join(root, '..', 'shared', 'traces', entry.file);
  return path.join(root, 'tests', 'bad_inputs', entry.file);
}

// The decoded bytes (a .gz whole first: the 10-million-event one is 618 MB of JSON).
function jsonOf(file) {
  const raw = fs.readFileSync(file);
  if (raw[0] === 0x1f && raw[1] === 0x8b) return zlib.gunzipSync(raw, { maxOutputLength: 2 ** 31 - 1 });
  return raw;
}

// The export through the page's path (web/worker/nsys.js): the file registered under an id whose
// read function SQLite's VFS calls for each page.
function importSqlite(Module, session, file) {
  const fd = fs.openSync(file, 'r');
  if (!Module.ksFiles) Module.ksFiles = {};
  Module.ksFiles[1] = (offset, n) => {
    const buf = Buffer.allocUnsafe(n);
    return buf.subarray(0, fs.readSync(fd, buf, 0, n, offset));
  };
  try {
    return session.importSqlite(fs.fstatSync(fd).size, 1);
  } finally {
    delete Module.ksFiles[1];
    fs.closeSync(fd);
  }
}

async function main() {
  process.setMaxListeners(0);  // each fresh instance adds Emscripten's process handlers
  const filter = process.argv[2] || '';
  // The worker's rule (web/worker/job.js): after the first PROJECT_AFTER_BYTES of JSON, a file
  // whose model projects to at most half the memory has its columns reserved for the whole. Left
  // out, the columns doubled as they grew and the 10-million-event file measured 169 bytes of
  // WASM memory an event, which the page does not spend.
  const { PROJECT_AFTER_BYTES, reserveModel } = await import(path.join(root, 'web/worker/limits.js'));
  const createKinetoscope = require(path.join(wasmDir, 'kinetoscope_wasm.js'));
  const compiled = await WebAssembly.compile(fs.readFileSync(path.join(wasmDir, 'kinetoscope_wasm.wasm')));
  const fresh = () => createKinetoscope({
    instantiateWasm(imports, receive) {
      WebAssembly.instantiate(compiled, imports).then((instance) => receive(instance));
      return {};
    },
  });
  const entries = JSON.parse(fs.readFileSync(path.join(root, 'tests/bad_inputs/catalogue.json'))).filter((e) => e.file.includes(filter));
  let passed = 0, failed = 0, skipped = 0;
  for (const entry of entries) {
    const file = fileOf(entry);
    if ((entry.diagnostics || []).some(([code]) => String(code).startsWith('gzip_'))) {
      console.log(`SKIP ${entry.file}: what the page's gzip path says (tests/web/gunzip.test.mjs)`);
      skipped++;
      continue;
    }
    if (!fs.existsSync(file)) {
      console.log(`SKIP ${entry.file}: absent (tests/bad_inputs/generate.py --big build/bad_inputs, hostile_exports.py build/bad_inputs)`);
      skipped++;
      continue;
    }
    const Module = await fresh();
    const s = new Module.Session();
    s.setSource(path.basename(file), /\.gz$/.test(file));
    const t0 = process.hrtime.bigint();
    let fed = true;
    let ok;
    if (file.endsWith('.sqlite')) {
      ok = importSqlite(Module, s, file);
    } else try {
      const json = jsonOf(file);
      for (let at = 0; at < json.length; at += FEED_BYTES) {
        const piece = json.subarray(at, at + FEED_BYTES);
        const ptr = s.feedBuffer(piece.length);
        if (ptr) Module.HEAPU8.set(piece, ptr);
        if (!ptr || !s.feedCommit(piece.length)) {
          fed = false;
          break;
        }
        if (at < PROJECT_AFTER_BYTES && at + piece.length >= PROJECT_AFTER_BYTES) reserveModel(s, json.length);
      }
    } catch (e) {
      if (!(e instanceof Error) || !/incorrect|invalid|unexpected end/i.test(e.message)) throw e;
      console.log(`SKIP ${entry.file}: node's zlib refuses it (${e.message}); the page's gzip path is tests/web/gunzip.test.mjs`);
      skipped++;
      s.delete();
      continue;
    }
    if (ok === undefined) ok = fed && s.finish();
    let page;
    if (!ok) {
      const err = JSON.parse(s.errorJson());
      // The CLI's line: "CODE at byte N: MESSAGE", or "CODE: MESSAGE" where no offset applies.
      page = err.offset == null ? `${err.code}: ${err.message}` : `${err.code} at byte ${err.offset}: ${err.message}`;
    } else {
      page = s.reportJson();
    }
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const memoryMb = Module.HEAPU8.length / 2 ** 20;
    s.delete();
    const run = spawnSync(cli, ['report', '--format', 'json', file], { maxBuffer: 1 << 30 });
    const expected = run.status === 0 ? run.stdout.toString()
      : run.stderr.toString().split('\n')[0].replace(`kinetoscope: ${file}: `, '');
    const budget = entry.max_rss_mb || 512;
    const same = page === expected;
    const within = memoryMb <= budget;
    console.log(`${same && within ? 'ok  ' : 'FAIL'} ${entry.file}: ${seconds.toFixed(2)} s, WASM memory ${memoryMb.toFixed(0)} MB (budget ${budget})` +
      (ok ? '' : `: ${page.slice(0, 100)}`) + (same ? '' : ' -- differs from the CLI') + (within ? '' : ' -- over budget'));
    if (!same) console.log(`  page: ${page.slice(0, 300)}\n  CLI:  ${expected.slice(0, 300)}`);
    if (same && within) passed++;
    else failed++;
  }
  console.log(`wasm hostile inputs: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  if (failed || !passed) process.exitCode = 1;
}
main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
