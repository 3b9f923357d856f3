// Ingest speed of the WASM build in Node, without a browser: the file is read from disk in
// 1 MiB chunks (gunzipped by zlib when .gz) and fed to a Session, as the page's worker does;
// then the report is built. Also runs the bare simdjson walk (the ceiling) on the same bytes
// when the file fits in memory. Prints one JSON line. Besides wall-clock MB/s it gives MB per
// second of this process's CPU time (cpu_mb_per_s), which stays comparable when other work
// shares the machine (the wall clock then measures the load as much as the code).
// --warm first runs the page's warm-up on the module (web/worker/warm.js warmModule: a small
// trace read and reported), as the page's spare loader does before a
// file arrives; without it the module is cold, as a file opened the moment the page loads.
// --page-feed hands each 1 MiB chunk to the page's own feed() (web/worker/module.js: pieces of
// 64 KiB, each written into the importer's buffer), so the WASM runs as it runs in the page.
//   node bench/ingest_node.cjs TRACE [--no-walk] [--warm] [--page-feed]
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');

const root = path.resolve(__dirname, '..');
const wasmDir = process.env.KINETOSCOPE_WASM_DIR || path.join(root, 'build/wasm');

async function kinetoscope(file) {
  const create = require(path.join(wasmDir, 'kinetoscope_wasm.js'));
  const M = await create({ wasmBinary: fs.readFileSync(path.join(wasmDir, 'kinetoscope_wasm.wasm')) });
  let warm_s = 0;
  if (process.argv.includes('--warm')) {
    const w0 = process.hrtime.bigint();
    const { warmModule } = await import(path.join(root, 'web/worker/warm.js'));
    await warmModule(M);
    warm_s = Number(process.hrtime.bigint() - w0) / 1e9;
  }
  const gzip = file.endsWith('.gz');
  const s = new M.Session();
  s.setSource(path.basename(file), gzip);
  const CH = 1 << 20;
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  let bytes = 0;
  // As the worker does after its first 16 MiB (web/worker/limits.js): the model reserved for the
  // whole file (its size; for gzip, what the trailer says).
  const total = gzip ? gzipTrailerSize(file) : fs.statSync(file).size;
  let reserved = false;
  const pageFeed = process.argv.includes('--page-feed') ? (await import(path.join(root, 'web/worker/module.js'))).feed : null;
  const feed = (buf) => {
    for (let o = 0; o < buf.length; o += CH) {
      const n = Math.min(CH, buf.length - o);
      if (pageFeed) pageFeed(M, s, buf.subarray(o, o + n));
      else {
        const ptr = s.feedBuffer(n); // as the worker feeds: straight into the importer's buffer
        M.HEAPU8.set(buf.subarray(o, o + n), ptr);
        s.feedCommit(n);
      }
      bytes += n;
      if (!reserved && bytes >= 16 << 20 && typeof s.reserveForTotal === 'function') {
        reserved = true;
        s.reserveForTotal(total);
      }
    }
  };
  await new Promise((resolve, reject) => {
    let stream = fs.createReadStream(file, { highWaterMark: CH });
    if (gzip) stream = stream.pipe(zlib.createGunzip({ chunkSize: CH }));
    stream.on('data', feed).on('end', resolve).on('error', reject);
  });
  const ok = s.finish();
  const t1 = process.hrtime.bigint();
  const c1 = process.cpuUsage(c0);
  const heapAfterIngest = M.HEAPU8.length;  // the model (and the framer's buffer), before the report
  const report = ok ? s.reportJson() : s.errorJson();
  const t2 = process.hrtime.bigint();
  const heap = M.HEAPU8.length;
  s.delete();
  return {
    ok, json_bytes: bytes, warm: process.argv.includes('--warm'), warm_s, page_feed: !!pageFeed,
    ingest_s: Number(t1 - t0) / 1e9, report_s: Number(t2 - t1) / 1e9,
    mb_per_s: bytes / 1e6 / (Number(t1 - t0) / 1e9),
    cpu_s: (c1.user + c1.system) / 1e6, cpu_mb_per_s: bytes / (c1.user + c1.system),
    wasm_heap_bytes: heap, heap_over_json: heap / bytes, report_bytes: report.length,
    wasm_heap_after_ingest_bytes: heapAfterIngest, model_heap_over_json: heapAfterIngest / bytes,
  };
}

function gzipTrailerSize(file) {
  const fd = fs.openSync(file, 'r');
  const b = Buffer.alloc(4);
  fs.readSync(fd, b, 0, 4, fs.fstatSync(fd).size - 4);
  fs.closeSync(fd);
  return b.readUInt32LE(0);
}

async function walk(file) {
  let buf = fs.readFileSync(file);
  if (file.endsWith('.gz')) buf = zlib.gunzipSync(buf);
  const create = require(path.join(root, 'build/bench/simdjson_walk.js'));
  const W = await create({ wasmBinary: fs.readFileSync(path.join(root, 'build/bench/simdjson_walk.wasm')) });
  const ptr = W._malloc(buf.length + 64);
  W.HEAPU8.set(buf, ptr);
  W.HEAPU8.fill(32, ptr + buf.length, ptr + buf.length + 64);
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const n = W.walk(ptr, buf.length);
  const t1 = process.hrtime.bigint();
  const c1 = process.cpuUsage(c0);
  return {
    events: n, walk_s: Number(t1 - t0) / 1e9, walk_mb_per_s: buf.length / 1e6 / (Number(t1 - t0) / 1e9),
    walk_cpu_mb_per_s: buf.length / (c1.user + c1.system),
  };
}

(async () => {
  const file = process.argv[2];
  const out = { file: path.basename(file), file_bytes: fs.statSync(file).size };
  Object.assign(out, await kinetoscope(file));
  // The walk holds the whole file and simdjson's index in WASM memory: past a few hundred MB it
  // aborts. Its failure is recorded, and Kinetoscope's row is kept.
  if (!process.argv.includes('--no-walk') && out.json_bytes < 1.5e9) {
    try {
      Object.assign(out, await walk(file));
    } catch (e) {
      out.walk_error = String(e.message || e).split('\n')[0];
    }
  }
  if (out.walk_mb_per_s) out.ratio_to_walk = out.mb_per_s / out.walk_mb_per_s;
  if (out.walk_cpu_mb_per_s) out.cpu_ratio_to_walk = out.cpu_mb_per_s / out.walk_cpu_mb_per_s;
  console.log(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exitCode = 1; });
