// The page's theme, light or dark, for the whole page at once: the header, the report and every
// timeline (the timeline's "Dark theme" button used to darken its own card only, and a dark OS
// setting reached that card alone). <html data-theme> holds a choice made on the page; without
// one the OS setting (prefers-color-scheme) decides, in style.css as here.
const media = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null;
const listeners = new Set();

export function pageTheme() {
  const chosen = document.documentElement.dataset.theme;
  if (chosen === 'dark' || chosen === 'light') return chosen;
  return media && media.matches ? 'dark' : 'light';
}

function notify() {
  const theme = pageTheme();
  for (const fn of [...listeners]) fn(theme);
}

export function setPageTheme(theme) {
  document.documentElement.dataset.theme = theme === 'dark' ? 'dark' : 'light';
  notify();
}

// fn(theme) whenever the page's theme changes (the button, or the OS setting while none is chosen).
export function onThemeChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

if (media && typeof media.addEventListener === 'function') media.addEventListener('change', () => !document.documentElement.dataset.theme && notify());
