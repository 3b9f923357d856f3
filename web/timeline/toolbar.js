// The timeline tab's DOM: the toolbar (search, regex, previous/next match, status, sparse tracks,
// fit, theme), the canvas in its wrap with the details drawer and the merged-box tooltip over it,
// the help line and the area-selection panel. `on` holds the handlers the buttons call.
import { h } from '../views/dom.js';

export function buildDom(section, on) {
  const canvas = h('canvas', { className: 'tl-canvas', tabindex: '0', 'aria-label': 'Timeline: W/S or +/- zoom, A/D or the arrow keys pan, E shows or folds the rows of deep threads, click a slice for details', dataset: { kinetoscopeTimeline: '' } });
  const wrap = h('div', { className: 'tl-canvas-wrap' }, canvas);
  const searchInput = h('input', { type: 'search', className: 'tl-search', placeholder: 'Search slices by name…', 'aria-label': 'Search slices by name' });
  const regexBox = h('input', { type: 'checkbox', className: 'tl-regex' });
  const hitCount = h('span', { className: 'muted tl-hitcount', 'aria-live': 'polite' });
  const themeButton = h('button', { type: 'button', className: 'button tl-theme', onclick: on.theme }, '');
  const fitButton = h('button', { type: 'button', className: 'button', title: 'Fit the whole trace (0)', onclick: on.fit }, 'Fit');
  const status = h('span', { className: 'muted tl-status' });
  // "N tracks hidden · show": lanes with nothing worth drawing (the worker decides from the data)
  // stay out of the way, and one click brings them back (issue 18, item 7).
  const sparseButton = h('button', { type: 'button', className: 'button tl-sparse', hidden: true, onclick: on.sparse }, '');
  const detailsBox = h('div', { className: 'tl-details' });
  // The selected slice's details open in a drawer over the bottom of the canvas, where the eye
  // is (issue 18, item 1); the wheel over it scrolls it, not the tracks.
  const drawerClose = h('button', { type: 'button', className: 'tl-drawer-close', title: 'Close (Esc)', 'aria-label': 'Close the details', onclick: on.closeDrawer }, '×');
  const drawer = h('aside', { className: 'tl-drawer', hidden: true, 'aria-label': 'Selected slice' }, drawerClose, detailsBox);
  const areaBox = h('div', { className: 'tl-area' });
  const toolbar = h(
    'div',
    { className: 'tl-toolbar' },
    searchInput,
    h('label', { className: 'tl-regex-label' }, regexBox, ' regex'),
    h('button', { type: 'button', className: 'button tl-prev', title: 'Previous match (Shift+N)', onclick: () => on.nextHit(-1) }, '◀'),
    h('button', { type: 'button', className: 'button tl-next', title: 'Next match (N)', onclick: () => on.nextHit(1) }, '▶'),
    hitCount,
    h('span', { className: 'tl-spacer' }),
    status,
    sparseButton,
    fitButton,
    themeButton,
  );
  const help = h('p', { className: 'muted tl-help' }, 'W/S or +/− zoom · A/D or ←/→ pan · wheel scrolls, Ctrl+wheel zooms · drag pans · Shift+drag selects an area · click a slice for details · F focus · 0 fit · M mark a range · E all rows of deep threads · N next match · / search');
  section.replaceChildren(
    h('h2', null, 'Timeline'),
    toolbar,
    wrap,
    help,
    h('div', { className: 'tl-panels' }, h('div', { className: 'tl-panel' }, h('h3', { className: 'sub' }, 'Area selection'), areaBox)),
  );
  wrap.append(drawer);
  // The tooltip over a merged box (runs.js).
  const tip = h('div', { className: 'tl-tip', hidden: true, role: 'tooltip' });
  wrap.append(tip);
  const ctx = canvas.getContext('2d', { alpha: false });
  return { section, canvas, ctx, wrap, searchInput, regexBox, hitCount, themeButton, status, sparseButton, detailsBox, drawer, areaBox, tip };
}
