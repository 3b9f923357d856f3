// A report section that the page does not render yet gets its text fields (the tables' "Filter by
// name…" boxes) when Blink renders it. Why: style.css gives the sections below the findings
// `content-visibility: auto`, so that Blink styles and lays out only what is on screen; but a
// text field inside a skipped section makes Chromium style and lay that section out anyway, one
// section per pass, in a task without our script (most likely its form autofill, which looks at
// every text field a page adds). On a 50 MB trace that was 7 more layouts, 2-4x the layout CPU
// of the one the report needs (docs/performance.md, session 35). A section's text is all there
// while it is skipped (Ctrl-F finds it, and Blink then renders the section); only the empty boxes
// wait.

// The sections style.css skips while off screen (keep the two alike).
export const SKIPPED_OFF_SCREEN = '#report > section.card:not(#findings)';

// Browsers without the event that says a section is rendered keep their fields where they are.
const canTell = () => typeof HTMLElement !== 'undefined' && 'oncontentvisibilityautostatechange' in HTMLElement.prototype;

// Takes the text fields out of each of `sections` (already in the page) that matches
// SKIPPED_OFF_SCREEN, each replaced by an empty comment, and puts them back the first time Blink
// renders that section (on screen, scrolled to, or shown by a search or a link).
export function holdFieldsUntilRendered(sections) {
  if (!canTell()) return;
  for (const sec of sections) {
    if (!sec || !sec.matches || !sec.matches(SKIPPED_OFF_SCREEN)) continue;
    const fields = [...sec.querySelectorAll('input:not([type=checkbox]):not([type=radio]):not([type=button])')];
    if (!fields.length) continue;
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
}
