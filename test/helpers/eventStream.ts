import { mirroredHeaders, modernMeta } from './testApp.js';

/** An open `text/event-stream` response read frame by frame: JSON frames, and `:` comments as ':'. */
export class EventStream {
  readonly #reader: ReadableStreamDefaultReader<string>;
  readonly #queue: unknown[] = [];
  #buffer = '';
  #done = false;

  constructor(readonly response: Response) {
    this.#reader = (response.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
  }

  /** The next frame; rejects if the stream ends first. */
  async next(): Promise<any> {
    while (this.#queue.length === 0) {
      const cut = this.#buffer.indexOf('\n\n');
      if (cut >= 0) {
        const frame = this.#buffer.slice(0, cut);
        this.#buffer = this.#buffer.slice(cut + 2);
        const data = frame.split('\n').find((line) => line.startsWith('data: '));
        this.#queue.push(data ? JSON.parse(data.slice(6)) : frame.startsWith(':') ? ':' : frame);
        continue;
      }
      if (this.#done) throw new Error('the stream ended');
      const chunk = await this.#reader.read();
      if (chunk.done) this.#done = true;
      else this.#buffer += chunk.value;
    }
    return this.#queue.shift();
  }

  /** Resolves once the server has ended the stream (after any frames still unread). */
  async ended(): Promise<boolean> {
    while (!this.#done) {
      const chunk = await this.#reader.read();
      if (chunk.done) this.#done = true;
      else this.#buffer += chunk.value;
    }
    return true;
  }

  cancel(): Promise<void> {
    return this.#reader.cancel().catch(() => undefined);
  }
}

/** Opens `subscriptions/listen` with the given notifications request. */
export async function listen(
  app: { url: string },
  id: string | number,
  notifications: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<EventStream> {
  const params = { notifications };
  const response = await fetch(app.url, {
    method: 'POST',
    headers: { ...mirroredHeaders('subscriptions/listen', params), ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { ...params, _meta: modernMeta() } }),
    ...(signal ? { signal } : {}),
  });
  return new EventStream(response);
}
