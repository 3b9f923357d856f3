// The page's status line, its error box and the drop zone: what the user sees of a load while it
// runs or when it fails (app.js drives them).
import { h, neutral } from './dom.js';
import { fmtBytes, fmtInt } from './format.js';

// The status line and the progress bar for a worker's progress message (worker/protocol.js).
export function showProgress(ui, name, p) {
  // The worker names its stage: a long build or analysis must not look like a stuck read.
  const verb = { building: 'Building the model of', analysing: 'Analysing' }[p.stage] || 'Reading';
  const parts = [`${verb} ${name}`];
  parts.push(p.total ? `${fmtBytes(p.read)} of ${fmtBytes(p.total)}` : `${fmtBytes(p.read)}`);
  if (p.bytes && p.bytes !== p.read) parts.push(`${fmtBytes(p.bytes)} of JSON`);
  if (p.events) parts.push(`${fmtInt(p.events)} events`);
  ui.statusText.textContent = neutral(parts.join(' · '));
  if (p.total) {
    ui.progress.max = p.total;
    ui.progress.value = Math.min(p.read, p.total);
  } else {
    ui.progress.removeAttribute('value'); // indeterminate
  }
}

// The error box: what could not be read, why, where (a byte offset) and the error's code.
// A file that starts with '<' is, in practice, a web page saved in place of the trace (a login,
// redirect or error page that a download returned): the parser's "found '<'" did not say so.
const HTML_PAGE = /found '<'/;

export function showErrorBox(box, name, err) {
  // Byte 0 is the file as a whole (an export without the tables a report needs, a file that is not
  // a trace at all): "at byte offset 0" read like a position to look at.
  const at = err.offset === 0 ? ' (at the start of the file)' : ` (at byte offset ${fmtInt(err.offset)})`;
  const offset = err.offset !== undefined && err.offset !== null ? at : '';
  const page = HTML_PAGE.test(err.message || '')
    ? h('p', { className: 'error-hint' }, 'This file looks like an HTML page, not a trace: often a login, redirect or error page that a download saved instead of the file. Download the trace again (from the machine that wrote it, or with the link\'s credentials).')
    : null;
  const parts = [h('strong', null, `Could not read ${name}: `), `${err.message || 'unknown error'}${offset}`, err.code ? h('code', { className: 'error-code' }, err.code) : null, page];
  fillBox(box, parts, false);
}

// Several files opened together, some of which could not be read (`failed`: [{name, error}]): how
// many were opened, then each that was not, by name with its reason, in a list (before: one run-on
// sentence, which for hundreds of bad files filled the screen). The first FAILED_LISTED are listed.
const FAILED_LISTED = 20;
// `empty`: files read without one trace event (every event broken JSON), shown as empty ranks as
// `kinetoscope report` counts them, listed the same way after the others.
export function showSkippedBox(box, { opened, total, noun, failed, empty = [] }) {
  const reason = (e) => `${e.message || 'unknown error'}${e.offset === 0 ? ' (at the start of the file)' : typeof e.offset === 'number' ? ` (at byte offset ${fmtInt(e.offset)})` : ''}`;
  const list = (files) => {
    const items = files.slice(0, FAILED_LISTED).map((f) => h('li', null, h('code', null, f.name), `: ${reason(f.error)}`, f.error.code ? h('code', { className: 'error-code' }, f.error.code) : null));
    if (files.length > FAILED_LISTED) items.push(h('li', { className: 'muted' }, `and ${fmtInt(files.length - FAILED_LISTED)} more`));
    return h('ul', { className: 'skipped-files' }, items);
  };
  const are = (n) => (n === 1 ? 'is' : 'are');
  const parts = [h('strong', null, `Opened ${fmtInt(opened)} of ${fmtInt(total)} ${noun}${failed.length ? `; ${fmtInt(failed.length)} could not be read and ${are(failed.length)} left out:` : '.'}`)];
  if (failed.length) parts.push(list(failed));
  if (empty.length) parts.push(h('strong', null, `${fmtInt(empty.length)} ${empty.length === 1 ? 'was' : 'were'} read but ${empty.length === 1 ? 'holds' : 'hold'} no trace event (shown as empty ranks):`), list(empty));
  fillBox(box, parts, false);
}

