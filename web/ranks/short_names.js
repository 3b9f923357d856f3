// The rank picker's labels: the files of one job are often named alike but for a part in the
// middle (param__dlrm_kineto__worker3_step_12.1694128201557.pt.trace.json), and a <select> cannot
// wrap or shorten its text: at 1024 px it cut every DLRM name before the time that tells them
// apart. The words every name starts with are left out, an ellipsis in their place; a name still
// longer than `max` keeps its start and its end. The full names stay in the options' titles.

// "a__b_c1.json" -> ["a_", "_", "b_", "c1.", "json"]: words with the separator that ends them.
const words = (name) => name.split(/(?<=[_.\-\s])/);

export function shortNames(names, max = 44) {
  const split = names.map(words);
  let common = 0;
  if (names.length > 1) {
    // Whole words only, and never a name's last word (names alike to the end keep that word).
    const limit = Math.min(...split.map((w) => w.length)) - 1;
    while (common < limit && split.every((w) => w[common] === split[0][common])) common++;
  }
  const cut = split[0].slice(0, common).join('').length;
  return names.map((name) => {
    const rest = cut > 3 ? `…${name.slice(cut)}` : name;
    if (rest.length <= max) return rest;
    const head = Math.ceil((max - 1) / 2);
    return `${rest.slice(0, head)}…${rest.slice(rest.length - (max - 1 - head))}`;
  });
}
