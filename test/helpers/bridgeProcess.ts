import { spawn } from 'node:child_process';
import { exited, SLUICE_BIN } from './cli.js';

export type Message = Record<string, any>;

/**
 * `sluice bridge` as a stdio client launches it: messages written one per line to its stdin, every
 * stdout line parsed (a line that is not JSON-RPC fails the test that reads it).
 */
export class BridgeProcess {
  readonly child;
  readonly received: Message[] = [];
  readonly stdoutLines: string[] = [];
  #stderr = '';
  #waiters: Array<() => void> = [];

  constructor(dataDir: string, env: NodeJS.ProcessEnv = {}) {
    this.child = spawn(process.execPath, [SLUICE_BIN, 'bridge', '--data-dir', dataDir], {
      env: { ...process.env, SLUICE_TOKEN: '', ...env },
    });
    let partial = '';
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        this.stdoutLines.push(line);
        this.received.push(JSON.parse(line));
      }
      for (const wake of this.#waiters.splice(0)) wake();
    });
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.#stderr += chunk;
    });
  }

  get stderr(): string {
    return this.#stderr;
  }

  send(message: Message): void {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  writeLine(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  /** The first message received (now or later) that `match` accepts. */
  async next(match: (message: Message) => boolean, timeoutMs = 10_000): Promise<Message> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`bridge sent nothing matching; got ${JSON.stringify(this.received)}; stderr ${this.#stderr}`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  /** Sends a request and resolves with the response carrying its id. */
  request(id: string | number, method: string, params: Message = {}): Promise<Message> {
    this.send({ jsonrpc: '2.0', id, method, params });
    return this.responseTo(id);
  }

  responseTo(id: string | number): Promise<Message> {
    return this.next((message) => message.id === id && ('result' in message || 'error' in message));
  }

  /** `initialize` as a 2025-era client sends it, and the `initialized` notification after it. */
  async initialize(capabilities: Message = {}, protocolVersion = '2025-11-25'): Promise<Message> {
    const response = await this.request('init', 'initialize', {
      protocolVersion,
      capabilities,
      clientInfo: { name: 'bridge-suite', title: 'Bridge suite', version: '1.0.0' },
    });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return response;
  }

  async close(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.child.stdin.end();
    return exited(this.child);
  }
}
