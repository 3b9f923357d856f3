// DOM helpers. Every string that may come from a trace goes in as a text node: there is no
// innerHTML anywhere in the page, so a kernel named "<img onerror=...>" is only ever text.

// Bidi controls in a trace's names (U+202E RIGHT-TO-LEFT OVERRIDE and kin) would reorder the text
// after them, so that a name can pass for another: every text node and attribute shows them as
// U+FFFD instead (hardening, docs/hardening.md; the CLI does the same with '?').
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
export function neutral(text) {
  return text.replace(BIDI_CONTROLS, '\ufffd');
}

// h('td', {className: 'num', title: 'x'}, 'text', childNode, [more, children])
export function h(tag, props, ...children) {
  const node = document.createElement(tag);
  if (props) {
    for (const [key, value] of Object.entries(props)) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'className') node.className = value;
      else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
      else if (key === 'dataset') Object.assign(node.dataset, value);
      else node.setAttribute(key, value === true ? '' : neutral(String(value)));
    }
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) append(node, c);
    else if (c instanceof Node) node.appendChild(c);
    else node.appendChild(document.createTextNode(neutral(String(c))));
  }
}

// A titled section of the report.
export function section(id, title, ...children) {
  return h('section', { className: 'card', id }, h('h2', null, title), ...children);
}

export function note(text) {
  return h('p', { className: 'muted' }, text);
}

// A value of a key this page has no special view for: scalars formatted by the key's unit suffix,
// a flat object as "key value" pairs, anything deeper as indented JSON text.
export function valueView(key, v, fmtByKey) {
  if (v === null || typeof v !== 'object') return fmtByKey(key, v);
  const flat = !Array.isArray(v) && Object.values(v).every((x) => x === null || typeof x !== 'object');
  if (flat) {
    return h(
      'ul',
      { className: 'pairs' },
      Object.entries(v).map(([k, x]) => h('li', null, h('span', { className: 'muted' }, k.replace(/_/g, ' ')), ' ', fmtByKey(k, x))),
    );
  }
  return h('pre', { className: 'json' }, JSON.stringify(v, null, 2));
}
