// Keyboard and pointer input of the timeline, turned into calls on the controller (timeline.js):
//   W/S zoom in/out at the mouse (or the middle), A/D pan, held keys animate smoothly;
//   wheel: vertical scroll; Ctrl+wheel or a pinch zooms at the mouse; Shift+wheel or a sideways
//   trackpad swipe pans; drag pans (both ways); Shift+drag selects an area; a click selects the
//   slice under the mouse; a click on a process header folds or unfolds it;
//   F focus the selection (or area), 0 fit the whole trace, M mark the selection's (or area's)
//   range, E all rows of every deep thread (or their top rows again), N / Shift+N next /
//   previous search hit, / the search box, Esc clears. + and - zoom as W and S do; on the focused
//   canvas the arrows pan (left, right) and scroll the rows (up, down), as users try first.
import { LABEL_W, RULER_H } from './layout.js';

const ZOOM_PER_S = 2.4; // held W/S: the window shrinks or grows e^2.4 (about 11x) per second
const PAN_PER_S = 1.0; // held A/D: one window width per second
const TAP_S = 0.12; // a single key press moves as much as 0.12 s held
const CLICK_PX = 4;
const ALIAS = { '+': 'w', '=': 'w', '-': 's', ArrowLeft: 'a', ArrowRight: 'd' }; // the keys W/S/A/D stand for
const ROW_STEP_PX = 40; // the rows an arrow key scrolls

export function attachInput(canvas, ctl) {
  const held = new Set();
  let last = 0;
  let drag = null;

  const inPlot = (x) => x >= LABEL_W;
  const local = (e) => {
    const r = canvas.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  };

  function step(dt) {
    if (held.has('w')) ctl.zoomAtMouse(Math.exp(-ZOOM_PER_S * dt));
    if (held.has('s')) ctl.zoomAtMouse(Math.exp(ZOOM_PER_S * dt));
    if (held.has('a')) ctl.panBy(-PAN_PER_S * dt);
    if (held.has('d')) ctl.panBy(PAN_PER_S * dt);
  }

  // The key as W/S/A/D when it stands for one; the arrows only on the canvas (elsewhere they scroll
  // the page or move in a control).
  function keyOf(e) {
    const k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    return ALIAS[k] && (k.length === 1 || e.target === canvas) ? ALIAS[k] : k;
  }

  function onKeyDown(e) {
    if (!ctl.active() || e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable)) return;
    const k = keyOf(e);
    if ('wasd'.includes(k) && k.length === 1) {
      e.preventDefault();
      if (!held.has(k)) {
        held.add(k);
        step(TAP_S);
        last = performance.now();
        ctl.requestDraw();
      }
      return;
    }
    let handled = true;
    if (k === 'f') ctl.focus();
    else if (k === '0') ctl.fit();
    else if (k === 'm') ctl.markRange();
    else if (k === 'e') ctl.toggleFolds();
    else if (k === 'n') ctl.nextHit(e.shiftKey ? -1 : 1);
    else if (k === '/') ctl.focusSearch();
    else if (k === 'Escape') ctl.clear();
    else if ((k === 'ArrowUp' || k === 'ArrowDown') && t === canvas) ctl.scrollBy(k === 'ArrowUp' ? -ROW_STEP_PX : ROW_STEP_PX);
    else handled = false;
    if (handled) e.preventDefault();
  }

  function onKeyUp(e) {
    held.delete(keyOf(e));
  }

  canvas.addEventListener('mousedown', (e) => {
    if (e.button !== 0) return;
    canvas.focus({ preventScroll: true });
    const p = local(e);
    drag = { x: p.x, y: p.y, lastX: p.x, lastY: p.y, moved: false, shift: e.shiftKey, label: !inPlot(p.x) || p.y < RULER_H };
    if (drag.shift && !drag.label) ctl.areaStart(p.x, p.y);
    e.preventDefault();
  });
  window.addEventListener('mousemove', (e) => {
    const p = local(e);
    ctl.mouseAt(p.x, p.y, p.x >= 0 && p.y >= 0 && p.x <= canvas.clientWidth && p.y <= canvas.clientHeight);
    if (!drag) return;
    if (Math.abs(p.x - drag.x) + Math.abs(p.y - drag.y) > CLICK_PX) drag.moved = true;
    if (drag.label) return;
    if (drag.shift) ctl.areaTo(p.x, p.y);
    else if (drag.moved) ctl.dragBy(p.x - drag.lastX, p.y - drag.lastY);
    drag.lastX = p.x;
    drag.lastY = p.y;
  });
  window.addEventListener('mouseup', (e) => {
    if (!drag) return;
    const d = drag;
    drag = null;
    const p = local(e);
    if (d.shift && !d.label) {
      if (d.moved) ctl.areaEnd(p.x, p.y);
      else ctl.areaCancel();
    } else if (!d.moved) {
      ctl.clickAt(d.x, d.y);
    }
  });
  canvas.addEventListener(
    'wheel',
    (e) => {
      e.preventDefault();
      const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? canvas.clientHeight : 1;
      const dx = e.deltaX * unit;
      const dy = e.deltaY * unit;
      const p = local(e);
      ctl.mouseAt(p.x, p.y, true);
      if (e.ctrlKey || e.metaKey) ctl.zoomAtMouse(Math.exp(dy * 0.01));
      else if (e.shiftKey) ctl.panPx(dy || dx);
      else if (Math.abs(dx) > Math.abs(dy)) ctl.panPx(dx);
      else ctl.scrollBy(dy);
    },
    { passive: false },
  );
  canvas.addEventListener('mouseleave', () => ctl.mouseAt(-1, -1, false));
  document.addEventListener('keydown', onKeyDown);
  document.addEventListener('keyup', onKeyUp);
  window.addEventListener('blur', () => held.clear());

  // Called once per animation frame: applies held keys; true while something is still moving.
  return {
    animate(now) {
      if (!held.size) return false;
      const dt = Math.min(0.1, Math.max(0, (now - last) / 1000));
      last = now;
      step(dt);
      return true;
    },
  };
}
