import { spawnSync } from 'node:child_process';

export type CredentialStore = { name: string; save(account: string, token: string): void };

const has = (command: string) => spawnSync(command, ['--help'], { stdio: 'ignore' }).error === undefined;

function run(command: string, args: string[], input?: string): void {
  const result = spawnSync(command, args, { input, stdio: ['pipe', 'ignore', 'pipe'], encoding: 'utf8' });
  if (result.error || result.status !== 0) {
    throw new Error(`${command} could not store the token: ${result.error?.message ?? result.stderr.trim()}`);
  }
}

/**
 * The operating system's credential store, when one is available: the login keychain on macOS
 * (`security`), the Secret Service on Linux (`secret-tool`, libsecret). The token goes under service
 * `sluice`, account = the client name. None on other systems.
 */
export function findCredentialStore(platform: NodeJS.Platform = process.platform): CredentialStore | undefined {
  if (platform === 'darwin' && has('security')) {
    return {
      name: 'the macOS login keychain (service "sluice")',
      save: (account, token) => run('security', ['add-generic-password', '-U', '-s', 'sluice', '-a', account, '-w', token]),
    };
  }
  if (platform === 'linux' && has('secret-tool')) {
    return {
      name: 'the Secret Service keyring (service "sluice")',
      save: (account, token) =>
        run('secret-tool', ['store', '--label', `Sluice token for ${account}`, 'service', 'sluice', 'account', account], token),
    };
  }
  return undefined;
}
