// Nsight Systems exports in the WASM build (the page's path: Session.importSqlite, SQLite reading
// the file page by page through the block cache and a synchronous read function, wasm/file_source.h)
// must give the CLI's bytes: `kinetoscope report --format json|md` and `kinetoscope stats --format
// json` on the same file, the multi-rank report of several exports, and the CLI's error (code and
// message) for a damaged or foreign file. Here the read function is fs.readSync (the worker's is
// FileReaderSync over the File).
//   node tests/wasm/nsys_parity.cjs [export.sqlite...]
// Default: the real export (../shared/nsys, Nsight Systems 2024.5) and the exports built by
// tests/nsys/make_exports.py into build/nsys/ (schema-following, not from nsys: NVTX, GPU metrics,
// ranks, damaged files), when present. KINETOSCOPE_WASM_DIR picks the WASM build (build/wasm).
'use strict';
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

const root = path.resolve(__dirname, '..', '..');
const cli = process.env.KINETOSCOPE_CLI || path.join(root, 'build/native/kinetoscope');
const wasmDir = path.resolve(root, process.env.KINETOSCOPE_WASM_DIR || 'build/wasm');
const realExport = path.resolve(root, '..', 'shared', 'nsys', 'perlmutter-cloverleaf-cuda.sqlite');
const built = path.join(root, 'build', 'nsys');

let nextId = 1;
// Registers `file` as the worker registers a File (web/worker/nsys.js importSqlite) and imports it.
// Returns {session, ok, calls}: calls counts the reads of the file (the block cache's misses).
function importFile(Module, file) {
  const fd = fs.openSync(file, 'r');
  const size = fs.fstatSync(fd).size;
  const id = nextId++;
  const st = { calls: 0, bytes: 0, fd };
  if (!Module.ksFiles) Module.ksFiles = {};
  Module.ksFiles[id] = (offset, n) => {
    st.calls++;
    const buf = Buffer.allocUnsafe(n);
    const got = fs.readSync(fd, buf, 0, n, offset);
    st.bytes += got;
    return buf.subarray(0, got);
  };
  const s = new Module.Session();
  s.setSource(path.basename(file), false);
  const ok = s.importSqlite(size, id);
  const close = () => {
    delete Module.ksFiles[id];
    fs.closeSync(fd);
    s.delete();
  };
  return { session: s, ok, st, size, close };
}

