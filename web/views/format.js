// Number formatting for the report. Times in the report are microseconds (µs).

const intFmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export function isNum(v) {
  return typeof v === 'number' && Number.isFinite(v);
}

export function fmtInt(v) {
  return isNum(v) ? intFmt.format(v) : fmtAny(v);
}

// v with `d` decimals as printf writes it (the core's titles: "%.1f%%", "%.2f ms"): an exact tie
// goes to the even digit, where toFixed goes up. GPU idle 30.25% of step time read "30.2%" in the
// finding's title and "30.3%" in the glance under the report's name.
export function fixed(v, d) {
  const a = Math.abs(v);
  const exact = a.toFixed(d + 25); // a double's ties are exact in its first digits: 30.25 is 30.250...0
  const dot = exact.indexOf('.');
  const cut = dot + (d ? d + 1 : 0);
  if (exact.slice(dot + d + 1) !== `5${'0'.repeat(24)}` || Number(exact[cut - 1]) % 2) return v.toFixed(d);
  return `${v < 0 ? '-' : ''}${exact.slice(0, cut)}`;
}

function digits(v, n) {
  const a = Math.abs(v);
  if (a >= 100) return fixed(v, Math.max(0, n - 3));
  if (a >= 10) return fixed(v, Math.max(0, n - 2));
  return fixed(v, Math.max(0, n - 1));
}

// 0.42 µs, 12.3 µs, 4.56 ms, 1.23 s
export function fmtUs(v) {
  return usDigits(v, 3);
}

// fmtUs with n significant digits (fmtUs itself takes one argument: tables call it with more).
function usDigits(v, n) {
  if (!isNum(v)) return fmtAny(v);
  // A zero as the titles and evidence write it (format_duration): the ranks' glance said "0.00 µs"
  // beside the straggler's "wait 0.0 µs", the same zero two ways.
  if (v === 0) return fmtDuration(0);
  const a = Math.abs(v);
  if (a < 1000) return `${digits(v, n)} µs`;
  if (a < 1e6) return `${digits(v / 1e3, n)} ms`;
  return `${digits(v / 1e6, n)} s`;
}

// A duration as the report's finding titles write it (src/util/format.cpp, format_duration):
// "209.98 ms", "1.08 s", "12.5 µs". A finding's evidence shows its times so, lest a title that says
// 209.98 ms sit above evidence that says 210 ms.
export function fmtDuration(v) {
  if (!isNum(v)) return fmtAny(v);
  const a = Math.abs(v);
  if (a >= 1e6) return `${fixed(v / 1e6, 2)} s`;
  if (a >= 1e3) return `${fixed(v / 1e3, 2)} ms`;
  return `${fixed(v, 1)} µs`;
}

// A time in its own unit (µs, ms, s) with `d` decimals.
function usFixed(v, d) {
  const a = Math.abs(v);
  if (a < 1000) return `${v.toFixed(d)} µs`;
  if (a < 1e6) return `${(v / 1e3).toFixed(d)} ms`;
  return `${(v / 1e6).toFixed(d)} s`;
}
// The decimals fmtUs gives a time (three significant digits: "98.8 ms", "583 ms").
function baseDecimals(v) {
  const a = Math.abs(v) < 1000 ? Math.abs(v) : Math.abs(v) < 1e6 ? Math.abs(v) / 1e3 : Math.abs(v) / 1e6;
  return a >= 100 ? 0 : a >= 10 ? 1 : 2;
}

// The ranges of one list ([[start, end], ...]), all with one number of decimals: as many as fmtUs
// gives, and more until every range's two ends read differently (a 30 µs gap 225 ms into the trace:
// "225.12 ms → 225.15 ms", not "225 ms → 225 ms"). A list read "615.96 ms → 615.97 ms" under
// "583.472 ms → 583.474 ms" when each range took its own.
export function fmtUsRanges(pairs) {
  const ends = pairs.flat().filter(isNum);
  let d = ends.reduce((m, v) => Math.max(m, baseDecimals(v)), 0);
  for (const [a, b] of pairs) {
    if (!isNum(a) || !isNum(b) || a === b) continue;
    while (d < 9 && usFixed(a, d) === usFixed(b, d)) d++;
  }
  const one = (v) => (isNum(v) ? usFixed(v, d) : fmtAny(v));
  return pairs.map(([a, b]) => `${one(a)} → ${one(b)}`);
}

