import { resolve } from 'node:path';
import { type CredentialStore, osCredentialStore } from './credentialStore.js';
import { probeCredentialStore, type ProbeResult } from './credentialProbe.js';

/**
 * Where the application's secrets (token salts and hashes, database passwords, SSH key passphrases) are kept: in the OS
 * credential store when it answers, else in the files that hold the rest of each record (mode 0600).
 */
export type SecretHome = {
  /** Where secrets go from now on. */
  readonly target: 'store' | 'file';
  /** The OS credential store when it answered (always, when `target` is `store`). */
  readonly store: CredentialStore | undefined;
  /** Why secrets stay in the files, when they do. */
  readonly reason?: string;
  /** The support directory: part of every account, so that two support directories never share one. */
  readonly namespace: string;
  /** Says what moved where (stderr in the application). */
  readonly notice: (line: string) => void;
};

/** Secrets in the files, for callers (tests, tools) that name no home. */
export const SECRETS_IN_FILES: SecretHome = {
  target: 'file',
  store: undefined,
  reason: 'no credential store was asked',
  namespace: '',
  notice: () => {},
};

/** `SLUICE_SECRETS`: `file` keeps secrets in the files (moving any found in the OS store there). */
export const SECRETS_ENV = 'SLUICE_SECRETS';

export type SecretHomeOptions = {
  env?: NodeJS.ProcessEnv;
  probe?: () => ProbeResult;
  store?: CredentialStore;
  notice?: (line: string) => void;
};

/** The home of `dataDir`'s secrets: the OS store if it answers its probe, else the files, with the reason. */
export function chooseSecretHome(dataDir: string, options: SecretHomeOptions = {}): SecretHome {
  const env = options.env ?? process.env;
  const notice = options.notice ?? ((line: string) => process.stderr.write(`sluice: ${line}\n`));
  const choice = env[SECRETS_ENV] ?? '';
  if (choice !== '' && choice !== 'file') {
    throw new Error(`${SECRETS_ENV} must be "file" or unset, not "${choice}"`);
  }
  const probe = (options.probe ?? probeCredentialStore)();
  const store = probe.ok ? (options.store ?? osCredentialStore()) : undefined;
  const namespace = resolve(dataDir);
  if (choice === 'file') return { target: 'file', store, reason: `${SECRETS_ENV}=file`, namespace, notice };
  if (!probe.ok) return { target: 'file', store: undefined, reason: probe.reason, namespace, notice };
  return { target: 'store', store, namespace, notice };
}

/** The account of one secret: its kind, its id and the support directory. */
export const secretAccount = (home: SecretHome, kind: 'token' | 'connection' | 'connection-ssh', id: string): string =>
  `${kind}:${id}@${home.namespace}`;

/** The line the application says at start: which store holds its secrets, or why they stay in `files`. */
export function describeSecretHome(home: SecretHome, files: string[]): string {
  const inFiles = `${files.join(' and ')} in ${home.namespace} (mode 0600)`;
  if (home.target === 'store') return `secrets are in ${home.store?.name}`;
  return `${home.reason}; secrets stay in ${inFiles}`;
}

/** One secret of a file's record: its account, and its value when the file itself holds it. */
export type SecretSlot = { account: string; inFile: string | undefined };

/**
 * Finds each slot's secret and moves it to the home's target: store-bound secrets are written to the
 * store before `rewrite` takes them out of the file, file-bound ones are deleted from the store only
 * after `rewrite` put them in, so a crash between the two leaves a secret in both places, never in
 * neither. Returns the secrets found and the accounts whose secret is nowhere to be read.
 */
export function settleSecrets(
  home: SecretHome,
  slots: SecretSlot[],
  what: { file: string; noun: string },
  rewrite: (found: Map<string, string>) => void,
): { found: Map<string, string>; missing: string[] } {
  const found = new Map<string, string>();
  const missing: string[] = [];
  const { store } = home;
  let toStore = 0;
  let fromStore = 0;
  for (const { account, inFile } of slots) {
    const secret = inFile ?? store?.get(account);
    if (secret === undefined) missing.push(account);
    else found.set(account, secret);
    if (inFile !== undefined && home.target === 'store') {
      store?.set(account, inFile);
      toStore += 1;
    }
    if (inFile === undefined && secret !== undefined && home.target === 'file') fromStore += 1;
  }
  if (toStore + fromStore > 0) rewrite(found);
  if (home.target === 'file' && store) {
    // Also clears what an earlier move left in the store when it stopped after its rewrite.
    for (const { account } of slots) if (found.has(account)) store.delete(account);
  }
  const count = (n: number) => `${n} ${what.noun}${n === 1 ? '' : 's'}`;
  if (toStore > 0) home.notice(`moved ${count(toStore)} from ${what.file} into ${store?.name}`);
  if (fromStore > 0) home.notice(`moved ${count(fromStore)} from ${store?.name} into ${what.file}`);
  if (missing.length > 0) {
    const where = store ? `in neither ${what.file} nor ${store.name}` : `not in ${what.file}, and no credential store answered`;
    home.notice(`${count(missing.length)} ${where}, so unusable: ${missing.map((a) => a.split('@')[0]).join(', ')}`);
  }
  return { found, missing };
}
