// The welcome screen's "Try an example trace": the bundled example (examples/demo, copied beside
// the page by scripts/dist.mjs and mapped by `make demo`), so that a visitor sees a report before
// having a trace of their own. A page opened from a file (the single-file page) cannot fetch it,
// unless the page carries the example itself (window.kinetoscopeExample: a base64 gzip, dist).
export const EXAMPLE_PATH = 'examples/demo/h200_dataloader_stall.pt.trace.json.gz';
const EXAMPLE_NAME = EXAMPLE_PATH.split('/').pop();

function embeddedExample() {
  const b64 = document.documentElement.dataset.example || '';
  if (!b64) return null;
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new File([bytes], EXAMPLE_NAME);
}

export function initExample({ open, openUrl, ignore }) {
  const button = document.getElementById('try-example');
  if (!button) return;
  const embedded = () => {
    try {
      return embeddedExample();
    } catch {
      return null;
    }
  };
  if (location.protocol === 'file:' && !document.documentElement.dataset.example) {
    button.hidden = true;
    return;
  }
  button.addEventListener('click', () => {
    const file = embedded();
    (file ? open(file) : openUrl(EXAMPLE_PATH)).catch(ignore);
  });
}
