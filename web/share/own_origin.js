// ?url= and kinetoscope.openUrl take files of the page's own origin only: the page promises that
// nothing is fetched from elsewhere. Returns {url} to fetch, or {err} ({code, message}) to show.
export function ownOriginUrl(path, here = location) {
  let url;
  try {
    url = new URL(path, here.href);
  } catch {
    url = null;
  }
  // A page opened from a file has no origin to fetch from (file:// fetches are refused).
  const fromFile = here.protocol === 'file:';
  if (url && !fromFile && url.origin === here.origin) return { url };
  return {
    err: fromFile
      ? { code: 'bad_url', message: `a page opened from a file cannot fetch ${path}: open the trace with the button, or drop it on the page` }
      : { code: 'bad_url', message: `only files from this page's own origin can be opened, not ${path}` },
  };
}
