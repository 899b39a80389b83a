import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The folder of Sluice's package.json: the same from `src/` (tests) and from `dist/src/` (built). */
export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('Sluice’s package.json was not found above its code');
    dir = parent;
  }
  root = dir;
  return root;
}
