// The page faults of a load's memory, taken while the worker waits for the file's next chunk.
// The first write to each 4 KiB page of WebAssembly memory costs a page fault: 16-17 us of CPU
// each on this project's machine, so a model of 100 MB written into fresh memory spends ~0.4 s
// in the kernel (docs/performance.md, session 32). The worker often waits for the `File`'s
// chunks (the browser reads them on another thread): in those waits it writes the memory the
// allocator will hand out next (Module.prefaultHeap, wasm/heap_prefault.h) a step at a time,
// up to what the file's model is expected to need, so the feed then writes into pages it has.
// Sized to the file: a small file takes a little memory, a large one more, and an idle page
// holds none (the warm-up once wrote a fixed 128 MiB before any file: 2-3x a 50 MB file's JSON).
export const PREFAULT_STEP = 1 << 20; // ~4 ms of faults: the longest a chunk waits for one
// Memory the load touches per byte of JSON (the model and the report's working set), measured
// on the benchmark shapes (docs/performance.md, session 32); more would be held for nothing.
export const HEAP_PER_JSON_BYTE = 0.3;
export const PREFAULT_MAX = 1 << 30;

// Bytes to write ahead of a load of `jsonTotal` bytes of JSON: its expected need less what the
// allocator already holds free (memory an earlier load or the warm-up wrote).
export function prefaultBudget(M, jsonTotal) {
  if (typeof M.prefaultHeap !== 'function' || !(jsonTotal > 0)) return 0;
  const need = Math.min(PREFAULT_MAX, HEAP_PER_JSON_BYTE * jsonTotal);
  return Math.max(0, Math.floor(need - M.heapFreeBytes()));
}

// The next task, through a MessageChannel: without the clamping of nested timers (setTimeout(0)
// waits 4 ms once five are nested). Open only while memory is written (an open port keeps Node,
// the tests, running).
function taskQueue() {
  const channel = new MessageChannel();
  const waiters = [];
  channel.port1.onmessage = () => waiters.shift()();
  return {
    next: () =>
      new Promise((resolve) => {
        waiters.push(resolve);
        channel.port2.postMessage(0);
      }),
    close: () => channel.port1.close(),
  };
}

export class Prefault {
  constructor(M, budget) {
    this.M = M;
    this.budget = budget;
    this.bytes = 0; // written so far
    this.ms = 0;
    this.full = false; // the memory could not grow: nothing more is written
  }

  // More to write, for memory the load needs beyond its model: a split load's parts, received
  // and decoded (worker/split.js).
  extend(bytes) {
    if (!this.full && bytes > 0) this.budget += bytes;
  }

  // Writes memory a step at a time while `pending` (a read's promise) has not settled.
  async whileWaiting(pending) {
    if (this.bytes >= this.budget) return;
    let settled = false;
    const settle = () => (settled = true);
    pending.then(settle, settle);
    await null; // a promise that has already settled runs its callbacks first
    if (settled) return;
    const tasks = taskQueue();
    try {
      while (!settled && this.bytes < this.budget) {
        const t = performance.now();
        const n = this.M.prefaultHeap(Math.min(PREFAULT_STEP, this.budget - this.bytes));
        this.ms += performance.now() - t;
        if (!n) {
          this.budget = 0; // the memory cannot grow: the load will say so itself
          this.full = true;
          return;
        }
        this.bytes += n;
        await tasks.next();
      }
    } finally {
      tasks.close();
    }
  }
}
