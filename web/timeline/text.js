// Text on the canvas: the fonts, and cutting a label to a width by the average character width
// (measured once), so that no label costs a measureText per frame.
export const FONT = '11px system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif';
export const BOLD = `600 ${FONT}`;

let charWidth = 0;

// The average character width of FONT, measured once: text is cut by it, with no measureText per
// label per frame.
export function measureChar(ctx) {
  if (!charWidth) charWidth = ctx.measureText('abcdefghijklmnopqrstuvwxyz0123456789').width / 36;
}

export function truncate(ctx, text, px) {
  measureChar(ctx);
  const fits = Math.floor((px - 6) / charWidth);
  if (fits <= 1) return '';
  return text.length <= fits ? text : `${text.slice(0, fits - 1)}…`;
}

// The measured width (0 before the first measureChar).
export const charPx = () => charWidth;