function runCli(args) {
  const r = spawnSync(cli, args, { maxBuffer: 1 << 30 });
  return { status: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

function defaultFiles() {
  const files = [];
  if (fs.existsSync(realExport)) files.push(realExport);
  else console.log(`SKIP the real export: ${realExport} is absent`);
  if (fs.existsSync(built)) {
    for (const f of fs.readdirSync(built).sort()) if (f.endsWith('.sqlite')) files.push(path.join(built, f));
  } else console.log(`SKIP built exports: ${built} is absent (python3 tests/nsys/make_exports.py)`);
  return files;
}

async function main() {
  const args = process.argv.slice(2);
  const files = args.length ? args : defaultFiles();
  const createKinetoscope = require(path.join(wasmDir, 'kinetoscope_wasm.js'));
  const Module = await createKinetoscope({ wasmBinary: fs.readFileSync(path.join(wasmDir, 'kinetoscope_wasm.wasm')) });
  if (typeof Module.Session.prototype.importSqlite !== 'function') throw new Error('this WASM build has no importSqlite');
  let passed = 0, failed = 0;
  const check = (name, got, expected) => {
    if (got === expected) passed++;
    else {
      failed++;
      const out = path.join(root, 'build', `${name.replace(/[^\w.-]+/g, '_')}.wasm.actual`);
      fs.writeFileSync(out, got);
      console.log(`FAIL ${name}: the WASM output differs from the CLI's (written to ${path.relative(root, out)})`);
    }
  };
  const good = [];
  for (const file of files) {
    const base = path.basename(file);
    // --separate: an export of several GPU processes (torchrun_4procs.sqlite) is read by the CLI's
    // report as that many ranks; the page reads it as one trace, which --separate gives.
    const report = runCli(['report', '--separate', '--format', 'json', file]);
    const head = Buffer.alloc(16);
    const hfd = fs.openSync(file, 'r');
    fs.readSync(hfd, head, 0, 16, 0);
    fs.closeSync(hfd);
    if (!head.equals(Buffer.from('SQLite format 3\0', 'latin1')) && !base.endsWith('.sqlite')) {
      // Neither SQLite nor named so: the worker, like the CLI, reads it as JSON.
      const s = new Module.Session();
      s.setSource(base, false);
      const bytes = fs.readFileSync(file);
      const ptr = s.feedBuffer(bytes.length);
      if (ptr) Module.HEAPU8.set(bytes, ptr);
      const ok = ptr && s.feedCommit(bytes.length) && s.finish();
      const err = ok ? null : JSON.parse(s.errorJson());
      s.delete();
      const line = err ? `kinetoscope: ${file}: ${err.code} at byte ${err.offset}: ${err.message}\n` : 'imported\n';
      check(`${base} (not SQLite) error`, line, report.status === 0 ? 'imported\n' : report.stderr.split('\n')[0] + '\n');
      continue;
    }
    const r = importFile(Module, file);
    try {
      if (report.status !== 0) {
        // The CLI refuses it: the page must say the same (kinetoscope: FILE: CODE at byte N: MESSAGE).
        const err = JSON.parse(r.session.errorJson() || 'null');
        if (r.ok || !err) {
          check(`${base} refused`, r.ok ? 'imported' : 'no error', 'an error');
          continue;
        }
        const line = `kinetoscope: ${file}: ${err.code} at byte ${err.offset}: ${err.message}\n`;
        check(`${base} error`, line, report.stderr.split('\n')[0] + '\n');
        continue;
      }
      if (!r.ok) {
        check(`${base} import`, r.session.errorJson(), '(imported)');
        continue;
      }
      good.push(file);
      check(`${base} report json`, r.session.reportJson(), report.stdout);
      check(`${base} report md`, r.session.reportMarkdown(), runCli(['report', '--separate', '--format', 'md', file]).stdout);
      check(`${base} stats json`, r.session.statsJson(''), runCli(['stats', '--format', 'json', file]).stdout);
      for (const name of ['cuda_gpu_trace', 'cuda_gpu_kern_gb_sum', 'cuda_kern_exec_sum', 'nvtx_kern_sum', 'cuda_gpu_sum', 'cuda_api_gpu_sum', 'nvtx_pushpop_sum', 'nvtx_startend_sum', 'nvtx_gpu_proj_sum', 'cuda_api_trace', 'cuda_kern_exec_trace', 'nvtx_pushpop_trace', 'cuda_gpu_kern_sum:base', 'cuda_kern_exec_sum:mangled'])
        check(`${base} stats ${name}`, r.session.statsJson(name), runCli(['stats', '--format', 'json', '--report', name, file]).stdout);
      // The page's tables of reports on request: the first rows, and how many were left out.
      const all = JSON.parse(r.session.statsJson('cuda_gpu_trace')).reports[0];
      const first = JSON.parse(r.session.statsJsonFirstRows('cuda_gpu_trace', 3)).reports[0];
      check(`${base} stats first rows`, JSON.stringify([first.rows, first.omitted_rows]),
        JSON.stringify([all.rows.slice(0, 3), all.rows.length > 3 ? all.rows.length - 3 : undefined]));
      const bad = JSON.parse(r.session.statsJson('no_such_report'));
      check(`${base} unknown stats report`, bad.error && bad.error.code, 'unknown_report');
      // The block cache: SQLite's page reads become few reads of the file (1 MiB each), and the
      // file is never read whole into WASM memory at once.
      const reads = JSON.parse(r.session.sqliteReadsJson());
      const fewCalls = r.st.calls === reads.calls && reads.calls <= Math.max(4, 4 * Math.ceil(r.size / 2 ** 20)) && reads.reads >= reads.calls;
      check(`${base} block cache (${reads.reads} page reads, ${reads.calls} file reads)`, String(fewCalls), 'true');
    } finally {
      r.close();
    }
  }
  // Several exports: the ranks of one job, as the page's pool combines them (web/worker/combine.js).
  const rankFiles = good.filter((f) => /rank\d+\.sqlite$/.test(f));
  if (rankFiles.length >= 2) {
    const imported = rankFiles.map((f) => importFile(Module, f));
    const list = (items) => {
      const l = new Module.StringList();
      for (const x of items) l.push_back(x);
      return l;
    };
    const digests = list(imported.map((r, i) => r.session.digestJson(i)));
    const reports = list(imported.map((r) => r.session.reportJson()));
    check('ranks json', Module.combineRanks(digests, reports), runCli(['report', '--format', 'json', ...rankFiles]).stdout);
    digests.delete();
    reports.delete();
    imported.forEach((r) => r.close());
  }
  // Too large for a page: an export whose event tables' rowids say ~40 million events is refused
  // before it is read (wasm/bindings.cpp too_large_export), not minutes later out of memory. Built
  // here: the real export with one runtime row at rowid 40,000,000, padded (sparse) to 300 MB,
  // the size from which the page probes.
  if (fs.existsSync(realExport)) {
    const big = path.join(root, 'build', 'nsys_rowid_40m.sqlite');
    const py = `import sqlite3,sys,os
src=sqlite3.connect('file:'+sys.argv[1]+'?mode=ro',uri=True); dst=sqlite3.connect(sys.argv[2]); src.backup(dst)
dst.execute('INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (rowid, start, end, eventClass, globalTid, correlationId, nameId, returnValue, callchainId) SELECT 40000000, start, end, eventClass, globalTid, correlationId, nameId, returnValue, callchainId FROM CUPTI_ACTIVITY_KIND_RUNTIME LIMIT 1')
dst.commit(); dst.close(); os.truncate(sys.argv[2], 300 << 20)`;
    if (fs.existsSync(big)) fs.unlinkSync(big);
    const made = spawnSync('/usr/bin/python3', ['-c', py, realExport, big]);
    if (made.status !== 0) throw new Error(`could not build ${big}: ${made.stderr}`);
    const r = importFile(Module, big);
    const err = r.ok ? null : JSON.parse(r.session.errorJson());
    check('rowid 40M export refused as too_large', err && err.code, 'too_large');
    check('too_large says to use the CLI', String(err && /about 40 million events.*kinetoscope report nsys_rowid_40m\.sqlite$/.test(err.message)), 'true');
    check('too_large before reading the file', String(r.st.bytes < 32 << 20), 'true');
    r.close();
    fs.unlinkSync(big);
    // GPU metrics samples count too (at a quarter of an event each: they are counters), and a
    // rowid past what the file could hold counts as the file's size in rows, not as itself.
    const metrics = path.join(root, 'build', 'nsys_metrics_rowid.sqlite');
    const py2 = `import sqlite3,sys,os
src=sqlite3.connect('file:'+sys.argv[1]+'?mode=ro',uri=True); dst=sqlite3.connect(sys.argv[2]); src.backup(dst)
dst.execute('CREATE TABLE IF NOT EXISTS GPU_METRICS (typeId INTEGER NOT NULL, timestamp INTEGER, metricId INTEGER NOT NULL, value INTEGER NOT NULL)')
dst.execute('INSERT INTO GPU_METRICS (rowid, typeId, timestamp, metricId, value) VALUES (9223372036854775807, 65536, 1000, 1, 50)')
dst.commit(); dst.close(); os.truncate(sys.argv[2], 300 << 20)`;
    if (fs.existsSync(metrics)) fs.unlinkSync(metrics);
    const made2 = spawnSync('/usr/bin/python3', ['-c', py2, realExport, metrics]);
    if (made2.status !== 0) throw new Error(`could not build ${metrics}: ${made2.stderr}`);
    const m = importFile(Module, metrics);
    const merr = m.ok ? null : JSON.parse(m.session.errorJson());
    check('GPU_METRICS rowid 2^63-1 refused as too_large', merr && merr.code, 'too_large');
    check('its row count is bounded by the file (315 million, not 9e18)', String(merr && /about 315 million events/.test(merr.message)), 'true');
    m.close();
    fs.unlinkSync(metrics);
  }
  console.log(`wasm nsys parity: ${passed} passed, ${failed} failed (${files.length} exports)`);
  if (failed || !passed) process.exitCode = 1;
}
main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
