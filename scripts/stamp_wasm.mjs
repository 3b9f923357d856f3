#!/usr/bin/env node
// Names the build in its glue: puts `var kinetoscopeWasmVersion = "<first 16 hex of the .wasm's
// SHA-256>";` at the top of DIR/kinetoscope_wasm.js (replacing an earlier stamp). The worker asks
// for wasm/kinetoscope_wasm.wasm?v=<that> (web/worker/module.js), so a browser may keep the .wasm
// as long as it likes: a rebuilt one has another URL. That matters for speed, not only traffic:
// Chromium keeps the optimized code V8 compiled for a .wasm beside its HTTP cache entry, but only
// while the entry is used as it is; a revalidated one (no-cache, then 304) drops it, and a
// returning visitor's first file then runs in V8's baseline tier again (docs/performance.md).
//   node scripts/stamp_wasm.mjs DIR
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const STAMP = /^var kinetoscopeWasmVersion = "[0-9a-f]*";\n/;

// Stamps DIR/kinetoscope_wasm.js with DIR/kinetoscope_wasm.wasm's build name; returns the name.
export function stampWasmDir(dir) {
  const version = createHash('sha256').update(readFileSync(join(dir, 'kinetoscope_wasm.wasm'))).digest('hex').slice(0, 16);
  const gluePath = join(dir, 'kinetoscope_wasm.js');
  const glue = readFileSync(gluePath, 'utf8').replace(STAMP, '');
  writeFileSync(gluePath, `var kinetoscopeWasmVersion = "${version}";\n${glue}`);
  return version;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node scripts/stamp_wasm.mjs DIR (the folder with kinetoscope_wasm.js and .wasm)');
    process.exit(2);
  }
  stampWasmDir(dir);
}
