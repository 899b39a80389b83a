import { connect } from 'node:net';
import { type ControlResponse, controlSocketPath } from '../platform/controlSocket.js';

export class NotRunning extends Error {
  constructor(dataDir: string) {
    super(`Sluice is not running with the support directory ${dataDir} (start it with: sluice serve)`);
  }
}

/** Sends one command to the running application and resolves with its result. */
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
    socket.once('error', (error: NodeJS.ErrnoException) => {
      reject(error.code === 'ENOENT' || error.code === 'ECONNREFUSED' ? new NotRunning(dataDir) : error);
    });
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
