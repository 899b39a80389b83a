import type { IncomingMessage } from 'node:http';
import { ErrorCode, ProtocolError } from '../core/errors.js';
import { TRANSPORT } from '../core/contract.js';

// Decoding a whole buffer keeps no state between calls, so one decoder serves every request.
const utf8 = new TextDecoder('utf-8', { fatal: true });

export const payloadTooLarge = () =>
  new ProtocolError(ErrorCode.PayloadTooLarge, 'Payload too large: the body is over 10 MB');

/**
 * Reads a request body up to `limit` bytes. A declared or actual size over the limit rejects at once;
 * nothing past the limit is kept (the rest of the upload is discarded, then the socket closed). A
 * `watch` sees each chunk as it arrives and may refuse the body by throwing.
 */
export function readBody(req: IncomingMessage, limit = TRANSPORT.maxBodyBytes, watch?: (chunk: Buffer) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      reject(payloadTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const refuse = (error: unknown) => {
      req.off('data', onData);
      chunks.length = 0;
      size = Number.POSITIVE_INFINITY;
      req.resume();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      if (size + chunk.length > limit) return refuse(payloadTooLarge());
      size += chunk.length;
      try {
        watch?.(chunk);
      } catch (error) {
        return refuse(error);
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => {
      if (size === Number.POSITIVE_INFINITY) return;
      try {
        resolve(utf8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)));
      } catch {
        reject(new ProtocolError(ErrorCode.ParseError, 'Parse error: the body is not valid UTF-8'));
      }
    });
    req.once('error', reject);
  });
}
