import { execFileSync } from 'node:child_process';

/** Pids of the SQLite query processes this test process has started (Linux `ps`). */
export function queryProcesses(): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes('queryProcess.js'))
    .map((line) => Number.parseInt(line.trim(), 10));
}