export function fmtUsRange(a, b) {
  return fmtUsRanges([[a, b]])[0];
}

// Binary units, as the CLI writes them (and nvidia-smi, PyTorch's memory stats): the same
// trace reads "76.0 GiB" in both, not 76.00 GiB in one and 81.6 GB in the other.
export function fmtBytes(v) {
  if (!isNum(v)) return fmtAny(v);
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let x = v;
  while (Math.abs(x) >= 1024 && i < units.length - 1) {
    x /= 1024;
    i++;
  }
  return i === 0 ? `${x} B` : `${digits(x, 3)} ${units[i]}`;
}

// A share that is not all or nothing never rounds to it: 99.99% idle beside 16 µs of kernels read
// "GPU idle 100.0%" (hta__benchmark_simple_add), as if no kernel ran.
export function fmtPct(v) {
  if (!isNum(v)) return fmtAny(v);
  if (v > 99.95 && v < 100) return '>99.9%';
  if (v > 0 && v < 0.05) return '<0.1%';
  return `${fixed(v, Math.abs(v) < 100 ? 1 : 0)}%`;
}

// A share as the core's finding titles write it (format_pct, "%.1f%%"): a finding's evidence under a
// title that says "GPU idle 100.0%" says 100.0%, not 100%; under ">99.9%" (a share the core keeps
// inside 0..100 with the digits that show it, 99.99) it says >99.9%, as the glance does.
export function fmtPctAsTitle(v) {
  if (!isNum(v)) return fmtAny(v);
  if (v > 99.95 && v < 100) return '>99.9%';
  if (v > 0 && v < 0.05) return '<0.1%';
  return `${fixed(v, 1)}%`;
}

export function fmtRate(v) {
  return isNum(v) ? `${digits(v, 3)} GB/s` : fmtAny(v);
}

// Any value, generically: numbers grouped, objects as compact JSON, null as an em dash.
export function fmtAny(v) {
  if (v === null || v === undefined) return '—';
  if (isNum(v)) return Number.isInteger(v) ? intFmt.format(v) : String(+v.toPrecision(6));
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return JSON.stringify(v);
}

// Chooses a formatter from a key's unit: foo_us, foo_pct, bytes, gb_per_s, and the same units
// followed by what they are per or of (next_us_per_step, gemm_pct_of_window, bytes_per_step).
const PER = '($|_per_|_of_)';
export const isPctKey = (key) => new RegExp(`(_pct|_percent|^percent)${PER}`).test(key) || /^pct_of_/.test(key);
export function fmtByKey(key, v) {
  if (!isNum(v)) return fmtAny(v);
  if (new RegExp(`_us${PER}`).test(key)) return fmtUs(v);
  if (isPctKey(key)) return fmtPct(v);
  if (new RegExp(`bytes${PER}`).test(key)) return fmtBytes(v);
  if (/gb_per_s$/.test(key)) return fmtRate(v);
  return fmtAny(v);
}

