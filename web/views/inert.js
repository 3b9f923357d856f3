// Names from a trace made inert for display: the one function the timeline passes every name
// through before it draws it on the canvas or puts it in its details panel, tooltips, area table
// and search box (hardening, docs/hardening.md).
//
// A bidi control (U+202E RIGHT-TO-LEFT OVERRIDE and kin: the "Trojan Source" trick that makes
// `gemm_<U+202E>txt.exe` read as `gemm_exe.txt`) would reorder the text after it, on a canvas as in
// the DOM; C0/C1 control characters, line separators and invisible format characters hide or
// break text. Each is shown as a visible escape (`\u202E`), so the name reads as what it is, and a
// long name is cut (a 10 MB kernel name must not cost a 10 MB fillText per frame), with its length.
// Backslashes are left as they are: names such as Windows paths stay readable.

export const NAME_MAX = 300;

// C0, DEL, C1; U+061C; zero-width and direction marks (U+200B-U+200F); line and paragraph
// separators, embeddings and overrides (U+2028-U+202E); word joiner, invisible operators and the
// isolates (U+2060-U+2069); the BOM; interlinear annotation marks; lone surrogates.
const UNSAFE =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const escape = (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;

// [head, tail]: `s` cut to `max` UTF-16 units (never inside a surrogate pair), and what to add
// after it to say it was cut.
function cut(s, max) {
  if (s.length <= max) return [s, ''];
  let end = Math.max(0, max);
  const last = s.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return [s.slice(0, end), `… (${s.length.toLocaleString('en-US')} chars)`];
}

const asText = (text) => (text === null || text === undefined ? '' : String(text));

// `text` with every unsafe character escaped, cut to `max` units of the original plus
// "… (N chars)" when longer. Anything not a string is shown as String(text); null and undefined
// as ''.
export function inertName(text, max = NAME_MAX) {
  const [head, tail] = cut(asText(text), max);
  return head.replace(UNSAFE, escape) + tail;
}

// Multi-line text (an event's JSON): the same, but line breaks are kept.
export function inertLines(text, max) {
  const [head, tail] = cut(asText(text), max);
  return head.split('\n').map((line) => line.replace(UNSAFE, escape)).join('\n') + tail;
}
