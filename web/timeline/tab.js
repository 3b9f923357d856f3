// The Report / Timeline tabs (index.html: #tabs, #timeline) and the timeline's place in the page:
// app.js calls loaded() when a report arrives and routes the worker's 'tl' answers to onReply().
import { createTimeline } from './timeline.js';
import { decorateReport } from './links.js';
import { visit } from '../share/history.js';
import { recordedNothing } from '../views/report.js';

export function initTimelineTab({ post, report }) {
  const tabs = document.getElementById('tabs');
  const section = document.getElementById('timeline');
  const buttons = tabs ? [...tabs.querySelectorAll('button[data-tab]')] : [];
  let tl = null;

  function showTab(name) {
    for (const b of buttons) b.setAttribute('aria-selected', String(b.dataset.tab === name));
    report.hidden = name === 'timeline';
    section.hidden = name !== 'timeline';
    document.body.dataset.tab = name;
    // A tab is a place Back returns to (history.js); before the fragment changes, so that the new
    // entry gets it.
    visit(name, () => (name === 'timeline' ? tl.api.show() : showTab('report')));
    // The tab goes in the link (share/view.js `v`), quietly: nothing else follows it.
    const k = window.kinetoscope;
    if (k && typeof k.setView === 'function') k.setView({ v: name }, 'tabs', { quiet: true });
    if (name === 'timeline') tl.setVisible(true);
    else tl.setVisible(false);
    // "Show on timeline" (or a table's "show") hides the button that had the focus with the report:
    // the keyboard went back to the top of the page. The timeline takes it (its keys then work).
    const had = document.activeElement;
    if (name === 'timeline' && (!had || had === document.body || report.contains(had))) {
      const canvas = section.querySelector('canvas.tl-canvas');
      if (canvas) canvas.focus({ preventScroll: true });
    }
  }

  tl = createTimeline({ post, section, onShow: () => showTab('timeline') });
  for (const b of buttons) {
    b.addEventListener('click', () => {
      if (b.dataset.tab === 'timeline') tl.api.show();
      else showTab('report');
    });
  }

  return {
    api: { ...tl.api, showReport: () => showTab('report') },
    onReply: (m) => tl.onReply(m),
    loaded(id, rep) {
      // A file without events has nothing to draw (views/report.js recordedNothing): no tabs.
      if (tabs) tabs.hidden = recordedNothing(rep);
      tl.loaded(id);
      decorateReport(report, rep, tl.api);
    },
  };
}
