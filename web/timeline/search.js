// Search: the box matches slice names (a substring, or a regular expression) against the list of
// distinct names the worker sends once; the worker returns every slice with a matching name id, by
// start time, drawn outlined (overlays.js). N / Shift+N step through them, selecting each.
import { lowerBound } from './geometry.js';
import { emptyColumns, hitCountText, hitsFrom, nameMatcher, nextHitIndex } from './state.js';
import { centerOn } from './viewport.js';
import { requestDraw } from './frames.js';

export function namesList(tl) {
  const live = tl.live;
  if (!live.namesPromise) {
    live.namesPromise = tl.client.request('names').then((r) => r.names.map(([id, name]) => ({ id, name, lower: name.toLowerCase() })));
    live.namesPromise.catch(() => (live.namesPromise = null));
  }
  return live.namesPromise;
}

export function setHits(tl, cols, label) {
  const st = tl.st;
  st.hits = hitsFrom(cols);
  st.hitsLabel = label;
  tl.dom.hitCount.textContent = hitCountText(st.hits, label);
  requestDraw(tl);
}

export async function searchByIds(tl, ids, label) {
  if (!ids.length) {
    setHits(tl, emptyColumns(), label);
    return 0;
  }
  const r = await tl.client.request('search', { ids });
  setHits(tl, r, label);
  return r.slice.length;
}

export async function search(tl, text, regex) {
  const { dom, live } = tl;
  const seq = ++live.searchSeq;
  dom.searchInput.classList.remove('bad');
  if (!text) {
    setHits(tl, null, '');
    return 0;
  }
  let test;
  try {
    test = nameMatcher(text, regex);
  } catch (e) {
    dom.searchInput.classList.add('bad');
    dom.hitCount.textContent = `not a regular expression: ${e.message}`;
    return -1;
  }
  const names = await namesList(tl);
  if (seq !== live.searchSeq) return -1;
  const ids = names.filter(test).map((n) => n.id);
  const count = await searchByIds(tl, ids, `${ids.length} ${ids.length === 1 ? 'name' : 'names'}`);
  return seq === live.searchSeq ? count : -1;
}

export function nextHit(tl, dir) {
  const st = tl.st;
  const hs = st.hits;
  if (!hs || !hs.slice.length) return null;
  const i = nextHitIndex(hs, dir, (st.view.start + st.view.end) / 2, lowerBound);
  hs.current = i;
  tl.dom.hitCount.textContent = hitCountText(hs, st.hitsLabel);
  const b = { slice: hs.slice[i], track: hs.track[i], depth: hs.depth[i], start_ns: hs.start[i], dur_ns: hs.end[i] - hs.start[i] };
  centerOn(tl, b);
  tl.select(b.slice);
  return b.slice;
}

// The box: a search 200 ms after typing stops; Enter steps (Shift+Enter back), Esc leaves it.
export function wireSearch(tl) {
  const { dom, st } = tl;
  const { searchInput, regexBox } = dom;
  let timer = 0;
  const soon = () => {
    clearTimeout(timer);
    timer = setTimeout(() => search(tl, searchInput.value, regexBox.checked), 200);
  };
  searchInput.addEventListener('input', soon);
  regexBox.addEventListener('change', soon);
  searchInput.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      clearTimeout(timer);
      const go = () => nextHit(tl, e.shiftKey ? -1 : 1);
      if (st.hits && st.hitsLabel !== 'pending') go();
      else search(tl, searchInput.value, regexBox.checked).then(go);
    } else if (e.key === 'Escape') {
      // Esc leaves the search: the text and its highlighted matches go together.
      e.preventDefault();
      clearTimeout(timer);
      searchInput.value = '';
      search(tl, '', false);
      searchInput.blur();
      dom.canvas.focus();
    }
  });
}
