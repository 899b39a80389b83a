import { describe, expect, it } from 'vitest';
import { redact } from '../../../src/db/redact.js';

describe('redact', () => {
  it.each([
    [
      'connect failed: postgres://admin:hunter2@db.internal:5432/prod',
      'connect failed: postgres://admin:***@db.internal:5432/prod',
    ],
    ['mysql://root:s3cr%40t@127.0.0.1/test refused', 'mysql://root:***@127.0.0.1/test refused'],
    ['host=db user=app password=hunter2 dbname=x', 'host=db user=app password=*** dbname=x'],
    ["Server=x;Pwd='hunter 2';Database=y", 'Server=x;Pwd=***;Database=y'],
    [
      'near "ALTER USER app PASSWORD \'hunter2\'": syntax error',
      'near "ALTER USER app PASSWORD \'***\'": syntax error',
    ],
    ["CREATE USER x IDENTIFIED BY 'hunter2'", "CREATE USER x IDENTIFIED BY '***'"],
    ['bad token sl_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789', 'bad token sl_***'],
  ])('%s', (input, expected) => {
    expect(redact(input)).toBe(expected);
    expect(redact(input)).not.toMatch(/hunter|s3cr|AbCdEf/);
  });

  it('leaves ordinary messages alone', () => {
    expect(redact('no such table: books_x')).toBe('no such table: books_x');
  });

  it('removes a connection’s own secrets wherever they appear, and the bridge token', () => {
    const message = 'invalid input syntax for type integer: "Tr0ub4dor&3" (slb_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789)';
    expect(redact(message, ['Tr0ub4dor&3'])).toBe('invalid input syntax for type integer: "***" (slb_***)');
  });

  it('ignores secrets too short to mean anything (a one-letter password would blank the message)', () => {
    expect(redact('a table', ['a'])).toBe('a table');
  });
});
