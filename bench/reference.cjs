// make bench's reference workload: the bare simdjson walk (build/bench/simdjson_walk.js, fixed
// code: bench/simdjson_walk/) over one fixed file, N times. Kinetoscope's own changes do not move
// it, so when its MB/s moves between readings in one run, the machine did (other load, thermal):
// bench/run_shapes.py reads it before, between and after the repetitions. Prints one JSON line:
// the median wall-clock MB/s and the MB/s of this process's CPU time.
//   node bench/reference.cjs FILE [N]
'use strict';
const fs = require('fs');
const path = require('path');

(async () => {
  const file = process.argv[2];
  const n = Number(process.argv[3] || 3);
  const root = path.resolve(__dirname, '..');
  const create = require(path.join(root, 'build/bench/simdjson_walk.js'));
  const W = await create({ wasmBinary: fs.readFileSync(path.join(root, 'build/bench/simdjson_walk.wasm')) });
  const buf = fs.readFileSync(file);
  const ptr = W._malloc(buf.length + 64);
  W.HEAPU8.set(buf, ptr);
  W.HEAPU8.fill(32, ptr + buf.length, ptr + buf.length + 64);
  const wall = [], cpu = [];
  let events = 0;
  for (let i = 0; i < n; i++) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    events = W.walk(ptr, buf.length);
    const t1 = process.hrtime.bigint();
    const c1 = process.cpuUsage(c0);
    wall.push(buf.length / 1e6 / (Number(t1 - t0) / 1e9));
    cpu.push(buf.length / (c1.user + c1.system));
  }
  const median = (a) => a.slice().sort((x, y) => x - y)[Math.floor(a.length / 2)];
  console.log(JSON.stringify({
    file: path.basename(file), json_bytes: buf.length, events, walks: n,
    mb_per_s: Math.round(median(wall)), cpu_mb_per_s: Math.round(median(cpu)),
    min_mb_per_s: Math.round(Math.min(...wall)), max_mb_per_s: Math.round(Math.max(...wall)),
  }));
})().catch((e) => { console.error(e); process.exitCode = 1; });
