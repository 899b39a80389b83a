// Talking to Sluice: the console's JSON documents (GET) and its commands (POST /api/<command>), each
// carrying the session.

import { currentSession, sessionHeaders, sessionRefused } from './shared/session.js';

class HttpError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function readJson(res) {
  try {
    return await res.json();
  } catch {
    return null;
  }
}

/**
 * fetch(path, init) with the session; resolves to the JSON answer, rejects with an HttpError carrying the
 * server's `error`. Without a session, or when Sluice refuses it, the page leaves for the sign-in page and
 * the promise never settles.
 */
async function requestJson(path, init) {
  const session = currentSession();
  if (session === null) return leaving(null);
  let res;
  try {
    res = await fetch(path, { ...init, headers: { ...init.headers, ...sessionHeaders(session) }, cache: 'no-store' });
  } catch {
    throw new HttpError(0, 'Sluice cannot be reached. Is it still running?');
  }
  if (res.status === 401) return leaving(session);
  const data = await readJson(res);
  if (!res.ok) throw new HttpError(res.status, data?.error ?? `The request failed (HTTP ${res.status}).`);
  return data;
}

function leaving(session) {
  sessionRefused(session);
  return new Promise(() => {});
}

export async function getJson(path) {
  return requestJson(path, { headers: { accept: 'application/json' } });
}

/** POST /api/<command>; resolves to the command's result, rejects with the server's `error`. */
export async function post(command, body) {
  return requestJson(`/api/${command}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}
