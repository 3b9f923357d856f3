// The WASM build and the native CLI must write byte-identical JSON reports for the same trace,
// whatever the chunk sizes the page feeds. Runs the WASM module in Node (wasmBinary is passed:
// Emscripten 3.1.6's loader cannot fetch a file path under Node 20).
//   node tests/wasm/parity.cjs [trace...]   (default: a set from ../shared/traces)
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { execFileSync } = require('child_process');

const root = path.resolve(__dirname, '..', '..');
const cli = process.env.KINETOSCOPE_CLI || path.join(root, 'build/native/kinetoscope');
const wasmDir = path.join(root, 'build/wasm');
const shared = path.resolve(root, '..', 'shared', 'traces');

const defaults = [
  'hta__benchmark_simple_add_trace.json.gz',
  'param__dlrm_kineto__worker0_step_12.1694128201545.pt.trace.json',
  'kineto__gpu_metrics_input.json',
  'tracelens__h100__gaunernst_bert-small-uncased__1016001.json.gz',
  'speedscope__simple-partial.json',
  'kineto__resnet50_nw0__worker0.1623143089861.pt.trace.json.gz',
];

async function main() {
  let files = process.argv.slice(2);
  if (files.length === 0) {
    if (!fs.existsSync(shared)) {
      console.log(`SKIP wasm parity: ${shared} is absent`);
      console.log('0 passed, 0 failed, 1 skipped');
      return;
    }
    files = defaults.map((f) => path.join(shared, f));
  }
  const createKinetoscope = require(path.join(wasmDir, 'kinetoscope_wasm.js'));
  const Module = await createKinetoscope({ wasmBinary: fs.readFileSync(path.join(wasmDir, 'kinetoscope_wasm.wasm')) });
  let passed = 0, failed = 0;
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
        const ptr = Module._malloc(n);
        Module.HEAPU8.set(json.subarray(off, off + n), ptr);
        s.feed(ptr, n);
        Module._free(ptr);
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
  if (failed) process.exitCode = 1;
}
main().catch((e) => { console.error(e); process.exitCode = 1; });
