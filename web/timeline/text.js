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

// A track label that does not fit, cut where its rows agree: `tail` characters at its end are what
// tells it from the thread's other rows ("OS runtime" of "cuda-EvtHandlr [1701906] OS runtime"),
// so the cut goes into the shared start, keeping that start's last word (the thread id) when
// there is room: "cuda-Ev… [1701906] OS runtime", not "cuda-EvtHandlr [1701906] OS…".
export function truncateKeepingEnd(ctx, text, px, tail) {
  measureChar(ctx);
  const fits = Math.floor((px - 6) / charWidth);
  if (text.length <= fits || !(tail > 0) || tail >= text.length || tail + 4 > fits) return truncate(ctx, text, px);
  const head = text.slice(0, text.length - tail);
  const end = text.slice(text.length - tail);
  const room = fits - tail - 1;
  const cut = head.trimEnd().lastIndexOf(' ');
  const last = cut > 0 ? head.slice(cut + 1) : ''; // "[1701906] "
  const keep = room - last.length; // characters of the start left beside it
  if (last && keep >= 5) return `${head.slice(0, keep - 1).trimEnd()}… ${last}${end}`;
  if (last && keep >= 0) return `${head.slice(0, keep)}…${last}${end}`;
  return `${head.slice(0, room - 1).trimEnd()}… ${end}`;
}

// The characters at the end of `name` that tell it from a neighbouring row of the same process:
// what follows the longest start it shares, up to a space, with `prev` or `next` (0: none shared).
export function distinctTail(name, prev, next) {
  let shared = 0;
  for (const other of [prev, next]) {
    if (typeof other !== 'string') continue;
    let i = 0;
    while (i < name.length && i < other.length && name[i] === other[i]) i++;
    const space = name.lastIndexOf(' ', i - 1);
    if (space >= 0 && space + 1 > shared) shared = space + 1;
  }
  return shared > 0 ? name.length - shared : 0;
}

// The measured width (0 before the first measureChar).
export const charPx = () => charWidth;