// "total_us" -> "Total", "gb_per_s" -> "GB/s", "gpu_idle_pct" -> "GPU idle": units show in the values.
// "next_us_per_step" -> "__next__ per step", "kernels_le_4us" -> "Kernels ≤ 4 µs".
const WORDS = { gpu: 'GPU', cpu: 'CPU', dtoh: 'DtoH', htod: 'HtoD', dtod: 'DtoD', sm: 'SM', sms: 'SMs', cv: 'CV', gemm: 'GEMM', comm: 'communication', le: '≤', ge: '≥', next: '__next__', dataloader: 'DataLoader', cuda: 'CUDA', cudnn: 'cuDNN', cublas: 'cuBLAS', nvtx: 'NVTX', api: 'API', nccl: 'NCCL', tflops: 'TFLOP/s' };
// HTA's bound_by names (critical-path findings): read word by word, "gpu_kernel_kernel_overhead"
// said "GPU kernel kernel overhead", like a typo; these are views/critical_path.js's names.
const NAMED = {
  cpu_bound: 'CPU-bound',
  gpu_compute_bound: 'GPU compute-bound',
  gpu_communication_bound: 'GPU communication-bound',
  gpu_kernel_launch_overhead: 'Kernel launch overhead',
  gpu_kernel_kernel_overhead: 'Kernel-kernel gap',
  // kernels.overhead_dominant: the kernels that are not math (GEMM, attention, convolution).
  overhead_kernel: 'Non-math kernels',
  top_overhead_kernels: 'Top non-math kernels',
  top_overhead_ops: 'Ops with the most non-math kernel time',
  math: 'Math, share of kernel time',
  computation_kernel: 'All computation kernels',
  // math.far_below_peak: "Pct of peak 5.1" read as a unit word and a bare number.
  pct_of_peak: 'Share of peak',
};
// A share of the analysis window (kernels.overhead_dominant's "overhead_pct_of_window", read word
// by word "Overhead of window"): what the share is of, in the words the finding's title uses (the
// report's gpu.window: step time, the GPU span), and the kernels named as users name them.
const SHARE_OF = { overhead: 'Non-math kernels', gemm_conv: 'GEMM/convolution kernels' };
export const WINDOW_NAMES = { steps: 'step time', gpu_span: 'the GPU span', none: 'the trace' };
function windowShareLabel(key, windowKind) {
  const base = key.replace(/_pct_of_window$/, '');
  return `${SHARE_OF[base] || labelFor(base)}, share of ${WINDOW_NAMES[windowKind] || 'the analysed time'}`;
}

// `windowKind`: the report's gpu.window ('steps', 'gpu_span'), for the keys that are a share of it.
export function labelFor(key, windowKind) {
  if (key === 'gb_per_s') return 'GB/s';
  // Not a snake_case key but a name (ranks.identity's evidence is keyed by file): as it is, not
  // "Trace rank0.sqlite" for trace_rank0.sqlite.
  // One key per rank ("rank 3 wait_us", ranks.straggler): the name, then its key's words ("Rank 3 wait").
  const perName = /^(.*\S) ([a-z][a-z0-9]*(?:_[a-z0-9]+)*_(?:us|pct))$/.exec(key);
  if (perName) {
    const tail = labelFor(perName[2], windowKind);
    const name = perName[1].charAt(0).toUpperCase() + perName[1].slice(1);
    return `${name} ${/^[A-Z][a-z]/.test(tail) ? tail.charAt(0).toLowerCase() + tail.slice(1) : tail}`;
  }
  // A name in plain words ("rank 3 collectives", ranks.collective_count) starts a label as the
  // others do ("Rank 3 wait"); a file name (dots, dashes, underscores) stays as it is.
  if (/^[a-z][a-z0-9]*(?: [a-z0-9]+)+$/.test(key)) return key.charAt(0).toUpperCase() + key.slice(1);
  if (/[^a-z0-9_]/i.test(key)) return key;
  if (/_pct_of_window$/.test(key)) return windowShareLabel(key, windowKind);
  const bare = key.replace(/_(us|pct)(?=$|_per_|_of_)/, '');
  if (NAMED[bare]) return NAMED[bare];
  const words = bare
    .split('_')
    .map((w) => WORDS[w] || w.replace(/^(\d+)us$/, '$1 µs'));
  const text = words.join(' ');
  // A name spelled with a small first letter ("cuDNN find calls") keeps it.
  return /^[a-z]+[A-Z]/.test(text) ? text : text.charAt(0).toUpperCase() + text.slice(1);
}

// Labels for the keys of one list: where two keys read alike ("gpu_idle_after_sync_us" and
// "gpu_idle_after_sync_pct" both say "GPU idle after sync"), the share gets "(%)", lest two
// cells of one name show 2.29 ms and 4.6% side by side as if one contradicted the other.
export function labelsFor(keys, windowKind) {
  const labels = keys.map((k) => labelFor(k, windowKind));
  const seen = new Map();
  for (const l of labels) seen.set(l, (seen.get(l) || 0) + 1);
  return labels.map((l, i) => (seen.get(l) > 1 && /_pct(?=$|_)/.test(keys[i]) ? `${l} (%)` : l));
}
