// Where the export bar finds the timeline, without importing it (the timeline is built separately
// and may be absent). The timeline registers itself once it exists:
//
//   window.kinetoscope.registerTimeline({ canvas })            // one canvas holds the whole view
//   window.kinetoscope.registerTimeline({ toBlob: async () => pngBlob })   // it composes its own
//
// and follows the view (the `t` range of a deep link) with window.kinetoscope.onViewChange.
// Without a registration, a canvas marked <canvas data-kinetoscope-timeline> is used if present.
//
// A view that shows timelines of its own (the ranks view's stacked timelines, ranks/stacked.js)
// registers them apart with registerViewTimelines({available, toBlob, fileName}): while they are
// available they are what the export saves, as one image; the page's timeline comes back when they
// go. (The stacked timelines used to register each as the page's timeline: the last one read won,
// and the button stayed disabled on the view that showed them.)

let registered = null;
let viewTimelines = null;
const watchers = new Set();

export function registerTimeline(provider) {
  if (provider !== null && (typeof provider !== 'object' || !(provider.canvas || typeof provider.toBlob === 'function'))) {
    throw new TypeError('registerTimeline takes {canvas} or {toBlob: () => Promise<Blob>}, or null to unregister');
  }
  registered = provider;
  for (const fn of watchers) fn();
}

export function onTimelineChange(fn) {
  watchers.add(fn);
  return () => watchers.delete(fn);
}

export function registerViewTimelines(provider) {
  viewTimelines = provider;
  for (const fn of watchers) fn();
}

const viewShown = () => !!(viewTimelines && viewTimelines.available());

// What the export names the file after the report's stem: "timeline", or the view's own name
// (its own: "ranks-0-3.step-2.timelines.png").
export function timelineFileName(stem) {
  return viewShown() ? viewTimelines.fileName() : `${stem}.timeline.png`;
}

// Words for the export button's title: what the image will hold.
export function timelineWhat() {
  return viewShown() ? viewTimelines.what() : 'The timeline view as a PNG image';
}

function canvasOf() {
  if (registered && registered.canvas) return registered.canvas;
  // Not the page's own timelines (.tl-canvas): they register, and a hidden one found here was
  // saved as a blank 300x150 image from a page whose first load was the ranks view.
  return document.querySelector('canvas[data-kinetoscope-timeline]:not(.tl-canvas)');
}

// A provider may say it has nothing to show now ({available: () => false}: the rank and compare
// views show no single trace's timeline).
export function hasTimeline() {
  if (viewShown()) return true;
  if (registered && typeof registered.available === 'function' && !registered.available()) return false;
  return !!((registered && typeof registered.toBlob === 'function') || canvasOf());
}

// The timeline as it is on screen, as a PNG Blob; null when there is no timeline.
export async function timelinePng() {
  if (!hasTimeline()) return null;
  if (viewShown()) return viewTimelines.toBlob();
  if (registered && typeof registered.toBlob === 'function') return registered.toBlob();
  const canvas = canvasOf();
  if (!canvas) return null;
  return new Promise((resolve, reject) => {
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('the timeline canvas gave no image'))), 'image/png');
  });
}
