// The `sluice` command line, as a person runs it against the running application.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

export function sluice(dataDir, args) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [MAIN, ...args, '--data-dir', dataDir], (error, stdout, stderr) => {
      if (error) reject(new Error(`sluice ${args.slice(0, 2).join(' ')}: ${stderr.trim() || error.message}`));
      else resolve(stdout);
    });
  });
}

/** `sluice connections add`: the running application saves the connection after it answered a check. */
export const addConnection = (dataDir, { id, target }) => sluice(dataDir, ['connections', 'add', '--id', id, '--name', `bench ${id}`, ...target]);
