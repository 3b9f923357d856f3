// A long name (templated C++ kernels run to hundreds of characters) clamped to two lines; a click,
// or Enter or Space on it, shows the whole of it, and again clamps it.
//
// Only a name the clamp actually cuts (or one opened) is a control: a Tab stop, a button to screen
// readers, with its whole name as its accessible name and aria-expanded saying whether it is open.
// A name that fits is plain text, so a table of 500 short names is not 500 Tab stops. Whether a
// name is cut depends on the column's width, known only once laid out: one ResizeObserver watches
// every clamped name and decides again when its box changes (shown, the window resized, the
// table redrawn).
import { h, neutral } from './dom.js';

const cut = (el) => el.scrollHeight > el.clientHeight + 1;

function setOperable(el, on) {
  if (on === (el.getAttribute('role') === 'button')) return;
  if (on) {
    el.setAttribute('role', 'button');
    el.tabIndex = 0;
    el.setAttribute('aria-expanded', String(el.classList.contains('open')));
  } else {
    el.removeAttribute('role');
    el.removeAttribute('tabindex');
    el.removeAttribute('aria-expanded');
  }
}

let observer = null;
function watch(el) {
  if (typeof ResizeObserver !== 'function') return setOperable(el, true); // cannot tell: every name is a control
  observer =
    observer ||
    new ResizeObserver((entries) => {
      for (const { target, contentRect } of entries) {
        // Gone from the page (its table redrawn): nothing to decide any more.
        if (!target.isConnected) observer.unobserve(target);
        // Laid out (not hidden, nor in a section the browser skips: reading its scrollHeight
        // then would make it lay that section out, the work content-visibility saves).
        else if (contentRect.width > 0) setOperable(target, target.classList.contains('open') || cut(target) || target.dataset.whole !== undefined);
      }
    });
  observer.observe(el);
}

function toggle(el) {
  const open = el.classList.toggle('open');
  if (el.getAttribute('role') === 'button') el.setAttribute('aria-expanded', String(open));
  if (el.dataset.whole !== undefined) el.textContent = neutral(open ? el.dataset.whole : el.dataset.short);
}

// A table cell's name (dataTable's fmt: a second argument, the row, is not for it).
export const clampedName = (v) => clampedWithTitle(v, String(v ?? ''));

// `title`: the hover text, when it is not the name itself (a list of names behind the first).
export function clampedWithTitle(v, title) {
  const name = String(v ?? '');
  const el = h('span', { className: 'clamp', title }, name);
  el.addEventListener('click', () => toggle(el));
  el.addEventListener('keydown', (e) => {
    if (el.getAttribute('role') !== 'button' || (e.key !== 'Enter' && e.key !== ' ')) return;
    e.preventDefault(); // Space would scroll the page
    toggle(el);
  });
  watch(el);
  return el;
}

// A name shown shortened (`short`: ranks/short_names.js leaves out what every file's name starts
// with), clamped like the others; opened, the whole name. Always a control when the two differ.
export function clampedShort(short, whole) {
  const el = clampedWithTitle(short, whole);
  // Attributes are trace text too: kept neutral, as h() keeps every other one.
  if (short !== whole) Object.assign(el.dataset, { short: neutral(short), whole: neutral(whole) });
  return el;
}