// A load the user cancelled: the status line went away with nothing said, and the report left on
// screen (if any) read as the cancelled file's. Says both, in the same box, without the error's red.
export function showCancelledBox(box, name) {
  fillBox(box, [h('strong', null, `Cancelled reading ${name}.`)], true);
}

function fillBox(box, parts, notice) {
  // A load that stops leaves the report that was shown: say which one it is, so it is not read as this file's.
  const shown = document.querySelector('#report .report-head h2');
  const kept = shown && shown.textContent ? `The report below is still the one of ${shown.textContent}.` : notice ? 'No report is shown: open a trace to see one.' : '';
  const close = h('button', { type: 'button', className: 'error-close', title: 'Dismiss', 'aria-label': 'Dismiss this message', onclick: () => (box.hidden = true) }, '×');
  // replaceChildren writes a null as the text "null": only the parts there are.
  box.replaceChildren(...[close, ...parts, kept ? h('p', { className: 'error-kept' }, kept) : null].filter(Boolean));
  box.classList.toggle('notice', notice);
  box.hidden = false;
}

// The whole window is a drop zone: `drop` (the overlay) shows while files are dragged over it;
// onDrop(dataTransfer) gets what was dropped.
export function initDropZone(drop, onDrop) {
  let dragDepth = 0;
  const hasFiles = (e) => e.dataTransfer && Array.from(e.dataTransfer.types).includes('Files');
  window.addEventListener('dragenter', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    dragDepth++;
    drop.hidden = false;
  });
  window.addEventListener('dragover', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
  });
  window.addEventListener('dragleave', () => {
    dragDepth = Math.max(0, dragDepth - 1);
    if (!dragDepth) drop.hidden = true;
  });
  window.addEventListener('drop', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    dragDepth = 0;
    drop.hidden = true;
    onDrop(e.dataTransfer);
  });
}

// What the report's steps are now, beside the box: an empty box read as "no steps" when the
// steps came from ProfilerStep or a range found by its name.
function stepsNow(s) {
  if (!s || !s.count) {
    const it = s && s.inferred_iterations;
    return it && it.found === true ? `Now: no step ranges found; ${fmtInt(it.count)} iterations are inferred from the repeating launches.` : 'Now: no step ranges found; the whole capture is the window.';
  }
  const n = `${fmtInt(s.count)} step${s.count === 1 ? '' : 's'}`;
  if (s.source === 'step_range') return `Now: ${n} from the ranges named “${s.range}”.`;
  if (s.source === 'nvtx_range') return `Now: ${n} from the NVTX ranges “${s.range}”, found by their name.`;
  // Steps between NVTX marks (nvtxMark): said so, never as ProfilerStep's.
  if (s.source === 'nvtx_marks') return `Now: ${n} from the NVTX marks “${s.range}”, each step from one mark to the next.`;
  return `Now: ${n} from the ProfilerStep#N ranges.`;
}

// The step-range box of an Nsight Systems export's report: steps from the NVTX ranges of a name
// (`kinetoscope report --step-range NAME`). onApply(name) when submitted.
export function stepRangeForm(report, onApply) {
  const input = h('input', { type: 'text', id: 'step-range', placeholder: 'e.g. train_step', 'aria-label': 'Steps from the NVTX ranges named', value: report.steps?.requested ?? '' });
  const form = h(
    'form',
    { className: 'step-range', title: 'kinetoscope report --step-range NAME: steps are the NVTX ranges of this name (empty: found by itself)' },
    h('label', { for: 'step-range' }, 'Steps from NVTX ranges named '),
    input,
    h('button', { type: 'submit', className: 'button' }, 'Apply'),
    h('span', { className: 'muted step-range-now' }, stepsNow(report.steps)),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    onApply(input.value.trim());
  });
  return form;
}
