import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkServerIdentity } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { parseServerUrl } from '../../../src/db/connections/connectionUrl.js';
import { DriverFailure } from '../../../src/db/driverFailure.js';
import { mysqlSsl, postgresSsl, TlsSettingsError } from '../../../src/db/reach/tlsSettings.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-tls-'));
const files = { ca: join(dir, 'ca.pem'), cert: join(dir, 'client.pem'), key: join(dir, 'client-key.pem') };
writeFileSync(files.ca, 'CA');
writeFileSync(files.cert, 'CERT');
writeFileSync(files.key, 'KEY');

const tlsOf = (query: string, scheme = 'postgres') => parseServerUrl(`${scheme}://u@db.example/app${query}`)?.tls;
const refused = (query: string) => {
  try {
    tlsOf(query);
  } catch (error) {
    expect(error).toBeInstanceOf(TlsSettingsError);
    return (error as Error).message;
  }
  throw new Error(`accepted ${query}`);
};

describe('TLS parameters on a server URL', () => {
  it('leaves a URL without them plain, in both drivers', () => {
    expect(parseServerUrl('postgres://u@db.example/app')).not.toHaveProperty('tls');
    expect(postgresSsl(tlsOf(''))).toBe(false);
    expect(mysqlSsl(tlsOf('', 'mysql'))).toBeUndefined();
    expect(tlsOf('?sslmode=disable')).toEqual({ mode: 'disable' });
    expect(postgresSsl(tlsOf('?sslmode=disable'))).toBe(false);
    expect(mysqlSsl(tlsOf('?sslmode=disable', 'mysql'))).toBeUndefined();
  });

  it('require: encrypted, the server not verified, unless a CA file is given (then the chain is, as in libpq)', () => {
    const pg = postgresSsl(tlsOf('?sslmode=require'));
    expect(pg).toMatchObject({ rejectUnauthorized: false });
    expect(pg && pg.checkServerIdentity?.('db.example', {} as never)).toBeUndefined();
    expect(mysqlSsl(tlsOf('?sslmode=require', 'mysql'))).toEqual({ rejectUnauthorized: false, verifyIdentity: false });
    expect(postgresSsl(tlsOf(`?sslmode=require&sslrootcert=${files.ca}`))).toMatchObject({ rejectUnauthorized: true, ca: Buffer.from('CA') });
  });

  it('verify-ca checks the chain and not the name; verify-full both', () => {
    const ca = postgresSsl(tlsOf(`?sslmode=verify-ca&sslrootcert=${files.ca}`));
    expect(ca).toMatchObject({ rejectUnauthorized: true, ca: Buffer.from('CA') });
    expect(ca && ca.checkServerIdentity).not.toBe(checkServerIdentity);
    expect(mysqlSsl(tlsOf(`?sslmode=verify-ca&sslrootcert=${files.ca}`, 'mysql'))).toEqual({ ca: Buffer.from('CA'), rejectUnauthorized: true, verifyIdentity: false });
    const full = postgresSsl(tlsOf('?sslmode=verify-full'));
    expect(full).toEqual({ rejectUnauthorized: true, checkServerIdentity });
    expect(mysqlSsl(tlsOf('?sslmode=verify-full', 'mariadb'))).toEqual({ rejectUnauthorized: true, verifyIdentity: true });
  });

  it('reads the client certificate and key from their files', () => {
    const query = `?sslmode=verify-full&sslrootcert=${files.ca}&sslcert=${files.cert}&sslkey=${files.key}`;
    expect(tlsOf(query)).toEqual({ mode: 'verify-full', rootCert: files.ca, cert: files.cert, key: files.key });
    expect(mysqlSsl(tlsOf(query, 'mysql'))).toEqual({
      ca: Buffer.from('CA'),
      cert: Buffer.from('CERT'),
      key: Buffer.from('KEY'),
      rejectUnauthorized: true,
      verifyIdentity: true,
    });
    expect(postgresSsl(tlsOf(query))).toMatchObject({ cert: Buffer.from('CERT'), key: Buffer.from('KEY') });
  });

  it('refuses what it cannot use, saying which parameter and why', () => {
    expect(refused('?sslmode=prefer')).toBe(
      'sslmode=prefer is not supported: it falls back to an unencrypted connection without saying so; use sslmode=require (always encrypted) or sslmode=disable',
    );
    expect(refused('?sslmode=allow')).toMatch(/^sslmode=allow is not supported/);
    expect(refused('?sslmode=on')).toBe('sslmode=on is not one of disable, require, verify-ca, verify-full');
    expect(refused('?sslmode=')).toBe('sslmode is empty');
    expect(refused('?sslmode=require&sslmode=disable')).toBe('sslmode is given twice');
    expect(refused('?sslcrl=/x')).toBe('unknown TLS parameter sslcrl: use sslmode, sslrootcert, sslcert or sslkey');
    expect(refused('?sslmode=verify-ca&sslrootcert=ca.pem')).toBe('sslrootcert must be an absolute file path');
    expect(refused(`?sslmode=require&sslcert=${files.cert}`)).toBe('sslcert and sslkey go together: give both or neither');
    expect(refused(`?sslrootcert=${files.ca}`)).toBe('sslrootcert, sslcert and sslkey need an sslmode other than disable');
    expect(() => parseServerUrl('mysql://u@127.0.0.1/app?sslmode=verify-full')).toThrow(
      "sslmode=verify-full needs the server's host name for MySQL, not the address 127.0.0.1: use the name in its certificate, or sslmode=verify-ca",
    );
    expect(parseServerUrl('postgres://u@127.0.0.1/app?sslmode=verify-full')?.tls).toEqual({ mode: 'verify-full' });
  });

  it('fails the connection, naming the file, when a file is missing', () => {
    const missing = join(dir, 'nope.pem');
    const attempt = () => postgresSsl(tlsOf(`?sslmode=verify-full&sslrootcert=${missing}`));
    expect(attempt).toThrow(DriverFailure);
    expect(attempt).toThrow(`the sslrootcert file ${missing} does not exist`);
    expect(() => mysqlSsl(tlsOf(`?sslmode=require&sslcert=${files.cert}&sslkey=${missing}`, 'mysql'))).toThrow(`the sslkey file ${missing} does not exist`);
  });

  it('keeps other query parameters as they were: ignored', () => {
    expect(parseServerUrl('postgres://u@db.example/app?application_name=x')).not.toHaveProperty('tls');
  });
});
