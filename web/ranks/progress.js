// The status line and bar while the pool reads the ranks' files (ranks/mode.js).
import { setText } from '../views/dom.js';
import { fmtBytes, fmtInt } from '../views/format.js';

// With many files (the pool does not read their sizes up front: worker/pool.js knownSizes) the
// bar counts files and the line the bytes read so far.
export function showReadProgress(ui, names, workers, p) {
  const parts = [`Reading ${fmtInt(names.length)} traces in ${workers} worker${workers === 1 ? '' : 's'}`];
  parts.push(`${fmtInt(p.done)} of ${fmtInt(p.files)} done`);
  if (p.total) parts.push(`${fmtBytes(p.read)} of ${fmtBytes(p.total)}`);
  else if (p.total === null && p.read) parts.push(`${fmtBytes(p.read)} read`);
  setText(ui.statusText, parts.join(' · '));
  if (p.total) {
    ui.progress.max = p.total;
    ui.progress.value = Math.min(p.read, p.total);
  } else if (p.total === null) {
    ui.progress.max = p.files;
    ui.progress.value = p.done;
  } else ui.progress.removeAttribute('value');
}

// A progress callback that shows the first report at once (the status right after the drop),
// then at most one a frame, and none once `live()` says the job is over or combining: with 1,000
// small files the pool reports a few thousand times, and each update restyled the status line
// (~0.7 s of the main thread in all).
export function perFrame(show, live) {
  let first = true;
  let latest = null;
  return (p) => {
    if (!live()) return;
    if (first) {
      first = false;
      return show(p);
    }
    const waiting = latest !== null;
    latest = p;
    if (waiting) return;
    requestAnimationFrame(() => {
      const q = latest;
      latest = null;
      if (live()) show(q);
    });
  };
}
