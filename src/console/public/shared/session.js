// The console session: an id kept in this origin's own storage (per port, unlike a cookie, so no program
// on another port is ever sent it) and sent as `Authorization: Bearer …` on every API request. Without
// one, or once Sluice refuses it, the page goes to the sign-in page (docs/console.md, "Signing in").

const KEY = 'sluice.consoleSession';

/** The stored session id, or null when this browser has not signed in. */
export const currentSession = () => localStorage.getItem(KEY);

export function storeSession(id) {
  localStorage.setItem(KEY, id);
}

export const sessionHeaders = (id) => ({ authorization: `Bearer ${id}` });

/**
 * Sluice refused session `id` (or there is none, `null`): forgets it and opens the sign-in page, or, when
 * another tab signed in meanwhile, reloads with that session.
 */
export function sessionRefused(id) {
  if (id !== null && currentSession() === id) localStorage.removeItem(KEY);
  if (currentSession() === null) location.replace('/signin');
  else location.reload();
}
