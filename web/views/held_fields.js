// A report section that the page does not render yet gets its text fields (the tables' "Filter by
// name…" boxes) when Blink renders it. Why: style.css gives the sections below the findings
// `content-visibility: auto`, so that Blink styles and lays out only what is on screen; but a
// text field inside a skipped section makes Chromium style and lay that section out anyway, one
// section per pass, in a task without our script (most likely its form autofill, which looks at
// every text field a page adds). On a 50 MB trace that was 7 more layouts, 2-4x the layout CPU
// of the one the report needs (docs/performance.md, session 35). A section's text is all there
// while it is skipped (Ctrl-F finds it, and Blink then renders the section); only the empty boxes
// wait.

// The class of the sections that style.css gives `content-visibility: auto`: whoever puts report
// sections in the page marks them with renderWhenSeen(), which holds their fields too, so the
// sections skipped and the sections whose fields wait are always the same ones.
export const RENDERED_WHEN_SEEN = 'rendered-when-seen';

// Not the findings: a link to a finding scrolls to it as the report appears (Firefox scrolled to a
// wrong place inside a section not laid out yet).
const ALWAYS_RENDERED = new Set(['findings']);

// Browsers without the event that says a section is rendered keep their fields where they are.
const canTell = () => typeof HTMLElement !== 'undefined' && 'oncontentvisibilityautostatechange' in HTMLElement.prototype;

// Marks each of `sections` (report sections, in the page or about to be) but the findings as
// rendered when seen, takes its text fields out, each replaced by an empty comment, and puts them
// back the first time Blink renders that section (on screen, scrolled to, or shown by a search or
// a link). A section marked before keeps what it has: its fields are held or back already.
export function renderWhenSeen(sections) {
  for (const sec of sections) {
    if (!sec || !sec.classList || ALWAYS_RENDERED.has(sec.id) || sec.classList.contains(RENDERED_WHEN_SEEN)) continue;
    sec.classList.add(RENDERED_WHEN_SEEN);
    if (canTell()) holdFields(sec);
  }
}

function holdFields(sec) {
  const fields = [...sec.querySelectorAll('input:not([type=checkbox]):not([type=radio]):not([type=button])')];
  if (!fields.length) return;
  const held = fields.map((field) => {
    const mark = document.createComment('');
    field.replaceWith(mark);
    return [mark, field];
  });
  const putBack = (e) => {
    if (e.skipped) return;
    sec.removeEventListener('contentvisibilityautostatechange', putBack);
    for (const [mark, field] of held) mark.replaceWith(field);
  };
  sec.addEventListener('contentvisibilityautostatechange', putBack);
}
