// Server-sent events read with fetch: EventSource cannot send the session header.

import { currentSession, sessionHeaders, sessionRefused } from './session.js';

/**
 * A stream at `url` read with the stored session, one at a time: the function returned (re)opens it,
 * aborting the one before. A 401 goes to sign-in; otherwise `onEnd` hears why it stopped: `ended` (an
 * open stream ended), `refused` (any other status) or `failed` (the connection failed).
 */
export function sessionStream(url, { onOpen, onEvent, onEnd }) {
  let current = null;
  return function open() {
    current?.abort();
    const session = currentSession();
    if (session === null) return sessionRefused(null);
    const mine = new AbortController();
    current = mine;
    readServerEvents(url, { headers: sessionHeaders(session), signal: mine.signal, onOpen, onEvent }).then(
      (status) => {
        if (current !== mine) return;
        if (status === 401) sessionRefused(session);
        else onEnd(status === 200 ? 'ended' : 'refused');
      },
      () => {
        if (current === mine) onEnd('failed');
      },
    );
  };
}

/**
 * Reads the event stream at `url`: `onOpen()` once it answers 200, then `onEvent(type, data)` for each
 * event (`type` is `message` when the event names none; `data` is its text). Resolves with the status
 * when the server refuses the stream, with 200 when an open stream ends; rejects when the connection
 * fails or `signal` aborts it. Sluice ends lines with `\n` only.
 */
export async function readServerEvents(url, { headers, signal, onOpen, onEvent }) {
  const response = await fetch(url, { headers: { ...headers, accept: 'text/event-stream' }, cache: 'no-store', signal });
  if (response.status !== 200 || !response.body) {
    await response.body?.cancel();
    return response.status;
  }
  onOpen();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return 200;
    buffer += value;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      dispatch(buffer.slice(0, end), onEvent);
      buffer = buffer.slice(end + 2);
    }
  }
}

/** One event's lines: `event:` and `data:` fields; comments (the keep-alive) and other fields are skipped. */
function dispatch(block, onEvent) {
  let type = 'message';
  const data = [];
  for (const line of block.split('\n')) {
    const colon = line.indexOf(':');
    if (colon === 0) continue;
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') type = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length > 0) onEvent(type, data.join('\n'));
}
