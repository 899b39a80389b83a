import { sendHttpError } from '../respond.js';
import type { Guard } from './guard.js';

/** Too many header lines is 431, before any header is looked at. */
export const headerLines: Guard = (req, res, { limits }) => {
  if (req.rawHeaders.length <= 2 * limits.maxHeaderLines) return false;
  sendHttpError(res, 431, 'too_many_headers', `At most ${limits.maxHeaderLines} header lines`, { connection: 'close' });
  return true;
};
