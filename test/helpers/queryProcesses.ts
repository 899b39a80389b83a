import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Pids of the SQLite query processes this test process has started (Linux `ps`). */
export function queryProcesses(): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes('queryProcess.js'))
    .map((line) => Number.parseInt(line.trim(), 10));
}

/**
 * Pids of the query processes running a statement now: their main thread is running or runnable
 * (state `R` in Linux `/proc/PID/stat`), where an idle one sleeps waiting for a message.
 */
export function busyQueryProcesses(): number[] {
  return queryProcesses().filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).startsWith('R');
    } catch {
      return false;
    }
  });
}

/** Whether some query process of this test process has `path` open (Linux `/proc/PID/fd`). */
export function fileOpenInQueryProcess(path: string): boolean {
  return queryProcesses().some((pid) => {
    try {
      return readdirSync(`/proc/${pid}/fd`).some((fd) => readlinkOrEmpty(`/proc/${pid}/fd/${fd}`) === path);
    } catch {
      return false;
    }
  });
}

function readlinkOrEmpty(link: string): string {
  try {
    return readlinkSync(link);
  } catch {
    return '';
  }
}
