// A server under test in a process of its own, answering `{ready: port}` once listening.
import { fork } from 'node:child_process';
import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { treeNames, treeResident, treeRss } from './processTree.mjs';
import { median, sleep } from './stats.mjs';

/** `script` is a file of bench/servers, or an absolute path (another tree's server, bench/ab.mjs). */
export async function startServer(script, args = [], execArgv = [], env = {}) {
  const path = isAbsolute(script) ? script : fileURLToPath(new URL(`../servers/${script}`, import.meta.url));
  const child = fork(path, args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv, env: { ...process.env, ...env } });
  const port = await new Promise((resolve, reject) => {
    child.once('message', (message) => resolve(message.ready));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return {
    port,
    pid: child.pid,
    ask: (message) =>
      new Promise((resolve) => {
        child.once('message', resolve);
        child.send(message);
      }),
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

/**
 * Memory of a Sluice server (bench/servers/sluice.mjs), each figure the median of five readings 200 ms
 * apart, each after a forced collection: one reading moves by up to ±20 MB with V8's young generation
 * and the writer thread's allocator. `rss` and `heapUsed` are the server's own process; `treeRss` adds
 * every process it spawned (SQLite query processes and any other child), named in `processes`.
 */
export async function memoryOf(server) {
  const readings = [];
  for (let i = 0; i < 5; i++) {
    if (i > 0) await sleep(200);
    const own = await server.ask('measure');
    readings.push({ ...own, treeRss: treeRss(server.pid), treeResident: treeResident(server.pid) });
  }
  const mid = (key) => median(readings.map((reading) => reading[key]));
  return {
    rss: mid('rss'),
    heapUsed: mid('heapUsed'),
    treeRss: mid('treeRss'),
    treeResident: mid('treeResident'),
    processes: treeNames(server.pid),
    liveActors: Math.max(...readings.map((reading) => reading.liveActors)),
  };
}
