// "Open trace…", "Open folder…" and the other file pickers are labels styled as buttons over a
// hidden <input type=file>. From the keyboard, Tab landed on the hidden inputs, where no focus ring
// can show, and never on the labels. So: the hidden inputs leave the tab order, the labels join
// it as buttons, and Enter or Space on one opens its picker. Labels made later (the compare
// panel, a link's prompt) carry tabindex and role themselves (fileButton below).

// The attributes a label.button over a hidden file input needs, for h().
export const fileButton = { tabIndex: 0, role: 'button' };

export function initFileButtons() {
  for (const input of document.querySelectorAll('input[type="file"].visually-hidden')) input.tabIndex = -1;
  for (const label of document.querySelectorAll('label.button[for]')) {
    label.tabIndex = 0;
    label.setAttribute('role', 'button');
  }
  document.addEventListener('keydown', (e) => {
    const label = e.target && e.target.closest ? e.target.closest('label.button[for]') : null;
    if (!label || (e.key !== 'Enter' && e.key !== ' ') || e.repeat) return;
    e.preventDefault();
    const input = document.getElementById(label.htmlFor);
    if (input) input.click();
  });
}
