// A new token's secret, shown once with a button that copies it.

import { visibleText } from './core/visibleText.js';
import { $ } from './shared/dom.js';

/** The secret's copy and dismiss buttons; dismissing gives the focus back to `form`'s name field. */
export function wireTokenSecret(form) {
  $('[data-copy-token]').addEventListener('click', copySecret);
  $('[data-dismiss-token]').addEventListener('click', () => {
    const box = $('[data-token-secret]');
    box.hidden = true;
    $('[data-token-plaintext]', box).textContent = '';
    $('[data-copy-status]', box).textContent = '';
    form.elements.name.focus();
  });
}

export function showSecret(name, plaintext) {
  const box = $('[data-token-secret]');
  $('[data-token-secret-name]', box).textContent = `“${visibleText(name)}”`;
  $('[data-token-plaintext]', box).textContent = plaintext;
  $('[data-copy-status]', box).textContent = '';
  box.hidden = false;
  box.focus();
  box.scrollIntoView({ block: 'nearest' });
}

async function copySecret() {
  const box = $('[data-token-secret]');
  const code = $('[data-token-plaintext]', box);
  const status = $('[data-copy-status]', box);
  const text = code.textContent;
  try {
    if (!navigator.clipboard?.writeText) throw new Error('no clipboard');
    await navigator.clipboard.writeText(text);
    status.textContent = 'Copied to the clipboard.';
  } catch {
    // Fallback: select the token so the user can copy it with the keyboard.
    const range = document.createRange();
    range.selectNodeContents(code);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    let copied = false;
    try {
      copied = document.execCommand('copy');
    } catch {
      // execCommand is unsupported here: the selection stays for the user to copy.
    }
    status.textContent = copied
      ? 'Copied to the clipboard.'
      : 'The token is selected: press Ctrl+C (⌘C on a Mac) to copy it.';
  }
}
