// Talking to Sluice: the console's JSON documents (GET) and its commands (POST /api/<command>).

const SESSION_ENDED =
  'Your console session has ended (Sluice may have restarted). Run “sluice console” in a terminal for a fresh link.';

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

/** fetch(path, init); resolves to the JSON answer, rejects with an HttpError carrying the server's `error`. */
async function requestJson(path, init) {
  let res;
  try {
    res = await fetch(path, { ...init, credentials: 'same-origin' });
  } catch {
    throw new HttpError(0, 'Sluice cannot be reached. Is it still running?');
  }
  const data = await readJson(res);
  if (!res.ok) {
    const message = res.status === 401 ? SESSION_ENDED : data?.error ?? `The request failed (HTTP ${res.status}).`;
    throw new HttpError(res.status, message);
  }
  return data;
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
