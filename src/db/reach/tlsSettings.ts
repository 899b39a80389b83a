import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { isAbsolute } from 'node:path';
import { checkServerIdentity, type ConnectionOptions } from 'node:tls';
import { DriverFailure } from '../driverFailure.js';

/**
 * How a server connection uses TLS, from libpq's URL parameters: `sslmode=disable`
 * (plain, the default), `require` (encrypted, the server not verified), `verify-ca` (its certificate
 * chains to a trusted CA), `verify-full` (that, and the host name is in it); `sslrootcert` is the CA
 * file (else the system's CAs), `sslcert` and `sslkey` the client's certificate and key files.
 * `prefer` and `allow` are refused: they fall back to a plain connection without saying so.
 */
export type SslMode = 'disable' | 'require' | 'verify-ca' | 'verify-full';
export type TlsSettings = { mode: SslMode; rootCert?: string; cert?: string; key?: string };

const MODES: readonly string[] = ['disable', 'require', 'verify-ca', 'verify-full'];
const PARAMETERS = { sslmode: 'mode', sslrootcert: 'rootCert', sslcert: 'cert', sslkey: 'key' } as const;

/** A TLS parameter of a connection URL that cannot be used; the message says which and why. */
export class TlsSettingsError extends Error {}

/**
 * The TLS settings of a URL's query; undefined when it has none. Other parameters are left alone.
 * `namesNeedHostFor` names the server whose driver checks a certificate's names only against a host
 * name (`mysql2`): its verify-full needs one.
 */
export function parseTlsSettings(params: URLSearchParams, host: string, namesNeedHostFor?: string): TlsSettings | undefined {
  const given: Partial<Record<keyof TlsSettings, string>> = {};
  for (const [name, value] of params) {
    const field = PARAMETERS[name as keyof typeof PARAMETERS];
    if (!field) {
      if (name.startsWith('ssl')) throw new TlsSettingsError(`unknown TLS parameter ${name}: use sslmode, sslrootcert, sslcert or sslkey`);
      continue;
    }
    if (given[field] !== undefined) throw new TlsSettingsError(`${name} is given twice`);
    if (value === '') throw new TlsSettingsError(`${name} is empty`);
    if (field !== 'mode' && !isAbsolute(value)) throw new TlsSettingsError(`${name} must be an absolute file path`);
    given[field] = value;
  }
  const { mode = 'disable', rootCert, cert, key } = given;
  if (mode === 'prefer' || mode === 'allow') {
    throw new TlsSettingsError(`sslmode=${mode} is not supported: it falls back to an unencrypted connection without saying so; use sslmode=require (always encrypted) or sslmode=disable`);
  }
  if (!MODES.includes(mode)) throw new TlsSettingsError(`sslmode=${mode} is not one of disable, require, verify-ca, verify-full`);
  if ((cert === undefined) !== (key === undefined)) throw new TlsSettingsError('sslcert and sslkey go together: give both or neither');
  if (Object.keys(given).length === 0) return undefined;
  if (mode === 'verify-full' && namesNeedHostFor !== undefined && isIP(host)) {
    throw new TlsSettingsError(`sslmode=verify-full needs the server's host name for ${namesNeedHostFor}, not the address ${host}: use the name in its certificate, or sslmode=verify-ca`);
  }
  if (mode === 'disable' && (rootCert ?? cert) !== undefined) {
    throw new TlsSettingsError('sslrootcert, sslcert and sslkey need an sslmode other than disable');
  }
  return { mode: mode as SslMode, ...(rootCert ? { rootCert } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}) };
}

/** The contents of one of the settings' files; one that cannot be read fails the connection, naming it. */
function readPem(parameter: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : 'cannot be read';
    throw new DriverFailure('not_connected', `the ${parameter} file ${path} ${reason}`);
  }
}

type Files = { ca?: Buffer; cert?: Buffer; key?: Buffer };

/** The settings' files, read now. */
function filesOf({ rootCert, cert, key }: TlsSettings): Files {
  return {
    ...(rootCert ? { ca: readPem('sslrootcert', rootCert) } : {}),
    ...(cert && key ? { cert: readPem('sslcert', cert), key: readPem('sslkey', key) } : {}),
  };
}

/** As in libpq, `require` with a CA file verifies the chain like `verify-ca`. */
const verifiesChain = ({ mode, rootCert }: TlsSettings) => mode !== 'require' || rootCert !== undefined;

/** `pg`'s `ssl` option (handed to Node's TLS client as it is); false: plain. */
export function postgresSsl(settings: TlsSettings | undefined): ConnectionOptions | false {
  if (!settings || settings.mode === 'disable') return false;
  return {
    ...filesOf(settings),
    rejectUnauthorized: verifiesChain(settings),
    checkServerIdentity: settings.mode === 'verify-full' ? checkServerIdentity : () => undefined,
  };
}

/** `mysql2`'s `ssl` option: it checks the host name itself when `verifyIdentity` is set; undefined: plain. */
export function mysqlSsl(settings: TlsSettings | undefined): (Files & { rejectUnauthorized: boolean; verifyIdentity: boolean }) | undefined {
  if (!settings || settings.mode === 'disable') return undefined;
  return { ...filesOf(settings), rejectUnauthorized: verifiesChain(settings), verifyIdentity: settings.mode === 'verify-full' };
}
