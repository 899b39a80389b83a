import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** This sluice as a program to run: the absolute node and `main.js` paths (a `sluice` on PATH may be another one, or none). */
export function sluiceProgram(): string[] {
  return [process.execPath, realpathSync(fileURLToPath(new URL('./main.js', import.meta.url)))];
}
