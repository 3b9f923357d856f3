// DOM helpers. Every string that may come from a trace goes in as a text node: there is no
// innerHTML anywhere in the page, so a kernel named "<img onerror=...>" is only ever text.

// Bidi controls in a trace's names (U+202E RIGHT-TO-LEFT OVERRIDE and kin) would reorder the text
// after them, so that a name can pass for another; zero-width and invisible characters hide inside
// a name; a lone surrogate is not text. Every text node and attribute, the status line, the
// compare labels and document.title show each as U+FFFD instead (hardening, docs/hardening.md; the
// CLI does the same with '?'). Line breaks and tabs are kept (code hints span lines).
const INVISIBLE =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
export function neutral(text) {
  return String(text).replace(INVISIBLE, '\ufffd');
}

// el.textContent = text, made neutral: for text set outside h() (status lines, labels).
export function setText(el, text) {
  el.textContent = neutral(text);
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
