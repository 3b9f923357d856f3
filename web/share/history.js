// Back and Forward between the views a user opened (the Report/Timeline tab, all ranks, one
// rank's report, a rank alone, another trace), as the browser's own history entries: Back used to
// leave the page, and every loaded trace with it, because view changes only rewrote the fragment
// (view.js replaces the entry: a timeline pan must not add one).
//
// A "job" is what is on screen: one trace, or the ranks of one job. Its reopen() puts it back on
// screen when Back reaches one of its entries while another job is shown: a single trace is read
// again from its File (a reference to the file on disk), the ranks are presented again from
// memory. Only the last few jobs are kept, so that old reports do not pile up in memory; an entry
// of a dropped job, or of the page before this one (the welcome page), leaves the screen as it is.
// So the first Back after loading a trace always stays on the page.
//
//   const job = newJob(() => reopen...);  enter(job, view, show)  the job is on screen, in `view`
//   visit(view, show)   the user moved to `view` ('report', 'timeline', 'all', 'rank-3', ...) of it
//   leave()             what is on screen now cannot be returned to (a comparison, a fleet)

const KEEP_JOBS = 4;
// Keys of another page load (a reload keeps history.state) must not match this one's entries.
const session = Math.random().toString(36).slice(2, 10);
const entries = new Map(); // key -> {job, view, show}
const jobs = []; // the jobs kept, oldest first
let seq = 0;
let current = null; // the job on screen
let restoring = false; // inside a popstate's restore: the views it shows are not new entries
let pending = null; // the entry Back/Forward asked for while a restore was still running

export function newJob(reopen) {
  return { reopen };
}

const here = () => entries.get(history.state && history.state.ks);

export function visit(view, show) {
  if (restoring || !current) return;
  const at = here();
  if (at && at.job === current && at.view === view) {
    at.show = show; // the same view, shown again: the newest way to show it
    return;
  }
  const key = `${session}:${++seq}`;
  entries.set(key, { job: current, view, show });
  history.pushState({ ...(history.state || {}), ks: key }, '', location.href);
}

export function enter(job, view, show) {
  if (!job) return;
  current = job;
  if (!jobs.includes(job)) {
    jobs.push(job);
    while (jobs.length > KEEP_JOBS) {
      const old = jobs.shift();
      for (const [key, e] of entries) if (e.job === old) entries.delete(key);
    }
  }
  visit(view, show);
}

export function leave() {
  if (!restoring) current = null;
}

async function restore(entry) {
  restoring = true;
  document.body.dataset.history = 'restoring';
  try {
    for (let next = entry; next; next = pending) {
      pending = null;
      try {
        if (next.job !== current) {
          await next.job.reopen();
          current = next.job;
        }
        await next.show();
      } catch (e) {
        console.warn('kinetoscope: that view could not be shown again:', e && e.message);
      }
    }
  } finally {
    restoring = false;
    delete document.body.dataset.history;
  }
}

window.addEventListener('popstate', (e) => {
  const entry = entries.get(e.state && e.state.ks);
  if (!entry) return;
  if (restoring) pending = entry;
  else restore(entry);
});
