// Where the export bar finds the timeline, without importing it (the timeline is built separately
// and may be absent). The timeline registers itself once it exists:
//
//   window.kinetoscope.registerTimeline({ canvas })            // one canvas holds the whole view
//   window.kinetoscope.registerTimeline({ toBlob: async () => pngBlob })   // it composes its own
//
// and follows the view (the `t` range of a deep link) with window.kinetoscope.onViewChange.
// Without a registration, a canvas marked <canvas data-kinetoscope-timeline> is used if present.

let registered = null;
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

function canvasOf() {
  if (registered && registered.canvas) return registered.canvas;
  return document.querySelector('canvas[data-kinetoscope-timeline]');
}

// A provider may say it has nothing to show now ({available: () => false}: the rank and compare
// views show no single trace's timeline).
export function hasTimeline() {
  if (registered && typeof registered.available === 'function' && !registered.available()) return false;
  return !!((registered && typeof registered.toBlob === 'function') || canvasOf());
}

// The timeline as it is on screen, as a PNG Blob; null when there is no timeline.
export async function timelinePng() {
  if (!hasTimeline()) return null;
  if (registered && typeof registered.toBlob === 'function') return registered.toBlob();
  const canvas = canvasOf();
  if (!canvas) return null;
  return new Promise((resolve, reject) => {
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('the timeline canvas gave no image'))), 'image/png');
  });
}
