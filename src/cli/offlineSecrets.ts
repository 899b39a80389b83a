import { TOKENS_FILE } from '../auth/tokenStore.js';
import { CONFIG_FILE } from '../db/connections/savedConnections.js';
import { chooseSecretHome, describeSecretHome, SECRETS_ENV, type SecretHome } from '../platform/secretHome.js';

/**
 * The secret home of a command that works on the files while the application is not running: the
 * same choice `sluice serve` makes, said on stderr when the OS store did not answer (not when
 * `SLUICE_SECRETS=file` chose the files).
 */
export function offlineSecretHome(dataDir: string): SecretHome {
  const home = chooseSecretHome(dataDir);
  if (home.target === 'file' && home.reason !== `${SECRETS_ENV}=file`) {
    home.notice(describeSecretHome(home, [TOKENS_FILE, CONFIG_FILE]));
  }
  return home;
}
