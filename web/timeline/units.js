// Time on the timeline: nanoseconds from the trace's first event (the view's unit, exact in a
// double), shown with the unit that suits the zoom: ns, µs, ms or s.

const UNITS = [
  [1e9, 's'],
  [1e6, 'ms'],
  [1e3, 'µs'],
  [1, 'ns'],
];

// A duration with three significant digits: "12.3 µs", "1.50 ms", "850 ns".
export function fmtDur(ns) {
  if (!Number.isFinite(ns)) return '—';
  const a = Math.abs(ns);
  for (const [scale, unit] of UNITS) {
    if (a >= scale || scale === 1) {
      const v = ns / scale;
      const digits = scale === 1 ? 0 : Math.abs(v) >= 100 ? 1 : Math.abs(v) >= 10 ? 2 : 3;
      return `${v.toFixed(digits)} ${unit}`;
    }
  }
  return `${ns} ns`;
}

// The ruler's step: 1, 2 or 5 times a power of ten, at least `minNs` apart.
export function niceStep(minNs) {
  if (!(minNs > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(minNs));
  for (const m of [1, 2, 5, 10]) if (m * p >= minNs) return Math.max(1, m * p);
  return 10 * p;
}

// A tick label for time t on a ruler with this step: the largest unit the step is at least a
// hundredth of, with as many decimals as the step needs (at most two): "14 ms" on a 2 ms step
// (not "0.014 s"), "1.25 ms" on a 50 µs step (not "1250 µs"), "101 µs" on a 1 µs step.
export function fmtTick(t, step) {
  let scale = 1;
  let unit = 'ns';
  for (const [s, u] of UNITS) {
    if (step * 100 >= s) {
      scale = s;
      unit = u;
      break;
    }
  }
  const decimals = Math.max(0, Math.ceil(-Math.log10(step / scale) - 1e-9));
  return `${(t / scale).toFixed(decimals)} ${unit}`;
}

// A counter's value for its row label: four significant digits, whole numbers from 10,000 up
// grouped by thousands ("77,824", not "7.782e+4").
export function fmtCounter(v) {
  if (!Number.isFinite(v)) return '—';
  if (Math.abs(v) >= 1e4) return Math.round(v).toLocaleString('en-US');
  return String(Number(v.toPrecision(4)));
}

// The unit of a counter, from its name: Nsight Systems 2023 and later put it in brackets at the end
// of a GPU metric's name ("SMs Active [Throughput %]", "GPC Clock Frequency [MHz]"); the 2021-2022
// names carry none ("SM Active", "DRAM Bandwidth", "GPC Clock Frequency"), though their values were
// the same percentages of peak and clocks in MHz. `gpu`: the counter is a GPU's (where nsys puts its
// metrics), so a CPU-side counter of a like name is not given a unit it may not have. '' if unknown.
export function counterUnit(name, gpu) {
  const bracket = /\[([^\]]+)\]\s*$/.exec(name || '');
  if (bracket) {
    const unit = bracket[1].trim();
    return unit.endsWith('%') ? '%' : unit.split(/\s+/).pop();
  }
  if (!gpu) return '';
  if (/clock frequency/i.test(name)) return 'MHz';
  return /\b(active|bandwidth|throughput|issue|utilization|occupancy)\b/i.test(name) ? '%' : '';
}

// "35%", "1,410 MHz", "12": a counter's value with its unit.
export function fmtCounterWith(v, unit) {
  if (!unit || !Number.isFinite(v)) return fmtCounter(v);
  return unit === '%' ? `${fmtCounter(v)}%` : `${fmtCounter(v)} ${unit}`;
}

// The counter row's second line on the timeline ("max 35%"); the timeline's state() gives it too.
export const counterMaxLabel = (counter, gpu) => `max ${fmtCounterWith(counter.max, counterUnit(counter.name, gpu))}`;
