// The query process's watchdog, a worker thread: it runs while the main thread is busy inside SQLite
// (better-sqlite3 is synchronous, so no timer there can fire mid-statement). It ends the whole process
// when the statement passes its own deadline or the server that started it is gone, so a query process
// never outlives its parent or its deadline, even when the parent was killed without warning. Its poll
// is a plain timer: it lives in a process of its own, outside the server's clock.
import { setInterval } from 'node:timers';
import { workerData } from 'node:worker_threads';

/** @type {{ deadline: BigInt64Array, parent: number, pollMs: number }} */
const { deadline, parent, pollMs } = workerData;

setInterval(() => {
  const due = Number(Atomics.load(deadline, 0));
  if (process.ppid !== parent || (due > 0 && Date.now() > due)) process.kill(process.pid, 'SIGKILL');
}, pollMs);
