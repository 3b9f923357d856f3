// The stacked rank timelines as one PNG, as they are on screen: each rank's heading ("rank 3 ·
// step 2 · 41.2 ms") above its timeline, top to bottom, and a title line saying what was aligned
// on what. One image, not one per rank: the point of stacking is to compare them side by side,
// and an image per rank lost which was which (issue page12, item 1).

const HEAD_PX = 26; // CSS pixels of each heading strip
const PAD_PX = 8;

function colors() {
  const cs = getComputedStyle(document.body);
  const bg = cs.backgroundColor;
  // A transparent body (no background set) would give a transparent PNG: white then.
  return { bg: !bg || bg === 'transparent' || bg === 'rgba(0, 0, 0, 0)' ? '#fff' : bg, fg: cs.color || '#000', font: cs.fontFamily || 'sans-serif' };
}

// parts: [{heading: string, canvas: HTMLCanvasElement}], in the order shown; title: one line.
export function composeStacked(title, parts) {
  const dpr = window.devicePixelRatio || 1;
  const head = Math.round(HEAD_PX * dpr);
  const pad = Math.round(PAD_PX * dpr);
  const width = Math.max(1, ...parts.map((p) => p.canvas.width));
  const height = head + parts.reduce((sum, p) => sum + head + p.canvas.height + pad, 0);
  const out = document.createElement('canvas');
  out.width = width;
  out.height = height;
  const g = out.getContext('2d');
  const { bg, fg, font } = colors();
  g.fillStyle = bg;
  g.fillRect(0, 0, width, height);
  g.fillStyle = fg;
  g.textBaseline = 'middle';
  let y = 0;
  const line = (text, bold) => {
    g.font = `${bold ? 'bold ' : ''}${Math.round(13 * dpr)}px ${font}`;
    g.fillText(text, pad, y + head / 2, width - 2 * pad);
    y += head;
  };
  line(title, false);
  for (const p of parts) {
    line(p.heading, true);
    g.drawImage(p.canvas, 0, y);
    y += p.canvas.height + pad;
  }
  return new Promise((resolve, reject) => out.toBlob((b) => (b ? resolve(b) : reject(new Error('the stacked timelines gave no image'))), 'image/png'));
}
