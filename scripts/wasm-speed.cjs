#!/usr/bin/env node
// How fast a WASM build reads traces: used to choose the optimization level of `make dist`
// (docs/sharing.md has the figures). Runs each build in Node, as the worker does: 1 MiB chunks
// copied into WASM memory, then finish() and the JSON report. Prints the best of N runs, and a
// hash of the report (every build must write the same bytes).
//
//   node scripts/wasm-speed.cjs [--runs 3] WASM_DIR... -- TRACE...
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');

const CHUNK = 1 << 20;

function args() {
  const argv = process.argv.slice(2);
  let runs = 3;
  const at = argv.indexOf('--runs');
  if (at >= 0) {
    runs = Number(argv[at + 1]);
    argv.splice(at, 2);
  }
  const split = argv.indexOf('--');
  if (split < 1 || split === argv.length - 1) {
    console.error('usage: node scripts/wasm-speed.cjs [--runs N] WASM_DIR... -- TRACE...');
    process.exit(2);
  }
  return { runs, dirs: argv.slice(0, split), traces: argv.slice(split + 1) };
}

async function load(dir) {
  const factory = require(path.resolve(dir, 'kinetoscope_wasm.js'));
  const wasmBinary = fs.readFileSync(path.resolve(dir, 'kinetoscope_wasm.wasm'));
  const t0 = process.hrtime.bigint();
  const M = await factory({ wasmBinary });
  return { M, bytes: wasmBinary.length, compileMs: Number(process.hrtime.bigint() - t0) / 1e6 };
}

function once(M, json, name) {
  const t0 = process.hrtime.bigint();
  const s = new M.Session();
  s.setSource(name, false);
  for (let off = 0; off < json.length; off += CHUNK) {
    const part = json.subarray(off, Math.min(json.length, off + CHUNK));
    const ptr = s.feedBuffer(part.length);
    M.HEAPU8.set(part, ptr);
    s.feedCommit(part.length);
  }
  const ok = s.finish();
  const out = ok ? s.reportJson() : s.errorJson();
  s.delete();
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, out };
}

async function main() {
  const { runs, dirs, traces } = args();
  const inputs = traces.map((f) => {
    const raw = fs.readFileSync(f);
    return { name: path.basename(f), json: raw[0] === 0x1f && raw[1] === 0x8b ? zlib.gunzipSync(raw) : raw };
  });
  for (const dir of dirs) {
    const { M, bytes, compileMs } = await load(dir);
    console.log(`${dir}: ${bytes} bytes of WASM, instantiated in ${compileMs.toFixed(0)} ms`);
    for (const input of inputs) {
      let best = Infinity;
      let out = '';
      for (let i = 0; i < runs; i++) {
        const r = once(M, input.json, input.name);
        best = Math.min(best, r.ms);
        out = r.out;
      }
      const mbps = input.json.length / 1e6 / (best / 1e3);
      console.log(`  ${input.name}: ${(input.json.length / 1e6).toFixed(1)} MB in ${best.toFixed(0)} ms (${mbps.toFixed(0)} MB/s), report ${out.length} bytes, sha1 ${crypto.createHash('sha1').update(out).digest('hex').slice(0, 10)}`);
    }
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
