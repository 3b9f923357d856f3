// Small fixtures for the timeline's unit tests: a layout as the worker sends it
// (src/timeline_query/track_layout.cpp: groups by process, tracks with rows/instants/sparse,
// counters) and a fake hub `tl` whose worker client answers from a table, so controllers run
// without a browser.
import { buildLanes } from '../../web/timeline/layout.js';
import { createState } from '../../web/timeline/state.js';

export function layout() {
  return {
    span_ns: 1_000_000,
    steps: [],
    groups: [
      {
        process: 1,
        name: 'python',
        gpu: false,
        tracks: [
          { id: 0, name: 'main', kind: 'thread', rows: 3, instants: false },
          { id: 1, name: 'empty', rows: 0, instants: false },
          { id: 2, name: 'spans', rows: 1, instants: false, sparse: true },
        ],
        counters: [],
      },
      { process: 0, name: 'GPU 0', gpu: true, tracks: [{ id: 3, name: 'stream 7', kind: 'stream', rows: 1, instants: true }], counters: [{ id: 0, name: 'SM Active', min: 0, max: 100 }] },
    ],
  };
}

// A state with the fixture's lanes laid out, 1000 px wide.
export function laidOutState() {
  const st = createState('light');
  st.layout = layout();
  st.geo = buildLanes(st.layout, st.collapsed, st.showSparse, st.expanded);
  st.width = 1000;
  st.height = 600;
  st.view = { start: 0, end: 1_000_000 };
  return st;
}

// A hub with a fake client: answers[op](args) gives the result; every request is logged.
export function fakeHub(answers, st = laidOutState()) {
  const requests = [];
  const el = () => ({ textContent: '', value: '', checked: false, hidden: true, classList: new Set(), style: {} });
  const dom = { hitCount: el(), searchInput: el(), regexBox: el(), status: el() };
  for (const k of ['searchInput']) {
    const cls = new Set();
    dom[k].classList = { add: (c) => cls.add(c), remove: (c) => cls.delete(c), contains: (c) => cls.has(c) };
  }
  const client = {
    session: 1,
    request: async (op, args) => {
      requests.push({ op, args });
      if (!answers[op]) throw new Error(`no answer for ${op}`);
      return answers[op](args);
    },
  };
  const live = { visible: false, settleWaiters: [], searchSeq: 0 };
  return { st, dom, client, live, link: { writtenSlice: null }, requests };
}
