// The sign-in link's page (`/open?secret=…`): takes the one-time secret out of the address bar (and the
// history), exchanges it for a session, keeps the session in this origin's storage and opens the console.

import { storeSession } from './shared/session.js';

const secret = new URLSearchParams(location.search).get('secret') ?? '';
history.replaceState(null, '', '/open');

try {
  const response = await fetch('/api/session', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ secret }),
    cache: 'no-store',
  });
  const answer = response.ok ? await response.json() : null;
  if (typeof answer?.session === 'string') {
    storeSession(answer.session);
    location.replace('/');
  } else {
    // Spent meanwhile (another tab, say): `/open` without its secret is the page for a used link.
    location.reload();
  }
} catch {
  document.querySelector('[data-sign-in-status]').textContent =
    'Sluice cannot be reached. Is it still running? Run “sluice console” in a terminal for a new link.';
}
