// The "Skip to findings" link, first in the page's Tab order: without it the first finding's
// "Show on timeline" came 34 Tabs from the top (the header's buttons, the glance links, every
// section link). It moves the focus itself rather than following href="#findings": the fragment
// holds the share state (share/share.js), which a plain anchor jump would overwrite.
export function initSkipLink(link) {
  if (!link) return;
  link.addEventListener('click', (e) => {
    e.preventDefault();
    // The findings of the report on screen; else the report area (the welcome text, ranks, a comparison).
    const target = document.getElementById('findings') || document.getElementById('report');
    if (!target) return;
    const heading = target.querySelector('h2') || target;
    heading.setAttribute('tabindex', '-1'); // focusable by script, not a Tab stop of its own
    heading.focus({ preventScroll: true });
    heading.scrollIntoView({ block: 'start' });
  });
}
