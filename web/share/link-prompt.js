// A link opened without its trace (the trace never leaves a browser, so a link cannot carry it):
// instead of the cold welcome page, say which trace to open and what the link will show once it
// is open (issue 18, item 6). The view itself opens when that trace is loaded (view.js, 'load').
import { h } from '../views/dom.js';
import { fmtUs } from '../views/format.js';
import { fileButton } from '../views/file_buttons.js';

function what(view) {
  const parts = [];
  if (view.v === 'timeline' || view.s !== undefined) parts.push('the Timeline tab');
  if (view.s !== undefined) parts.push('a selected slice');
  if (view.t) parts.push(`${fmtUs(view.t[0])} → ${fmtUs(view.t[1])}`);
  if (view.f) parts.push(`the finding ${view.f}`);
  if (view.r !== undefined) parts.push(`rank ${view.r}`);
  return parts;
}

// What the prompt says: two traces compared (`c`), the files of a job opened together (`n`, one
// per line, share/view.js), or one trace.
function promptText(view, parts) {
  const files = view.n ? view.n.split('\n').filter(Boolean) : [];
  const shows = parts.length ? parts.join(', ') : 'a view';
  const never = 'Traces never leave the browser that opened them, so the link cannot bring';
  if (view.c && files.length === 2) {
    return [
      h('h2', null, 'Compare ', h('code', null, files[0]), ' with ', h('code', null, files[1]), ' to see this view'),
      h('p', null, `This link shows the comparison of these two traces, the first as the base. ${never} them: compare the same two files here.`),
      h('p', null, h('button', { type: 'button', className: 'button primary', onclick: () => document.getElementById('compare-open').click() }, 'Compare two traces…')),
    ];
  }
  if (files.length > 1) {
    return [
      h('h2', null, `Open these ${files.length} files together to see this view`),
      h('ul', { className: 'link-files' }, files.map((f) => h('li', null, h('code', null, f)))),
      h('p', null, `This link shows ${shows} of the ${files.length} ranks opened together. ${never} them: select all ${files.length} files at once here (or drop them together) and the view opens.`),
      h('p', null, h('label', { className: 'button primary', for: 'file', ...fileButton }, `Open the ${files.length} files…`)),
    ];
  }
  const name = view.n || 'the trace this link was made from';
  return [
    h('h2', null, 'Open ', view.n ? h('code', null, view.n) : name, ' to see this view'),
    h('p', null, `This link shows ${shows} of ${view.n ? 'that trace' : name}. ${never} it: open the same file here and the view opens.`),
    h('p', null, h('label', { className: 'button primary', for: 'file', ...fileButton }, view.n ? `Open ${view.n}…` : 'Open the trace…')),
  ];
}

// At start, and for a link pasted into the address bar of a tab with no report yet (it said
// nothing then: the welcome page stayed as it was, as if the link were broken).
export function showLinkPrompt(view) {
  const params = new URLSearchParams(location.search);
  if (params.get('url') || params.get('demo')) return; // the trace is on its way
  const parts = what(view || {});
  const welcome = document.querySelector('#report .welcome');
  if (!welcome || (!parts.length && !view.n)) return;
  const card = h('section', { className: 'card link-prompt', id: 'link-prompt', role: 'status' }, ...promptText(view, parts));
  // A link pasted into this tab's address bar replaces the prompt of the one before it.
  const old = document.getElementById('link-prompt');
  if (old) old.remove();
  welcome.before(card);
  welcome.classList.add('after-link');
  // Gone with the first report (app.js replaces #report's children).
}
