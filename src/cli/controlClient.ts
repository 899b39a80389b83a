import { connect } from 'node:net';
import { type ControlResponse, controlSocketPath } from '../platform/controlSocket.js';

export class NotRunning extends Error {
  constructor(dataDir: string) {
    super(`Sluice is not running with the support directory ${dataDir} (start it with: sluice serve)`);
  }
}

/** The application closed the control socket before it answered: it stopped, or failed to start. */
export class StoppedBeforeAnswering extends Error {
  constructor(dataDir: string, method: string) {
    super(`Sluice (support directory ${dataDir}) stopped before it answered ${method}: it was stopped, or failed to start`);
  }
}

/**
 * Sends one command to the running application and resolves with its result. An application still
 * starting answers once it is up (its MCP server and console listening, its handshake written).
 */
export function callControl(dataDir: string, method: string, params: Record<string, unknown> = {}): Promise<unknown> {
  const path = controlSocketPath(dataDir);
  if (path === undefined) return Promise.reject(new NotRunning(dataDir));
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    let buffer = '';
    socket.setEncoding('utf8');
    socket.once('connect', () => socket.write(`${JSON.stringify({ id: 1, method, params })}\n`));
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const newline = buffer.indexOf('\n');
      if (newline < 0) return;
      socket.destroy();
      const response = JSON.parse(buffer.slice(0, newline)) as ControlResponse;
      if (response.error !== undefined) reject(new Error(response.error));
      else resolve(response.result);
    });
    const stopped = () => new StoppedBeforeAnswering(dataDir, method);
    socket.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') reject(new NotRunning(dataDir));
      else reject(error.code === 'ECONNRESET' || error.code === 'EPIPE' ? stopped() : error);
    });
    // After an answer or an error this settles nothing: a promise settles once.
    socket.once('close', () => reject(stopped()));
  });
}

/** True when an application answers on this support directory. */
export async function isRunning(dataDir: string): Promise<boolean> {
  try {
    await callControl(dataDir, 'ping');
    return true;
  } catch {
    return false;
  }
}
