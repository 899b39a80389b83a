import { createRequire } from 'node:module';

/** The service every Sluice secret is filed under; the account names the secret. */
export const CREDENTIAL_SERVICE = 'sluice';

/** A place for secrets, one per account: the OS credential store, or a stand-in in tests. */
export type CredentialStore = {
  /** For messages: "the Secret Service keyring (service "sluice")". */
  readonly name: string;
  get(account: string): string | undefined;
  set(account: string, secret: string): void;
  delete(account: string): void;
};

/** The OS store's name on `platform`, as a person knows it. */
export function osStoreName(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return 'the macOS login keychain';
  if (platform === 'win32') return 'the Windows Credential Manager';
  return 'the Secret Service keyring';
}

/**
 * On Linux the binding would fall back to the kernel keyring, which forgets everything at logout:
 * secrets must stay in the Secret Service or fail loudly.
 */
export const ENTRY_OPTIONS = { linux: { store: 'secret-service' } } as const;

/** Where `@napi-rs/keyring` loads from; the probe's child process requires the same file. */
export const bindingPath = (): string => createRequire(import.meta.url).resolve('@napi-rs/keyring');

type Binding = typeof import('@napi-rs/keyring');

/**
 * The OS credential store through `@napi-rs/keyring` (Keychain, Credential Manager, Secret Service).
 * The binding loads on first use, so that a system without it still runs on the file fallback; ask
 * `probeCredentialStore` first: a Secret Service that does not answer can block a call.
 */
export function osCredentialStore(platform: NodeJS.Platform = process.platform): CredentialStore {
  let binding: Binding | undefined;
  const entry = (account: string) => {
    binding ??= createRequire(import.meta.url)('@napi-rs/keyring') as Binding;
    return new binding.Entry(CREDENTIAL_SERVICE, account, ENTRY_OPTIONS);
  };
  return {
    name: `${osStoreName(platform)} (service "${CREDENTIAL_SERVICE}")`,
    get: (account) => entry(account).getPassword() ?? undefined,
    set: (account, secret) => entry(account).setPassword(secret),
    delete: (account) => {
      entry(account).deletePassword();
    },
  };
}
